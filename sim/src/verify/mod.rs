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

use crate::config::{Hop, RoutingKind};
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
    /// Candidate cycles whose witness was built (and replayed), over all
    /// components, and the limit on them ([`Search::limit`]).
    pub candidates_tried: usize,
    pub search_limit: usize,
    /// The search stopped at the limit before a witness was confirmed in
    /// every component shown: an unconfirmed cycle may have a confirmable
    /// one beside it.
    pub search_limit_reached: bool,
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
                "torus:{}x{}, SPAM routing, {} consumption channel(s) (SPAM routes every worm in one channel class; its model is the same for any number of consumption channels, so that setting cannot change the verdict){}",
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
    // Why the verdict is the same for every hop contract: the automaton is
    // built from paths, reservations and who waits for whom, which the
    // contract does not change; only the witness replay runs on it.
    let config = match params.hop {
        Hop::Standard => config,
        Hop::Fast => format!(
            "{config}, fast hop (timing does not enter the argument; the witness replays on the fast-hop model)"
        ),
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

/// Checks `scenario` with the default search ([`Search::new`]). For each
/// of the first `cycle_limit` cyclic components, cycles through its
/// blocked vertices are tried one after another until a witness replays
/// as a deadlock; the first cycle is reported when none does.
pub fn verify(
    scenario: &Scenario,
    cycle_limit: usize,
    replay_trials: usize,
) -> InputResult<Verdict> {
    verify_with(
        scenario,
        &Search::new(cycle_limit, replay_trials),
        &mut |_| {},
    )
}

/// How far the witness search goes, and whom it tells.
pub struct Search<'a> {
    /// Cyclic components reported (one cycle each).
    pub cycle_limit: usize,
    /// Start-offset patterns a witness replay tries (0: no replay).
    pub replay_trials: usize,
    /// Candidate cycles whose witness is built, over all components. Each
    /// costs up to a hundred small simulations (candidate sources, then
    /// the replays), and a component can offer thousands, so an unbounded
    /// search grows steeply with the network: BRCP minimal with one
    /// consumption channel tries 194 candidates at 3×3 (0.7 s), 866 at
    /// 4×4 (6.5 s), 2 479 at 5×5 (28.5 s) on a loaded 2-core VM. The
    /// default, [`SEARCH_LIMIT`], is above the 65 to 106 candidates the
    /// confirmed cycles of docs/verify.md need.
    pub limit: usize,
    /// Called with each candidate cycle tried (a progress bar).
    pub progress: &'a (dyn Fn() + Sync),
}

/// The default [`Search::limit`].
pub const SEARCH_LIMIT: usize = 256;

impl Search<'static> {
    pub fn new(cycle_limit: usize, replay_trials: usize) -> Search<'static> {
        Search {
            cycle_limit,
            replay_trials,
            limit: SEARCH_LIMIT,
            progress: &|| {},
        }
    }
}

/// [`verify`] with a chosen search; `on_model` gets the configuration and
/// model lines ([`render_head`]) as soon as the model is built, before the
/// witness search, which can take minutes.
pub fn verify_with(
    scenario: &Scenario,
    search: &Search,
    on_model: &mut dyn FnMut(&str),
) -> InputResult<Verdict> {
    let t0 = std::time::Instant::now();
    let (an, net) = analyse(scenario)?;
    let analysis_seconds = t0.elapsed().as_secs_f64();
    let mut v = Verdict {
        config: an.config.clone(),
        visits: an.automaton.visits.len(),
        vertices: an.dep.g.node_count(),
        edges: an.dep.g.edge_count(),
        cyclic_components: an.components.len(),
        cycles: Vec::new(),
        analysis_seconds,
        candidates_tried: 0,
        search_limit: search.limit,
        search_limit_reached: false,
    };
    on_model(&render_head(&v));
    let mut budget = Budget {
        left: search.limit,
        tried: 0,
        reached: false,
    };
    for comp in an.components.iter().take(search.cycle_limit) {
        v.cycles.extend(search_component(
            &an,
            &net,
            scenario,
            comp,
            search,
            &mut budget,
        )?);
    }
    v.candidates_tried = budget.tried;
    v.search_limit_reached = budget.reached;
    Ok(v)
}

/// What is left of [`Search::limit`].
struct Budget {
    left: usize,
    tried: usize,
    /// A candidate was skipped for want of budget.
    reached: bool,
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
    search: &Search,
    budget: &mut Budget,
) -> InputResult<Option<CycleReport>> {
    let replay_trials = search.replay_trials;
    let mut first: Option<CycleReport> = None;
    let mut tried = std::collections::HashSet::new();
    let mut try_cycle = |c: Vec<graph::Step>,
                         first: &mut Option<CycleReport>,
                         budget: &mut Budget|
     -> InputResult<Option<CycleReport>> {
        let key: Vec<(VisitId, VisitId)> = c.iter().map(|st| (st.waiter, st.grant)).collect();
        if !tried.insert(key) {
            return Ok(None);
        }
        let steps = c.iter().map(|st| step_report(an, st)).collect();
        if budget.left == 0 {
            // Out of budget: the cycle is still reported when it is the
            // component's first, without a witness.
            budget.reached = true;
            first.get_or_insert(CycleReport {
                steps,
                witness: Vec::new(),
                replay: witness::Replay::unconfirmed(format!(
                    "not tried: the witness search reached its limit of {} candidate cycles (--search-limit)",
                    search.limit
                )),
            });
            return Ok(None);
        }
        budget.left -= 1;
        budget.tried += 1;
        (search.progress)();
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
        if let Some(r) = try_cycle(c, &mut first, budget)? {
            return Ok(Some(r));
        }
        if replay_trials == 0 || budget.reached {
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
                if let Some(r) = try_cycle(c, &mut first, budget)? {
                    return Ok(Some(r));
                }
            }
        }
        waits.insert(b, next);
        if budget.reached {
            break;
        }
    }
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

/// The verdict in words, as `wormcast verify` prints it: [`render_head`]
/// then [`render_body`].
pub fn render_text(v: &Verdict) -> String {
    render_head(v) + &render_body(v)
}

/// The configuration and model lines, known before the witness search.
pub fn render_head(v: &Verdict) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "configuration: {}", v.config);
    let _ = writeln!(
        s,
        "model: {} visits, {} vertices, {} edges, analysed in {:.3} s",
        v.visits, v.vertices, v.edges, v.analysis_seconds
    );
    s
}

/// The verdict after the model lines: free, or the cycles with their
/// witnesses and replays.
pub fn render_body(v: &Verdict) -> String {
    use std::fmt::Write;
    let mut s = String::new();
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
        if c.witness.is_empty() && c.replay.reason.starts_with("no source sends") {
            let _ = writeln!(
                s,
                "  note: {}no worm the scheme sends forms this cycle (the replay line): the model lets a header be anywhere its routing tables allow, more shapes than the scheme's worms take, so this cycle is probably one of the model's, not a deadlock; the configuration is not proven free either",
                if c.steps.len() == 1 {
                    "one wait is a worm waiting for what it holds itself, which only a worm passing this router twice can do, and "
                } else {
                    ""
                }
            );
        }
    }
    if v.search_limit_reached {
        let _ = writeln!(
            s,
            "witness search: stopped at its limit of {} candidate cycles (--search-limit) without a confirmed replay in every component shown; a larger limit may confirm one",
            v.search_limit
        );
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
