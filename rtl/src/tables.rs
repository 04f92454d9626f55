//! The per-node tables of a router, as the values of the router module's
//! `t_*` input ports (one router module for every node: docs/hardware.md §0).
//!
//! Everything that differs between two routers of one network lives here:
//! the tree tables of every class (own post-order number, parent port,
//! child ranges), the link classes, the arrival class and consumption pool
//! of every input, the outputs each input can reach and the inputs that
//! can own each output, the faulty outputs (local fault information), the
//! SPAM column of every input, and the mesh routing constants. Whatever is the
//! same for every router of the network (routing function, classes,
//! depths, setup delay, address space) stays a generation-time constant of
//! the module, so the generated router text is identical for every node
//! and a fabric instantiates it once per node with these values tied off.
//! Tied-off inputs are constants to synthesis: flattening propagates them
//! exactly as the old per-node `localparam`s did.
//!
//! This is the one list of table ports: the rust-hdl router drives its
//! ports from it ([`crate::router::Router::with_fault`]), and the Verilog
//! generator ties them off from it ([`crate::generate`]), in the same order.

use crate::hw::*;
use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};
use wormcast_sim::router::routing;
use wormcast_sim::router::spam::NO_PORT;
use wormcast_sim::trees::TreeTable;

/// One table port group: `t_{name}$0 … t_{name}${len-1}`, each `width` bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    pub width: usize,
    pub values: Vec<u64>,
}

impl Table {
    /// The Verilog port of entry `j`.
    pub fn port(&self, j: usize) -> String {
        format!("t_{}${j}", self.name)
    }
}

/// The tables of one router, in port order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTables {
    pub tables: Vec<Table>,
}

/// Sizes of the table port groups, which depend on the network only (the
/// same for every node): classes, inputs, SPAM column length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableShape {
    pub classes: usize,
    /// Classes with a tree table: all of them with tree and SPAM routing,
    /// none with a mesh routing function (which has no tree block).
    pub tree_classes: usize,
    pub inputs: usize,
    pub spam_n: usize,
    /// Mesh own-address entries (1 with mesh routing, else 0) and
    /// neighbour-label entries (4 with Hamiltonian routing, else 0).
    pub mesh: usize,
    pub nbr: usize,
}

impl TableShape {
    pub fn new(cfg: &RouterConfig, p: &RouterParams) -> Self {
        TableShape {
            classes: p.classes,
            tree_classes: if p.routing.is_mesh() { 0 } else { p.classes },
            inputs: p.inputs(),
            spam_n: if p.routing == RoutingKind::Spam {
                cfg.node_count as usize
            } else {
                0
            },
            mesh: p.routing.is_mesh() as usize,
            nbr: 4 * (p.routing == RoutingKind::Hamiltonian) as usize,
        }
    }
}

impl NodeTables {
    /// The tables of the router configured by `cfg`, with the flit width
    /// `p.flit.width` for addresses.
    pub fn new(cfg: &RouterConfig, p: &RouterParams) -> Self {
        let w = p.flit.width as usize;
        let sh = TableShape::new(cfg, p);
        let mesh = p.routing.is_mesh();
        let mut t = Vec::new();
        let mut push = |name, width, values: Vec<u64>| {
            t.push(Table {
                name,
                width,
                values,
            })
        };
        // Mesh routing has no tree tables (and no tree block).
        let tree: Vec<TreeTable> = (0..sh.tree_classes)
            .map(|c| {
                cfg.tree.get(c).copied().unwrap_or(TreeTable {
                    own: 0,
                    parent: None,
                    child: [None; 4],
                })
            })
            .collect();
        // The tree block compares addresses on their low bits only
        // (`node_mask`), which is exact only while every label fits them.
        for t in &tree {
            let labels = [t.own]
                .into_iter()
                .chain(t.child.iter().flatten().flat_map(|&(lo, hi)| [lo, hi]));
            for l in labels {
                assert!(
                    (l as u64) & !node_mask(cfg.node_count) == 0,
                    "tree label {l} of a {}-node network",
                    cfg.node_count
                );
            }
        }
        push("own", w, tree.iter().map(|t| t.own as u64).collect());
        push(
            "par_v",
            1,
            tree.iter().map(|t| t.parent.is_some() as u64).collect(),
        );
        push(
            "par_d",
            2,
            tree.iter()
                .map(|t| t.parent.map_or(0, |d| d.index() as u64))
                .collect(),
        );
        // Child ranges, index c * 4 + d.
        let child = |f: &dyn Fn(Option<(u32, u32)>) -> u64| -> Vec<u64> {
            tree.iter()
                .flat_map(|t| t.child.iter().map(|&ch| f(ch)))
                .collect()
        };
        push("ch_v", 1, child(&|ch| ch.is_some() as u64));
        push("ch_lo", w, child(&|ch| ch.map_or(0, |(lo, _)| lo as u64)));
        push("ch_hi", w, child(&|ch| ch.map_or(0, |(_, hi)| hi as u64)));
        push(
            "link_v",
            1,
            cfg.out_class.iter().map(|c| c.is_some() as u64).collect(),
        );
        push(
            "link_cls",
            CLASS_W,
            cfg.out_class
                .iter()
                .map(|c| c.unwrap_or(0) as u64)
                .collect(),
        );
        // Arrival class per input; injection inputs have none.
        let arr = |i: usize| if i < 4 { cfg.in_class[i] } else { None };
        push(
            "arr_v",
            1,
            (0..sh.inputs).map(|i| arr(i).is_some() as u64).collect(),
        );
        push(
            "arr_cls",
            CLASS_W,
            (0..sh.inputs).map(|i| arr(i).unwrap_or(0) as u64).collect(),
        );
        // Diversion exists for tree routing only (`routing::first_head`).
        let dv = if p.routing == RoutingKind::Tree {
            cfg.divert_out & 0xF
        } else {
            0
        };
        push("dv_out", O_W, vec![dv as u64]);
        // Consumption pool per input and class (index i * classes + c),
        // bit j = channel j (output 4 + j). Mesh routing: the arrival
        // group's pool, whatever the class (`routing::input_pool`).
        let pool = (0..sh.inputs)
            .flat_map(|i| {
                (0..sh.classes).map(move |c| {
                    routing::input_pool(cfg, p, i, c as u8) as u64 & ((1 << CONS_W) - 1)
                })
            })
            .collect();
        push("pool", CONS_W, pool);
        // Per input, the outputs it can ever reserve
        // (`routing::reachable_outputs`), and per output its transpose, the
        // inputs that can ever own it (bit i = input i): the router masks
        // requests and next owners with them, so the pairs that never meet
        // leave the netlist.
        push(
            "reach",
            MASK_W,
            (0..sh.inputs)
                .map(|i| routing::reachable_outputs(cfg, p, i) as u64)
                .collect(),
        );
        push(
            "owners",
            SEL_W,
            routing::possible_owners(cfg, p)[..p.outputs()]
                .iter()
                .map(|&m| m as u64)
                .collect(),
        );
        // SPAM: each input's column of the table (its phase is fixed),
        // index i * spam_n + target.
        let column = |i: usize| -> Vec<u8> {
            match &cfg.spam {
                Some(s) if sh.spam_n > 0 => {
                    let ph = s.in_phase[i] as usize;
                    (0..sh.spam_n)
                        .map(|n| s.next.get(n).map_or(NO_PORT, |e| e[ph]))
                        .collect()
                }
                _ => vec![],
            }
        };
        let cols: Vec<Vec<u8>> = (0..sh.inputs).map(column).collect();
        push(
            "sp_v",
            1,
            cols.iter()
                .flatten()
                .map(|&e| (e != NO_PORT) as u64)
                .collect(),
        );
        push(
            "sp_d",
            2,
            cols.iter()
                .flatten()
                .map(|&e| if e == NO_PORT { 0 } else { e as u64 })
                .collect(),
        );
        // Mesh routing only (none on a torus): own address; Hamiltonian
        // routing also the neighbours' labels.
        let mc = cfg.mesh.filter(|_| mesh);
        push("m_own", w, mc.iter().map(|m| m.own as u64).collect());
        let nbr = mc.filter(|_| p.routing == RoutingKind::Hamiltonian);
        // The mesh blocks compare on the low bits too (`node_mask`): labels
        // below `n`, y below `mmax + 1`.
        if let Some(m) = nbr {
            for l in std::iter::once(m.own).chain(m.nbr.iter().flatten().copied()) {
                assert!(l < m.n, "Hamiltonian label {l} of {} nodes", m.n);
            }
        }
        if let Some(m) = mc {
            assert!(
                (m.own >> m.xb) as u64 & !node_mask(m.mmax + 1) == 0,
                "mesh address {} above M - 1 = {}",
                m.own,
                m.mmax
            );
        }
        push(
            "m_nbr_v",
            1,
            nbr.iter()
                .flat_map(|m| m.nbr.iter().map(|l| l.is_some() as u64))
                .collect(),
        );
        push(
            "m_nbr",
            w,
            nbr.iter()
                .flat_map(|m| m.nbr.iter().map(|l| l.unwrap_or(0) as u64))
                .collect(),
        );
        NodeTables { tables: t }
    }

    /// Every table port with its width and value, in port order.
    pub fn ports(&self) -> impl Iterator<Item = (String, usize, u64)> + '_ {
        self.tables.iter().flat_map(|t| {
            t.values
                .iter()
                .enumerate()
                .map(move |(j, &v)| (t.port(j), t.width, v))
        })
    }

    pub fn get(&self, name: &str) -> &[u64] {
        &self
            .tables
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .values
    }
}

/// The low bits that hold every address of a network of `nodes` nodes
/// (`0..nodes`, `nodes` ≥ 1): as many as a packed address's x field needs
/// for `nodes` columns (`mesh_table::x_bits`, at least one).
pub fn node_mask(nodes: u32) -> u64 {
    (1u64 << wormcast_sim::config::mesh_table::x_bits(nodes)) - 1
}

#[cfg(test)]
mod tests {
    use super::node_mask;

    /// Every address below `nodes` fits the mask and the first address at
    /// or above the next power of two does not (the routing blocks treat a
    /// bit above the mask as out of range).
    #[test]
    fn node_mask_holds_every_address_and_no_more_bits() {
        assert_eq!(node_mask(1), 1);
        assert_eq!(node_mask(2), 1);
        assert_eq!(node_mask(3), 3);
        assert_eq!(node_mask(16), 0xF);
        assert_eq!(node_mask(17), 0x1F);
        for n in 1..=4096u32 {
            let m = node_mask(n);
            assert_eq!((n as u64 - 1) & !m, 0, "{n}: {m:#x}");
            assert!(m == 1 || (n as u64 - 1) > m >> 1, "{n}: {m:#x} too wide");
        }
    }
}
