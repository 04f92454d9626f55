//! Run statistics: the report `wormcast run` prints and writes as JSON.
//!
//! Latency of a message = cycles from its creation at the source NI (so
//! source queueing and the start-up latency are included, as in \[DSTM\]
//! §6) to the consumption of its TAIL at the last destination. Only messages
//! created inside the measurement window count. Accepted throughput is data
//! flits consumed at destinations inside the window, per node per cycle.

use super::coherence::{Coherence, Transaction};
use super::collective::{Collective, LowerBound};
use super::Network;
use crate::fabric::deadlock::WaitingWorm;
use crate::router::RouterError;
use crate::topology::{NodeId, Topology};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencyStats {
    pub count: u64,
    pub mean: f64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

impl LatencyStats {
    pub fn of(mut v: Vec<u64>) -> LatencyStats {
        if v.is_empty() {
            return LatencyStats::default();
        }
        v.sort_unstable();
        let pct = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize];
        LatencyStats {
            count: v.len() as u64,
            mean: v.iter().sum::<u64>() as f64 / v.len() as f64,
            p50: pct(0.5),
            p99: pct(0.99),
            max: *v.last().unwrap(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub topology: String,
    pub construction: String,
    pub seed: u64,
    /// Cycles simulated.
    pub cycles: u64,
    pub stop_reason: String,
    /// Warm-up and measurement window as simulated (an interrupted or
    /// deadlocked run reports what it reached, not what was planned).
    pub warmup_cycles: u64,
    pub window_cycles: u64,
    /// The window the scenario asked for (summary only).
    #[serde(skip)]
    pub planned_window_cycles: u64,
    /// The traffic settings in words (summary only; the JSON has the
    /// scenario for them).
    #[serde(skip)]
    pub traffic: String,
    pub injected_messages: u64,
    pub delivered_messages: u64,
    /// Messages never fully delivered although the network ran empty.
    pub lost_messages: u64,
    /// Messages still in flight or queued when the run stopped.
    pub unfinished_messages: u64,
    pub duplicate_deliveries: u64,
    pub misdelivered: u64,
    pub corrupted_flits: u64,
    pub truncated_messages: u64,
    pub router_errors: u64,
    pub router_errors_by_kind: BTreeMap<String, u64>,
    pub deadlock: bool,
    pub deadlock_cycle: Vec<WaitingWorm>,
    pub long_blocks: u64,
    pub latency_mean_cycles: f64,
    pub latency_p99_cycles: u64,
    pub latency: LatencyStats,
    pub latency_unicast: LatencyStats,
    pub latency_multicast: LatencyStats,
    /// Creation to first flit in the router (queueing + start-up).
    pub source_wait_mean_cycles: f64,
    pub offered_messages_per_node_cycle: f64,
    pub accepted_messages_per_node_cycle: f64,
    pub throughput_flits_per_node_cycle: f64,
    /// Per source, messages completed in the window per cycle: min and median.
    pub source_throughput_min: f64,
    pub source_throughput_median: f64,
    pub link_utilisation_mean: f64,
    pub link_utilisation_max: f64,
    pub saturated: bool,
    pub wall_seconds: f64,
    /// Simulated routers × cycles per wall-clock second.
    pub router_cycles_per_second: f64,
    /// Router next-state evaluations actually executed (idle routers skipped).
    pub router_steps: u64,
    /// Flits moved across router-to-router links.
    pub flit_hops: u64,
    /// Faulty links as given in the scenario (at most one).
    pub faulty_links: Vec<String>,
    /// `global` or `local` (\[DSTM\] §7; meaningful with a faulty link).
    pub fault_info: String,
    /// Worms a router diverted to its own NI because their branch met the
    /// faulty link (local information; 0 with global information).
    pub diverted_worms: u64,
    /// Re-injections of diverted worms on the good tree. Equal to
    /// `diverted_worms`: a branch is diverted only when a destination lies
    /// beyond the faulty link.
    pub reinjected_messages: u64,
    /// Mesh routing: faulty nodes as given, nodes cut out of the fabric
    /// (faulty plus disabled, \[FTTREE\]), and randomly drawn destinations
    /// (messages) dropped because the scheme cannot reach them.
    pub faulty_nodes: Vec<String>,
    pub excluded_nodes: u64,
    pub unreachable_destinations: u64,
    pub dropped_messages: u64,
    /// Worms per message (several for path-based multicasts and for trees
    /// with detached branches).
    pub worms_per_message: f64,
    /// `run --engine verilator`: the first cycle, node and port where the
    /// generated Verilog differed from the native model (the run stopped
    /// there, `stop_reason` = "engine mismatch"); null when none did.
    pub engine_mismatch: Option<String>,
    /// Scripted raw worms (`traffic.raw`) whose last flit entered their
    /// router, and raw TAILs consumed by NIs (intact or truncated). Left
    /// out of the JSON when 0, so runs without raw flits report as before.
    #[serde(skip_serializing_if = "is_zero")]
    pub raw_worms_sent: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub raw_tails_consumed: u64,
    /// `traffic.batch`: the cycle the last message of every node's batch
    /// was delivered (the run stops there); absent without a batch or when
    /// the run stopped first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_completion_cycle: Option<u64>,
    /// `traffic.window` > 0: round trips and transactions of the closed
    /// loop (`network::closed`); absent in open loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_loop: Option<ClosedLoopStats>,
    /// `traffic.multicast = "invalidation"`: the write-miss transactions
    /// (`network::coherence`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coherence: Option<CoherenceStats>,
    /// `traffic.collective`: completion time against its lower bound
    /// (`network::collective`); absent without a collective.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collective: Option<CollectiveStats>,
    /// `pattern = "trace"`: what the replay got through
    /// (`network::trace`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::trace::TraceStats>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Report {
    pub fn build(net: &Network, wall: f64) -> Report {
        let (w0, w1) = net.window();
        let cycles = net.cycle();
        let n = net.v.topo.nodes() as u64;
        // Rates are per node that can send and receive: nodes cut out of a
        // faulty mesh ([FTTREE]'s faulty and disabled nodes) have no NI
        // traffic and do not count.
        let excluded = (0..net.v.topo.nodes())
            .filter(|&u| net.v.excluded(u))
            .count() as u64;
        let active = (n - excluded).max(1);
        let win = w1.min(cycles).saturating_sub(w0).max(1);
        let mut all = Vec::new();
        let mut uni = Vec::new();
        let mut multi = Vec::new();
        let mut waits = Vec::new();
        let mut offered = 0u64;
        let mut per_source = vec![0u64; n as usize];
        let mut accepted = 0u64;
        for m in &net.msgs {
            if let Some(f) = m.finished() {
                if f >= w0 && f < w1 {
                    accepted += 1;
                    per_source[m.source as usize] += 1;
                }
            }
            if m.created < w0 || m.created >= w1 {
                continue;
            }
            offered += 1;
            if m.injected != u64::MAX {
                waits.push(m.injected - m.created);
            }
            if let Some(f) = m.finished() {
                let l = f - m.created;
                all.push(l);
                if m.is_multicast() {
                    multi.push(l)
                } else {
                    uni.push(l)
                }
            }
        }
        let latency = LatencyStats::of(all);
        let mut per_source: Vec<u64> = per_source
            .into_iter()
            .enumerate()
            .filter(|&(u, _)| !net.v.excluded(u as NodeId))
            .map(|(_, c)| c)
            .collect();
        per_source.sort_unstable();
        let delivered = net.msgs.iter().filter(|m| m.complete()).count() as u64;
        let unfinished = net.msgs.len() as u64 - delivered;
        let empty = net.network_empty();
        let mut errs = BTreeMap::new();
        let mut router_errors = 0u64;
        for s in &net.fabric.state {
            router_errors += s.err_count as u64;
        }
        for (code, count) in net.error_kinds.iter() {
            if let Some(e) = RouterError::from_code(*code) {
                errs.insert(e.name().to_string(), *count);
            }
        }
        let links: Vec<f64> = (0..n as usize)
            .flat_map(|r| {
                (0..4)
                    .filter(move |&d| net.fabric.downstream[r][d].is_some())
                    .map(move |d| (r, d))
            })
            .map(|(r, d)| net.fabric.sent[r][d] as f64 / cycles.max(1) as f64)
            .collect();
        let offered_rate = offered as f64 / (active * win) as f64;
        let accepted_rate = accepted as f64 / (active * win) as f64;
        Report {
            topology: net.v.topo.to_string(),
            construction: if let Some(k) = net.v.scheme {
                format!("{} on {} routing", k.name(), net.v.params.routing.name())
            } else if net.v.params.routing == crate::config::RoutingKind::Spam {
                if net.v.spam_bfs {
                    "spam(bfs)".to_string()
                } else {
                    format!("spam({} tree 0)", net.v.construction)
                }
            } else {
                net.v.construction.to_string()
            },
            seed: net.scenario.traffic.seed,
            cycles,
            stop_reason: net.stop_reason.clone(),
            warmup_cycles: w0.min(cycles),
            window_cycles: w1.min(cycles).saturating_sub(w0),
            planned_window_cycles: w1 - w0,
            traffic: traffic_words(net),
            injected_messages: net.msgs.iter().filter(|m| m.injected != u64::MAX).count() as u64,
            delivered_messages: delivered,
            lost_messages: if empty { unfinished } else { 0 },
            unfinished_messages: if empty { 0 } else { unfinished },
            duplicate_deliveries: net.score.duplicates,
            misdelivered: net.score.misdelivered,
            corrupted_flits: net.score.corrupted,
            truncated_messages: net.score.truncated,
            router_errors,
            router_errors_by_kind: errs,
            deadlock: net.deadlock.is_some(),
            deadlock_cycle: net.deadlock.clone().unwrap_or_default(),
            long_blocks: net.long_blocks,
            latency_mean_cycles: latency.mean,
            latency_p99_cycles: latency.p99,
            latency,
            latency_unicast: LatencyStats::of(uni),
            latency_multicast: LatencyStats::of(multi),
            source_wait_mean_cycles: if waits.is_empty() {
                0.0
            } else {
                waits.iter().sum::<u64>() as f64 / waits.len() as f64
            },
            offered_messages_per_node_cycle: offered_rate,
            accepted_messages_per_node_cycle: accepted_rate,
            throughput_flits_per_node_cycle: net.window_flits as f64 / (active * win) as f64,
            source_throughput_min: per_source.first().copied().unwrap_or(0) as f64 / win as f64,
            source_throughput_median: per_source.get(per_source.len() / 2).copied().unwrap_or(0)
                as f64
                / win as f64,
            link_utilisation_mean: if links.is_empty() {
                0.0
            } else {
                links.iter().sum::<f64>() / links.len() as f64
            },
            link_utilisation_max: links.iter().copied().fold(0.0, f64::max),
            saturated: offered > 0 && (accepted as f64) < 0.95 * offered as f64,
            wall_seconds: wall,
            router_cycles_per_second: if wall > 0.0 {
                (n * cycles) as f64 / wall
            } else {
                0.0
            },
            router_steps: net.fabric.router_steps,
            flit_hops: net
                .fabric
                .sent
                .iter()
                .map(|s| s[..4].iter().sum::<u64>())
                .sum(),
            faulty_links: (net.scenario.network.faulty_links.iter())
                .map(|l| l.to_string())
                .collect(),
            fault_info: net.v.fault_info.name().to_string(),
            diverted_worms: net.diverted_worms,
            reinjected_messages: net.relays.len() as u64,
            faulty_nodes: net.scenario.network.faulty_nodes.clone(),
            excluded_nodes: excluded,
            unreachable_destinations: net.unreachable_dests,
            dropped_messages: net.dropped_msgs,
            worms_per_message: if net.msgs.is_empty() {
                0.0
            } else {
                net.msgs.iter().map(|m| m.heads.len()).sum::<usize>() as f64 / net.msgs.len() as f64
            },
            engine_mismatch: net.twin_mismatch.clone(),
            raw_worms_sent: net.raw_sent,
            raw_tails_consumed: net.raw_tails,
            batch_completion_cycle: net.batch_completed,
            closed_loop: net.closed.as_ref().map(|c| {
                let (w0, w1) = net.window();
                ClosedLoopStats::of(c, w0, w1.min(cycles), net.v.topo.nodes() as u64)
            }),
            coherence: net
                .coherence
                .as_ref()
                .map(|c| CoherenceStats::of(c, w0, w1.min(cycles), active)),
            collective: (net.collective.as_ref()).map(|c| CollectiveStats::of(c, &net.v.topo)),
            trace: (net.trace.as_ref()).map(|t| {
                t.stats(
                    &net.scenario.traffic.trace,
                    net.scenario.traffic.trace_format,
                )
            }),
        }
    }

    /// No scoreboard violation: nothing lost, duplicated, misdelivered or
    /// corrupted. Truncated worms are not violations: they are the
    /// documented outcome of malformed input (router errors).
    pub fn scoreboard_clean(&self) -> bool {
        self.lost_messages == 0
            && self.duplicate_deliveries == 0
            && self.misdelivered == 0
            && self.corrupted_flits == 0
    }

    /// Human-readable summary. Message counts are whole messages, rates
    /// say their unit (msgs or flits per node per cycle).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        use std::fmt::Write;
        let _ = writeln!(
            s,
            "wormcast run: {} {}, seed {}",
            self.topology, self.construction, self.seed
        );
        if !self.traffic.is_empty() {
            let _ = writeln!(s, "  traffic               {}", self.traffic);
        }
        let window = if self.window_cycles < self.planned_window_cycles {
            format!(
                "window {} of {} planned",
                self.window_cycles, self.planned_window_cycles
            )
        } else {
            format!("window {}", self.window_cycles)
        };
        let _ = writeln!(
            s,
            "  cycles simulated      {} ({}; warm-up {}, {window})",
            self.cycles, self.stop_reason, self.warmup_cycles
        );
        // Created = delivered + lost + unfinished; "unfinished" includes
        // messages still queued at their source, never injected.
        let created = self.delivered_messages + self.lost_messages + self.unfinished_messages;
        let _ = writeln!(
            s,
            "  messages              {created} created, {} injected, {} delivered, {} lost, {} unfinished (queued or in flight)",
            self.injected_messages,
            self.delivered_messages,
            self.lost_messages,
            self.unfinished_messages
        );
        let _ = writeln!(
            s,
            "  scoreboard            {} duplicates, {} misdelivered, {} corrupted flits, {} truncated messages",
            self.duplicate_deliveries,
            self.misdelivered,
            self.corrupted_flits,
            self.truncated_messages
        );
        let _ = writeln!(s, "  router errors         {}", self.router_errors);
        if let Some(t) = &self.trace {
            let _ = writeln!(
                s,
                "  trace                 {} messages ({} dependencies): {} released, {} delivered ({} local), {} never released; held {:.1} cycles on average by dependencies; {}",
                t.messages,
                t.dependencies,
                t.released,
                t.delivered,
                t.local,
                t.unreleased,
                t.dependency_wait_mean_cycles,
                match t.completion_cycle {
                    Some(c) => format!("complete at cycle {c}"),
                    None => "not complete".to_string(),
                }
            );
        }
        if self.raw_worms_sent > 0 {
            let _ = writeln!(
                s,
                "  raw worms             {} sent, {} TAILs consumed by NIs",
                self.raw_worms_sent, self.raw_tails_consumed
            );
        }
        if self.excluded_nodes > 0 {
            let _ = writeln!(
                s,
                "  faulty mesh           {} nodes cut out (faulty + disabled); {} unreachable destinations dropped, {} messages left empty",
                self.excluded_nodes, self.unreachable_destinations, self.dropped_messages
            );
        } else if !self.faulty_links.is_empty() {
            let _ = writeln!(
                s,
                "  faulty link           {} ({} information): {} worms diverted, {} re-injected",
                self.faulty_links.join(" "),
                self.fault_info,
                self.diverted_worms,
                self.reinjected_messages
            );
        }
        let _ = writeln!(
            s,
            "  deadlock              {}{}",
            if self.deadlock { "YES" } else { "no" },
            if self.long_blocks > 0 {
                format!(" ({} long blocks)", self.long_blocks)
            } else {
                String::new()
            }
        );
        for (name, l) in [
            ("all", &self.latency),
            ("unicast", &self.latency_unicast),
            ("multicast", &self.latency_multicast),
        ] {
            if l.count == 0 {
                let _ = writeln!(
                    s,
                    "  latency {name:<10}    no samples (no such message created in the window and finished)"
                );
            } else {
                let _ = writeln!(
                    s,
                    "  latency {:<10}    n={} messages, mean {:.1} p50 {} p99 {} max {} cycles",
                    name, l.count, l.mean, l.p50, l.p99, l.max
                );
            }
        }
        if let Some(c) = &self.coherence {
            let l = &c.latency;
            let _ = writeln!(
                s,
                "  invalidations         {} transactions done ({} unfinished), {:.2} sharers mean; miss to last ack mean {:.1} p50 {} p99 {} max {} cycles",
                c.transactions, c.unfinished, c.sharers_mean, l.mean, l.p50, l.p99, l.max
            );
        }
        if let Some(c) = &self.collective {
            let b = &c.lower_bound;
            let done = match (c.completion_time, c.ratio) {
                (Some(t), Some(r)) => format!("completed in {t} cycles, {r:.2}× the lower bound"),
                _ => "not completed".to_string(),
            };
            let _ = writeln!(
                s,
                "  collective            {} from {} ({} messages of {} flits, start {}): {done} {} (latency {}, injection {}, consumption {}, cut {})",
                c.kind, c.root, c.messages, c.length, c.start_cycle, b.cycles, b.latency, b.injection, b.consumption, b.cut
            );
        }
        let _ = writeln!(
            s,
            "  offered / accepted    {} / {} msgs/node/cycle{}",
            crate::decimal::fmt_sig(self.offered_messages_per_node_cycle, 4),
            crate::decimal::fmt_sig(self.accepted_messages_per_node_cycle, 4),
            if self.saturated { "  SATURATED" } else { "" }
        );
        let _ = writeln!(s, "  throughput            {:.4} flits/node/cycle (per-source msgs/cycle min {}, median {})", self.throughput_flits_per_node_cycle, crate::decimal::fmt_sig(self.source_throughput_min, 4), crate::decimal::fmt_sig(self.source_throughput_median, 4));
        let _ = writeln!(
            s,
            "  link utilisation      mean {:.3}, max {:.3} flits/link/cycle",
            self.link_utilisation_mean, self.link_utilisation_max
        );
        let _ = writeln!(
            s,
            "  speed                 {:.2} s wall, {:.1} M router-cycles/s",
            self.wall_seconds,
            self.router_cycles_per_second / 1e6
        );
        let msg = |m: Option<u32>| m.map_or("?".to_string(), |m| m.to_string());
        for w in &self.deadlock_cycle {
            let _ = writeln!(
                s,
                "  deadlock: router ({},{}) {} msg {} [{}; {}] waits for router ({},{}) {} msg {}",
                w.router.0,
                w.router.1,
                w.input,
                msg(w.message),
                w.state,
                w.head_flit,
                w.waits_for_router.0,
                w.waits_for_router.1,
                w.waits_for_input,
                msg(w.waits_for_message)
            );
        }
        s
    }
}

/// The traffic settings of the run in words, units included.
fn traffic_words(net: &Network) -> String {
    use crate::scenario::Pattern;
    let t = &net.scenario.traffic;
    let length = if t.length_max > t.length {
        format!("{}..{} data flits", t.length, t.length_max)
    } else {
        format!("{} data flits", t.length)
    };
    match net.v.pattern {
        Pattern::None => "none".to_string(),
        Pattern::Scripted => format!("scripted, {} messages", net.v.scripted.len()),
        Pattern::Poisson if net.v.sharers.is_some() => {
            let h = net.v.sharers.as_ref().expect("checked");
            let ks: Vec<String> = h.bins.iter().map(|(k, _)| k.to_string()).collect();
            format!(
                "poisson, rate {} msgs/node/cycle, {:.0} % write misses invalidating k = {} sharers (mean {:.1}), {length} per message",
                t.rate,
                t.multicast_fraction * 100.0,
                ks.join("/"),
                h.mean()
            )
        }
        Pattern::Trace => format!("trace {} ({})", t.trace, t.trace_format),
        Pattern::Poisson => {
            let (a, b) = net.v.dest_range;
            let dests = if a == b {
                format!("{a}")
            } else {
                format!("{a}..{b}")
            };
            format!(
                "poisson, rate {} msgs/node/cycle, {:.0} % multicast to {dests} destinations, {length} per message",
                crate::decimal::fmt_rate(t.rate),
                t.multicast_fraction * 100.0
            )
        }
    }
}

/// `closed_loop` in the report (`network::closed`).
#[derive(Debug, Clone, Serialize)]
pub struct ClosedLoopStats {
    pub window: u32,
    pub reply_length: u32,
    /// Requests created in the measurement window and done.
    pub transactions: u64,
    pub transactions_per_node_cycle: f64,
    /// Request created to done (its reply delivered, or its last
    /// destination reached), cycles.
    pub round_trip: LatencyStats,
    /// Arrivals that found the window full and waited for a slot.
    pub held_arrivals: u64,
}

impl ClosedLoopStats {
    /// The loop's figures for requests created in `[w0, w1)`.
    pub fn of(c: &super::closed::ClosedLoop, w0: u64, w1: u64, nodes: u64) -> ClosedLoopStats {
        let rtt: Vec<u64> = c
            .round_trips
            .iter()
            .filter(|&&(t, _)| (w0..w1).contains(&t))
            .map(|&(_, r)| r)
            .collect();
        let cycles = w1.saturating_sub(w0).max(1);
        ClosedLoopStats {
            window: c.window,
            reply_length: c.reply_length,
            transactions: rtt.len() as u64,
            transactions_per_node_cycle: rtt.len() as f64 / (nodes * cycles) as f64,
            round_trip: LatencyStats::of(rtt),
            held_arrivals: c.held_arrivals,
        }
    }
}

/// `coherence` in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CoherenceStats {
    /// Transactions created in the measurement window and completed (all
    /// acks at the requester).
    pub transactions: u64,
    /// Transactions created in the window but not completed when the run
    /// stopped.
    pub unfinished: u64,
    pub transactions_per_node_cycle: f64,
    /// Mean sharers of the counted transactions, and what the histogram
    /// gives.
    pub sharers_mean: f64,
    pub sharers_expected: f64,
    /// Miss created to last ack delivered, cycles.
    pub latency: LatencyStats,
}

impl CoherenceStats {
    /// The figures of transactions created in `[w0, w1)` on `nodes` nodes.
    pub fn of(c: &Coherence, w0: u64, w1: u64, nodes: u64) -> CoherenceStats {
        let inside: Vec<&Transaction> = c
            .transactions
            .iter()
            .filter(|t| (w0..w1).contains(&t.created))
            .collect();
        let done: Vec<&&Transaction> = inside.iter().filter(|t| t.done.is_some()).collect();
        let lat = done
            .iter()
            .map(|t| t.done.expect("done") - t.created)
            .collect();
        let k: u64 = done.iter().map(|t| t.sharers.len() as u64).sum();
        CoherenceStats {
            transactions: done.len() as u64,
            unfinished: (inside.len() - done.len()) as u64,
            transactions_per_node_cycle: done.len() as f64
                / (nodes * w1.saturating_sub(w0).max(1)) as f64,
            sharers_mean: if done.is_empty() {
                0.0
            } else {
                k as f64 / done.len() as f64
            },
            sharers_expected: c.sharers.mean(),
            latency: LatencyStats::of(lat),
        }
    }
}

/// `collective` in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CollectiveStats {
    pub kind: String,
    /// `X,Y`.
    pub root: String,
    pub length: u32,
    pub messages: u64,
    pub start_cycle: u64,
    /// Cycle the last TAIL was delivered; absent if the run stopped first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_cycle: Option<u64>,
    /// `completion_cycle − start_cycle`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_time: Option<u64>,
    pub lower_bound: LowerBound,
    /// `completion_time / lower_bound.cycles` (≥ 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

impl CollectiveStats {
    pub fn of(c: &Collective, t: &Topology) -> CollectiveStats {
        let (x, y) = t.coord(c.root);
        let time = c.completed.map(|f| f - c.start);
        CollectiveStats {
            kind: c.kind.to_string(),
            root: format!("{x},{y}"),
            length: c.length,
            messages: c.msgs.len() as u64,
            start_cycle: c.start,
            completion_cycle: c.completed,
            completion_time: time,
            lower_bound: c.bound,
            ratio: time.map(|t| t as f64 / c.bound.cycles.max(1) as f64),
        }
    }
}
