//! The on-chip traffic generator and checker of the self-checking FPGA top
//!, as the native model runs them: the one definition of their
//! cycle behaviour, LFSR, message tag and payload sequence. The Verilog of
//! the same blocks (`wormcast_rtl::fpga_top`) is written from these
//! constants and this plan, and is proven equal to [`OnChip`] cycle by
//! cycle under Verilator.
//!
//! Why a ROM of precomputed worms and not header encoding in hardware: the
//! header flits of a multicast are the output of the scheme's source-side
//! encoder (\[DSTM\] App. A for the DSTM trees, the SPAM and path-based
//! encoders of the other papers). Re-implementing every encoder in Verilog
//! would duplicate the part of wormcast the router does not contain, and a
//! bug there would test the encoder, not the router. So the Rust encoders
//! ([`Network::submit`]) produce each node's messages once; the generator
//! holds them as a ROM of header flits and an LFSR picks which one to send
//! and when. Data flits are computed on chip from the message tag, so the
//! ROM does not grow with the message length.
//!
//! Each node's generator sends on injection channel 0; each consumption
//! channel has a checker that is always ready (a sink that drains, the
//! assumption of every deadlock argument of the papers).
//!
//! The top runs in epochs ([`EPOCH_SEND`] cycles in which messages may
//! start, then [`EPOCH_DRAIN`] in which none does) and checks at the end of
//! each that every node received exactly the deliveries asked of it;
//! `pass` waits for the first such check.

use crate::config::{RouterConfig, RouterParams};
use crate::error::{InputError, InputResult};
use crate::fabric::Fabric;
use crate::flit::{self, Flit, KIND_BODY, KIND_RESERVED, KIND_TAIL};

/// Flit kind field (`flit::Kind` as its two bits, as the Verilog compares it).
fn kind_bits(f: Flit) -> u64 {
    f & ((1 << flit::KIND_BITS) - 1)
}
use crate::network::Network;
use crate::router::routing::consumption_output;
use crate::scenario::Scenario;
use crate::topology::{NodeId, Topology};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One step of the 16-bit Fibonacci LFSR x^16 + x^14 + x^13 + x^11 + 1
/// (maximal length: every non-zero state, period 65 535). Verilog:
/// `{l[0]^l[2]^l[3]^l[5], l[15:1]}`.
pub fn lfsr_next(x: u16) -> u16 {
    let bit = (x ^ (x >> 2) ^ (x >> 3) ^ (x >> 5)) & 1;
    (x >> 1) | (bit << 15)
}

/// Added to the payload from one data flit to the next (odd, so every
/// payload of a message differs from its neighbours in the low bit).
pub const STRIDE: u64 = 0x2AB;
/// Bits of the LFSR compared with the rate threshold.
pub const RATE_BITS: u32 = 8;
/// Width of the sent / expected / received counters.
pub const COUNT_BITS: u32 = 24;
/// Width of each checker's (saturating) error counter and of `err_count`.
pub const ERR_BITS: u32 = 16;
/// Cycles with traffic outstanding and nothing moving before `stall`.
pub const WATCHDOG: u32 = 4096;
/// Nodes whose registered events the FPGA top adds up into one register
/// before the counters add the groups: the second of the two event stages
/// (`OnChip::events`), so that no adder tree spans the whole die.
pub const EVENT_GROUP: usize = 4;
/// Edges from an event (a message started, a delivery checked, a flit
/// moved) to the counters and the watchdog: the node's event register,
/// then its group's.
pub const EVENT_STAGES: usize = 2;
/// The heartbeat is this bit of a free-running cycle counter (0.7 Hz LED
/// blink at the breakout board's 12 MHz).
pub const HEARTBEAT_BIT: u32 = 23;

/// Epochs: the top runs for ever in epochs of [`EPOCH_SEND`] cycles in
/// which the generators may start messages, then [`EPOCH_DRAIN`] cycles in
/// which none starts. At the last cycle of each drain window every node
/// must have received, on its checkers, exactly the deliveries the
/// generators asked of it since reset (counted per destination node when
/// a message starts); a node that differs sets `mismatch` for good.
///
/// Why epochs: the global counters `expected` and `received` cannot tell
/// a lost delivery from one in flight while traffic keeps flowing, and the
/// watchdog only fires when nothing moves, so a router that drops one
/// branch of a multicast passed a run-forever top. The drain window gives
/// a moment at which nothing may be in flight, and the per-node count
/// makes the check exact (a loss at one node cannot hide behind an extra
/// delivery at another).
///
/// Why these values: the drain window must be far longer than the longest
/// time the network takes to deliver everything once no new message
/// starts (measured on this model by `sim/tests/onchip.rs`, which fails
/// above 1 024: 24 cycles on the 2×2 top at rate 48/256, 38 at 256/256,
/// 58 on a 3×3 Hamiltonian mesh and 151 on a 4×4 DSTM-1 torus at the full
/// rate with half the entries multicast), and longer than the
/// [`WATCHDOG`], so that a deadlock shows as `stall` before the epoch
/// check reports its undelivered messages. 8 192 is twice the watchdog.
/// The send window is as long: half the cycles carry traffic, the first
/// check (and so the first `pass`) comes 16 384 cycles after reset
/// (1.4 ms at 12 MHz), and one epoch is a power of two, a plain counter.
/// The check reads the counters at the epoch's last edge, which hold the
/// deliveries up to two cycles before it (events are registered, then
/// counted): each delivery must arrive within the drain window less two
/// cycles.
pub const EPOCH_SEND: u32 = 8192;
/// Cycles of each epoch in which no message starts (see [`EPOCH_SEND`]).
pub const EPOCH_DRAIN: u32 = 8192;
/// Cycles of one epoch.
pub const EPOCH: u32 = EPOCH_SEND + EPOCH_DRAIN;
const _: () = assert!(EPOCH_DRAIN > WATCHDOG && EPOCH_SEND > 0);

/// What the generators send: the options of `wormcast verilog --fpga-top`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenOptions {
    /// New-message probability per idle cycle, in 1/256 (0..=256).
    pub rate: u32,
    /// Fraction of ROM entries that are multicasts.
    pub multicast: f64,
    /// ROM entries per node (a power of two, 2..=256).
    pub entries: u32,
    /// Data flits per message (identity BODY .. TAIL), 2..=255.
    pub length: u32,
    /// Messages per node; 0 = send for ever.
    pub messages: u32,
    /// Seeds the ROM contents, the DSTM tree choice and the LFSRs.
    pub seed: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            rate: 16,
            multicast: 0.25,
            entries: 16,
            length: 4,
            messages: 0,
            seed: 1,
        }
    }
}

impl GenOptions {
    pub fn validate(&self) -> InputResult<()> {
        if self.rate > 256 {
            return Err(InputError::new(
                "gen_rate",
                self.rate,
                "0 to 256 (new messages per 256 idle cycles)",
            ));
        }
        if !(0.0..=1.0).contains(&self.multicast) {
            return Err(InputError::new(
                "gen_multicast",
                self.multicast,
                "a fraction from 0 to 1",
            ));
        }
        if !(2..=256).contains(&self.entries) || !self.entries.is_power_of_two() {
            return Err(InputError::new(
                "gen_entries",
                self.entries,
                "a power of two from 2 to 256",
            ));
        }
        if !(2..=255).contains(&self.length) {
            return Err(InputError::new(
                "gen_length",
                self.length,
                "2 to 255 data flits (identity BODY + TAIL at least)",
            ));
        }
        if self.messages > 0xFFFF {
            return Err(InputError::new(
                "gen_messages",
                self.messages,
                "0 (for ever) to 65535",
            ));
        }
        Ok(())
    }
}

/// Everything the generators and checkers of one network hold: per node a
/// ROM of header words, per entry its start, destination count and the
/// checkers' destination bits. Built once by the Rust encoders.
#[derive(Debug, Clone)]
pub struct Plan {
    pub topo: Topology,
    pub params: RouterParams,
    pub cfg: Vec<RouterConfig>,
    pub opts: GenOptions,
    /// Tag fields: node, entry and sequence bits (node lowest).
    pub node_bits: u32,
    pub entry_bits: u32,
    pub seq_bits: u32,
    /// Per node: ROM words `(last, flit)`. A HEAD word is sent as is; a
    /// word of kind 3 (reserved on links, never sent) marks "the data
    /// flits of this worm now"; `last` on it ends the message.
    pub rom: Vec<Vec<(bool, Flit)>>,
    /// Per node and entry: ROM address of the entry's first word.
    pub start: Vec<Vec<u32>>,
    /// Per node and entry: the number of destinations.
    pub pop: Vec<Vec<u32>>,
    /// Per node and entry: the destinations (sorted).
    pub dests: Vec<Vec<Vec<NodeId>>>,
    /// Per node and entry: the number of worms.
    pub worms: Vec<Vec<u32>>,
    /// Per node: its LFSR's reset value (never 0).
    pub seeds: Vec<u16>,
}

/// Bits to hold values `0..n` (at least 1).
pub fn bits_for(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}

impl Plan {
    /// The plan for the network of `scenario` (its topology, routing,
    /// trees and scheme): each node's entries drawn with `opts.seed`,
    /// encoded by the network's own source-side encoder.
    pub fn new(scenario: &Scenario, opts: GenOptions) -> InputResult<Plan> {
        opts.validate()?;
        let mut sc = scenario.clone();
        sc.traffic.seed = opts.seed;
        sc.traffic.messages.clear();
        let mut net = Network::new(&sc)?;
        let v = &net.v;
        if !v.faulty.is_empty() || net.fabric.cfg.iter().any(|c| c.divert_out != 0) {
            return Err(InputError::new(
                "network.faulty_links",
                format!(
                    "{:?}",
                    (sc.network.faulty_links.iter())
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>()
                ),
                "none with the FPGA top (a diverted worm needs the NI's re-injection, which the on-chip generator does not have)",
            ));
        }
        if !sc.network.faulty_nodes.is_empty() {
            return Err(InputError::new(
                "network.faulty_nodes",
                format!("{:?}", sc.network.faulty_nodes),
                "none with the FPGA top",
            ));
        }
        let topo = v.topo;
        let params = v.params;
        let n = topo.nodes();
        if n < 2 {
            return Err(InputError::new("network.topology", n, "at least 2 nodes"));
        }
        let node_bits = bits_for(n as u64);
        let entry_bits = opts.entries.trailing_zeros();
        let payload = params.flit.payload_bits();
        let free = payload.saturating_sub(node_bits + entry_bits);
        if free < 4 {
            return Err(InputError::new(
                "flit_width",
                params.flit.width,
                format!(
                    "a flit whose {payload} payload bits hold the tag's {node_bits} node bits, {entry_bits} entry bits and at least 4 sequence bits"
                ),
            ));
        }
        let seq_bits = free.min(16);
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
        let e = opts.entries as usize;
        let n_multi = (opts.multicast * e as f64).round() as usize;
        let mut plan = Plan {
            topo,
            params,
            cfg: net.fabric.cfg.clone(),
            opts,
            node_bits,
            entry_bits,
            seq_bits,
            rom: Vec::new(),
            start: Vec::new(),
            pop: Vec::new(),
            dests: Vec::new(),
            worms: Vec::new(),
            seeds: Vec::new(),
        };
        for src in 0..n {
            let (mut rom, mut start, mut pop, mut dsts, mut worms) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for k in 0..e {
                let others: Vec<NodeId> = (0..n).filter(|&d| d != src).collect();
                // Multicast entries spread over the ROM (every `e / n_multi`-th).
                let multi = n_multi > 0 && others.len() > 1 && (k * n_multi) % e < n_multi;
                let mut d: Vec<NodeId> = if multi {
                    let size = rng.gen_range(2..=others.len());
                    let mut pool = others.clone();
                    (0..size)
                        .map(|_| pool.swap_remove(rng.gen_range(0..pool.len())))
                        .collect()
                } else {
                    vec![others[rng.gen_range(0..others.len())]]
                };
                d.sort_unstable();
                let m = net.submit(src, d.clone(), opts.length, None)?;
                let heads = &net.msgs[m as usize].heads;
                start.push(rom.len() as u32);
                for (w, hs) in heads.iter().enumerate() {
                    rom.extend(hs.iter().map(|&h| (false, h)));
                    rom.push((w + 1 == heads.len(), KIND_RESERVED));
                }
                pop.push(d.len() as u32);
                worms.push(heads.len() as u32);
                dsts.push(d);
            }
            let mut s = rng.gen::<u16>();
            if s == 0 {
                s = 1;
            }
            plan.rom.push(rom);
            plan.start.push(start);
            plan.pop.push(pop);
            plan.dests.push(dsts);
            plan.worms.push(worms);
            plan.seeds.push(s);
        }
        Ok(plan)
    }

    /// ROM address bits (the largest node ROM).
    pub fn addr_bits(&self) -> u32 {
        bits_for(self.rom.iter().map(|r| r.len()).max().unwrap_or(1) as u64)
    }

    /// Data-flit index bits.
    pub fn index_bits(&self) -> u32 {
        bits_for(self.opts.length as u64)
    }

    pub fn payload_mask(&self) -> u64 {
        self.params.flit.payload_mask()
    }

    /// The checkers' destination bits of node `d`: bit `e << node_bits |
    /// src` is set when entry `e` of `src` has `d` among its destinations.
    pub fn dest_bits(&self, d: NodeId) -> Vec<bool> {
        let mut b = vec![false; (self.opts.entries as usize) << self.node_bits];
        for (src, entries) in self.dests.iter().enumerate() {
            for (e, ds) in entries.iter().enumerate() {
                if ds.binary_search(&d).is_ok() {
                    b[(e << self.node_bits) | src] = true;
                }
            }
        }
        b
    }

    /// Width of each node's `owed` counter (deliveries asked of it minus
    /// deliveries its checkers accepted, wrapping): it holds every
    /// delivery one epoch can ask of a node or its checkers accept (a
    /// message takes at least 3 cycles to send, a delivery at least 2 on
    /// its channel; bounded here by one per cycle per source or channel),
    /// so a difference of zero modulo 2^width within an epoch is a true
    /// zero.
    pub fn owed_bits(&self) -> u32 {
        let n = self.topo.nodes() as u64;
        let cons = self.params.consumption as u64;
        bits_for(((n - 1) * EPOCH_SEND as u64).max(cons * EPOCH as u64) + 1)
    }

    /// The tag of message `seq` of entry `e` at `src`.
    pub fn tag(&self, src: NodeId, e: u32, seq: u32) -> u64 {
        let s = seq as u64 & ((1 << self.seq_bits) - 1);
        src as u64 | (e as u64) << self.node_bits | s << (self.node_bits + self.entry_bits)
    }
}

/// A generator's registers (the Verilog `wc_gen`'s, one for one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gen {
    pub lfsr: u16,
    pub busy: bool,
    pub data: bool,
    pub last: bool,
    pub ptr: u32,
    pub idx: u32,
    pub tag: u64,
    pub pay: u64,
    pub seq: u32,
    pub out_flit: Flit,
    pub out_valid: bool,
    /// Messages started (the per-node limit `messages`; 16 bits).
    pub sent: u32,
}

/// What a generator did this cycle (combinational outputs of `wc_gen`):
/// started a message of ROM entry `entry`, with this many destinations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Started {
    pub start: bool,
    pub pop: u32,
    pub entry: u32,
}

/// Checker states.
pub const CHK_EXPECT: u8 = 0;
pub const CHK_RECV: u8 = 1;
pub const CHK_SKIP: u8 = 2;

/// A checker's registers (the Verilog `wc_chk`'s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Chk {
    pub st: u8,
    pub exp: u64,
    pub idx: u32,
}

/// What a checker saw this cycle (combinational outputs of `wc_chk`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// A good TAIL: one delivery.
    pub good: bool,
    /// A flit that broke the rules.
    pub bad: bool,
}

/// The FPGA top's outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    pub pass: bool,
    pub done: bool,
    pub stall: bool,
    /// Sticky: at the end of a drain window some node's deliveries
    /// differed from those asked of it (see [`EPOCH_SEND`]).
    pub mismatch: bool,
    pub heartbeat: bool,
    pub err_count: u32,
    pub sent: u32,
    pub expected: u32,
    pub received: u32,
}

/// The FPGA top in the native model: the native fabric of the plan's
/// network, one generator per node and one checker per consumption
/// channel, with the top's watchdog and counters.
pub struct OnChip {
    pub plan: Plan,
    pub fabric: Fabric,
    pub gens: Vec<Gen>,
    /// Per node, per consumption channel.
    pub chks: Vec<Vec<Chk>>,
    pub wd: u32,
    pub stall: bool,
    pub hb: u32,
    /// Cycle within the epoch (`0..EPOCH`; the generators start messages
    /// while it is below [`EPOCH_SEND`]).
    pub ep: u32,
    /// Per node: deliveries asked of it minus deliveries its checkers
    /// accepted (`Plan::owed_bits`, wrapping). Zero at every epoch check.
    pub owed: Vec<u32>,
    /// Sticky: an epoch check found a node with `owed` ≠ 0.
    pub mismatch: bool,
    /// Sticky: an epoch check found every `owed` zero with at least one
    /// delivery received; `pass` is 0 before.
    pub armed: bool,
    /// The top's counters: messages started, deliveries they ask for,
    /// deliveries accepted (all `COUNT_BITS`, wrapping), checker errors
    /// (`ERR_BITS`, saturating).
    pub sent: u32,
    pub expected: u32,
    pub received: u32,
    pub errors: u32,
    /// The events of the last [`EVENT_STAGES`] edges, oldest first, as the
    /// top's event registers hold them (messages started, deliveries asked
    /// for, deliveries accepted, checker errors, and whether a flit moved):
    /// the counters and the watchdog take them that many edges later. The
    /// Verilog registers every generator's and checker's events where they
    /// happen, then each group's sum, so that the sums across the die start
    /// from registers (docs/fpga.md, "Fmax of a fabric").
    pub events: [Events; EVENT_STAGES],
    /// The per-node part of the last edge's events, registered likewise:
    /// per destination node, the messages started to it; per node, the
    /// deliveries its checkers accepted.
    pub ev_dest: Vec<u32>,
    pub ev_good: Vec<u32>,
    /// Injection transfers and consumed flits so far (statistics).
    pub flits_in: u64,
    pub flits_out: u64,
    /// Statistics (no Verilog twin): the cycle within the epoch of the
    /// last delivery counted, and the largest number of cycles into a
    /// drain window at which an epoch's last delivery was counted.
    pub last_good: u32,
    pub drain_max: u32,
}

/// One edge's events, summed over every generator and checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Events {
    pub starts: u32,
    pub pops: u32,
    pub goods: u32,
    pub bads: u32,
    pub progress: bool,
}

fn count_mask() -> u32 {
    (1u32 << COUNT_BITS) - 1
}

/// More deliveries than messages sent asked for: a duplicate. Wrap-safe
/// (the counters wrap on a board left running): the difference's top bit.
pub fn over(expected: u32, received: u32) -> bool {
    (expected.wrapping_sub(received) & count_mask()) >> (COUNT_BITS - 1) == 1
}

impl OnChip {
    /// The top just after reset.
    pub fn new(plan: Plan) -> OnChip {
        let n = plan.topo.nodes() as usize;
        let fabric = Fabric::new(plan.topo, plan.params, plan.cfg.clone());
        let gens = plan
            .seeds
            .iter()
            .map(|&s| Gen {
                lfsr: s,
                ..Gen::default()
            })
            .collect();
        let chks = vec![vec![Chk::default(); plan.params.consumption]; n];
        OnChip {
            plan,
            fabric,
            gens,
            chks,
            wd: 0,
            stall: false,
            hb: 0,
            ep: 0,
            owed: vec![0; n],
            mismatch: false,
            armed: false,
            sent: 0,
            expected: 0,
            received: 0,
            errors: 0,
            events: [Events::default(); EVENT_STAGES],
            ev_dest: vec![0; n],
            ev_good: vec![0; n],
            flits_in: 0,
            flits_out: 0,
            last_good: 0,
            drain_max: 0,
        }
    }

    /// The top's output ports (registered values since the last edge).
    pub fn outputs(&self) -> Outputs {
        let (sent, expected, received, err) =
            (self.sent, self.expected, self.received, self.errors);
        let fin = self.plan.opts.messages != 0
            && self
                .gens
                .iter()
                .all(|g| g.sent == self.plan.opts.messages && !g.busy && !g.out_valid);
        let done = fin && received == expected;
        Outputs {
            pass: self.armed
                && !self.mismatch
                && err == 0
                && !self.stall
                && !over(expected, received)
                && (self.plan.opts.messages == 0 || done),
            done,
            stall: self.stall,
            mismatch: self.mismatch,
            heartbeat: self.hb >> HEARTBEAT_BIT & 1 == 1,
            err_count: err,
            sent,
            expected,
            received,
        }
    }

    /// One clock edge.
    pub fn step(&mut self) {
        let n = self.gens.len();
        for r in 0..n as u32 {
            self.fabric.wake(r);
        }
        self.fabric.evaluate();
        let outs = self.outputs();
        let outstanding = outs.received != outs.expected || self.gens.iter().any(|g| g.busy);
        let mut progress = false;
        let (mut starts, mut pops, mut goods, mut bads) = (0u32, 0u32, 0u32, 0u32);
        let mut ev_dest = vec![0u32; n];
        let mut ev_good = Vec::with_capacity(n);
        let open = self.ep < EPOCH_SEND;
        for node in 0..n {
            let g = &self.gens[node];
            let ready = self.fabric.state[node].inp[4].ready;
            if g.out_valid
                && self
                    .fabric
                    .inject(node as u32, 0, g.out_flit, crate::fabric::NO_MSG)
            {
                progress = true;
                self.flits_in += 1;
            }
            let st = step_gen(&self.plan, node, &mut self.gens[node], ready, open);
            if st.start {
                starts += 1;
                pops += st.pop;
                for &d in &self.plan.dests[node][st.entry as usize] {
                    ev_dest[d as usize] += 1;
                }
            }
            let mut node_goods = 0;
            for c in 0..self.plan.params.consumption {
                let o = self.fabric.state[node].out[consumption_output(c as u8)];
                if o.valid {
                    progress = true;
                    self.flits_out += 1;
                    let k = step_chk(&self.plan, node, &mut self.chks[node][c], o.flit);
                    goods += k.good as u32;
                    node_goods += k.good as u32;
                    bads += k.bad as u32;
                }
            }
            ev_good.push(node_goods);
        }
        let e = self.events[0];
        self.events.rotate_left(1);
        self.events[EVENT_STAGES - 1] = Events {
            starts,
            pops,
            goods,
            bads,
            progress,
        };
        self.sent = self.sent.wrapping_add(e.starts) & count_mask();
        self.expected = self.expected.wrapping_add(e.pops) & count_mask();
        self.received = self.received.wrapping_add(e.goods) & count_mask();
        self.errors = (self.errors + e.bads).min((1 << ERR_BITS) - 1);
        // The epoch check reads the registers before this edge: every
        // delivery counted up to the cycle before last of the drain window.
        if self.ep == EPOCH - 1 {
            if self.owed.iter().any(|&o| o != 0) {
                self.mismatch = true;
            } else if outs.received != 0 {
                self.armed = true;
            }
            self.drain_max = self
                .drain_max
                .max(self.last_good.saturating_sub(EPOCH_SEND - 1));
            self.last_good = 0;
        }
        let om = (1u32 << self.plan.owed_bits()) - 1;
        let ed = std::mem::replace(&mut self.ev_dest, ev_dest);
        let eg = std::mem::replace(&mut self.ev_good, ev_good);
        for (d, o) in self.owed.iter_mut().enumerate() {
            *o = o.wrapping_add(ed[d]).wrapping_sub(eg[d]) & om;
        }
        if e.goods > 0 {
            self.last_good = self.ep;
        }
        self.ep = if self.ep == EPOCH - 1 { 0 } else { self.ep + 1 };
        if outstanding && !e.progress {
            if self.wd + 1 >= WATCHDOG {
                self.stall = true;
            } else {
                self.wd += 1;
            }
        } else {
            self.wd = 0;
        }
        self.hb = self.hb.wrapping_add(1) & ((2 << HEARTBEAT_BIT) - 1);
        self.fabric.commit(&mut |_, _| {});
    }
}

/// A generator's next state (`ready`: its injection input's registered
/// ready before this edge; `open`: the epoch's send window, in which
/// alone a message may start), and whether it started a message.
pub fn step_gen(plan: &Plan, node: usize, g: &mut Gen, ready: bool, open: bool) -> Started {
    let fmt = plan.params.flit;
    let cur = *g;
    g.lfsr = lfsr_next(cur.lfsr);
    if cur.out_valid && !ready {
        return Started::default();
    }
    let rom = &plan.rom[node];
    let l = plan.opts.length;
    let pm = plan.payload_mask();
    if cur.busy && cur.data {
        let pay = (cur.pay + STRIDE) & pm;
        let tail = cur.idx == l - 1;
        g.out_flit = if tail { fmt.tail(pay) } else { fmt.body(pay) };
        g.out_valid = true;
        g.pay = pay;
        g.idx = (cur.idx + 1) & ((1 << plan.index_bits()) - 1);
        if tail {
            g.data = false;
            if cur.last {
                g.busy = false;
            }
        }
    } else if cur.busy {
        let (last, w) = rom[cur.ptr as usize];
        g.ptr = cur.ptr + 1;
        if kind_bits(w) == KIND_RESERVED {
            g.out_flit = fmt.body(cur.tag);
            g.pay = cur.tag;
            g.data = true;
            g.idx = 1;
            g.last = last;
        } else {
            g.out_flit = w;
        }
        g.out_valid = true;
    } else {
        let m = plan.opts.messages;
        let go = ((cur.lfsr as u32) & ((1 << RATE_BITS) - 1)) < plan.opts.rate
            && (m == 0 || cur.sent < m)
            && open;
        if go {
            let e = (cur.lfsr as u32 >> RATE_BITS) & (plan.opts.entries - 1);
            let a = plan.start[node][e as usize];
            g.out_flit = rom[a as usize].1;
            g.out_valid = true;
            g.ptr = a + 1;
            g.busy = true;
            g.data = false;
            g.tag = plan.tag(node as NodeId, e, cur.seq);
            g.seq = (cur.seq + 1) & ((1 << plan.seq_bits) - 1);
            g.sent = (cur.sent + 1) & 0xFFFF;
            return Started {
                start: true,
                pop: plan.pop[node][e as usize],
                entry: e,
            };
        } else {
            g.out_valid = false;
        }
    }
    Started::default()
}

/// A checker's next state on a consumed flit `f`, and its verdict.
pub fn step_chk(plan: &Plan, node: usize, c: &mut Chk, f: Flit) -> Checked {
    let pm = plan.payload_mask();
    let kind = kind_bits(f);
    let pl = flit::payload(f) & pm;
    let l = plan.opts.length;
    let mut err = false;
    let mut good = false;
    match c.st {
        CHK_EXPECT => {
            if kind == KIND_BODY {
                let key = (pl & ((1 << (plan.node_bits + plan.entry_bits)) - 1)) as usize;
                let src = key & ((1 << plan.node_bits) - 1);
                let e = key >> plan.node_bits;
                let ok = src < plan.dests.len()
                    && plan.dests[src][e].binary_search(&(node as NodeId)).is_ok();
                if ok {
                    c.st = CHK_RECV;
                    c.exp = (pl + STRIDE) & pm;
                    c.idx = 1;
                } else {
                    err = true;
                    c.st = CHK_SKIP;
                }
            } else {
                err = true;
            }
        }
        CHK_RECV => {
            if kind == KIND_TAIL && c.idx == l - 1 && pl == c.exp {
                good = true;
                c.st = CHK_EXPECT;
            } else if kind == KIND_BODY && c.idx < l - 1 && pl == c.exp {
                c.idx += 1;
                c.exp = (c.exp + STRIDE) & pm;
            } else {
                err = true;
                c.st = if kind == KIND_TAIL {
                    CHK_EXPECT
                } else {
                    CHK_SKIP
                };
            }
        }
        _ => {
            if kind == KIND_TAIL {
                c.st = CHK_EXPECT;
            }
        }
    }
    Checked { good, bad: err }
}
