//! `run --replay OUT.html`: one self-contained HTML page that
//! replays a window of the run cycle by cycle.
//!
//! The trace is read from the kernel's registers after every clock edge,
//! through the same `observe` callback the VCD writer uses, so nothing in
//! the page is invented: a flit on a link is a valid output register of
//! the sending router (`RouterState::out`), a buffered flit is a FIFO slot
//! (`inp[k].fifo`), and the message behind each is the fabric's shadow
//! register (`Fabric::shadow`), the number the deadlock report uses.
//! Replication is the kernel's `reserved` mask: an input whose worm holds
//! two or more outputs is a split point. A blocked head is a HEAD flit at
//! the front of a FIFO that did not move at the last edge (`last_move`),
//! with how long it has waited.
//!
//! The page (`replay.html`, about 200 lines of dependency-free JavaScript)
//! draws the fabric as SVG with one element per flit, each carrying
//! `data-` attributes (kind, router, port, message), so a browser test can
//! read back exactly what is drawn (`tests/replay_browser.rs`).

use serde::Serialize;
use std::collections::BTreeMap;
use wormcast_sim::fabric::NO_MSG;
use wormcast_sim::flit::{self, Kind};
use wormcast_sim::network::raw::{RAW_MSG, TRUNC_MSG};
use wormcast_sim::network::Network;

/// Default window length from the end of the warm-up, in cycles.
pub const DEFAULT_CYCLES: u64 = 500;
/// Default size limit of the embedded trace, in MB (10^6 bytes).
pub const DEFAULT_MAX_MB: u64 = 20;

/// One cycle's picture: the registers after `c` clock edges.
#[derive(Serialize)]
struct Frame {
    c: u64,
    /// Flits in output registers: `[router, output, message]`. Outputs 0..4
    /// are the links +x, -x, +y, -y; 4.. the consumption ports to the NI.
    l: Vec<(u32, u8, i64)>,
    /// Non-empty input FIFOs: `[router, input, messages front first, cycles
    /// the front has waited, front is a HEAD, reserved outputs]`. Inputs
    /// 0..4 are the links, 4.. the injection ports from the NI.
    f: Vec<(u32, u8, Vec<i64>, u64, bool, u8)>,
}

#[derive(Serialize)]
struct MsgInfo {
    source: (u32, u32),
    dests: Vec<(u32, u32)>,
    class: u8,
    created: u64,
    length: u32,
}

#[derive(Serialize)]
struct Trace {
    /// Filled in after serialising (the frames are kept as JSON text);
    /// first, so its `null` is the first `"frames":null` in the text.
    frames: Option<()>,
    title: String,
    k: u32,
    m: u32,
    torus: bool,
    /// Wired link directions `[from, dir, to]`.
    links: Vec<(u32, u8, u32)>,
    from: u64,
    to: u64,
    /// Cycle where the size limit stopped recording, if it did.
    truncated_at: Option<u64>,
    max_bytes: u64,
    msgs: BTreeMap<String, MsgInfo>,
    /// Scripted raw worms seen (`traffic.raw`), by message number.
    raw: Vec<i64>,
}

/// The message number as the page shows it: the message index, a raw
/// worm's number with its RAW bit, or -1 for a flit of no known message.
fn msg_no(m: u32) -> i64 {
    if m == NO_MSG {
        -1
    } else {
        (m & !TRUNC_MSG) as i64
    }
}

/// `--replay-window A..B`: cycles A to B-1 (the registers after A..B-1
/// edges). Checked before the run.
pub fn parse_window(s: Option<&str>, warmup: u64, total: u64) -> Result<(u64, u64), String> {
    let Some(s) = s else {
        let a = warmup.min(total.saturating_sub(1));
        return Ok((a, (a + DEFAULT_CYCLES).min(total + 1)));
    };
    let bad = |why: &str| {
        format!("invalid --replay-window = `{s}`: {why}; allowed: `A..B` with A < B, B at most the run's last cycle + 1 ({})", total + 1)
    };
    let (a, b) = s.split_once("..").ok_or_else(|| bad("no `..`"))?;
    let a: u64 = a
        .trim()
        .parse()
        .map_err(|_| bad("A is not a cycle number"))?;
    let b: u64 = if b.trim().is_empty() {
        total + 1
    } else {
        b.trim()
            .parse()
            .map_err(|_| bad("B is not a cycle number"))?
    };
    if a >= b {
        return Err(bad("A must be below B"));
    }
    if a > total {
        return Err(bad(&format!("the run has {total} cycles")));
    }
    Ok((a, b.min(total + 1)))
}

/// Records frames from a running network.
pub struct Recorder {
    pub from: u64,
    pub to: u64,
    pub max_bytes: u64,
    frames: Vec<String>,
    bytes: u64,
    pub truncated_at: Option<u64>,
    seen: std::collections::BTreeSet<u32>,
}

impl Recorder {
    pub fn new((from, to): (u64, u64), max_bytes: u64) -> Recorder {
        Recorder {
            from,
            to,
            max_bytes,
            frames: Vec::new(),
            bytes: 0,
            truncated_at: None,
            seen: Default::default(),
        }
    }

    /// Cycles recorded so far.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// Takes the registers after `net.cycle()` edges, if in the window and
    /// under the size limit. Call before the run (cycle 0) and after every
    /// cycle.
    pub fn sample(&mut self, net: &Network) {
        let c = net.cycle();
        if c < self.from || c >= self.to || self.truncated_at.is_some() {
            return;
        }
        let f = &net.fabric;
        let mut frame = Frame {
            c,
            l: Vec::new(),
            f: Vec::new(),
        };
        for (r, st) in f.state.iter().enumerate() {
            let sh = &f.shadow[r];
            for (o, out) in st.out.iter().enumerate() {
                if out.valid {
                    frame.l.push((r as u32, o as u8, msg_no(sh.out[o])));
                    self.seen.insert(sh.out[o]);
                }
            }
            for (k, inp) in st.inp.iter().enumerate() {
                let q = &inp.fifo;
                if q.count == 0 {
                    continue;
                }
                let depth = q.slot.len();
                let msgs: Vec<i64> = (0..q.count as usize)
                    .map(|i| {
                        let m = sh.fifo[k][(q.rd as usize + i) % depth];
                        self.seen.insert(m);
                        msg_no(m)
                    })
                    .collect();
                let wait = c.saturating_sub(1).saturating_sub(f.last_move[r][k]);
                let head = flit::kind(q.slot[q.rd as usize]) == Kind::Head;
                frame
                    .f
                    .push((r as u32, k as u8, msgs, wait, head, inp.reserved));
            }
        }
        let text = serde_json::to_string(&frame).expect("frame serialises");
        if self.bytes + text.len() as u64 > self.max_bytes {
            self.truncated_at = Some(c);
            return;
        }
        self.bytes += text.len() as u64 + 1;
        self.frames.push(text);
    }

    /// The page, with the trace and the messages it names inline.
    /// `what` heads the page: the scheme and traffic in the report's words.
    pub fn page(&self, net: &Network, what: &str) -> String {
        let topo = net.fabric.topo;
        let xy = |u: u32| topo.coord(u);
        let mut msgs = BTreeMap::new();
        let mut raw = Vec::new();
        for &m in &self.seen {
            if m == NO_MSG {
                continue;
            }
            if m & RAW_MSG != 0 {
                raw.push(msg_no(m));
                continue;
            }
            if let Some(g) = net.msgs.get(m as usize) {
                msgs.insert(
                    m.to_string(),
                    MsgInfo {
                        source: xy(g.source),
                        dests: g.dests.iter().map(|&d| xy(d)).collect(),
                        class: g.class,
                        created: g.created,
                        length: g.length,
                    },
                );
            }
        }
        let mut links = Vec::new();
        for (u, ds) in net.fabric.downstream.iter().enumerate() {
            for (d, e) in ds.iter().enumerate() {
                if let Some((v, _)) = e {
                    links.push((u as u32, d as u8, *v));
                }
            }
        }
        let trace = Trace {
            title: format!("{topo}, {what}"),
            k: topo.k,
            m: topo.m,
            torus: topo.is_torus(),
            links,
            from: self.from,
            to: self.to,
            truncated_at: self.truncated_at,
            max_bytes: self.max_bytes,
            frames: None,
            msgs,
            raw,
        };
        // The frames were serialised as they were recorded (to count the
        // size limit); they go in as a JSON array of that text.
        let text = serde_json::to_string(&trace).expect("trace serialises");
        let frames = format!("\"frames\":[{}]", self.frames.join(","));
        let text = text.replacen("\"frames\":null", &frames, 1);
        // Inside <script>, `</` would end the element early.
        let text = text.replace("</", "<\\/");
        include_str!("replay.html").replacen("/*TRACE*/null", &text, 1)
    }
}
