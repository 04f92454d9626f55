//! Trace replay (`traffic.pattern = "trace"`): messages read from a file,
//! each injected at its cycle and no earlier than its dependencies allow.
//!
//! Two formats share one model, [`Trace`]: wormcast's plain-text format
//! (this module; the specification is docs/scenario.md, "Trace replay")
//! and netrace's binary traces (`network::netrace`). A message may depend
//! on others: it is created at its source NI no earlier than its own cycle
//! and no earlier than `delay` cycles after each message it depends on has
//! reached its last destination. That is netrace's dependency rule (a
//! packet waits for the delivery of every packet it depends on), so a
//! trace measures how the network slows the program down, not only the
//! latency of a fixed injection schedule.
//!
//! [`load`] reads and checks the whole trace before the run (every node
//! inside the network, every dependency known, no dependency cycle);
//! [`Replay`] releases messages while the network runs and is told of
//! every delivery.

use crate::error::{InputError, InputResult};
use crate::ftmesh::FaultyMesh;
use crate::network::netrace;
use crate::scenario::{TraceFormat, TrafficCfg};
use crate::topology::{NodeId, Topology};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The largest trace read, in messages: a trace this long replays for
/// hours; past it a file is more likely a mistake (or `/dev/zero`) than a
/// workload, and memory would run out first.
pub const MAX_TRACE_MESSAGES: usize = netrace::MAX_PACKETS;

/// One message of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceMsg {
    /// Earliest creation cycle.
    pub cycle: u64,
    pub source: NodeId,
    /// Sorted destinations; empty for a netrace packet whose source is its
    /// destination (delivered at its release, without using the network).
    pub dests: Vec<NodeId>,
    /// Data flits (identity BODY ... TAIL), at least 2.
    pub length: u32,
    /// Messages (indices into [`Trace::msgs`]) this one waits for, each
    /// with the cycles to wait after its delivery.
    pub deps: Vec<(u32, u64)>,
    /// Where it was written: its line (text) or packet id (netrace);
    /// [`Trace::origin`] says it in words. A number, not text: a netrace
    /// trace holds millions of messages.
    pub origin: u64,
}

/// A whole trace, checked against the network it runs on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub msgs: Vec<TraceMsg>,
    /// netrace's benchmark name; empty for a text trace.
    pub benchmark: String,
    /// What [`TraceMsg::origin`] counts: `line` or `packet`.
    pub unit: &'static str,
}

impl Trace {
    /// Where message `i` was written: `line 12`, `packet 40`.
    pub fn origin(&self, i: usize) -> String {
        format!("{} {}", self.unit, self.msgs[i].origin)
    }
}

/// `traffic.trace` errors name the file and where in it.
fn field(path: &str, at: &str) -> String {
    if path.is_empty() {
        format!("traffic.trace {at}")
    } else {
        format!("traffic.trace ({path}) {at}")
    }
}

/// A relative `traffic.trace` written in a scenario file is relative to
/// that file's folder, as a researcher keeps a scenario beside its trace;
/// one given with `--set` (`from_set`) stays relative to the working
/// directory, like every other path on the command line.
pub fn resolve_path(t: &mut TrafficCfg, scenario_dir: Option<&std::path::Path>, from_set: bool) {
    let p = std::path::Path::new(&t.trace);
    if t.trace.is_empty() || p.is_absolute() || from_set {
        return;
    }
    if let Some(dir) = scenario_dir.filter(|d| !d.as_os_str().is_empty()) {
        t.trace = dir.join(p).to_string_lossy().into_owned();
    }
}

/// Where the nodes of a trace may be: inside `topo`, and healthy on a
/// faulty mesh.
#[derive(Clone, Copy)]
pub struct Nodes<'a> {
    pub topo: &'a Topology,
    pub ftmesh: Option<&'a FaultyMesh>,
}

impl Nodes<'_> {
    /// Node `(x, y)` checked; `field` names where it was written.
    pub fn at(&self, x: i64, y: i64, field: &str) -> InputResult<NodeId> {
        let u = self.topo.node_at(x, y, field)?;
        if let Some(fm) = self.ftmesh {
            fm.healthy_node(self.topo.coord(u), field)?;
        }
        Ok(u)
    }

    /// `X,Y` as scenario files write nodes (`Topology::parse_node`).
    fn parse(&self, s: &str, field: &str) -> InputResult<NodeId> {
        let u = self.topo.parse_node(s, field)?;
        if let Some(fm) = self.ftmesh {
            fm.healthy_node(self.topo.coord(u), field)?;
        }
        Ok(u)
    }
}

/// Reads the trace of `t` (`traffic.trace`, in `traffic.trace_format`)
/// for a network of `nodes` with `flit_width`-bit flits.
pub fn load(t: &TrafficCfg, nodes: Nodes, flit_width: u32) -> InputResult<Trace> {
    let path = t.trace.as_str();
    let file = std::fs::File::open(path).map_err(|e| {
        InputError::new(
            "traffic.trace",
            path,
            format!("a readable trace file ({e})"),
        )
    })?;
    let trace = match t.trace_format {
        TraceFormat::Text => {
            use std::io::Read;
            let mut text = String::new();
            std::io::BufReader::new(file)
                .take(MAX_TEXT_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|e| {
                    InputError::new(
                        "traffic.trace",
                        path,
                        format!("a UTF-8 text trace ({e}); a netrace file needs traffic.trace_format = \"netrace\""),
                    )
                })?;
            if text.len() as u64 > MAX_TEXT_BYTES {
                return Err(InputError::new(
                    "traffic.trace",
                    path,
                    format!("a text trace of at most {} GiB", MAX_TEXT_BYTES >> 30),
                ));
            }
            parse_text(&text, path, nodes, t.trace_delay)?
        }
        TraceFormat::Netrace => {
            let (header, packets) = netrace::read(std::io::BufReader::new(file), path)?;
            from_netrace(header, packets, path, nodes, flit_width, t.trace_delay)?
        }
    };
    check_acyclic(&trace, path)?;
    Ok(trace)
}

/// netrace packets on the network of `nodes` (docs/scenario.md, "Trace
/// replay"): node `n` of the 8×8 CMP at `n mod 8, n div 8`, a packet of
/// `b` bytes as `b` bytes of `flit_width`-bit flits (at least 2), a packet
/// to its own node delivered at its release, and netrace's dependency
/// rule: a packet waits for the packets before it in the file that list
/// it, each `delay` cycles after delivery; ids of no packet in the file
/// are ignored, as netrace's reader does.
pub fn from_netrace(
    header: netrace::Header,
    packets: Vec<netrace::Packet>,
    path: &str,
    nodes: Nodes,
    flit_width: u32,
    delay: u64,
) -> InputResult<Trace> {
    let mut index: HashMap<u32, u32> = HashMap::with_capacity(packets.len());
    let mut msgs = Vec::with_capacity(packets.len());
    for (i, p) in packets.iter().enumerate() {
        let at = format!("packet {}", p.id);
        if index.insert(p.id, i as u32).is_some() {
            return Err(InputError::new(
                field(path, &format!("{at}: id")),
                p.id,
                "an id no earlier packet has",
            ));
        }
        let node = |n: u8, what: &str| {
            let (x, y) = (n as u32 % netrace::CMP_WIDTH, n as u32 / netrace::CMP_WIDTH);
            nodes.at(
                x as i64,
                y as i64,
                &field(
                    path,
                    &format!("{at}: {what} (netrace node {n}, at x = n mod 8, y = n div 8)"),
                ),
            )
        };
        let source = node(p.src, "source")?;
        let dest = node(p.dst, "destination")?;
        let bytes = netrace::packet_bytes(p.ty).expect("checked by netrace::read");
        msgs.push(TraceMsg {
            cycle: p.cycle,
            source,
            dests: if dest == source {
                Vec::new()
            } else {
                vec![dest]
            },
            length: (bytes * 8).div_ceil(flit_width.max(1)).max(2),
            deps: Vec::new(),
            origin: p.id as u64,
        });
    }
    for (i, p) in packets.iter().enumerate() {
        for id in &p.deps {
            // netrace counts a dependency only when the waiting packet
            // comes after the one it waits for.
            if let Some(&j) = index.get(id) {
                if j as usize > i {
                    msgs[j as usize].deps.push((i as u32, delay));
                }
            }
        }
    }
    Ok(Trace {
        msgs,
        benchmark: header.benchmark,
        unit: "packet",
    })
}

/// The largest text trace read.
pub const MAX_TEXT_BYTES: u64 = 4 << 30;

/// Parses a text trace (docs/scenario.md, "Trace replay"): one message a
/// line, `CYCLE SOURCE DESTS LENGTH [id=NAME] [dep=NAME[+DELAY]]...`,
/// `#` to the end of a line a comment. `path` only names the file in
/// errors; a dependency without `+DELAY` waits `default_delay` cycles.
pub fn parse_text(text: &str, path: &str, nodes: Nodes, default_delay: u64) -> InputResult<Trace> {
    let mut msgs = Vec::new();
    // Dependencies by name, resolved once every id is known (a line may
    // depend on a later one; the cycle check keeps the order sound).
    let mut names: HashMap<&str, (u32, usize)> = HashMap::new();
    let mut wanted: Vec<(u32, &str, u64, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("");
        let mut tok = line.split_whitespace();
        let Some(first) = tok.next() else { continue };
        let at = |what: &str| field(path, &format!("line {n}: {what}"));
        let cols: Vec<&str> = std::iter::once(first).chain(tok).collect();
        if cols.len() < 4 {
            return Err(InputError::new(
                at("message"),
                line.trim(),
                "`CYCLE SOURCE DESTS LENGTH [id=NAME] [dep=NAME[+DELAY]]...`, e.g. `10 0,0 3,1;2,2 8 id=a dep=b+5`",
            ));
        }
        let cycle: u64 = cols[0]
            .parse()
            .ok()
            .filter(|&c| c <= crate::scenario::MAX_CYCLES)
            .ok_or_else(|| {
                InputError::new(
                    at("cycle"),
                    cols[0],
                    "a whole number of cycles from 0 to 1e9",
                )
            })?;
        let source = nodes.parse(cols[1], &at("source"))?;
        let mut dests = Vec::new();
        for d in cols[2].split(';') {
            let u = nodes.parse(d, &at("destinations"))?;
            if u == source {
                return Err(InputError::new(
                    at("destinations"),
                    cols[2],
                    "nodes other than the source (the source cannot be its own destination)",
                ));
            }
            if dests.contains(&u) {
                return Err(InputError::new(
                    at("destinations"),
                    cols[2],
                    format!("distinct nodes separated by `;` (`{d}` is named twice)"),
                ));
            }
            dests.push(u);
        }
        dests.sort_unstable();
        let length: u32 = cols[3].parse().map_err(|_| {
            InputError::new(
                at("length"),
                cols[3],
                "data flits per message: 2 (identity BODY + TAIL) to 1e6",
            )
        })?;
        crate::scenario::check_length(length, &at("length"))?;
        let me = msgs.len() as u32;
        for c in &cols[4..] {
            if let Some(id) = c.strip_prefix("id=") {
                check_name(id, &at("id"))?;
                if let Some((_, first)) = names.insert(id, (me, n)) {
                    return Err(InputError::new(
                        at("id"),
                        id,
                        format!("a name no other message has (line {first} has it too)"),
                    ));
                }
            } else if let Some(dep) = c.strip_prefix("dep=") {
                let (id, delay) = match dep.split_once('+') {
                    Some((id, d)) => {
                        let delay = d
                            .parse::<u64>()
                            .ok()
                            .filter(|&d| d <= crate::scenario::MAX_CYCLES);
                        let delay = delay.ok_or_else(|| {
                            InputError::new(
                                at("dep"),
                                dep,
                                "`NAME` or `NAME+DELAY` with DELAY from 0 to 1e9 cycles",
                            )
                        })?;
                        (id, delay)
                    }
                    None => (dep, default_delay),
                };
                check_name(id, &at("dep"))?;
                wanted.push((me, id, delay, n));
            } else {
                return Err(InputError::new(
                    at("field"),
                    *c,
                    "`id=NAME` or `dep=NAME[+DELAY]` after the four columns CYCLE SOURCE DESTS LENGTH",
                ));
            }
        }
        if msgs.len() >= MAX_TRACE_MESSAGES {
            return Err(InputError::new(
                field(path, "messages"),
                format!("more than {MAX_TRACE_MESSAGES}"),
                format!("at most {MAX_TRACE_MESSAGES} messages"),
            ));
        }
        msgs.push(TraceMsg {
            cycle,
            source,
            dests,
            length,
            deps: Vec::new(),
            origin: n as u64,
        });
    }
    for (me, id, delay, n) in wanted {
        let Some(&(up, _)) = names.get(id) else {
            return Err(InputError::new(
                field(path, &format!("line {n}: dep")),
                id,
                "the id of a message of this trace (`id=NAME` on its line)",
            ));
        };
        if up == me {
            return Err(InputError::new(
                field(path, &format!("line {n}: dep")),
                id,
                "another message (a message cannot wait for itself)",
            ));
        }
        msgs[me as usize].deps.push((up, delay));
    }
    Ok(Trace {
        msgs,
        benchmark: String::new(),
        unit: "line",
    })
}

/// Message names: letters, digits, `_`, `-`, `.`.
fn check_name(id: &str, field: &str) -> InputResult<()> {
    let ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(InputError::new(
            field,
            id,
            "a name of letters, digits, `_`, `-` and `.`",
        ))
    }
}

/// Refuses a trace whose dependencies go round in a circle: its messages
/// would wait for each other for ever. Kahn's algorithm; the error walks
/// one circle and names its messages.
pub fn check_acyclic(trace: &Trace, path: &str) -> InputResult<()> {
    let n = trace.msgs.len();
    let down = dependents(trace);
    let mut waiting: Vec<u32> = trace.msgs.iter().map(|m| m.deps.len() as u32).collect();
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&i| waiting[i as usize] == 0)
        .collect();
    let mut done = 0usize;
    while let Some(i) = ready.pop() {
        done += 1;
        for &(j, _) in &down[i as usize] {
            waiting[j as usize] -= 1;
            if waiting[j as usize] == 0 {
                ready.push(j);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    // Every message left waits for another one left: walking up from any
    // of them must come back round.
    let start = (0..n).find(|&i| waiting[i] > 0).expect("a message left");
    let mut seen = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut i = start;
    while seen[i] == usize::MAX {
        seen[i] = walk.len();
        walk.push(i);
        i = trace.msgs[i]
            .deps
            .iter()
            .map(|&(u, _)| u as usize)
            .find(|&u| waiting[u] > 0)
            .expect("a waiting message waits for a waiting one");
    }
    let circle: Vec<String> = walk[seen[i]..]
        .iter()
        .chain(std::iter::once(&i))
        .map(|&k| format!("{} ({})", k, trace.origin(k)))
        .collect();
    Err(InputError::new(
        field(path, "dependencies"),
        format!("{} messages in a cycle", n - done),
        format!(
            "no dependency cycle; message {} waits for itself through {}",
            trace.origin(i),
            circle.join(" -> ")
        ),
    ))
}

/// For each message, the messages that wait for it and how long.
fn dependents(trace: &Trace) -> Vec<Vec<(u32, u64)>> {
    let mut down = vec![Vec::new(); trace.msgs.len()];
    for (j, m) in trace.msgs.iter().enumerate() {
        for &(i, d) in &m.deps {
            down[i as usize].push((j as u32, d));
        }
    }
    down
}

/// A trace being replayed: which messages are due, which wait, and what
/// the network has delivered.
#[derive(Debug, Clone)]
pub struct Replay {
    pub trace: Trace,
    down: Vec<Vec<(u32, u64)>>,
    /// Per message, dependencies not yet delivered.
    waiting: Vec<u32>,
    /// Per message, its earliest creation cycle so far.
    ready_at: Vec<u64>,
    /// Messages whose dependencies are all met, by creation cycle.
    due: BinaryHeap<Reverse<(u64, u32)>>,
    /// Network message number → trace message.
    of_msg: HashMap<u32, u32>,
    /// Per trace message, the network's message number once created.
    pub msg: Vec<Option<u32>>,
    /// Per trace message, the cycle it was created (released to its NI).
    pub released_at: Vec<Option<u64>>,
    /// Per trace message, the cycle its last destination had it.
    pub delivered_at: Vec<Option<u64>>,
    pub released: u64,
    pub delivered: u64,
    /// Messages from a node to itself (netrace): delivered at release.
    pub local: u64,
}

impl Replay {
    pub fn new(trace: Trace) -> Replay {
        let down = dependents(&trace);
        let n = trace.msgs.len();
        let waiting: Vec<u32> = trace.msgs.iter().map(|m| m.deps.len() as u32).collect();
        let ready_at: Vec<u64> = trace.msgs.iter().map(|m| m.cycle).collect();
        let due = (0..n)
            .filter(|&i| waiting[i] == 0)
            .map(|i| Reverse((ready_at[i], i as u32)))
            .collect();
        Replay {
            trace,
            down,
            waiting,
            ready_at,
            due,
            of_msg: HashMap::new(),
            msg: vec![None; n],
            released_at: vec![None; n],
            delivered_at: vec![None; n],
            released: 0,
            delivered: 0,
            local: 0,
        }
    }

    /// The next message due by `now`, taken off the queue.
    pub fn pop_due(&mut self, now: u64) -> Option<u32> {
        match self.due.peek() {
            Some(&Reverse((t, i))) if t <= now => {
                self.due.pop();
                self.released += 1;
                self.released_at[i as usize] = Some(now);
                Some(i)
            }
            _ => None,
        }
    }

    /// Trace message `i` became network message `msg`.
    pub fn created(&mut self, i: u32, msg: u32) {
        self.of_msg.insert(msg, i);
        self.msg[i as usize] = Some(msg);
    }

    /// Network message `msg` reached its last destination at cycle `at`:
    /// the messages waiting for it may be due. Not a trace message
    /// (none today): nothing.
    pub fn delivered(&mut self, msg: u32, at: u64) {
        if let Some(i) = self.of_msg.remove(&msg) {
            self.done(i, at);
        }
    }

    /// A message from its source to itself is delivered when released.
    pub fn local(&mut self, i: u32, at: u64) {
        self.local += 1;
        self.done(i, at);
    }

    fn done(&mut self, i: u32, at: u64) {
        self.delivered += 1;
        self.delivered_at[i as usize] = Some(at);
        for k in 0..self.down[i as usize].len() {
            let (j, delay) = self.down[i as usize][k];
            let j = j as usize;
            self.ready_at[j] = self.ready_at[j].max(at.saturating_add(delay));
            self.waiting[j] -= 1;
            if self.waiting[j] == 0 {
                self.due.push(Reverse((self.ready_at[j], j as u32)));
            }
        }
    }

    /// Every message delivered.
    pub fn finished(&self) -> bool {
        self.delivered as usize == self.trace.msgs.len()
    }

    /// Messages still to come that can never be: nothing due, nothing in
    /// flight, yet some wait for a dependency (a cycle the loader missed,
    /// or a dependency lost with its message). `None` while the replay can
    /// go on; else the first waiting message and what it waits for.
    pub fn stalled(&self) -> Option<String> {
        if self.finished() || !self.due.is_empty() || self.released > self.delivered {
            return None;
        }
        let i = (0..self.trace.msgs.len()).find(|&i| self.waiting[i] > 0)?;
        let m = &self.trace.msgs[i];
        let missing: Vec<String> = m
            .deps
            .iter()
            .filter(|&&(u, _)| self.delivered_at[u as usize].is_none())
            .map(|&(u, _)| self.trace.origin(u as usize))
            .collect();
        Some(format!(
            "{} of {} trace messages can never be sent: the message at {} waits for {}, never delivered",
            self.waiting.iter().filter(|&&w| w > 0).count(),
            self.trace.msgs.len(),
            self.trace.origin(i),
            missing.join(", ")
        ))
    }

    /// Dependencies in the trace.
    pub fn dependencies(&self) -> u64 {
        self.trace.msgs.iter().map(|m| m.deps.len() as u64).sum()
    }
}

/// The network's side of a replay: the trace loaded and checked against
/// the scheme, messages released as they fall due, and when the replay
/// ends the run.
impl super::Network {
    /// Loads `traffic.trace`; with a mesh scheme every message must be
    /// routable, reported now rather than at its cycle (as scripted
    /// messages are).
    pub(super) fn attach_trace(&mut self) -> InputResult<()> {
        let nodes = Nodes {
            topo: &self.v.topo,
            ftmesh: self.v.ftmesh.as_ref(),
        };
        let trace = load(&self.scenario.traffic, nodes, self.v.params.flit.width)?;
        if self.v.scheme.is_some() {
            let path = &self.scenario.traffic.trace;
            for (i, m) in trace
                .msgs
                .iter()
                .enumerate()
                .filter(|(_, m)| !m.dests.is_empty())
            {
                self.plan(m.source, &m.dests, 0).map_err(|e| InputError {
                    field: field(path, &format!("{}: {}", trace.origin(i), e.field)),
                    ..e
                })?;
            }
        }
        self.trace = Some(Replay::new(trace));
        Ok(())
    }

    /// Creates every trace message due by `now` at its source NI.
    pub(super) fn release_trace(&mut self, now: u64) {
        while let Some(t) = self.trace.as_mut() {
            let Some(i) = t.pop_due(now) else { return };
            let m = &t.trace.msgs[i as usize];
            if m.dests.is_empty() {
                t.local(i, now);
                continue;
            }
            let (source, dests, length) = (m.source, m.dests.clone(), m.length);
            let id = self
                .submit(source, dests, length, None)
                .expect("trace messages are checked when loaded");
            if let Some(t) = self.trace.as_mut() {
                t.created(i, id);
            }
        }
    }

    /// Why a replay ends the run now: every message delivered, or the
    /// rest can never be sent (inside the window; after it nothing is
    /// released anyway).
    pub(super) fn trace_stop(&self) -> Option<&'static str> {
        let t = self.trace.as_ref()?;
        if t.finished() && self.all_done() {
            Some("trace complete")
        } else if self.cycle() < self.gen_until && t.stalled().is_some() {
            Some("trace stalled")
        } else {
            None
        }
    }
}

/// `trace` in the report: what the replay got through.
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct TraceStats {
    pub file: String,
    pub format: String,
    /// netrace's benchmark name; empty for a text trace.
    pub benchmark: String,
    pub messages: u64,
    pub dependencies: u64,
    /// Created at their source NI (their cycle reached, dependencies met).
    pub released: u64,
    pub delivered: u64,
    /// From a node to itself (netrace): delivered at release.
    pub local: u64,
    /// Never created: the window ended first, or the run stopped.
    pub unreleased: u64,
    /// Mean cycles a released message was held past its own cycle
    /// waiting for its dependencies.
    pub dependency_wait_mean_cycles: f64,
    /// The cycle the last message was delivered, when all were: the
    /// trace's run time on this network.
    pub completion_cycle: Option<u64>,
}

impl Replay {
    /// The report's figures; `file` and `format` as the scenario gives them.
    pub fn stats(&self, file: &str, format: TraceFormat) -> TraceStats {
        let held: Vec<u64> = (self.released_at.iter().zip(&self.trace.msgs))
            .filter_map(|(r, m)| r.map(|r| r - m.cycle.min(r)))
            .collect();
        TraceStats {
            file: file.to_string(),
            format: format.to_string(),
            benchmark: self.trace.benchmark.clone(),
            messages: self.trace.msgs.len() as u64,
            dependencies: self.dependencies(),
            released: self.released,
            delivered: self.delivered,
            local: self.local,
            unreleased: self.trace.msgs.len() as u64 - self.released,
            dependency_wait_mean_cycles: if held.is_empty() {
                0.0
            } else {
                held.iter().sum::<u64>() as f64 / held.len() as f64
            },
            completion_cycle: self.finished().then(|| {
                self.delivered_at
                    .iter()
                    .flatten()
                    .copied()
                    .max()
                    .unwrap_or(0)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(cycle: u64, deps: &[(u32, u64)]) -> TraceMsg {
        TraceMsg {
            cycle,
            source: 0,
            dests: vec![1],
            length: 2,
            deps: deps.to_vec(),
            origin: cycle,
        }
    }

    #[test]
    fn a_replay_releases_in_dependency_order_and_reports_a_stall() {
        // 0 <- 1 <- 2, and 3 <-> 4 wait for each other (the loader refuses
        // that; the replay must still not wait for ever).
        let trace = Trace {
            msgs: vec![
                msg(0, &[]),
                msg(1, &[(0, 5)]),
                msg(2, &[(1, 0)]),
                msg(3, &[(4, 0)]),
                msg(4, &[(3, 0)]),
            ],
            benchmark: String::new(),
            unit: "line",
        };
        assert!(check_acyclic(&trace, "t.txt")
            .unwrap_err()
            .to_string()
            .contains("2 messages in a cycle"));
        let mut r = Replay::new(trace);
        assert_eq!(r.pop_due(0), Some(0));
        assert_eq!(r.pop_due(100), None, "1 waits for 0");
        r.created(0, 7);
        assert!(r.stalled().is_none(), "0 is in flight");
        r.delivered(7, 20);
        assert_eq!(r.pop_due(24), None, "delivered at 20, plus 5");
        assert_eq!(r.pop_due(25), Some(1));
        r.created(1, 8);
        r.delivered(8, 30);
        assert_eq!(r.pop_due(30), Some(2));
        r.local(2, 30);
        assert!(!r.finished());
        let why = r.stalled().expect("3 and 4 can never be sent");
        assert!(
            why.contains("2 of 5") && why.contains("line 3") && why.contains("line 4"),
            "{why}"
        );
        let s = r.stats("t.txt", TraceFormat::Text);
        assert_eq!(
            (s.released, s.delivered, s.local, s.unreleased),
            (3, 3, 1, 2)
        );
        assert_eq!(s.completion_cycle, None);
        // Held past their own cycles: 0, 25 - 1, 30 - 2.
        assert_eq!(s.dependency_wait_mean_cycles, (24.0 + 28.0) / 3.0);
    }
}
