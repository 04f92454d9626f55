//! `wormcast route`: the header flits (paper 000 §3.1.1, Appendix A) and the
//! path of one unicast or multicast, as the reference walker
//! (`wormcast_sim::walker`) follows them through the routers.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::process::ExitCode;
use wormcast_sim::dstm::{encode, policy};
use wormcast_sim::topology::{NodeId, Topology};
use wormcast_sim::trees::{construct, PairSpec};
use wormcast_sim::walker::walk;
use wormcast_sim::InputError;

#[derive(clap::Args)]
pub struct RouteArgs {
    /// Network, `torus:KxM`.
    #[arg(long)]
    pub topology: String,
    #[command(flatten)]
    pub spec: super::trees::ConstructionArgs,
    /// Source node `X,Y`.
    #[arg(long)]
    pub source: String,
    /// Destination `X,Y`; repeat for a multicast.
    #[arg(long = "dest", required = true)]
    pub dests: Vec<String>,
    /// Force tree 0 or 1 (default: DSTM policy).
    #[arg(long)]
    pub tree: Option<String>,
    /// Seed of the multicast tree choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: RouteArgs) -> Result<ExitCode, String> {
    go(a).map_err(|e| e.to_string())
}

fn go(a: RouteArgs) -> Result<ExitCode, InputError> {
    let (topo, named, trees) = match PairSpec::parse(&a.spec.construction)? {
        PairSpec::Tarjan(t) => {
            let topo = Topology::parse(&a.topology)?;
            (topo, PairSpec::Tarjan(t), t.build(&topo)?.trees)
        }
        PairSpec::Dstm(_) => {
            let (topo, named, c) = super::trees::build(
                &a.topology,
                &a.spec.construction,
                &a.spec.r1,
                a.spec.r2.as_deref(),
                None,
            )?;
            (topo, PairSpec::Dstm(named), construct(&topo, &c)?.trees)
        }
    };
    let source = topo.parse_node(&a.source, "source")?;
    let mut dests: Vec<NodeId> = Vec::with_capacity(a.dests.len());
    for d in &a.dests {
        let v = topo.parse_node(d, "dest")?;
        if v == source {
            return Err(InputError::new(
                "dest",
                d,
                "destinations must differ from the source",
            ));
        }
        if !dests.contains(&v) {
            dests.push(v);
        }
    }
    let (tree, why) = match &a.tree {
        Some(t) => match t.trim() {
            "0" => (0, "forced by --tree"),
            "1" => (1, "forced by --tree"),
            _ => {
                return Err(InputError::new(
                    "tree",
                    t,
                    "0 or 1 (DSTM has two trees); omit it for the DSTM policy",
                ))
            }
        },
        None if dests.len() == 1 => (
            policy::unicast_tree(&trees, source, dests[0]),
            "unicast: shorter tree path, ties to tree 0",
        ),
        None => {
            let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
            (
                policy::multicast_tree(2, &mut rng),
                "multicast: tree drawn from the seeded RNG",
            )
        }
    };
    let tr = &trees[tree];
    let heads = encode(tr, source, &dests, tree as u8)?;
    let w = walk(tr, source, &heads).map_err(|e| {
        // The encoder and walker disagreeing is a bug, not user input, but it
        // must still be reported, not panic.
        InputError::new("header encoding", "internal", e.to_string())
    })?;
    let coord = |n: NodeId| {
        let (x, y) = topo.coord(n);
        [x, y]
    };
    let head_node = |num: u32| tr.node_of[num as usize];
    if a.json {
        let v = json!({
            "topology": topo.to_string(),
            "construction": named.to_string(),
            "source": coord(source),
            "dests": dests.iter().map(|&d| coord(d)).collect::<Vec<_>>(),
            "tree": tree,
            "tree_reason": why,
            "seed": a.seed,
            "headers": heads.iter().map(|h| {
                let n = head_node(h.node);
                json!({"node": h.node, "x": coord(n)[0], "y": coord(n)[1],
                       "c": h.c, "o": h.o, "s": h.s, "class": h.class})
            }).collect::<Vec<_>>(),
            "links": w.links.iter().map(|&(u, d)| json!({"x": coord(u)[0], "y": coord(u)[1], "port": d.name()})).collect::<Vec<_>>(),
            "consumers": w.consumers.iter().map(|&d| coord(d)).collect::<Vec<_>>(),
            "path_len": w.path_len.iter().map(|&(d, l)| json!({"x": coord(d)[0], "y": coord(d)[1], "hops": l})).collect::<Vec<_>>(),
            "hops": w.hops,
        });
        println!("{v}");
    } else {
        println!("topology {topo}, construction {named}");
        println!("tree {tree} ({why})");
        println!("header flits (in order):");
        println!("  {:>5} {:>7}  C  O(+x-x+y-y)  S", "node", "(x,y)");
        for h in &heads {
            let (x, y) = topo.coord(head_node(h.node));
            let o: String = (0..4)
                .map(|i| if h.o >> i & 1 == 1 { '1' } else { '0' })
                .collect();
            println!(
                "  {:>5} {:>7}  {}  {:>11}  {}",
                h.node,
                format!("({x},{y})"),
                h.c as u8,
                o,
                h.s as u8
            );
        }
        println!("links used ({}):", w.links.len());
        for &(u, d) in &w.links {
            let (x, y) = topo.coord(u);
            println!("  ({x},{y}) {d}");
        }
        println!("delivered:");
        for &(d, l) in &w.path_len {
            let (x, y) = topo.coord(d);
            println!("  ({x},{y}) after {l} hops");
        }
        println!("hop count {}", w.hops);
    }
    Ok(ExitCode::SUCCESS)
}
