//! `wormcast verify`: a static deadlock check of multicast routing with
//! replication (the model and its soundness argument are in
//! docs/verify.md).
//!
//! 1. The configuration's source-side scheme and routing tables become a
//!    worm-shape automaton ([`automaton`]): where a header can be, and which
//!    outputs it can reserve together, without enumerating destination sets.
//! 2. [`graph`] turns it into an extended dependency graph that adds to
//!    Dally & Seitz's channel dependencies the two couplings of the router
//!    contract (docs/architecture.md §3): atomic all-or-nothing requests, and
//!    coordinated flow control that lets a blocked branch hold its siblings.
//!    Consumption pools are resources like links.
//! 3. No cycle through a blocked header: deadlock-free under the contract.
//!    A cycle becomes a witness, concrete worms that should close it
//!    ([`witness`]), which is replayed on the cycle model; only a replay the
//!    runtime detector stops on the witness's worms makes it "confirmed".

pub mod automaton;
pub mod graph;
pub mod mesh;
pub mod tree;
pub mod witness;

use crate::config::RoutingKind;
use crate::error::InputResult;
use crate::network::Network;
use crate::scenario::Scenario;
use crate::topology::Topology;
use automaton::{Automaton, Input, Res, VisitId};
use serde::Serialize;
use std::collections::HashMap;

/// What `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The configuration in words (topology, routing, construction, pools).
    pub config: String,
    pub visits: usize,
    pub vertices: usize,
    pub edges: usize,
    /// Strongly connected components holding a dependency cycle.
    pub cyclic_components: usize,
    /// One shortest cycle per component (up to the `--cycles` limit).
    pub cycles: Vec<CycleReport>,
    pub analysis_seconds: f64,
}

impl Verdict {
    pub fn deadlock_free(&self) -> bool {
        self.cyclic_components == 0
    }
}

/// One dependency cycle, in words, with its witness and replay.
#[derive(Debug, Clone, Serialize)]
pub struct CycleReport {
    pub steps: Vec<StepReport>,
    /// Concrete worms meant to close the cycle; empty when none was found.
    pub witness: Vec<witness::Worm>,
    pub replay: witness::Replay,
}

/// One wait of a cycle.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// Router `(x, y)` where the header waits.
    pub router: (u32, u32),
    /// The input it arrived on (`+x`.. or `injection`).
    pub input: String,
    /// The scheme state of the header (class, phase).
    pub state: String,
    /// What it waits for: `link (x,y)+x` or `consumption (x,y) pool 0b01`.
    pub waits_for: String,
    /// Where the holder reserved it, and how the holder is held back.
    pub holder_input: String,
    pub holder_state: String,
    /// `below` (the holder's own blocked header further on) or `sibling`
    /// (a blocked branch of a split point above, by coordinated flow control).
    pub holder_blocked: String,
}

/// The analysis of one configuration.
pub struct Analysis {
    pub topo: Topology,
    pub automaton: Automaton,
    pub dep: graph::DepGraph,
    pub components: Vec<graph::Component>,
    pub config: String,
}

/// Builds the automaton of `scenario`'s network and checks it.
pub fn analyse(scenario: &Scenario) -> InputResult<(Analysis, Network)> {
    let net = Network::new(scenario)?;
    let v = &net.v;
    let params = &v.params;
    let cfgs = &net.fabric.cfg;
    let (automaton, config) = match params.routing {
        RoutingKind::Tree => (
            tree::dstm(&v.topo, &net.trees, cfgs, params, v.fault_info),
            format!(
                "{} torus:{}x{}, tree routing, construction {}, {} consumption channel(s), {} injection channel(s){}",
                if v.topo.is_torus() { "" } else { "(mesh)" },
                v.topo.k,
                v.topo.m,
                scenario.network.construction,
                params.consumption,
                params.injection,
                fault_words(scenario)
            )
            .trim_start()
            .to_string(),
        ),
        RoutingKind::Spam => (
            tree::spam(&v.topo, &net.trees[0], cfgs, params),
            format!(
                "torus:{}x{}, SPAM routing, {} consumption channel(s){}",
                v.topo.k,
                v.topo.m,
                params.consumption,
                fault_words(scenario)
            ),
        ),
        kind => {
            use crate::treeworm::scheme::MeshScheme;
            use crate::pathbased::scheme::Scheme;
            let tree_worms = matches!(v.scheme, Some(MeshScheme::Tree(_) | MeshScheme::Ft(_)));
            let rule = match v.scheme {
                // The thesis's MIN tree is a least-traffic tree, not one of
                // shortest paths: its branches may turn back (no rule).
                Some(MeshScheme::Tree(crate::meshtree::Algorithm::Min)) => mesh::Progress::None,
                Some(MeshScheme::Tree(_) | MeshScheme::Ft(_) | MeshScheme::FtUnicast) => mesh::Progress::Minimal,
                Some(MeshScheme::Path(Scheme::ColumnPath)) => mesh::Progress::Xy,
                Some(MeshScheme::Path(Scheme::BrcpPure | Scheme::BrcpMinimal)) => mesh::Progress::NegativeFirst,
                _ => mesh::Progress::None,
            };
            let scheme = format!(
                "{}, multicast scheme {}",
                scenario.network.routing, scenario.traffic.multicast_scheme
            );
            (
                mesh::automaton(&v.topo, cfgs, params, tree_worms, rule, &|n| v.excluded(n)),
                format!(
                    "mesh:{}x{}, {} routing ({}), {} worms, {} consumption channel(s), {} injection channel(s){}",
                    v.topo.k,
                    v.topo.m,
                    kind.name(),
                    scheme,
                    if tree_worms { "tree" } else { "path" },
                    params.consumption,
                    params.injection,
                    fault_words(scenario)
                ),
            )
        }
    };
    let dep = graph::build(&automaton, params.injection == 1);
    let components = graph::components(&dep);
    Ok((
        Analysis {
            topo: v.topo,
            automaton,
            dep,
            components,
            config,
        },
        net,
    ))
}

fn fault_words(s: &Scenario) -> String {
    if s.network.faulty_links.is_empty() {
        String::new()
    } else {
        format!(
            ", faulty link(s) {} with {} information",
            (s.network.faulty_links.iter())
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            s.network.fault_info
        )
    }
}

/// Checks `scenario`. For each of the first `cycle_limit` cyclic
/// components, cycles through its blocked vertices are tried one after
/// another (at most `WITNESS_SEARCH`) until a witness replays as a
/// deadlock; the first cycle is reported when none does.
pub fn verify(
    scenario: &Scenario,
    cycle_limit: usize,
    replay_trials: usize,
) -> InputResult<Verdict> {
    let t0 = std::time::Instant::now();
    let (an, net) = analyse(scenario)?;
    let analysis_seconds = t0.elapsed().as_secs_f64();
    let mut cycles = Vec::new();
    for comp in an.components.iter().take(cycle_limit) {
        cycles.extend(search_component(&an, &net, scenario, comp, replay_trials)?);
    }
    Ok(Verdict {
        config: an.config.clone(),
        visits: an.automaton.visits.len(),
        vertices: an.dep.g.node_count(),
        edges: an.dep.g.edge_count(),
        cyclic_components: an.components.len(),
        cycles,
        analysis_seconds,
    })
}

/// Candidate cycles of one component tried for a confirmed witness.
pub const WITNESS_SEARCH: usize = 64;
/// Blocked vertices whose direct waits are explored for two-worm cycles.
pub const PAIR_SEARCH: usize = 400;

/// Tries cycles of `comp` until a witness replays as a deadlock: first the
/// shortest cycle through each blocked vertex, then two-worm cycles (a
/// shortest cycle is often one no real worms can form, e.g. one tree
/// reaching a router by two branches, while a longer one is real). Returns
/// the confirmed cycle, else the first one tried.
fn search_component(
    an: &Analysis,
    net: &Network,
    scenario: &Scenario,
    comp: &graph::Component,
    replay_trials: usize,
) -> InputResult<Option<CycleReport>> {
    let mut first: Option<CycleReport> = None;
    let mut tried = std::collections::HashSet::new();
    let mut attempts = 0;
    let mut try_cycle = |c: Vec<graph::Step>,
                         first: &mut Option<CycleReport>|
     -> InputResult<Option<CycleReport>> {
        let key: Vec<(VisitId, VisitId)> = c.iter().map(|st| (st.waiter, st.grant)).collect();
        if !tried.insert(key) {
            return Ok(None);
        }
        attempts += 1;
        let steps = c.iter().map(|st| step_report(an, st)).collect();
        let witness = witness::build(an, net, scenario, &c)?;
        let replay = match (&witness, replay_trials) {
            (Ok(w), 1..) => witness::replay(scenario, w, replay_trials)?,
            (Ok(_), 0) => witness::Replay::unconfirmed("not replayed (--replay-trials 0)".into()),
            (Err(why), _) => witness::Replay::unconfirmed(why.clone()),
        };
        let report = CycleReport {
            steps,
            witness: witness.unwrap_or_default(),
            replay,
        };
        if report.replay.confirmed {
            return Ok(Some(report));
        }
        first.get_or_insert(report);
        Ok(None)
    };
    for &b in comp.blocked.iter().take(WITNESS_SEARCH) {
        let c = graph::cycle_through(&an.dep, b, &comp.members);
        if let Some(r) = try_cycle(c, &mut first)? {
            return Ok(Some(r));
        }
        if replay_trials == 0 {
            return Ok(first);
        }
    }
    let mut waits = HashMap::new();
    for &b in comp.blocked.iter().take(PAIR_SEARCH) {
        let next = graph::next_waits(&an.dep, b, &comp.members);
        for (b2, path) in &next {
            let back = waits
                .entry(*b2)
                .or_insert_with(|| graph::next_waits(&an.dep, *b2, &comp.members));
            if let Some((_, path2)) = back.iter().find(|(x, _)| *x == b) {
                let c = graph::steps_of(&an.dep, &[path.clone(), path2.clone()]);
                if let Some(r) = try_cycle(c, &mut first)? {
                    return Ok(Some(r));
                }
            }
        }
        waits.insert(b, next);
    }
    let _ = attempts;
    Ok(first)
}

pub fn input_word(i: Input) -> String {
    match i {
        Input::Link(d) => d.name().to_string(),
        Input::Inj => "injection".into(),
    }
}

pub fn res_word(topo: &Topology, r: Res) -> String {
    match r {
        Res::Link(n, d) => {
            let (x, y) = topo.coord(n);
            format!("link ({x},{y}){}", d.name())
        }
        Res::Cons(n, p) => {
            let (x, y) = topo.coord(n);
            format!("consumption ({x},{y}) pool {p:#06b}")
        }
    }
}

fn step_report(an: &Analysis, s: &graph::Step) -> StepReport {
    let a = &an.automaton;
    let w = a.visits[s.waiter as usize];
    let g = a.visits[s.grant as usize];
    let sibling = s.via.iter().any(|v| matches!(v, graph::Vertex::Side(_)));
    StepReport {
        router: an.topo.coord(w.node),
        input: input_word(w.input),
        state: a.tag_name(s.waiter).to_string(),
        waits_for: res_word(&an.topo, s.res),
        holder_input: input_word(g.input),
        holder_state: a.tag_name(s.grant).to_string(),
        holder_blocked: if sibling { "sibling" } else { "below" }.into(),
    }
}

/// The verdict in words, as `wormcast verify` prints it.
pub fn render_text(v: &Verdict) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "configuration: {}", v.config);
    let _ = writeln!(
        s,
        "model: {} visits, {} vertices, {} edges, analysed in {:.3} s",
        v.visits, v.vertices, v.edges, v.analysis_seconds
    );
    if v.deadlock_free() {
        let _ = writeln!(
            s,
            "deadlock-free: no dependency cycle through a blocked header"
        );
        return s;
    }
    let _ = writeln!(
        s,
        "DEPENDENCY CYCLE: {} cyclic component(s); {} shown",
        v.cyclic_components,
        v.cycles.len()
    );
    for (i, c) in v.cycles.iter().enumerate() {
        let _ = writeln!(s, "cycle {} ({} waits):", i + 1, c.steps.len());
        for (k, st) in c.steps.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {}. a worm ({}) at router ({},{}) from {} waits for {}, held by a worm ({}) that reserved it arriving from {} and is held back by its header {}",
                k + 1,
                st.state,
                st.router.0,
                st.router.1,
                st.input,
                st.waits_for,
                st.holder_state,
                st.holder_input,
                if st.holder_blocked == "sibling" {
                    "in a sibling branch (coordinated flow control)"
                } else {
                    "further on"
                },
            );
        }
        if !c.witness.is_empty() {
            let _ = writeln!(s, "  witness worms:");
            for w in &c.witness {
                let _ = writeln!(s, "    {}", w.words());
            }
        }
        let _ = writeln!(s, "  replay: {}", c.replay.words());
    }
    s
}

/// The first cycle as a Graphviz digraph: one node per wait, labelled with
/// its router, input and what it waits for.
pub fn render_dot(v: &Verdict) -> String {
    use std::fmt::Write;
    let mut s = String::from("digraph dependency_cycle {\n  rankdir=LR;\n  node [shape=box];\n");
    if let Some(c) = v.cycles.first() {
        let n = c.steps.len();
        for (k, st) in c.steps.iter().enumerate() {
            let _ = writeln!(
                s,
                "  w{k} [label=\"({},{}) from {}\\n{}\\nwaits for {}\"];",
                st.router.0, st.router.1, st.input, st.state, st.waits_for
            );
        }
        for (k, st) in c.steps.iter().enumerate() {
            let _ = writeln!(
                s,
                "  w{k} -> w{} [label=\"held; holder blocked {}\"];",
                (k + 1) % n,
                st.holder_blocked
            );
        }
    }
    s.push_str("}\n");
    s
}

/// Visits of a chain in words (for witnesses and tests).
pub fn visit_word(an: &Analysis, v: VisitId) -> String {
    let vis = an.automaton.visits[v as usize];
    let (x, y) = an.topo.coord(vis.node);
    format!(
        "({x},{y}) from {} [{}]",
        input_word(vis.input),
        an.automaton.tag_name(v)
    )
}
