//! Per-instance router constants for a DSTM fabric, from the one definition
//! in `wormcast-sim` (`trees::construct`, `RouterConfig::for_trees`).

use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::{construct, Named};
use wormcast_sim::{InputError, InputResult};

/// Router configurations of every node of `topo` for the two trees of
/// construction `named` rooted as the simulator does (R1 = node 0).
pub fn dstm_configs(
    topo: &Topology,
    named: Named,
    params: &RouterParams,
) -> InputResult<Vec<RouterConfig>> {
    if !topo.is_torus() {
        return Err(InputError::new(
            "topology",
            topo.to_string(),
            "a torus `torus:KxM`: DSTM needs two edge-disjoint spanning trees (paper 000 §8)",
        ));
    }
    let c = named.construction(topo, 0, None);
    let pair = construct(topo, &c)?;
    RouterConfig::for_trees(topo, &pair.trees, params, &[])
}
