//! The reservation arbiter (docs/architecture.md §3 "Atomic reservation"): one
//! rotating priority order over the inputs; a request is granted only when
//! all its outputs are free (all or nothing, no hold-and-wait). The
//! highest-priority input that cannot be granted keeps the top priority and
//! masks every output it requests, free ones too, from lower-priority inputs
//! — except with the mesh routing functions, which have no mask
//! (`arbitrate_masking` with `maskable` = 0, docs/history/decisions-log.md "Mesh routing in the RTL"): a
//! generation-time constant. Next `prio` is the first blocked input, else one
//! past the first granted input, else unchanged (so an arbiter without
//! requests is a no-op, as natively).
//!
//! Why this shape (timing): the native
//! `router::arbiter::arbitrate` walks the inputs from `prio` and ORs each
//! grant's output mask into a running `taken` mask. Built literally, that is
//! a rotation (adders and 5:1 request muxes) followed by five dependent
//! 6-bit mask stages, the longest part of the router's critical path. Here
//! the wide work is done once and in parallel: whether a request meets an
//! owned output (`ow`), and whether two requests share an output (the
//! pairwise conflict matrix `c`). What remains serial is one bit per
//! position: input i at position k is granted iff it requests, meets no
//! owned output, and conflicts with no earlier position that took its
//! outputs. There is one such chain per value of `prio`, with the order
//! fixed at generation time (no rotation logic), and `prio` only selects
//! among the chains' results at the end. The next `prio` is decided once,
//! after that selection, from the selected grants and the requests (an
//! input that requests and is not granted is blocked): one rotating
//! priority encoder shared by all chains instead of one inside each
//! (area; docs/hardware.md 3r).
//!
//! rust-hdl's `#[hdl_gen]` cannot express generation-time index arithmetic
//! (`(s + k) mod n`), so this block is written twice by hand from one
//! description of the network ([`ArbiterNet`]): [`Logic::update`] evaluates
//! it for simulation and [`Logic::hdl`] prints it as Verilog. Lockstep
//! against the native `arbitrate_masking` checks the first; the Verilog
//! vector tests, the gate-level check and this module's own iverilog test
//! (rtl/tests/verilog.rs) check the second.
//!
//! Who requests (`rq`) arrives apart from what (`req`), and `req` of an
//! input that does not request may hold anything (timing):
//! every use of `req` is ANDed with its own input's `rq` (a position is
//! granted or blocked only if it requests, and takes outputs only then),
//! so the owned-output and conflict terms need no gating, and `rq` is one
//! LUT of registers (the input's state, the head's stored "may request"
//! bit) instead of an OR over the request.

use crate::hw::*;
use rust_hdl::prelude::*;
use std::fmt::Write;

/// `n` default-constructed elements (signals, registers).
pub fn vdef<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

#[derive(LogicBlock)]
pub struct Arbiter {
    /// Per input: it requests, and the outputs it requests (read only
    /// with `rq`).
    pub rq: Vec<Signal<In, Bit>>,
    pub req: Vec<Signal<In, Bits<MASK_W>>>,
    /// Outputs owned at the start of the cycle.
    pub owned: Signal<In, Bits<MASK_W>>,
    /// Register `prio`: the input with top priority.
    pub prio: Signal<In, Bits<PRIO_W>>,
    /// Per input: granted.
    pub grant: Vec<Signal<Out, Bit>>,
    /// Next value of `prio`.
    pub prio_next: Signal<Out, Bits<PRIO_W>>,
    _net: ArbiterNet,
}

/// The generation-time shape of the arbiter: input count and the two
/// behaviour switches. Both the simulation and the Verilog are derived from
/// it, position by position.
#[derive(Clone, Copy, Debug)]
pub struct ArbiterNet {
    pub n: usize,
    /// The first blocked input masks the outputs it requests (tree and SPAM
    /// routing); mesh routing has no mask.
    pub masking: bool,
    /// Flip the "first blocked keeps the top" rule (a deliberately broken
    /// arbiter, only for the lockstep self-test).
    pub broken: bool,
}

impl ArbiterNet {
    /// The input at position `k` of the chain that starts at `s`.
    fn at(&self, s: usize, k: usize) -> usize {
        (s + k) % self.n
    }

    /// The chain for a `prio` register value (natively `prio % n`; values
    /// at or above `n` never occur, but the case table is complete).
    fn chain_of(&self, prio: usize) -> usize {
        prio % self.n
    }

    /// Evaluates the network on concrete values: (granted bits, next prio).
    /// `req[i]` is read only where `rq[i]`.
    pub fn eval(&self, rq: &[bool], req: &[u64], owned: u64, prio: u64) -> (u64, u64) {
        let n = self.n;
        let ow: Vec<bool> = req.iter().map(|&r| r & owned != 0).collect();
        let c = |a: usize, b: usize| req[a] & req[b] != 0;
        let s = self.chain_of(prio as usize);
        let mut g = vec![false; n];
        let mut b = vec![false; n];
        let mut t = vec![false; n];
        for k in 0..n {
            let i = self.at(s, k);
            let hit = (0..k).any(|j| t[j] && c(self.at(s, j), i));
            g[k] = rq[i] && !ow[i] && !hit;
            b[k] = rq[i] && !g[k];
            let first_b = b[k] && !(0..k).any(|j| b[j]);
            t[k] = g[k] || (first_b && self.masking);
        }
        let mut grant = 0u64;
        let mut next = prio;
        for k in (0..n).rev() {
            if g[k] {
                grant |= 1 << self.at(s, k);
                next = ((self.at(s, k) + 1) % n) as u64;
            }
        }
        if !self.broken {
            for k in (0..n).rev() {
                if b[k] {
                    next = self.at(s, k) as u64;
                }
            }
        }
        (grant, next)
    }

    /// The same network as Verilog: one wire per conflict and per chain
    /// position, then a `case` on `prio` selecting a chain's results.
    pub fn verilog(&self) -> String {
        let n = self.n;
        let mut v = String::new();
        let w = |v: &mut String, s: String| {
            v.push_str(&s);
            v.push('\n');
        };
        for i in 0..n {
            w(&mut v, format!("wire a_rq{i} = rq${i};"));
            w(&mut v, format!("wire a_ow{i} = |(req${i} & owned);"));
            for j in 0..i {
                w(&mut v, format!("wire a_c{j}_{i} = |(req${j} & req${i});"));
            }
        }
        let c = |a: usize, b: usize| format!("a_c{}_{}", a.min(b), a.max(b));
        for s in 0..n {
            for k in 0..n {
                let i = self.at(s, k);
                let mut hit = String::new();
                for j in 0..k {
                    let _ = write!(hit, " | (a_t{s}_{j} & {})", c(self.at(s, j), i));
                }
                w(
                    &mut v,
                    format!("wire a_g{s}_{k} = a_rq{i} & ~a_ow{i} & ~(1'b0{hit});"),
                );
                if k + 1 == n {
                    // The last position takes nothing anyone reads, and
                    // whether it is blocked is read only after the
                    // selection (`a_sb`).
                    continue;
                }
                w(&mut v, format!("wire a_b{s}_{k} = a_rq{i} & ~a_g{s}_{k};"));
                let before: String = (0..k).map(|j| format!(" | a_b{s}_{j}")).collect();
                let mask = if self.masking { "1'b1" } else { "1'b0" };
                w(
                    &mut v,
                    format!(
                        "wire a_t{s}_{k} = a_g{s}_{k} | (a_b{s}_{k} & ~(1'b0{before}) & {mask});"
                    ),
                );
            }
        }
        // The grants: the chain of `prio`.
        w(&mut v, "always @(*) begin".into());
        for i in 0..n {
            w(&mut v, format!("  grant${i} = 1'b0;"));
        }
        w(&mut v, "  case (prio)".into());
        for p in 0..1usize << PRIO_W {
            let s = self.chain_of(p);
            w(&mut v, format!("    {PRIO_W}'d{p}: begin"));
            for k in 0..n {
                w(
                    &mut v,
                    format!("      grant${} = a_g{s}_{k};", self.at(s, k)),
                );
            }
            w(&mut v, "    end".into());
        }
        w(&mut v, "  endcase".into());
        w(&mut v, "end".into());
        // The next priority, from the selected grants (module doc).
        for i in 0..n {
            w(&mut v, format!("wire a_sb{i} = rq${i} & ~grant${i};"));
        }
        w(&mut v, "always @(*) begin".into());
        w(&mut v, "  prio_next = prio;".into());
        w(&mut v, "  case (prio)".into());
        for p in 0..1usize << PRIO_W {
            let s = self.chain_of(p);
            w(&mut v, format!("    {PRIO_W}'d{p}: begin"));
            for k in (0..n).rev() {
                let i = self.at(s, k);
                let nx = (i + 1) % n;
                w(
                    &mut v,
                    format!("      if (grant${i}) prio_next = {PRIO_W}'d{nx};"),
                );
            }
            if !self.broken {
                for k in (0..n).rev() {
                    let i = self.at(s, k);
                    w(
                        &mut v,
                        format!("      if (a_sb{i}) prio_next = {PRIO_W}'d{i};"),
                    );
                }
            }
            w(&mut v, "    end".into());
        }
        w(&mut v, "  endcase".into());
        w(&mut v, "end".into());
        v
    }
}

impl Arbiter {
    /// `masking`: the first blocked input masks the outputs it requests
    /// (tree and SPAM routing); mesh routing has no mask.
    pub fn new(n: usize, broken: bool, masking: bool) -> Arbiter {
        assert!((1..=1 << PRIO_W).contains(&n), "arbiter inputs {n}");
        Arbiter {
            rq: vdef(n),
            req: vdef(n),
            owned: Default::default(),
            prio: Default::default(),
            grant: vdef(n),
            prio_next: Default::default(),
            _net: ArbiterNet { n, masking, broken },
        }
    }
}

impl Logic for Arbiter {
    fn update(&mut self) {
        let rq: Vec<bool> = self.rq.iter().map(|r| r.val()).collect();
        let req: Vec<u64> = self.req.iter().map(|r| r.val().to_u64()).collect();
        let (grant, next) = self._net.eval(
            &rq,
            &req,
            self.owned.val().to_u64(),
            self.prio.val().to_u64(),
        );
        for (i, g) in self.grant.iter_mut().enumerate() {
            g.next = grant >> i & 1 != 0;
        }
        self.prio_next.next = next.into();
    }

    fn connect(&mut self) {
        for g in self.grant.iter_mut() {
            g.connect();
        }
        self.prio_next.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(self._net.verilog())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wormcast_sim::router::arbiter::arbitrate_masking;

    /// The network against the native arbiter on every request pattern a
    /// seeded generator produces (3 to 5 inputs, 6 outputs, both maskings,
    /// every prio value), with a bias towards overlapping requests; an
    /// input without a request shows the network random bits on `req`,
    /// which it must ignore.
    #[test]
    fn network_equals_native_arbiter() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in 3..=5 {
            for masking in [false, true] {
                let net = ArbiterNet {
                    n,
                    masking,
                    broken: false,
                };
                for _ in 0..20_000 {
                    let req: Vec<u64> = (0..n)
                        .map(|_| {
                            let r = next();
                            if r & 3 == 0 {
                                0
                            } else {
                                (r >> 8) & 0x3F
                            }
                        })
                        .collect();
                    let owned = next() & next() & 0x3F;
                    let prio = next() % n as u64;
                    let r8: Vec<u8> = req.iter().map(|&r| r as u8).collect();
                    let nat = arbitrate_masking(
                        &r8,
                        owned as u8,
                        prio as u8,
                        if masking { 0xFF } else { 0 },
                    );
                    let rq: Vec<bool> = req.iter().map(|&r| r != 0).collect();
                    let junk: Vec<u64> = req
                        .iter()
                        .map(|&r| if r == 0 { next() & 0xFF } else { r })
                        .collect();
                    let (g, p) = net.eval(&rq, &junk, owned, prio);
                    assert_eq!(
                        (g, p),
                        (nat.granted as u64, nat.prio as u64),
                        "n {n} masking {masking} req {req:?} owned {owned:#x} prio {prio}"
                    );
                }
            }
        }
    }
}
