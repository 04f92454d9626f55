//! The registry of every multicast scheme a mesh NI can run ("on
//! the cycle model"): the path-based schemes of `pathbased::scheme` plus the
//! tree schemes, each turned into the header flits of its worms by one
//! function, [`MeshScheme::plan`], which `network` calls for every message.
//!
//! Tree schemes:
//! * `vh`, `diag`, `dds`, `min`: the thesis trees (\[THESIS\]
//!   §3.2, `meshtree`) on a fault-free mesh;
//! * `ft-s1`, `ft-s2`, `ft-s3`: \[FTTREE\] Strategies
//!   1–3 (`ftmesh::multicast`, seeded per message) on a mesh with faulty
//!   blocks (fault-free allowed);
//! * `ft-unicast`: \[FTTREE\]'s baseline, multiple unicast: one
//!   one-destination fault-tolerant route (a worm) per destination.
//!
//! A tree becomes worms through `treeworm::encode_worms` with the router's
//! own routing function ([`router_route`]), so turn points and detached
//! branches are computed against exactly what the routers will do. Tree
//! schemes accept `dor` and `negative_first` (one class, minimal, functions
//! of (node, target) only); `hamiltonian` is refused because its two
//! channel classes follow label order, which a tree's branches do not.
//! Unicasts are the scheme's one-destination tree.

use super::{encode_worms, NodeTree};
use crate::config::RoutingKind;
use crate::error::{InputError, InputResult};
use crate::flit::Head;
use crate::ftmesh::{FaultyMesh, Strategy};
use crate::meshtree::{Algorithm, Grid, Point};
use crate::pathbased::scheme::Scheme;
use crate::router::mesh::{address, MeshConsts};
use crate::topology::{Dir, NodeId, Topology};

/// A multicast scheme on a mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshScheme {
    /// Path-based.
    Path(Scheme),
    /// A thesis tree (fault-free mesh).
    Tree(Algorithm),
    /// A \[FTTREE\] fault-tolerant tree with one of Strategies 1–3.
    Ft(Strategy),
    /// \[FTTREE\]'s multiple-unicast baseline on a faulty mesh.
    FtUnicast,
}

/// `traffic.multicast_scheme` as written: `auto` (the routing function's
/// default) or a scheme by name. Which schemes a routing function runs is
/// checked against `network.routing` by [`SchemeName::for_routing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemeName {
    Auto,
    Named(MeshScheme),
}

impl SchemeName {
    /// The scheme under `routing`, naming `field` if the routing function
    /// does not run it ([`MeshScheme::parse`] explains why).
    pub fn for_routing(self, routing: RoutingKind, field: &str) -> InputResult<MeshScheme> {
        MeshScheme::parse(&self.to_string(), routing, field)
    }
}

impl std::str::FromStr for SchemeName {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<SchemeName> {
        if s == "auto" {
            return Ok(SchemeName::Auto);
        }
        let all = MeshScheme::all();
        all.iter()
            .find(|k| k.name() == s)
            .map(|&k| SchemeName::Named(k))
            .ok_or_else(|| {
                let by_routing: Vec<String> = RoutingKind::ALL
                    .into_iter()
                    .filter(|r| r.is_mesh())
                    .map(|r| {
                        let names: Vec<&str> = all
                            .iter()
                            .filter(|k| k.accepts(r))
                            .map(|k| k.name())
                            .collect();
                        format!("with routing = \"{r}\": {}", names.join(", "))
                    })
                    .collect();
                InputError::new(
                    "multicast_scheme",
                    s,
                    format!(
                        "auto, or a mesh multicast scheme: {}",
                        by_routing.join("; ")
                    ),
                )
            })
    }
}

impl std::fmt::Display for SchemeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemeName::Auto => f.write_str("auto"),
            SchemeName::Named(k) => f.write_str(k.name()),
        }
    }
}

/// What the NI sends for one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Header flits of each worm (`Node` = the routing's address).
    pub worms: Vec<Vec<Head>>,
    /// Class of the worms.
    pub class: u8,
    /// Destinations the scheme cannot reach (\[FTTREE\]: no fault-free
    /// minimal path); not in any worm.
    pub unreachable: Vec<NodeId>,
}

impl MeshScheme {
    /// Every scheme, path-based first.
    pub fn all() -> Vec<MeshScheme> {
        let mut v: Vec<MeshScheme> = Scheme::ALL.into_iter().map(MeshScheme::Path).collect();
        v.extend(Algorithm::ALL.into_iter().map(MeshScheme::Tree));
        v.extend(Strategy::ALL.into_iter().map(MeshScheme::Ft));
        v.push(MeshScheme::FtUnicast);
        v
    }

    /// The scenario name (`traffic.multicast_scheme`).
    pub fn name(self) -> &'static str {
        match self {
            MeshScheme::Path(k) => k.name(),
            MeshScheme::Tree(Algorithm::Vh) => "vh",
            MeshScheme::Tree(Algorithm::Diag) => "diag",
            MeshScheme::Tree(Algorithm::Dds) => "dds",
            MeshScheme::Tree(Algorithm::Min) => "min",
            MeshScheme::Ft(Strategy::Random) => "ft-s1",
            MeshScheme::Ft(Strategy::Offset) => "ft-s2",
            MeshScheme::Ft(Strategy::Greedy) => "ft-s3",
            MeshScheme::FtUnicast => "ft-unicast",
        }
    }

    /// Whether the scheme runs on routing `kind`.
    pub fn accepts(self, kind: RoutingKind) -> bool {
        match self {
            MeshScheme::Path(k) => k.routing() == kind,
            _ => matches!(kind, RoutingKind::Dor | RoutingKind::NegativeFirst),
        }
    }

    /// The routing a sweep sets for the scheme (tree schemes: XY).
    pub fn default_routing(self) -> RoutingKind {
        match self {
            MeshScheme::Path(k) => k.routing(),
            _ => RoutingKind::Dor,
        }
    }

    /// Whether the scheme routes around faulty blocks (\[FTTREE\]).
    pub fn fault_tolerant(self) -> bool {
        matches!(self, MeshScheme::Ft(_) | MeshScheme::FtUnicast)
    }

    /// Parses a scheme name for `routing`, naming `field` on error (`auto`:
    /// the routing's default path-based scheme).
    pub fn parse(s: &str, routing: RoutingKind, field: &str) -> InputResult<MeshScheme> {
        let names: Vec<&str> = MeshScheme::all()
            .into_iter()
            .filter(|k| k.accepts(routing))
            .map(|k| k.name())
            .collect();
        let allowed = format!(
            "with routing = \"{}\": auto, {}",
            routing.name(),
            names.join(", ")
        );
        if let Some(k) = MeshScheme::all().into_iter().find(|k| k.name() == s) {
            if let MeshScheme::Path(_) = k {
                // The path-based parser explains its own refusals.
                return Scheme::parse(s, routing, field).map(MeshScheme::Path);
            }
            return if k.accepts(routing) {
                Ok(k)
            } else {
                Err(InputError::new(field, s, allowed))
            };
        }
        if s == "auto" {
            return Scheme::parse(s, routing, field).map(MeshScheme::Path);
        }
        Err(InputError::new(field, s, allowed))
    }

    /// The worms of a message from `s` to `dests` (sorted, distinct, not
    /// `s`) on mesh `fm` (its blocks; none for a fault-free mesh) under
    /// routing `kind`. `seed` drives \[FTTREE\]'s random choices.
    pub fn plan(
        self,
        kind: RoutingKind,
        fm: &FaultyMesh,
        s: NodeId,
        dests: &[NodeId],
        seed: u64,
    ) -> InputResult<Plan> {
        let topo = &fm.topo;
        if !self.accepts(kind) {
            return Err(InputError::new(
                "traffic.multicast_scheme",
                self.name(),
                format!("a scheme for routing = \"{}\"", kind.name()),
            ));
        }
        if !self.fault_tolerant() && !fm.blocks.is_empty() {
            return Err(InputError::new(
                "traffic.multicast_scheme",
                self.name(),
                "ft-s1, ft-s2, ft-s3 or ft-unicast on a mesh with faulty nodes or links",
            ));
        }
        let route = router_route(kind, topo);
        let to_heads = |tree: &NodeTree| -> InputResult<Vec<Vec<Head>>> {
            Ok(encode_worms(topo, tree, &route, 0)?
                .into_iter()
                .map(|(_, hs)| {
                    hs.into_iter()
                        .map(|h| Head {
                            node: address(kind, topo, h.node),
                            ..h
                        })
                        .collect()
                })
                .collect())
        };
        let coord = |n: NodeId| topo.coord(n);
        match self {
            MeshScheme::Path(k) => {
                let (worms, class) = k.heads(topo, s, dests)?;
                Ok(Plan {
                    worms,
                    class,
                    unreachable: Vec::new(),
                })
            }
            MeshScheme::Tree(alg) => {
                let grid = Grid::mesh2(topo.k as usize, topo.m as usize)?;
                let pt = |n: NodeId| {
                    let (x, y) = coord(n);
                    Point([x as u16, y as u16, 0])
                };
                let ds: Vec<Point> = dests.iter().map(|&d| pt(d)).collect();
                let t = crate::meshtree::build(alg, &grid, pt(s), &ds)?;
                Ok(Plan {
                    worms: to_heads(&NodeTree::from_meshtree(topo, &t)?)?,
                    class: 0,
                    unreachable: Vec::new(),
                })
            }
            MeshScheme::Ft(strategy) => {
                let ds: Vec<_> = dests.iter().map(|&d| coord(d)).collect();
                let ft = crate::ftmesh::multicast(fm, coord(s), &ds, strategy, seed)?;
                let mut unreachable: Vec<NodeId> =
                    ft.unreachable.iter().map(|c| topo.id(c.0, c.1)).collect();
                unreachable.sort_unstable();
                let worms = if ft.routed.is_empty() {
                    Vec::new()
                } else {
                    to_heads(&NodeTree::from_ftree(topo, &ft.tree)?)?
                };
                Ok(Plan {
                    worms,
                    class: 0,
                    unreachable,
                })
            }
            MeshScheme::FtUnicast => {
                let mut plan = Plan {
                    worms: Vec::new(),
                    class: 0,
                    unreachable: Vec::new(),
                };
                for &d in dests {
                    let one = MeshScheme::Ft(Strategy::Greedy).plan(kind, fm, s, &[d], seed)?;
                    plan.worms.extend(one.worms);
                    plan.unreachable.extend(one.unreachable);
                }
                Ok(plan)
            }
        }
    }
}

/// The router's own mesh routing function on node ids: the port
/// `MeshConsts::route` gives at `u` for a header addressed to `v`, exactly
/// as the routers compute it (so the encoder's turn points are the ones the
/// fabric needs).
pub fn router_route(
    kind: RoutingKind,
    topo: &Topology,
) -> impl Fn(NodeId, NodeId) -> Option<Dir> + '_ {
    move |u, v| {
        MeshConsts::for_routing(kind, topo, u)
            .route(kind, address(kind, topo, v))
            .ok()
            .flatten()
    }
}
