//! Router configuration: the per-instance constants a router is generated or
//! simulated with. One definition for the native model and the RTL (where
//! these become per-instance `Constant`s / `localparam`s).
//!
//! This is the router contract, so it sits below the routing functions
//! (`router::{routing, mesh}`): the table types they read and their builders
//! live here (`mesh_table`, `spam_table`; the tree table is
//! `trees::spanning::TreeTable`), and nothing here imports `router`.

pub mod mesh_table;
pub mod spam_table;

use crate::error::{InputError, InputResult};
use crate::flit::{FlitFormat, MAX_CLASSES};
use crate::topology::{Dir, NodeId, Topology};
use crate::trees::spanning::{SpanningTree, TreeTable};

/// Largest input buffer depth; the FIFO is a fixed array of this size so a
/// router state never allocates.
pub const MAX_DEPTH: usize = 8;
/// Largest number of injection or consumption channels.
pub const MAX_LOCAL: usize = 4;
/// Inputs: 4 links + up to MAX_LOCAL injection channels.
pub const MAX_INPUTS: usize = 4 + MAX_LOCAL;
/// Outputs: 4 links + up to MAX_LOCAL consumption channels.
pub const MAX_OUTPUTS: usize = 4 + MAX_LOCAL;

/// The routing function, a sub-block chosen at generation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutingKind {
    /// Up/down on a spanning tree, one table per class (DSTM, \[DSTM\] §3).
    Tree,
    /// SPAM baseline (\[DSTM\] §2): one BFS tree plus cross links, one
    /// class, per-router table by (target, phase); native model and RTL
    /// (`rtl/src/decode/mod.rs`).
    Spam,
    /// Hamiltonian R on a mesh (\[PATHOPT\] §2.1): snake-label addresses, two
    /// classes (label-increasing HIGH = 0, decreasing LOW = 1).
    Hamiltonian,
    /// Dimension-ordered XY on a mesh (e-cube), one class.
    Dor,
    /// Deterministic negative-first on a mesh (\[BRCP\] §3.1), one class.
    NegativeFirst,
}

impl RoutingKind {
    /// The mesh routing functions of `router::mesh`.
    pub fn is_mesh(self) -> bool {
        matches!(
            self,
            RoutingKind::Hamiltonian | RoutingKind::Dor | RoutingKind::NegativeFirst
        )
    }

    /// Channel classes the routing function uses.
    pub fn mesh_classes(self) -> usize {
        if self == RoutingKind::Hamiltonian {
            2
        } else {
            1
        }
    }

    pub const ALL: [RoutingKind; 5] = [
        RoutingKind::Tree,
        RoutingKind::Spam,
        RoutingKind::Hamiltonian,
        RoutingKind::Dor,
        RoutingKind::NegativeFirst,
    ];

    /// Parses a routing name ([`RoutingKind::name`]); the error names
    /// `field` and lists every routing function with its topology.
    pub fn parse(s: &str, field: &str) -> InputResult<RoutingKind> {
        RoutingKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| {
                InputError::new(
                    field,
                    s,
                    "tree or spam (torus); hamiltonian, dor or negative_first (mesh)",
                )
            })
    }

    /// Scenario name (`network.routing`).
    pub fn name(self) -> &'static str {
        match self {
            RoutingKind::Tree => "tree",
            RoutingKind::Spam => "spam",
            RoutingKind::Hamiltonian => "hamiltonian",
            RoutingKind::Dor => "dor",
            RoutingKind::NegativeFirst => "negative_first",
        }
    }
}

/// `network.routing` as written: a scenario deserialises straight into the
/// routing function, so a bad name is reported at the parse.
impl std::str::FromStr for RoutingKind {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<RoutingKind> {
        RoutingKind::parse(s, "routing")
    }
}

impl std::fmt::Display for RoutingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

named_enum! {
    /// The router's per-hop timing contract (docs/router.md "Link protocol
    /// and timing"). Both contracts carry the same worms over the same
    /// paths with the same reservations, so routing, deadlock freedom and
    /// every delivery are the same; only when each flit moves differs.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
    pub enum Hop("hop") {
        /// 3 cycles a first HEAD and 2 any other flit per hop: link
        /// register (the input FIFO), arbitration, output register.
        #[default]
        Standard = "standard",
        /// 2 cycles a first HEAD and 1 a BODY or TAIL per hop on a free
        /// path: a first HEAD granted an output it does not strip loads
        /// that output register at the grant, and a BODY or TAIL that
        /// arrives at the empty FIFO of a link input holding its outputs
        /// goes straight into them (a FIFO bypass). Why these two: the
        /// header decode stays one registered stage after the link, so
        /// the router keeps its one-cycle arbitration and atomic
        /// reservation, and data pays one register per hop, the link's
        /// (docs/decisions.md "The fast hop").
        Fast = "fast",
    }
}

/// Generation parameters shared by all routers of a fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterParams {
    pub flit: FlitFormat,
    /// Input buffer depth in flits (1..=MAX_DEPTH).
    pub depth: usize,
    /// Injection channels (inputs 4..4+injection).
    pub injection: usize,
    /// Consumption channels (outputs 4..4+consumption).
    pub consumption: usize,
    /// Channel classes (trees).
    pub classes: usize,
    pub routing: RoutingKind,
    /// Header setup delay: a first HEAD at an idle input requests only after
    /// it has been at its FIFO head this many cycles (0 = none). The RTL
    /// twin has the same counter (`in_setup`).
    pub setup_cycles: u32,
    /// Deferred strip: a first HEAD stripped at its grant leaves its FIFO
    /// one cycle later instead of at the grant's edge (one more cycle at
    /// each router that strips). Off by default; the RTL twin is
    /// `in_strip`.
    pub strip_deferred: bool,
    /// The per-hop timing contract ([`Hop`]); the RTL twin has no register
    /// of its own for it, only the two shortcuts' logic.
    pub hop: Hop,
}

impl Default for RouterParams {
    fn default() -> Self {
        RouterParams {
            flit: FlitFormat::default(),
            depth: 2,
            injection: 1,
            consumption: 2,
            classes: 2,
            routing: RoutingKind::Tree,
            setup_cycles: 0,
            strip_deferred: false,
            hop: Hop::Standard,
        }
    }
}

impl RouterParams {
    pub fn validate(&self) -> InputResult<()> {
        if !(1..=MAX_DEPTH).contains(&self.depth) {
            return Err(InputError::new(
                "buffer_depth",
                self.depth,
                format!("an integer from 1 to {MAX_DEPTH}"),
            ));
        }
        if !(1..=MAX_LOCAL).contains(&self.injection) {
            return Err(InputError::new(
                "injection_channels",
                self.injection,
                format!("1 to {MAX_LOCAL}"),
            ));
        }
        if !(1..=MAX_LOCAL).contains(&self.consumption) {
            return Err(InputError::new(
                "consumption_channels",
                self.consumption,
                format!("1 to {MAX_LOCAL}"),
            ));
        }
        if !(1..=MAX_CLASSES as usize).contains(&self.classes) {
            return Err(InputError::new(
                "classes",
                self.classes,
                format!("1 to {MAX_CLASSES}"),
            ));
        }
        if self.setup_cycles > 255 {
            return Err(InputError::new(
                "header_setup_cycles",
                self.setup_cycles,
                "0 to 255",
            ));
        }
        if self.routing == RoutingKind::Spam && self.classes != 1 {
            return Err(InputError::new(
                "classes",
                self.classes,
                "1 with SPAM routing (one tree, one class)",
            ));
        }
        if self.routing.is_mesh() && self.classes != self.routing.mesh_classes() {
            return Err(InputError::new(
                "classes",
                self.classes,
                format!(
                    "{} with {} routing",
                    self.routing.mesh_classes(),
                    self.routing.name()
                ),
            ));
        }
        Ok(())
    }

    pub fn inputs(&self) -> usize {
        4 + self.injection
    }

    pub fn outputs(&self) -> usize {
        4 + self.consumption
    }

    /// The consumption channels a worm of `class` may be delivered on, as a
    /// bit mask over channels (bit j = channel j). With at least as many
    /// channels as classes, class c owns every channel j with
    /// j mod classes = c, so worms of different classes never wait on one
    /// another's channel (docs/architecture.md §3); with fewer, classes share channel
    /// c mod consumption. A C=1 header takes the lowest free channel of its
    /// pool, else the lowest of the pool (see `router::routing`).
    pub fn consumption_pool(&self, class: u8) -> u8 {
        self.pool_of(class, self.classes)
    }

    /// The consumption pool of group `g` out of `groups` (the same rule as
    /// [`Self::consumption_pool`] with groups in place of classes). Mesh
    /// routing groups by arrival (`router::mesh::MeshConsts::cons_group`).
    pub fn pool_of(&self, g: u8, groups: usize) -> u8 {
        let c = g as usize;
        if self.consumption >= groups {
            (0..self.consumption)
                .filter(|j| j % groups == c)
                .fold(0, |m, j| m | 1 << j)
        } else {
            1 << (c % self.consumption)
        }
    }
}

/// Per-router constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterConfig {
    pub node: NodeId,
    /// Addresses in `Node` must be below this (the number of nodes).
    pub node_count: u32,
    /// Class of the channel arriving at each input port O1..O4; `None` if
    /// the link is missing (mesh edge), unused by every class, or faulty.
    pub in_class: [Option<u8>; 4],
    /// Class of the channel leaving through each output port O1..O4. Equal to
    /// `in_class` when a class owns whole links (trees); the two directions
    /// of one link differ where a class is a direction (Hamiltonian high/low
    /// channels, \[PATHOPT\] §3).
    pub out_class: [Option<u8>; 4],
    /// Per class: the tree table.
    pub tree: Vec<TreeTable>,
    /// SPAM routing table (`RoutingKind::Spam` only): per target and phase
    /// the output port, N×3 entries of 2 bits.
    pub spam: Option<spam_table::SpamTable>,
    /// Faulty link outputs (bit d = port O(d+1)) whose branches this router
    /// diverts to its own node: local fault information, \[DSTM\] §7 (see
    /// `router::routing::diversion`). 0 = none, the default. The RTL twin
    /// takes it as a generation-time constant (`rtl/src/decode/mod.rs`).
    pub divert_out: u8,
    /// Mesh routing constants (`RoutingKind::{Hamiltonian, Dor,
    /// NegativeFirst}` only).
    pub mesh: Option<mesh_table::MeshConsts>,
}

impl RouterConfig {
    /// Configures every router of `topo` for tree routing over `trees`
    /// (class `c` = `trees[c]`). Links in no tree, and links in `faulty`, get
    /// no class. Class `c` is consumed on its
    /// [`RouterParams::consumption_pool`].
    pub fn for_trees(
        topo: &Topology,
        trees: &[SpanningTree],
        params: &RouterParams,
        faulty: &[crate::topology::EdgeId],
    ) -> InputResult<Vec<RouterConfig>> {
        params.validate()?;
        params.flit.check_nodes(topo.nodes())?;
        if trees.len() != params.classes {
            return Err(InputError::new(
                "classes",
                params.classes,
                format!("must equal the number of trees ({})", trees.len()),
            ));
        }
        Ok((0..topo.nodes())
            .map(|u| {
                let mut link_class = [None; 4];
                for d in Dir::ALL {
                    if let Some(e) = topo.edge(u, d) {
                        if !faulty.contains(&e) {
                            link_class[d.index()] = trees
                                .iter()
                                .position(|t| t.contains_edge(e))
                                .map(|c| c as u8);
                        }
                    }
                }
                RouterConfig {
                    node: u,
                    node_count: topo.nodes(),
                    in_class: link_class,
                    out_class: link_class,
                    tree: trees.iter().map(|t| t.table(u)).collect(),
                    spam: None,
                    divert_out: 0,
                    mesh: None,
                }
            })
            .collect())
    }

    /// Local fault information (\[DSTM\] §7): the two routers at the ends
    /// of faulty link `f` divert branches that would cross it to their own
    /// node. A link on no tree is never routed to, so marking it changes
    /// nothing; callers mark tree links only.
    pub fn set_diversion(cfgs: &mut [RouterConfig], topo: &Topology, f: crate::topology::EdgeId) {
        for u in 0..topo.nodes() {
            for d in Dir::ALL {
                if topo.edge(u, d) == Some(f) {
                    cfgs[u as usize].divert_out |= 1 << d.index();
                }
            }
        }
    }

    /// Configures every router for SPAM routing on `tree` (class 0 on every
    /// working link: tree links and cross links alike).
    pub fn for_spam(
        topo: &Topology,
        tree: &SpanningTree,
        params: &RouterParams,
        faulty: &[crate::topology::EdgeId],
    ) -> InputResult<Vec<RouterConfig>> {
        params.validate()?;
        params.flit.check_nodes(topo.nodes())?;
        if params.routing != RoutingKind::Spam {
            return Err(InputError::new("routing", "tree", "spam for SPAM tables"));
        }
        if topo.nodes() > spam_table::SPAM_MAX_NODES {
            return Err(InputError::new(
                "network.topology",
                topo,
                format!(
                    "at most {} nodes (64×64) with SPAM routing: every router keeps a 3-byte entry per node, 3·N² bytes in all ({} MiB here); use tree routing for larger networks",
                    spam_table::SPAM_MAX_NODES,
                    (3 * topo.nodes() as u64 * topo.nodes() as u64) >> 20
                ),
            ));
        }
        let tables = spam_table::tables(tree, faulty);
        Ok(tables
            .into_iter()
            .enumerate()
            .map(|(u, t)| {
                let u = u as NodeId;
                let mut link_class = [None; 4];
                for d in Dir::ALL {
                    if let Some(e) = topo.edge(u, d) {
                        if !faulty.contains(&e) {
                            link_class[d.index()] = Some(0);
                        }
                    }
                }
                RouterConfig {
                    node: u,
                    node_count: topo.nodes(),
                    in_class: link_class,
                    out_class: link_class,
                    tree: vec![tree.table(u)],
                    spam: Some(t),
                    divert_out: 0,
                    mesh: None,
                }
            })
            .collect())
    }

    /// Cuts the nodes `excluded` says out of the fabric (faulty and disabled
    /// nodes of a mesh, \[FTTREE\] Definition 1): every link touching one
    /// loses its class, so `Fabric::new` leaves it unwired and a header
    /// routed onto it is `BadLink`.
    pub fn exclude_nodes(
        cfgs: &mut [RouterConfig],
        topo: &Topology,
        excluded: &dyn Fn(NodeId) -> bool,
    ) {
        for u in 0..topo.nodes() {
            for d in Dir::ALL {
                let cut = excluded(u) || topo.neighbor(u, d).is_some_and(excluded);
                if cut {
                    cfgs[u as usize].in_class[d.index()] = None;
                    cfgs[u as usize].out_class[d.index()] = None;
                }
            }
        }
    }

    /// Configures every router of mesh `topo` for a mesh routing function
    /// (`params.routing`): per-router address constants, link classes from
    /// the function (Hamiltonian: HIGH toward a larger label). The `Node`
    /// field must hold the routing's address space.
    pub fn for_mesh(topo: &Topology, params: &RouterParams) -> InputResult<Vec<RouterConfig>> {
        use mesh_table::{address_space, MeshConsts};
        params.validate()?;
        let kind = params.routing;
        if !kind.is_mesh() || topo.is_torus() {
            return Err(InputError::new(
                "network.routing",
                kind.name(),
                "hamiltonian, dor or negative_first on a mesh (`mesh:KxM`)",
            ));
        }
        params.flit.check_nodes(address_space(kind, topo))?;
        Ok((0..topo.nodes())
            .map(|u| {
                let c = MeshConsts::new(kind, topo, u);
                RouterConfig {
                    node: u,
                    node_count: topo.nodes(),
                    in_class: Dir::ALL.map(|d| c.in_class(kind, d)),
                    out_class: Dir::ALL.map(|d| c.out_class(kind, d)),
                    tree: Vec::new(),
                    spam: None,
                    mesh: Some(c),
                    divert_out: 0,
                }
            })
            .collect())
    }
}
