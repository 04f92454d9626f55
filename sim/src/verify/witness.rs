//! Witnesses: concrete worms for a dependency cycle, and their replay on
//! the cycle model.
//!
//! Step `j` of a cycle says: a header waits at visit `w_j` for `r_j`, held
//! by a worm that reserved `r_j` at `g_j` and is blocked at `w_{j+1}`
//! waiting for `r_{j+1}`. So worm `j` must reach both: it is sent from a
//! source whose route passes `g_j` and `w_{j+1}` on the inputs the cycle
//! names, to the far ends of `r_j` and `r_{j+1}` (a link's far node, or the
//! consuming node itself). For tree schemes the reference walker
//! (`crate::walker`) checks each candidate source before it is used.
//!
//! Whether the worms really deadlock depends on timing: each must reserve
//! what it holds before the next one arrives there. The replay therefore
//! tries the worms all at once, then seeded random start offsets, and calls
//! the cycle *confirmed* only when the runtime detector (docs/architecture.md §3)
//! stops the run on a cycle made of witness worms only. Anything else is
//! reported as *unconfirmed*, never as a deadlock.

use super::automaton::{Input, Res};
use super::graph::Step;
use super::Analysis;
use crate::config::RoutingKind;
use crate::error::InputResult;
use crate::fabric::deadlock::WaitingWorm;
use crate::network::Network;
use crate::scenario::{Scenario, ScriptedMessage};
use crate::topology::{NodeId, Topology};
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// One worm of a witness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Worm {
    pub source: (u32, u32),
    pub destinations: Vec<(u32, u32)>,
    /// The tree (channel class) it is sent on, when the scheme has several.
    pub tree: Option<usize>,
}

impl Worm {
    pub fn words(&self) -> String {
        let d: Vec<String> = self
            .destinations
            .iter()
            .map(|(x, y)| format!("({x},{y})"))
            .collect();
        let t = self
            .tree
            .map(|t| format!(" on tree {t}"))
            .unwrap_or_default();
        format!(
            "from ({},{}) to {}{t}",
            self.source.0,
            self.source.1,
            d.join(" ")
        )
    }
}

/// The outcome of a replay.
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    pub confirmed: bool,
    /// Start offsets (cycles) of the witness worms in the run that deadlocked.
    pub offsets: Vec<u64>,
    pub trials: usize,
    /// The cycle the runtime detector reported.
    pub detector: Vec<WaitingWorm>,
    pub reason: String,
}

impl Replay {
    pub fn unconfirmed(reason: String) -> Replay {
        Replay {
            confirmed: false,
            offsets: Vec::new(),
            trials: 0,
            detector: Vec::new(),
            reason,
        }
    }

    pub fn words(&self) -> String {
        if self.confirmed {
            // The detector lists waiting inputs; a worm that holds
            // several routers waits at several of them.
            let mut worms: Vec<u32> = self.detector.iter().filter_map(|w| w.message).collect();
            worms.sort_unstable();
            worms.dedup();
            format!(
                "CONFIRMED: deadlocked on the cycle model (start offsets {:?}, trial {} of the search); the runtime detector's cycle has {} waiting inputs of {} worms, all from the witness",
                self.offsets,
                self.trials,
                self.detector.len(),
                worms.len()
            )
        } else {
            format!("unconfirmed: {}", self.reason)
        }
    }
}

fn far_end(topo: &Topology, r: Res) -> NodeId {
    match r {
        Res::Link(n, d) => topo.neighbor(n, d).expect("a link resource has a far end"),
        Res::Cons(n, _) => n,
    }
}

/// Concrete worms for the cycle `steps`, or why none could be built.
pub fn build(
    an: &Analysis,
    net: &Network,
    base: &Scenario,
    steps: &[Step],
) -> InputResult<Result<Vec<Worm>, String>> {
    let a = &an.automaton;
    let topo = an.topo;
    let k = steps.len();
    let mut worms = Vec::with_capacity(k);
    for j in 0..k {
        let (g, r_hold) = (steps[j].grant, steps[j].res);
        let nx = &steps[(j + 1) % k];
        let (w, r_wait) = (nx.waiter, nx.res);
        // The far ends of both resources, and the two routers themselves, so
        // that a tree scheme's worm must branch where the cycle says.
        let mut all = vec![
            far_end(&topo, r_hold),
            far_end(&topo, r_wait),
            a.visits[g as usize].node,
            a.visits[w as usize].node,
        ];
        all.sort_unstable();
        all.dedup();
        let class = match net.v.params.routing {
            RoutingKind::Tree => Some((a.visits[g as usize].tag / 2) as usize),
            _ => None,
        };
        // Candidate sources: where the shortest chains to the two visits
        // start, then the other nodes, nearest first.
        let mut cands: Vec<NodeId> = [g, w]
            .iter()
            .filter_map(|&v| a.path_from_root(v))
            .map(|p| a.visits[p[0] as usize].node)
            .collect();
        let mut rest: Vec<NodeId> = (0..topo.nodes()).filter(|&n| !net.v.excluded(n)).collect();
        let centre = a.visits[g as usize].node;
        rest.sort_by_key(|&n| topo.distance(n, centre));
        cands.extend(rest.into_iter().take(MAX_CANDIDATES));
        cands.dedup();
        let mut chosen = None;
        for s in cands {
            // Only the far ends are needed; the routers on the way are
            // added where they are not the source.
            let mut dests: Vec<NodeId> = all.iter().copied().filter(|&d| d != s).collect();
            if [far_end(&topo, r_hold), far_end(&topo, r_wait)].contains(&s) || dests.is_empty() {
                continue;
            }
            for minimal in [false, true] {
                if minimal {
                    dests = vec![far_end(&topo, r_hold), far_end(&topo, r_wait)];
                    dests.sort_unstable();
                    dests.dedup();
                }
                let worm = Worm {
                    source: topo.coord(s),
                    destinations: dests.iter().map(|&d| topo.coord(d)).collect(),
                    tree: class,
                };
                let want = [(g, r_hold), (w, r_wait)].map(|(v, r)| (a.visits[v as usize], r));
                if reserves_alone(base, &worm, &want)? {
                    chosen = Some(worm);
                    break;
                }
            }
            if chosen.is_some() {
                break;
            }
        }
        let Some(worm) = chosen else {
            return Ok(Err(format!(
                "no source sends a worm through {} holding {} and through {} waiting for {}",
                super::visit_word(an, g),
                super::res_word(&topo, r_hold),
                super::visit_word(an, w),
                super::res_word(&topo, r_wait)
            )));
        };
        worms.push(worm);
    }
    Ok(Ok(worms))
}

/// Sources tried per witness worm beyond the chain roots.
const MAX_CANDIDATES: usize = 48;

/// Whether `worm`, sent alone on an empty network of `base`'s
/// configuration, reserves each resource at its visit's router from its
/// visit's input: the cycle model itself is the judge of what the scheme's
/// encoder and the routers make of a destination set.
fn reserves_alone(
    base: &Scenario,
    worm: &Worm,
    want: &[(super::automaton::Visit, Res)],
) -> InputResult<bool> {
    let sc = scenario(base, std::slice::from_ref(worm), &[0]);
    let mut net = match Network::new(&sc) {
        Ok(n) => n,
        // The scheme cannot send this destination set (e.g. no minimal
        // fault-free path): not a candidate.
        Err(_) => return Ok(false),
    };
    let mut seen = vec![false; want.len()];
    let inputs = net.v.params.inputs();
    net.run(&mut |n| {
        for (k, (v, r)) in want.iter().enumerate() {
            let st = &n.fabric.state[v.node as usize];
            let input = match v.input {
                Input::Link(d) => d.index(),
                Input::Inj => 4,
            };
            let owned_by_input = |o: usize| {
                let ow = st.out[o].owner as usize;
                if v.input == Input::Inj {
                    (4..inputs).contains(&ow)
                } else {
                    ow == input
                }
            };
            let hit = match *r {
                Res::Link(_, d) => owned_by_input(d.index()),
                Res::Cons(_, pool) => (0..4).any(|j| pool >> j & 1 == 1 && owned_by_input(4 + j)),
            };
            seen[k] |= hit;
        }
        true
    });
    Ok(seen.iter().all(|&x| x))
}

/// Data flits per witness worm: long enough that no worm fits in the
/// buffers along its path, so each still holds its links when it blocks.
pub const WITNESS_LENGTH: u32 = 64;

/// The witness as a scripted scenario: the configuration of `base` with
/// only these worms, started at `offsets`.
pub fn scenario(base: &Scenario, worms: &[Worm], offsets: &[u64]) -> Scenario {
    let mut s = base.clone();
    s.traffic.pattern = crate::scenario::Pattern::Scripted;
    s.traffic.raw.clear();
    s.traffic.messages = worms
        .iter()
        .zip(offsets)
        .map(|(w, &t)| ScriptedMessage {
            cycle: t,
            source: format!("{},{}", w.source.0, w.source.1),
            destinations: w
                .destinations
                .iter()
                .map(|(x, y)| format!("{x},{y}"))
                .collect(),
            length: WITNESS_LENGTH,
            tree: w.tree,
        })
        .collect();
    s.timing.startup_cycles = 0;
    s.run.warmup = 0;
    s.run.cycles = offsets.iter().max().copied().unwrap_or(0) + 1;
    s.run.drain_cycles = 20_000;
    s.run.deadlock_threshold = 128;
    s
}

/// Runs the witness with up to `trials` start-offset patterns (seeded).
pub fn replay(base: &Scenario, worms: &[Worm], trials: usize) -> InputResult<Replay> {
    let k = worms.len();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
    let span = 8 * base_diameter(base) as u64 + 8;
    let mut last_reason = String::from("no trial was run");
    for t in 0..trials {
        let offsets: Vec<u64> = if t == 0 {
            vec![0; k]
        } else {
            (0..k).map(|_| rng.gen_range(0..=span)).collect()
        };
        let sc = scenario(base, worms, &offsets);
        let mut net = Network::new(&sc)?;
        net.run(&mut |_| true);
        let Some(d) = net.deadlock.clone() else {
            last_reason = format!(
                "{} start-offset pattern(s) tried, none deadlocked (last run stopped: {})",
                t + 1,
                net.stop_reason
            );
            continue;
        };
        let topo = net.v.topo;
        let is_witness = |msg: &crate::network::message::Message| {
            worms.iter().any(|w| {
                let mut dests: Vec<NodeId> =
                    w.destinations.iter().map(|&(x, y)| topo.id(x, y)).collect();
                dests.sort_unstable();
                topo.coord(msg.source) == w.source && msg.dests == dests
            })
        };
        let ours = |m: Option<u32>| {
            m.and_then(|m| net.msgs.get(m as usize))
                .is_some_and(is_witness)
        };
        if d.iter()
            .all(|x| ours(x.message) && ours(x.waits_for_message))
        {
            return Ok(Replay {
                confirmed: true,
                offsets,
                trials: t + 1,
                detector: d,
                reason: String::new(),
            });
        }
        last_reason = "the replay deadlocked, but on worms outside the witness".into();
    }
    Ok(Replay::unconfirmed(last_reason))
}

fn base_diameter(s: &Scenario) -> u32 {
    s.network.topology.k + s.network.topology.m
}
