//! Per-instance router constants for a generated fabric, from the one
//! definition in `wormcast-sim`: DSTM trees (`trees::construct`,
//! `RouterConfig::for_trees`), the SPAM baseline (`router::spam`,
//! `RouterConfig::for_spam`) or a mesh routing function (`router::mesh`,
//! `RouterConfig::for_mesh`), built exactly as the simulator's `Network`
//! builds them (R1 = node 0).

use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};
use wormcast_sim::router::spam::bfs_tree;
use wormcast_sim::topology::{EdgeId, Topology};
use wormcast_sim::trees::faults::SingleFault;
use wormcast_sim::trees::{construct, Named};
use wormcast_sim::{InputError, InputResult};

fn need_torus(topo: &Topology, why: &str) -> InputResult<()> {
    if topo.is_torus() {
        Ok(())
    } else {
        Err(InputError::new("topology", topo.to_string(), why))
    }
}

/// Router configurations of every node of `topo` for the two trees of
/// construction `named` rooted as the simulator does (R1 = node 0).
pub fn dstm_configs(
    topo: &Topology,
    named: Named,
    params: &RouterParams,
) -> InputResult<Vec<RouterConfig>> {
    dstm_configs_faulty(topo, named, params, None, false)
}

/// [`dstm_configs`] with one faulty link (\[DSTM\] §7), as `Network::new`
/// builds it: the link gets no class; with `local` fault information the
/// routers at its ends divert worms that would cross it (`divert_out`), if
/// it is a tree link.
pub fn dstm_configs_faulty(
    topo: &Topology,
    named: Named,
    params: &RouterParams,
    faulty: Option<EdgeId>,
    local: bool,
) -> InputResult<Vec<RouterConfig>> {
    need_torus(
        topo,
        "a torus `torus:KxM`: DSTM needs two edge-disjoint spanning trees (paper 000 §8)",
    )?;
    let c = named.construction(topo, 0, None);
    let pair = construct(topo, &c)?;
    let faulty: Vec<EdgeId> = faulty.into_iter().collect();
    let mut cfg = RouterConfig::for_trees(topo, &pair.trees, params, &faulty)?;
    if local {
        if let Some(f) = faulty
            .first()
            .and_then(|&e| SingleFault::new(&pair.trees, e))
        {
            RouterConfig::set_diversion(&mut cfg, topo, f.link);
        }
    }
    Ok(cfg)
}

/// Router configurations of every node of `topo` for SPAM routing (paper
/// 000 §2) on a BFS tree from node 0 (`tree = None`, the simulator's
/// `construction = "bfs"`) or on tree 0 of construction `tree`, as
/// `Network::new` builds them. `params.routing` must be `Spam`.
pub fn spam_configs(
    topo: &Topology,
    tree: Option<Named>,
    params: &RouterParams,
) -> InputResult<Vec<RouterConfig>> {
    need_torus(
        topo,
        "a torus `torus:KxM` (the simulator's SPAM networks are tori)",
    )?;
    let t = match tree {
        None => bfs_tree(topo, 0, &[])?,
        Some(named) => {
            let [t0, _] = construct(topo, &named.construction(topo, 0, None))?.trees;
            t0
        }
    };
    RouterConfig::for_spam(topo, &t, params, &[])
}

/// Router configurations of every node of mesh `topo` for a mesh routing
/// function (`params.routing` = hamiltonian, dor or negative_first), as
/// `Network::new` builds them (`RouterConfig::for_mesh`: per-router address
/// constants, link classes; a torus is an `InputError`).
pub fn mesh_configs(topo: &Topology, params: &RouterParams) -> InputResult<Vec<RouterConfig>> {
    RouterConfig::for_mesh(topo, params)
}

/// Router configurations for `params.routing`: DSTM trees of `named`, or
/// SPAM on a BFS tree (`named = None`) or on tree 0 of `named`.
pub fn configs(
    topo: &Topology,
    named: Option<Named>,
    params: &RouterParams,
) -> InputResult<Vec<RouterConfig>> {
    match params.routing {
        RoutingKind::Tree => dstm_configs(topo, named.unwrap_or(Named::Dstm1), params),
        RoutingKind::Spam => spam_configs(topo, named, params),
        RoutingKind::Hamiltonian | RoutingKind::Dor | RoutingKind::NegativeFirst => {
            if named.is_some() {
                return Err(InputError::new(
                    "construction",
                    named.map_or(String::new(), |n| n.to_string()),
                    "none with mesh routing (no trees)",
                ));
            }
            mesh_configs(topo, params)
        }
    }
}
