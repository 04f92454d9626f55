//! A whole network: fabric of routers, one NI per node, traffic, scoreboard
//! and statistics, advanced cycle by cycle (docs/architecture.md §4).
//!
//! Per cycle: (1) new messages reach the NIs; (2) every active router
//! samples its inputs from the current registers; (3) NIs read the same
//! current registers (injection `ready`, consumption outputs) and update
//! their own; (4) the clock edge steps the routers in place from what they
//! sampled. All randomness comes
//! from per-node ChaCha streams derived from the seed, so results depend on
//! nothing but the scenario.

pub mod budget;
pub mod capacity;
pub mod closed;
pub mod coherence;
pub mod collective;
pub mod collective_run;
pub mod message;
pub mod multicast;
pub mod netrace;
pub mod ni;
pub mod patterns;
pub mod process;
pub mod raw;
pub mod records;
pub mod stats;
pub mod trace;
pub mod transactions;
pub mod twin;

use crate::config::{RouterConfig, RoutingKind};
use crate::dstm::{encode, policy};
use crate::error::{InputError, InputResult};
use crate::fabric::deadlock::WaitingWorm;
use crate::fabric::Fabric;
use crate::flit::{self, FlitFormat, Kind};
use crate::network::message::{Message, Relay};
use crate::network::ni::{message_flit, Job, Ni, SendState, SinkState};
use crate::router::routing::consumption_output;
use crate::scenario::{Pattern, Scenario, Validated};
use crate::topology::NodeId;
use crate::trees::faults::{FaultInfo, SingleFault};
use crate::trees::SpanningTree;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// SplitMix64 finaliser: per-message seeds from the scenario seed.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Scoreboard counters: each must stay 0 in a correct run, except
/// `truncated`, which counts worms a router dropped as malformed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Scoreboard {
    /// A destination received the same message twice.
    pub duplicates: u64,
    /// A node received a message it was not a destination of.
    pub misdelivered: u64,
    /// A data flit out of order or with a wrong payload.
    pub corrupted: u64,
    /// Worms that arrived without their identity or ended early.
    pub truncated: u64,
}

pub struct Network {
    pub scenario: Scenario,
    pub v: Validated,
    pub trees: Vec<SpanningTree>,
    pub fabric: Fabric,
    pub nis: Vec<Ni>,
    pub msgs: Vec<Message>,
    pub score: Scoreboard,
    fmt: FlitFormat,
    busy: Vec<u32>,
    arrivals: BinaryHeap<Reverse<(u64, u32)>>,
    rngs: Vec<ChaCha8Rng>,
    /// When each node's next generated message arrives.
    process: process::Process,
    /// `traffic.batch`: messages each node has still to generate.
    batch_left: Vec<u64>,
    /// The cycle the last message of a batch was delivered.
    pub batch_completed: Option<u64>,
    /// `traffic.window` > 0: the closed loop's windows and transactions.
    pub closed: Option<closed::ClosedLoop>,
    /// `traffic.multicast = "invalidation"`: the write misses and their
    /// invalidations (`network::coherence`).
    pub coherence: Option<coherence::Coherence>,
    /// `traffic.collective`: the collective and its completion
    /// (`network::collective`).
    pub collective: Option<collective::Collective>,
    script_next: usize,
    /// Generation of new messages stops at this cycle (start of drain).
    gen_until: u64,
    /// Data flits consumed inside the measurement window.
    pub window_flits: u64,
    pub deadlock: Option<Vec<WaitingWorm>>,
    pub long_blocks: u64,
    seen_blocks: HashSet<(u32, usize, u64)>,
    pub stop_reason: String,
    /// Messages not yet delivered to all their destinations.
    pub incomplete: u64,
    /// Router errors by code, counted from the per-cycle activity.
    pub error_kinds: std::collections::BTreeMap<u8, u64>,
    /// The faulty link when it lies on a tree (\[DSTM\] §7); `None` without
    /// faults or for a link on neither tree.
    pub fault: Option<SingleFault>,
    /// Re-injections queued by NIs after a diversion (local information).
    pub relays: Vec<Relay>,
    /// Worms a router diverted to its own NI because their branch met the
    /// faulty link (local information), counted at the NI.
    pub diverted_worms: u64,
    /// Healthy nodes, when some are cut out of a faulty mesh (empty: all
    /// nodes): the only sources and destinations random traffic draws.
    healthy: Vec<NodeId>,
    /// Randomly drawn destinations the scheme could not reach (\[FTTREE\]:
    /// no fault-free minimal path), dropped from their message.
    pub unreachable_dests: u64,
    /// Randomly drawn messages left without any reachable destination.
    pub dropped_msgs: u64,
    /// A twin of the fabric checked at the NI boundary every cycle (the
    /// generated Verilog under Verilator); `None`: native only.
    pub twin: Option<Box<dyn twin::FabricTwin>>,
    /// The first difference the twin reported; the run stops there.
    pub twin_mismatch: Option<String>,
    /// The NIs' injection drive of this cycle, for the twin (reused).
    twin_drive: Vec<twin::InjDrive>,
    /// Scripted raw worms (`traffic.raw`): their flits, scenario order.
    pub raw: Vec<Vec<flit::Flit>>,
    /// `v.raw` indices by cycle (stable), and the next one due.
    raw_order: Vec<usize>,
    raw_next: usize,
    /// Raw worms whose last flit entered their router.
    pub raw_sent: u64,
    /// TAILs of raw worms consumed by NIs (intact or truncated).
    pub raw_tails: u64,
    /// `pattern = "trace"`: the trace being replayed (`network::trace`).
    pub trace: Option<trace::Replay>,
    /// `run.max_messages`, resolved (`budget`): the run stops when it
    /// holds more messages.
    pub max_messages: u64,
}

impl Network {
    pub fn new(scenario: &Scenario) -> InputResult<Network> {
        let v = scenario.validate()?;
        let (trees, cfg) = if v.params.routing.is_mesh() {
            // Path-based or tree worms on a mesh: no spanning trees; faulty
            // and disabled nodes are cut out of the fabric.
            let mut cfg = RouterConfig::for_mesh(&v.topo, &v.params)?;
            RouterConfig::exclude_nodes(&mut cfg, &v.topo, &|u| v.excluded(u));
            (Vec::new(), cfg)
        } else if v.params.routing == RoutingKind::Spam {
            // SPAM: one tree (BFS from R1, or tree 0 of the construction);
            // every message uses it.
            let tree = if v.spam_bfs {
                crate::router::spam::bfs_tree(&v.topo, v.r1, &v.faulty)?
            } else {
                let [t0, _] = v.construction.build(&v.topo, v.r1)?;
                t0
            };
            let cfg = RouterConfig::for_spam(&v.topo, &tree, &v.params, &v.faulty)?;
            (vec![tree], cfg)
        } else {
            let trees: Vec<SpanningTree> = v.construction.build(&v.topo, v.r1)?.to_vec();
            let mut cfg = RouterConfig::for_trees(&v.topo, &trees, &v.params, &v.faulty)?;
            if v.fault_info == FaultInfo::Local {
                if let Some(f) = v.faulty.first().and_then(|&e| SingleFault::new(&trees, e)) {
                    RouterConfig::set_diversion(&mut cfg, &v.topo, f.link);
                }
            }
            (trees, cfg)
        };
        let fault = if v.params.routing == RoutingKind::Tree {
            v.faulty.first().and_then(|&e| SingleFault::new(&trees, e))
        } else {
            None
        };
        let n = v.topo.nodes();
        let mut fabric = Fabric::new(v.topo, v.params, cfg);
        fabric
            .set_threads(scenario.run.threads)
            .map_err(|e| InputError::new("run.threads", scenario.run.threads, e))?;
        let nis = (0..n)
            .map(|_| Ni::new(v.params.injection, v.params.consumption))
            .collect();
        let seed = scenario.traffic.seed;
        let v_onoff = v.onoff;
        let v_sharers = v.sharers.clone();
        let v_collective = v.collective.map(|(kind, root)| {
            collective::Collective::new(
                kind,
                root,
                scenario.run.warmup,
                &collective_run::bound_params(&v, scenario),
            )
        });
        let rngs = (0..n)
            .map(|u| {
                let mut r = ChaCha8Rng::seed_from_u64(seed);
                r.set_stream(u as u64 + 1);
                r
            })
            .collect();
        let mut net = Network {
            scenario: scenario.clone(),
            fmt: v.params.flit,
            v,
            trees,
            fabric,
            nis,
            msgs: Vec::new(),
            score: Scoreboard::default(),
            busy: Vec::new(),
            arrivals: BinaryHeap::new(),
            rngs,
            process: match v_onoff {
                Some(p) => process::Process::on_off(p, n as usize),
                None => process::Process::bernoulli(scenario.traffic.rate),
            },
            batch_left: vec![scenario.traffic.batch; n as usize],
            batch_completed: None,
            closed: (scenario.traffic.window > 0).then(|| {
                closed::ClosedLoop::new(
                    scenario.traffic.window,
                    scenario.traffic.reply_length,
                    n as usize,
                )
            }),
            coherence: v_sharers.map(coherence::Coherence::new),
            collective: v_collective,
            script_next: 0,
            // Validated: the checked sums exist (bounded by 3e9 cycles).
            gen_until: scenario.run.window_end().unwrap_or(u64::MAX),
            window_flits: 0,
            deadlock: None,
            long_blocks: 0,
            seen_blocks: HashSet::new(),
            stop_reason: String::new(),
            incomplete: 0,
            error_kinds: Default::default(),
            fault,
            relays: Vec::new(),
            diverted_worms: 0,
            healthy: Vec::new(),
            unreachable_dests: 0,
            dropped_msgs: 0,
            twin: None,
            twin_mismatch: None,
            twin_drive: Vec::new(),
            raw: Vec::new(),
            raw_order: Vec::new(),
            raw_next: 0,
            raw_sent: 0,
            raw_tails: 0,
            trace: None,
            max_messages: match scenario.run.max_messages {
                0 => budget::auto_max_messages(),
                n => n,
            },
        };
        net.resolve_raw()?;
        if (0..n).any(|u| net.v.excluded(u)) {
            net.healthy = (0..n).filter(|&u| !net.v.excluded(u)).collect();
        }
        // A scripted message a tree scheme cannot fully route is bad input,
        // reported now rather than at its cycle.
        if net.v.scheme.is_some() {
            for m in &net.v.scripted {
                net.plan(m.source, &m.dests, 0)?;
            }
        }
        if net.v.pattern == Pattern::Poisson && scenario.traffic.rate > 0.0 {
            for u in 0..n {
                if net.v.excluded(u) {
                    continue;
                }
                let t = net.process.first(u as usize, &mut net.rngs[u as usize]);
                net.arrivals.push(Reverse((t, u)));
            }
        }
        net.v.scripted.sort_by_key(|m| m.cycle);
        if net.v.pattern == Pattern::Trace {
            net.attach_trace()?;
        }
        Ok(net)
    }

    pub fn cycle(&self) -> u64 {
        self.fabric.cycle
    }

    /// Encodes the scripted raw worms: a HEAD's `X,Y` becomes the address
    /// its class's routing uses (post-order number on tree `class`, the
    /// mesh address); a link port must be wired in this fabric.
    fn resolve_raw(&mut self) -> InputResult<()> {
        let topo = self.v.topo;
        let routing = self.v.params.routing;
        for (i, w) in self.v.raw.iter().enumerate() {
            let cfg = &self.scenario.traffic.raw[i];
            let wired = match w.port {
                raw::RawPort::Link(d) => self.fabric.upstream[w.node as usize][d.index()].is_some(),
                raw::RawPort::Injection(_) => true,
            };
            raw::check_wired(i, w, cfg, wired)?;
            let trees = &self.trees;
            let addr = |class: u8, n: NodeId| -> Option<u32> {
                if routing.is_mesh() {
                    Some(crate::router::mesh::address(routing, &topo, n))
                } else {
                    trees.get(class as usize).map(|t| t.number[n as usize])
                }
            };
            let mut flits = Vec::with_capacity(w.flits.len());
            for (j, fl) in w.flits.iter().enumerate() {
                flits.push(raw::encode(fl, self.fmt, &addr).map_err(|class| {
                    InputError::new(
                        format!("traffic.raw[{i}].flits[{j}].node"),
                        format!("{:?}", cfg.flits[j].node),
                        format!(
                            "a Node field value (integer) with class {class}, which names no tree of this network; \"X,Y\" needs the class's numbering"
                        ),
                    )
                })?);
            }
            self.raw.push(flits);
        }
        self.raw_order = (0..self.v.raw.len()).collect();
        self.raw_order.sort_by_key(|&i| self.v.raw[i].cycle);
        Ok(())
    }

    /// Raw worms due by `now` go to their NI channel or link driver.
    fn release_raw(&mut self, now: u64) {
        while self.raw_next < self.raw_order.len() {
            let i = self.raw_order[self.raw_next];
            let w = &self.v.raw[i];
            if w.cycle > now {
                break;
            }
            self.raw_next += 1;
            let node = w.node;
            match w.port {
                raw::RawPort::Injection(ch) => {
                    let ni = &mut self.nis[node as usize];
                    ni.raw[ch].push_back(i as u32);
                    if !ni.busy {
                        ni.busy = true;
                        self.busy.push(node);
                    }
                }
                raw::RawPort::Link(d) => {
                    let (u, o) = self.fabric.upstream[node as usize][d.index()].expect("wired");
                    self.fabric.drives.push(raw::LinkDrive {
                        router: node,
                        input: d.index() as u8,
                        upstream: (u, o),
                        worm: i as u32,
                        next: 0,
                        holding: false,
                        flit: 0,
                        valid: false,
                    });
                }
            }
        }
    }

    /// Link drivers (`network::raw`): read the current registers like an
    /// NI, hand the next flit over, take a free link, drop a finished one.
    fn drive_links(&mut self) {
        let mut k = 0;
        while k < self.fabric.drives.len() {
            let mut d = self.fabric.drives[k];
            let (u, o) = d.upstream;
            if d.holding
                && d.valid
                && self.fabric.state[d.router as usize].inp[d.input as usize].ready
            {
                d.valid = false;
                if d.next as usize == self.raw[d.worm as usize].len() {
                    self.raw_sent += 1;
                    self.fabric.drives.swap_remove(k);
                    continue;
                }
            }
            if !d.holding {
                // Take the link only between worms: no owner, nothing in
                // the upstream output register, no other driver on it.
                let out = &self.fabric.state[u as usize].out[o as usize];
                let taken = self
                    .fabric
                    .drives
                    .iter()
                    .any(|e| e.holding && e.router == d.router && e.input == d.input);
                d.holding = out.owner == crate::router::NO_OWNER && !out.valid && !taken;
            }
            if d.holding && !d.valid {
                d.flit = self.raw[d.worm as usize][d.next as usize];
                d.valid = true;
                d.next += 1;
            }
            self.fabric.drives[k] = d;
            k += 1;
        }
    }

    fn window(&self) -> (u64, u64) {
        let r = &self.scenario.run;
        (r.warmup, r.window_end().unwrap_or(u64::MAX))
    }

    /// Queues a message at its source NI; returns its number. `tree` forces a
    /// class, otherwise the DSTM policy chooses.
    pub fn submit(
        &mut self,
        source: NodeId,
        mut dests: Vec<NodeId>,
        length: u32,
        tree: Option<usize>,
    ) -> InputResult<u32> {
        crate::scenario::check_length(length, "length")?;
        dests.sort_unstable();
        dests.dedup();
        if let Some(scheme) = self.v.scheme {
            if let Some(t) = tree {
                return Err(InputError::new("tree", t, "none with mesh routing"));
            }
            if dests.is_empty() {
                return Err(InputError::new("destinations", "[]", "at least one"));
            }
            let _ = scheme;
            let plan = self.plan(source, &dests, self.msgs.len() as u64)?;
            return Ok(self.enqueue_plan(source, dests, length, plan));
        }
        // Global fault information: sources route around the faulty link
        // ([DSTM] §7); local: as if fault-free.
        let known = match self.v.fault_info {
            FaultInfo::Global => self.fault.as_ref(),
            FaultInfo::Local => None,
        };
        let class = match tree {
            Some(t) if t < self.trees.len() => t,
            Some(t) => {
                return Err(InputError::new(
                    "tree",
                    t,
                    format!("0 to {}", self.trees.len() - 1),
                ))
            }
            None if dests.len() == 1 => {
                policy::unicast_tree_global(&self.trees, known, source, dests[0])
            }
            None => {
                let drawn =
                    policy::multicast_tree(self.trees.len(), &mut self.rngs[source as usize]);
                policy::multicast_tree_global(known, drawn)
            }
        };
        let heads = encode(&self.trees[class], source, &dests, class as u8)?;
        let heads = vec![heads.iter().map(|h| self.fmt.head(*h)).collect()];
        Ok(self.enqueue(source, dests, length, class as u8, heads))
    }

    /// The worms of a mesh message (`MeshScheme::plan`), seeded per message
    /// number `id`. A destination the scheme cannot reach is an error.
    fn plan(
        &self,
        source: NodeId,
        dests: &[NodeId],
        id: u64,
    ) -> InputResult<crate::treeworm::scheme::Plan> {
        let scheme = self
            .v
            .scheme
            .ok_or_else(|| InputError::new("traffic.multicast_scheme", "none", "mesh routing"))?;
        let fm = self.v.ftmesh.as_ref().expect("mesh routing has a mesh");
        for &u in std::iter::once(&source).chain(dests) {
            if u < self.v.topo.nodes() {
                fm.healthy_node(self.v.topo.coord(u), "destinations")
                    .map_err(|e| InputError {
                        field: if u == source {
                            "source"
                        } else {
                            "destinations"
                        }
                        .into(),
                        ..e
                    })?;
            }
        }
        let seed = splitmix(self.scenario.traffic.seed ^ splitmix(id));
        let plan = scheme.plan(self.v.params.routing, fm, source, dests, seed)?;
        if let Some(&d) = plan.unreachable.first() {
            let (x, y) = self.v.topo.coord(d);
            return Err(InputError::new(
                "destinations",
                format!("{x},{y}"),
                format!(
                    "a node {} reaches (paper 002: a fault-free minimal path from the source)",
                    scheme.name()
                ),
            ));
        }
        Ok(plan)
    }

    fn enqueue_plan(
        &mut self,
        source: NodeId,
        dests: Vec<NodeId>,
        length: u32,
        plan: crate::treeworm::scheme::Plan,
    ) -> u32 {
        let heads = plan
            .worms
            .iter()
            .map(|w| w.iter().map(|h| self.fmt.head(*h)).collect())
            .collect();
        self.enqueue(source, dests, length, plan.class, heads)
    }

    /// Records a message and queues its worms at the source NI.
    fn enqueue(
        &mut self,
        source: NodeId,
        dests: Vec<NodeId>,
        length: u32,
        class: u8,
        heads: Vec<Vec<flit::Flit>>,
    ) -> u32 {
        let id = self.msgs.len() as u32;
        let worms = heads.len() as u32;
        let nd = dests.len();
        self.msgs.push(Message {
            source,
            dests,
            length,
            class,
            heads,
            created: self.cycle(),
            injected: u64::MAX,
            delivered: vec![u64::MAX; nd],
            done_count: 0,
        });
        self.incomplete += 1;
        self.enqueue_jobs(
            source,
            (0..worms).map(|w| Job {
                msg: id,
                worm: w,
                relay: None,
            }),
        );
        id
    }

    /// Queues jobs at `node`'s NI and marks it busy.
    fn enqueue_jobs(&mut self, node: NodeId, jobs: impl IntoIterator<Item = Job>) {
        let ni = &mut self.nis[node as usize];
        let before = ni.queue.len();
        ni.queue.extend(jobs);
        if !ni.busy && ni.queue.len() > before {
            ni.busy = true;
            self.busy.push(node);
        }
    }

    /// Node `u`'s next arrival after the one at `now`; none once its batch
    /// is generated (`traffic.batch`).
    fn schedule(&mut self, u: NodeId, now: u64) {
        if self.scenario.traffic.batch > 0 && self.batch_left[u as usize] == 0 {
            return;
        }
        let t = self
            .process
            .next(u as usize, now + 1, &mut self.rngs[u as usize]);
        self.arrivals.push(Reverse((t, u)));
    }

    /// Every node has generated its batch (validation ties a batch to
    /// generated traffic) and every message is delivered.
    fn batch_complete(&self) -> bool {
        self.scenario.traffic.batch > 0 && self.arrivals.is_empty() && self.all_done()
    }

    /// Message `msg` has reached its last destination: one fewer in flight,
    /// and the closed loop, if any, answers it this cycle.
    fn message_completed(&mut self, msg: u32) {
        self.incomplete -= 1;
        if let Some(t) = &mut self.trace {
            let at = self.msgs[msg as usize].finished().expect("complete");
            t.delivered(msg, at);
        }
        if let Some(c) = &mut self.closed {
            c.completed.push(msg);
        }
        if self.collective.is_some() {
            self.collective_message_done(msg);
        }
    }

    /// Draws and queues one generated message at `u` (destinations by the
    /// unicast pattern or multicast model, length); its number, or `None`
    /// when `u` sends nothing this time (a pattern's fixed point, a shape
    /// holding only `u`, destinations all unreachable).
    fn draw_message(&mut self, u: NodeId) -> Option<u32> {
        // The scalars only: cloning the whole section copied its
        // strings on every message.
        let tr = &self.scenario.traffic;
        let (fraction, length, length_max) = (tr.multicast_fraction, tr.length, tr.length_max);
        let n = self.v.topo.nodes();
        let rng = &mut self.rngs[u as usize];
        let multicast = rng.gen_bool(fraction);
        if !multicast && !matches!(self.v.unicast, patterns::UnicastDests::Uniform) {
            // A patterned unicast; none from a node the pattern maps
            // to itself.
            let dest = self.v.unicast.pick(u, rng);
            let length = draw_length(rng, length, length_max);
            return dest.map(|d| {
                self.submit(u, vec![d], length, None)
                    .expect("generated messages are valid")
            });
        }
        if multicast && self.coherence.is_some() {
            // A write miss and its invalidations (`network::coherence`).
            return Some(self.start_transaction(u));
        }
        let count = if multicast {
            rng.gen_range(self.v.dest_range.0..=self.v.dest_range.1)
        } else {
            1
        };
        if multicast && self.v.multicast.model != multicast::MulticastModel::Uniform {
            // A shaped multicast (row, region, ...); none when the
            // shape holds only the source.
            let dests = self.v.multicast.draw(&self.v.topo, u, count, rng);
            let length = draw_length(rng, length, length_max);
            return (!dests.is_empty()).then(|| {
                self.submit(u, dests, length, None)
                    .expect("generated messages are valid")
            });
        }
        // Candidates: every other node, or every other healthy node on a
        // faulty mesh (index i of the candidates, skipping the source).
        let pool = if self.healthy.is_empty() {
            n
        } else {
            self.healthy.len() as u32
        };
        let count = count.min(pool - 1);
        let pick = |i: u32| {
            if self.healthy.is_empty() {
                i
            } else {
                self.healthy[i as usize]
            }
        };
        let me = if self.healthy.is_empty() {
            u
        } else {
            self.healthy.binary_search(&u).expect("healthy source") as u32
        };
        let mut dests: Vec<NodeId> =
            rand::seq::index::sample(rng, (pool - 1) as usize, count as usize)
                .into_iter()
                .map(|i| {
                    pick(if i as u32 >= me {
                        i as u32 + 1
                    } else {
                        i as u32
                    })
                })
                .collect();
        let length = draw_length(rng, length, length_max);
        if self.v.scheme.is_some_and(|k| k.fault_tolerant()) {
            // [FTTREE] routes only destinations with a fault-free
            // minimal path; the others are dropped and counted.
            dests.sort_unstable();
            let fm = self.v.ftmesh.as_ref().expect("mesh");
            let topo = self.v.topo;
            let before = dests.len();
            dests.retain(|&d| crate::ftmesh::reachable(fm, topo.coord(u), topo.coord(d)));
            self.unreachable_dests += (before - dests.len()) as u64;
            if dests.is_empty() {
                self.dropped_msgs += 1;
            }
        }
        (!dests.is_empty()).then(|| {
            self.submit(u, dests, length, None)
                .expect("generated messages are valid")
        })
    }

    /// A generated message at `u`, counted against its window when the
    /// loop is closed.
    fn request(&mut self, u: NodeId) {
        let id = self.draw_message(u);
        if let (Some(c), Some(id)) = (&mut self.closed, id) {
            c.outstanding[u as usize] += 1;
            c.tag.insert(id, closed::Tag::Request);
        }
    }

    /// The loop's answer to the messages completed this cycle: a request
    /// gets its reply, a reply (or a request that needs none) frees its
    /// request's slot.
    fn close_loop(&mut self) {
        let c = self.closed.as_mut().expect("closed loop");
        let done = std::mem::take(&mut c.completed);
        for id in done {
            let c = self.closed.as_mut().expect("closed loop");
            let reply_length = c.reply_length;
            match c.tag.remove(&id) {
                // Scripted and raw messages are outside the loop.
                None => {}
                Some(closed::Tag::Request) => {
                    let m = &self.msgs[id as usize];
                    if reply_length > 0 && m.dests.len() == 1 {
                        let (from, to) = (m.dests[0], m.source);
                        let r = self
                            .submit(from, vec![to], reply_length, None)
                            .expect("a reply is a valid unicast");
                        let c = self.closed.as_mut().expect("closed loop");
                        c.tag.insert(r, closed::Tag::Reply(id));
                    } else {
                        self.transaction_done(id, id);
                    }
                }
                Some(closed::Tag::Reply(req)) => self.transaction_done(req, id),
            }
        }
    }

    /// Request `req` is done with message `last` (itself or its reply):
    /// its slot is free, and a held arrival at its source takes it.
    fn transaction_done(&mut self, req: u32, last: u32) {
        let m = &self.msgs[req as usize];
        let (src, created) = (m.source, m.created);
        let fin = self.msgs[last as usize].finished().expect("completed");
        let open = self.cycle() < self.gen_until;
        let c = self.closed.as_mut().expect("closed loop");
        c.outstanding[src as usize] -= 1;
        c.round_trips.push((created, fin - created));
        if c.held[src as usize] > 0 && open {
            c.held[src as usize] -= 1;
            self.request(src);
        }
    }

    fn generate(&mut self) {
        let now = self.cycle();
        if self.raw_next < self.raw_order.len() {
            self.release_raw(now);
        }
        if self.collective.is_some() {
            self.start_collective();
        }
        if now >= self.gen_until {
            return;
        }
        if self.trace.is_some() {
            self.release_trace(now);
        }
        while let Some(&Reverse((t, u))) = self.arrivals.peek() {
            if t > now {
                break;
            }
            self.arrivals.pop();
            if self.batch_left[u as usize] > 0 {
                self.batch_left[u as usize] -= 1;
            }
            match &mut self.closed {
                // A full window holds the arrival until a slot frees.
                Some(c) if c.outstanding[u as usize] >= c.window => {
                    c.held[u as usize] += 1;
                    c.held_arrivals += 1;
                }
                _ => self.request(u),
            }
            self.schedule(u, now);
        }
        while self.script_next < self.v.scripted.len()
            && self.v.scripted[self.script_next].cycle <= now
        {
            let m = self.v.scripted[self.script_next].clone();
            self.script_next += 1;
            self.submit(m.source, m.dests, m.length, m.tree)
                .expect("validated scripted message");
        }
    }

    /// Advances one clock cycle.
    pub fn step(&mut self) {
        self.generate();
        // A flit from an NI or a raw link driver wakes its router when the
        // router takes it (`Fabric::inject`, `Fabric::evaluate`); a router
        // that cannot is full, so active.
        if self.twin.is_some() && self.twin_mismatch.is_none() {
            self.drive_twin();
        }
        // Link handshakes; the NIs inject in `send`.
        self.fabric.evaluate();
        self.consume();
        if self.closed.is_some() {
            self.close_loop();
        }
        if self.coherence.is_some() {
            self.advance_transactions();
        }
        self.send();
        if !self.fabric.drives.is_empty() {
            self.drive_links();
        }
        let kinds = &mut self.error_kinds;
        let truncated = &mut self.score.truncated;
        self.fabric.commit(&mut |_, act| {
            // Several inputs may fail in one cycle; the register keeps the
            // last code, the statistics count each.
            for &c in act.err_codes.iter().filter(|&&c| c != 0) {
                *kinds.entry(c).or_insert(0) += 1;
            }
            *truncated += act.truncated.count_ones() as u64;
        });
    }

    /// Checks the twin against the fabric's registers and clocks it with the
    /// NIs' injection drive of this cycle (the same values `step` gives the
    /// native fabric).
    fn drive_twin(&mut self) {
        let inj = self.v.params.injection;
        self.twin_drive.clear();
        for ni in &self.nis {
            for k in 0..inj {
                let s = &ni.senders[k];
                self.twin_drive.push(twin::InjDrive {
                    flit: s.out_flit,
                    valid: s.out_valid,
                });
            }
        }
        let now = self.cycle();
        if let Some(t) = self.twin.as_mut() {
            if let Err(e) = t.cycle(now, &self.fabric, &self.twin_drive) {
                self.twin_mismatch = Some(e);
            }
        }
    }

    /// Sinks: every valid consumption output moves into its NI this edge.
    fn consume(&mut self) {
        let now = self.cycle();
        let (w0, w1) = self.window();
        let in_window = now >= w0 && now < w1;
        for idx in 0..self.fabric.active().len() {
            let r = self.fabric.active()[idx];
            // The port masks say which consumption registers hold a flit
            // without touching the router's registers.
            for c in crate::router::bits(self.fabric.out_valid(r) >> 4) {
                let o = consumption_output(c as u8);
                let out = self.fabric.state[r as usize].out[o];
                let sh = self.fabric.shadow[r as usize].out[o];
                self.sink(r, c, out.flit, sh, now);
                if in_window && matches!(flit::kind(out.flit), Kind::Body | Kind::Tail) {
                    self.window_flits += 1;
                }
            }
        }
    }

    fn sink(&mut self, node: NodeId, c: usize, f: flit::Flit, shadow: u32, now: u64) {
        // Raw flits stay out of the message scoreboard; the NI only counts
        // how their worms ended (a channel carries one worm at a time).
        if !self.raw.is_empty() && raw::is_raw(shadow) {
            if flit::kind(f) == Kind::Tail {
                self.raw_tails += 1;
                if shadow & raw::TRUNC_MSG != 0 {
                    self.score.truncated += 1;
                }
            }
            return;
        }
        let state = self.nis[node as usize].sinks[c];
        let kind = flit::kind(f);
        let next = match (state, kind) {
            // A worm diverted here by this node's router (local fault
            // information): only a router next to a faulty link does that.
            (SinkState::Expect, Kind::Head) if self.fabric.cfg[node as usize].divert_out != 0 => {
                let heads = &mut self.nis[node as usize].divert_heads[c];
                heads.clear();
                heads.push(f);
                self.diverted_worms += 1;
                SinkState::DivertHeads
            }
            (SinkState::DivertHeads, Kind::Head) => {
                self.nis[node as usize].divert_heads[c].push(f);
                SinkState::DivertHeads
            }
            (SinkState::DivertHeads, Kind::Body) => match self.resolve(flit::payload(f)) {
                Some(m) => SinkState::Receiving {
                    msg: m,
                    index: 1,
                    divert: true,
                },
                None => {
                    self.score.corrupted += 1;
                    SinkState::Skipping
                }
            },
            (SinkState::DivertHeads, Kind::Tail) => {
                self.score.truncated += 1;
                SinkState::Expect
            }
            (SinkState::Expect, Kind::Body) => match self.resolve(flit::payload(f)) {
                Some(m) => match self.msgs[m as usize].dests.binary_search(&node) {
                    Ok(di) if self.msgs[m as usize].delivered[di] == u64::MAX => {
                        SinkState::Receiving {
                            msg: m,
                            index: 1,
                            divert: false,
                        }
                    }
                    Ok(_) => {
                        self.score.duplicates += 1;
                        SinkState::Skipping
                    }
                    Err(_) => {
                        self.score.misdelivered += 1;
                        SinkState::Skipping
                    }
                },
                None => {
                    self.score.corrupted += 1;
                    SinkState::Skipping
                }
            },
            (SinkState::Expect, Kind::Tail) => {
                self.score.truncated += 1;
                SinkState::Expect
            }
            (SinkState::Receiving { msg, index, divert }, Kind::Body | Kind::Tail) => {
                let m = &self.msgs[msg as usize];
                let tag = msg as u64 & self.fmt.payload_mask();
                let want = flit::payload_word(tag, index) & self.fmt.payload_mask();
                let is_tail = kind == Kind::Tail;
                let last = index + 1 == m.length;
                if flit::payload(f) != want || is_tail != last {
                    if is_tail {
                        self.score.truncated += 1;
                        SinkState::Expect
                    } else {
                        self.score.corrupted += 1;
                        SinkState::Skipping
                    }
                } else if is_tail && divert {
                    self.relay(node, c, msg, now);
                    SinkState::Expect
                } else if is_tail {
                    let m = &mut self.msgs[msg as usize];
                    let di = m.dests.binary_search(&node).expect("checked at identity");
                    m.delivered[di] = now + 1;
                    m.done_count += 1;
                    if m.complete() {
                        self.message_completed(msg);
                    }
                    self.delivered_to(msg, node, now + 1);
                    SinkState::Expect
                } else {
                    SinkState::Receiving {
                        msg,
                        index: index + 1,
                        divert,
                    }
                }
            }
            (SinkState::Skipping, Kind::Tail) => SinkState::Expect,
            (SinkState::Skipping, _) => SinkState::Skipping,
            // Routers strip every HEAD before a consumption channel; one here,
            // or a reserved kind, is a corrupted worm.
            (_, Kind::Head | Kind::Reserved) => {
                self.score.corrupted += 1;
                SinkState::Skipping
            }
        };
        self.nis[node as usize].sinks[c] = next;
    }

    /// Local fault information (\[DSTM\] §7): the NI of `node` has
    /// consumed a whole worm its router diverted on channel `c`. The C=1
    /// headers (post-order numbers on the worm's tree) are the branch's
    /// destinations: `node` itself is delivered now if it is one, the rest
    /// are re-encoded on the good tree with `node` as the source and queued
    /// for re-injection, paying a second start-up. Same message identity,
    /// so the scoreboard counts the final deliveries.
    fn relay(&mut self, node: NodeId, c: usize, msg: u32, now: u64) {
        let heads = std::mem::take(&mut self.nis[node as usize].divert_heads[c]);
        let class = flit::decode_head(heads[0]).class as usize;
        let mut dests = Vec::new();
        let mut bad = class >= self.trees.len();
        for &h in &heads {
            let h = flit::decode_head(h);
            if h.class as usize != class || bad {
                bad = true;
                break;
            }
            if h.c {
                match self.trees[class].node_of.get(h.node as usize) {
                    Some(&v) => dests.push(v),
                    None => bad = true,
                }
            }
        }
        self.nis[node as usize].divert_heads[c] = heads;
        self.nis[node as usize].divert_heads[c].clear();
        // Messages only move from the faulty tree to the good one.
        let good = match self.fault {
            Some(f) if f.tree == class && !bad => f.good,
            _ => {
                self.score.corrupted += 1;
                return;
            }
        };
        dests.sort_unstable();
        dests.dedup();
        if let Ok(k) = dests.binary_search(&node) {
            dests.remove(k);
            let m = &mut self.msgs[msg as usize];
            match m.dests.binary_search(&node) {
                Ok(di) if m.delivered[di] == u64::MAX => {
                    m.delivered[di] = now + 1;
                    m.done_count += 1;
                    if m.complete() {
                        self.message_completed(msg);
                    }
                    self.delivered_to(msg, node, now + 1);
                }
                Ok(_) => self.score.duplicates += 1,
                Err(_) => self.score.misdelivered += 1,
            }
        }
        if dests.is_empty() {
            return;
        }
        let Ok(hs) = encode(&self.trees[good], node, &dests, good as u8) else {
            self.score.corrupted += 1;
            return;
        };
        let heads = hs.iter().map(|h| self.fmt.head(*h)).collect();
        let r = self.relays.len() as u32;
        self.relays.push(Relay {
            msg,
            node,
            class: good as u8,
            dests,
            heads,
            created: now + 1,
        });
        self.enqueue_jobs(
            node,
            [Job {
                msg,
                worm: 0,
                relay: Some(r),
            }],
        );
    }

    /// Maps a payload tag back to a message number: the newest message
    /// with that tag (tags wrap at the payload width).
    fn resolve(&self, tag: u64) -> Option<u32> {
        let mask = self.fmt.payload_mask();
        let n = self.msgs.len() as u64;
        if tag >= n && tag > mask {
            return None;
        }
        let period = mask + 1;
        let mut m = tag;
        while m + period < n {
            m += period;
        }
        (m < n).then_some(m as u32)
    }

    /// Senders: hand flits to the injection FIFOs.
    fn send(&mut self) {
        let now = self.cycle();
        let startup = self.scenario.timing.startup_cycles;
        let serial = self.scenario.timing.startup_serial;
        let mut k = 0;
        while k < self.busy.len() {
            let u = self.busy[k] as usize;
            let ni = &mut self.nis[u];
            for (ch, s) in ni.senders.iter_mut().enumerate() {
                // The router takes the flit on offer at this edge when its
                // registered `ready` is 1 (`Fabric::inject`).
                if s.out_valid && self.fabric.inject(u as u32, ch, s.out_flit, s.out_msg) {
                    if raw::is_raw(s.out_msg) {
                        if s.state == SendState::Idle {
                            self.raw_sent += 1;
                        }
                    } else {
                        let m = &mut self.msgs[s.out_msg as usize];
                        if m.injected == u64::MAX {
                            m.injected = now + 1;
                        }
                    }
                    s.out_valid = false;
                }
                if s.out_valid {
                    continue;
                }
                if s.state == SendState::Idle {
                    // A scripted raw worm due on this channel goes first.
                    if let Some(w) = ni.raw[ch].pop_front() {
                        s.state = SendState::Raw { worm: w, next: 0 };
                    }
                }
                if let SendState::Raw { worm, next } = s.state {
                    let flits = &self.raw[worm as usize];
                    s.out_flit = flits[next as usize];
                    s.out_valid = true;
                    s.out_msg = raw::RAW_MSG | worm;
                    s.state = if next as usize + 1 == flits.len() {
                        SendState::Idle
                    } else {
                        SendState::Raw {
                            worm,
                            next: next + 1,
                        }
                    };
                    continue;
                }
                if s.state == SendState::Idle {
                    if let Some(job) = ni.queue.pop_front() {
                        s.msg = job.msg;
                        s.worm = job.worm;
                        s.relay = job.relay;
                        let until = if serial {
                            ni.startup_free = ni.startup_free.max(now) + startup;
                            ni.startup_free
                        } else {
                            now + startup
                        };
                        s.state = SendState::Startup { until };
                    }
                }
                if let SendState::Startup { until } = s.state {
                    if now >= until {
                        s.state = SendState::Sending { next: 0 };
                    }
                }
                if let SendState::Sending { next } = s.state {
                    let m = &self.msgs[s.msg as usize];
                    let tag = s.msg as u64 & self.fmt.payload_mask();
                    let heads = match s.relay {
                        Some(r) => &self.relays[r as usize].heads,
                        None => &m.heads[s.worm as usize],
                    };
                    s.out_flit = message_flit(&self.fmt, heads, m.length, tag, next);
                    s.out_valid = true;
                    s.out_msg = s.msg;
                    s.state = if next + 1 == heads.len() as u32 + m.length {
                        SendState::Idle
                    } else {
                        SendState::Sending { next: next + 1 }
                    };
                }
            }
            if ni.idle() {
                ni.busy = false;
                self.busy.swap_remove(k);
            } else {
                k += 1;
            }
        }
    }

    /// Runs the deadlock detector if an input has been blocked long enough.
    /// Returns true on deadlock.
    pub fn check_deadlock(&mut self) -> bool {
        let th = self.scenario.run.deadlock_threshold;
        let blocked = self.fabric.long_blocked(th);
        if blocked.is_empty() {
            return false;
        }
        if let Some(d) = self.fabric.find_deadlock() {
            self.deadlock = Some(d);
            return true;
        }
        for (r, i) in blocked {
            if self
                .seen_blocks
                .insert((r, i, self.fabric.last_move[r as usize][i]))
            {
                self.long_blocks += 1;
            }
        }
        false
    }

    /// Runs warm-up, measurement and drain. `observe` is called after each
    /// clock edge (VCD, progress); returning false stops the run early, and
    /// the report still covers what was simulated.
    pub fn run(&mut self, observe: &mut dyn FnMut(&Network) -> bool) -> stats::Report {
        let wall = std::time::Instant::now();
        let (_, w1) = self.window();
        let end = self.scenario.run.total_cycles().unwrap_or(u64::MAX);
        let check = (self.scenario.run.deadlock_threshold / 2).max(8);
        // Without a drain the run ends with the window: no "end of drain".
        self.stop_reason = if self.scenario.run.drain_cycles == 0 {
            "end of window"
        } else {
            "end of drain"
        }
        .into();
        while self.cycle() < end {
            self.step();
            if self.twin_mismatch.is_some() {
                self.stop_reason = "engine mismatch".into();
                break;
            }
            if !observe(self) {
                self.stop_reason = "interrupted".into();
                break;
            }
            let now = self.cycle();
            if now.is_multiple_of(check) && self.check_deadlock() {
                self.stop_reason = "deadlock".into();
                break;
            }
            if self
                .collective
                .as_ref()
                .is_some_and(|c| c.completed.is_some())
            {
                self.stop_reason = "collective complete".into();
                break;
            }
            if let Some(reason) = self.trace_stop() {
                self.stop_reason = reason.into();
                break;
            }
            if self.msgs.len() as u64 > self.max_messages {
                self.stop_reason =
                    format!("message budget (run.max_messages = {})", self.max_messages);
                break;
            }
            if now >= w1 && self.all_done() {
                self.stop_reason = "drained".into();
                break;
            }
            if self.batch_complete() {
                self.batch_completed = self.msgs.iter().filter_map(|m| m.finished()).max();
                self.stop_reason = "batch complete".into();
                break;
            }
        }
        stats::Report::build(self, wall.elapsed().as_secs_f64())
    }

    /// Every submitted message delivered and no flit left anywhere.
    pub fn all_done(&self) -> bool {
        self.incomplete == 0 && self.network_empty()
    }

    /// No NI has work, no router holds a flit and no scripted raw worm is
    /// still to come.
    pub fn network_empty(&self) -> bool {
        self.busy.is_empty()
            && self.fabric.active().is_empty()
            && self.raw_next == self.raw_order.len()
            && self.fabric.drives.is_empty()
    }
}

/// A generated message's data flits: `length`, or uniform from `length` to
/// `length_max` when that is larger (\[BRCP\] §4).
fn draw_length(rng: &mut ChaCha8Rng, length: u32, length_max: u32) -> u32 {
    if length_max > length {
        rng.gen_range(length..=length_max)
    } else {
        length
    }
}
