//! `wormcast route`: the header flits (\[DSTM\] §3.1.1, Appendix A) and the
//! path of one unicast or multicast, as the reference walker
//! (`wormcast_sim::walker`) follows them through the routers.
//!
//! On a mesh (`--topology mesh:KxM`) the message is planned by a mesh
//! scheme (`--scheme`: path-based, thesis trees, \[FTTREE\] trees; the
//! scenario's `traffic.multicast_scheme`) under a mesh routing function
//! (`--routing`), and every worm's headers (turn points included) are
//! walked through the routers (`treeworm::walk`).

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
    /// Network: `torus:KxM` (DSTM trees, `--construction`) or `mesh:KxM`
    /// (a mesh scheme under a mesh routing function, `--scheme`, `--routing`).
    #[arg(long)]
    pub topology: String,
    #[command(flatten)]
    pub spec: super::trees::ConstructionArgs,
    /// Source node `X,Y`.
    #[arg(long)]
    pub source: String,
    /// Destination `X,Y`; repeat for a multicast (each node once).
    #[arg(long = "dest", required = true)]
    pub dests: Vec<String>,
    /// Force tree 0 or 1 (default: DSTM policy).
    #[arg(long)]
    pub tree: Option<String>,
    /// Seed of the multicast tree choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mesh only: the routing function, `dor`, `negative_first` or
    /// `hamiltonian` (default: the scheme's own).
    #[arg(long)]
    pub routing: Option<String>,
    /// Mesh only: the multicast scheme, any `traffic.multicast_scheme`
    /// (dual-path, brcp-minimal, xy-path, vh, diag, dds, min, ft-s3, ...).
    #[arg(long, default_value = "auto")]
    pub scheme: String,
    /// Mesh only: a faulty node `X,Y` (repeat); the disable rule of paper
    /// 002 grows them into blocks.
    #[arg(long = "faulty-node")]
    pub faulty_nodes: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--source` and the `--dest` nodes (in the order given), none equal to
/// the source and none repeated.
fn endpoints(topo: &Topology, a: &RouteArgs) -> Result<(NodeId, Vec<NodeId>), InputError> {
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
        if dests.contains(&v) {
            return Err(InputError::new(
                "dest",
                d,
                "each destination once (this one is repeated)",
            ));
        }
        dests.push(v);
    }
    Ok((source, dests))
}

pub fn run(a: RouteArgs) -> Result<ExitCode, String> {
    go(a).map_err(|e| e.to_string())
}

fn go(a: RouteArgs) -> Result<ExitCode, InputError> {
    if a.topology.trim().starts_with("mesh:") {
        return mesh(a);
    }
    for (flag, given) in [
        ("routing", a.routing.is_some()),
        ("faulty-node", !a.faulty_nodes.is_empty()),
        ("scheme", a.scheme != "auto"),
    ] {
        if given {
            return Err(InputError::new(
                flag,
                &a.topology,
                "only with a mesh (`--topology mesh:KxM`)",
            ));
        }
    }
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
    let (source, dests) = endpoints(&topo, &a)?;
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
                json!({"node": n, "label": h.node, "x": coord(n)[0], "y": coord(n)[1],
                       "c": h.c, "o": h.o, "s": h.s, "class": h.class})
            }).collect::<Vec<_>>(),
            "links": w.links.iter().map(|&(u, d)| json!({"x": coord(u)[0], "y": coord(u)[1], "port": d.name()})).collect::<Vec<_>>(),
            "consumers": w.consumers.iter().map(|&d| coord(d)).collect::<Vec<_>>(),
            "path_len": w.path_len.iter().map(|&(d, l)| json!({"x": coord(d)[0], "y": coord(d)[1], "hops": l})).collect::<Vec<_>>(),
            "hops": w.hops,
        });
        outln!("{v}");
    } else {
        outln!("topology {topo}, construction {named}");
        outln!("tree {tree} ({why})");
        outln!("header flits (in order):");
        // `node` is the node id of docs/conventions.md (y·K + x); the
        // header's Node field carries the tree label, shown beside it.
        outln!(
            "  {:>5} {:>7} {:>5}  C  O(+x-x+y-y)  S",
            "node",
            "(x,y)",
            "label"
        );
        for h in &heads {
            let n = head_node(h.node);
            let (x, y) = topo.coord(n);
            let o: String = (0..4)
                .map(|i| if h.o >> i & 1 == 1 { '1' } else { '0' })
                .collect();
            outln!(
                "  {:>5} {:>7} {:>5}  {}  {:>11}  {}",
                n,
                format!("({x},{y})"),
                h.node,
                h.c as u8,
                o,
                h.s as u8
            );
        }
        outln!("links used ({}):", w.links.len());
        for &(u, d) in &w.links {
            let (x, y) = topo.coord(u);
            outln!("  ({x},{y}) {d}");
        }
        outln!("delivered:");
        for &(d, l) in &w.path_len {
            let (x, y) = topo.coord(d);
            outln!("  ({x},{y}) after {l} hops");
        }
        outln!("hop count {}", w.hops);
    }
    Ok(ExitCode::SUCCESS)
}

/// A message on a mesh: the scheme's worms, each walked through the routers.
fn mesh(a: RouteArgs) -> Result<ExitCode, InputError> {
    use wormcast_sim::config::RoutingKind;
    use wormcast_sim::ftmesh::FaultyMesh;
    use wormcast_sim::router::mesh::node_of_address;
    use wormcast_sim::treeworm::scheme::{router_route, MeshScheme};
    use wormcast_sim::treeworm::walk;
    let topo = Topology::parse(&a.topology)?;
    if a.tree.is_some() {
        return Err(InputError::new(
            "tree",
            a.tree.as_deref().unwrap_or_default(),
            "none on a mesh (mesh schemes use no spanning trees)",
        ));
    }
    // The scheme's own routing unless one is given.
    let kind = match &a.routing {
        Some(r) => RoutingKind::parse(r, "routing")?,
        None => {
            let probe = MeshScheme::all()
                .into_iter()
                .find(|k| k.name() == a.scheme.trim())
                .map_or(RoutingKind::Hamiltonian, |k| k.default_routing());
            probe
        }
    };
    if !kind.is_mesh() {
        return Err(InputError::new(
            "routing",
            kind.name(),
            "hamiltonian, dor or negative_first on a mesh",
        ));
    }
    let scheme = MeshScheme::parse(a.scheme.trim(), kind, "scheme")?;
    let mut faults = Vec::new();
    for f in &a.faulty_nodes {
        faults.push(topo.coord(topo.parse_node(f, "faulty-node")?));
    }
    let fm = FaultyMesh::new(topo, &faults)?;
    let (source, mut dests) = endpoints(&topo, &a)?;
    dests.sort_unstable();
    for &v in dests.iter().chain(std::iter::once(&source)) {
        if fm.is_blocked(topo.coord(v)) {
            let (x, y) = topo.coord(v);
            return Err(InputError::new(
                if v == source { "source" } else { "dest" },
                format!("{x},{y}"),
                "a healthy node (not faulty or disabled)",
            ));
        }
    }
    let plan = scheme.plan(kind, &fm, source, &dests, a.seed)?;
    let route = router_route(kind, &topo);
    let xy = |n: NodeId| {
        let (x, y) = topo.coord(n);
        [x, y]
    };
    let mut worms_json = Vec::new();
    let mut text = String::new();
    let mut all_consumed = Vec::new();
    for (w, heads) in plan.worms.iter().enumerate() {
        // Header `Node` fields are mesh addresses; the walk works on ids.
        let ids: Vec<wormcast_sim::flit::Head> = heads
            .iter()
            .map(|h| {
                node_of_address(kind, &topo, h.node)
                    .map(|n| wormcast_sim::flit::Head { node: n, ..*h })
                    .ok_or_else(|| {
                        InputError::new("header encoding", "internal", "address of no node")
                    })
            })
            .collect::<Result<_, _>>()?;
        let d = walk(&topo, source, &ids, &route)
            .map_err(|e| InputError::new("header encoding", "internal", format!("{e:?}")))?;
        all_consumed.extend(d.consumed.iter().copied());
        text += &format!("worm {w}: {} header flits\n", heads.len());
        text += &format!("  {:>7} {:>7}  C  O(+x-x+y-y)  S\n", "address", "(x,y)");
        for (h, i) in heads.iter().zip(&ids) {
            let [x, y] = xy(i.node);
            let o: String = (0..4)
                .map(|b| if h.o >> b & 1 == 1 { '1' } else { '0' })
                .collect();
            text += &format!(
                "  {:>7} {:>7}  {}  {:>11}  {}\n",
                h.node,
                format!("({x},{y})"),
                h.c as u8,
                o,
                h.s as u8
            );
        }
        let consumed: Vec<String> = d
            .consumed
            .iter()
            .map(|&n| format!("({},{})", xy(n)[0], xy(n)[1]))
            .collect();
        text += &format!(
            "  {} links; delivered to {}\n",
            d.links.len(),
            consumed.join(" ")
        );
        worms_json.push(json!({
            "headers": heads.iter().zip(&ids).map(|(h, i)| json!({
                "address": h.node, "x": xy(i.node)[0], "y": xy(i.node)[1],
                "c": h.c, "o": h.o, "s": h.s, "class": h.class,
            })).collect::<Vec<_>>(),
            "links": d.links.iter().map(|&(u, v)| [xy(u), xy(v)]).collect::<Vec<_>>(),
            "consumed": d.consumed.iter().map(|&n| xy(n)).collect::<Vec<_>>(),
        }));
    }
    all_consumed.sort_unstable();
    let mut want: Vec<NodeId> = dests
        .iter()
        .copied()
        .filter(|d| !plan.unreachable.contains(d))
        .collect();
    want.sort_unstable();
    if all_consumed != want {
        // The plan and the walk disagreeing is a bug, reported, not a panic.
        return Err(InputError::new(
            "header encoding",
            "internal",
            format!("worms deliver {all_consumed:?}, destinations {want:?}"),
        ));
    }
    if a.json {
        let v = json!({
            "topology": topo.to_string(), "routing": kind.name(), "scheme": scheme.name(),
            "source": xy(source), "dests": dests.iter().map(|&d| xy(d)).collect::<Vec<_>>(),
            "faulty_nodes": faults.iter().map(|c| [c.0, c.1]).collect::<Vec<_>>(),
            "unreachable": plan.unreachable.iter().map(|&d| xy(d)).collect::<Vec<_>>(),
            "class": plan.class, "worms": worms_json,
        });
        outln!("{v}");
    } else {
        outln!(
            "topology {topo}, routing {}, scheme {}: {} worm(s), class {}",
            kind.name(),
            scheme.name(),
            plan.worms.len(),
            plan.class
        );
        if !plan.unreachable.is_empty() {
            let u: Vec<String> = plan
                .unreachable
                .iter()
                .map(|&n| format!("({},{})", xy(n)[0], xy(n)[1]))
                .collect();
            outln!("unreachable (no fault-free minimal path): {}", u.join(" "));
        }
        out!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
