//! The reservation arbiter (ARCHITECTURE §3 "Atomic reservation"): one
//! rotating priority order over the inputs; a request is granted only when
//! all its outputs are free (all or nothing, no hold-and-wait). The
//! highest-priority input that cannot be granted keeps the top priority and
//! masks every output it requests, free ones too, from lower-priority inputs
//! — except with the mesh routing functions, which have no mask
//! (`arbitrate_masking` with `maskable` = 0, docs/decisions.md Issue 6): a
//! generation-time constant.
//!
//! Same function as the native `router::arbiter::arbitrate`, built as a
//! chain over rotated positions `k = 0..n` (input `(prio + k) mod n`): each
//! position sees the outputs taken by the positions before it. Next `prio` is
//! the first blocked input, else one past the first granted input, else
//! unchanged (so an arbiter without requests is a no-op, as natively).
//!
//! rust-hdl cannot index by a signal or accumulate into one `Local`, so the
//! rotation is a compare against every input and the chain uses one `Local`
//! per position (`taken[k]`, `blk[k]`, `gnd[k]`).

use crate::hw::*;
use rust_hdl::prelude::*;

/// `n` default-constructed elements (signals, registers).
pub fn vdef<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

#[derive(LogicBlock)]
pub struct Arbiter {
    /// Per input: requested outputs (0 = no request).
    pub req: Vec<Signal<In, Bits<MASK_W>>>,
    /// Outputs owned at the start of the cycle.
    pub owned: Signal<In, Bits<MASK_W>>,
    /// Register `prio`: the input with top priority.
    pub prio: Signal<In, Bits<PRIO_W>>,
    /// Per input: granted.
    pub grant: Vec<Signal<Out, Bit>>,
    /// Next value of `prio`.
    pub prio_next: Signal<Out, Bits<PRIO_W>>,
    prio4: Signal<Local, Bits<4>>,
    pk: Vec<Signal<Local, Bits<4>>>,
    /// Input at rotated position k.
    idx: Vec<Signal<Local, Bits<4>>>,
    /// Input after `idx[k]`, cyclically.
    idx1: Vec<Signal<Local, Bits<4>>>,
    inc: Vec<Signal<Local, Bits<4>>>,
    /// Request at position k.
    r: Vec<Signal<Local, Bits<MASK_W>>>,
    g: Vec<Signal<Local, Bit>>,
    bl: Vec<Signal<Local, Bit>>,
    taken: Vec<Signal<Local, Bits<MASK_W>>>,
    /// A blocked / granted position exists before k.
    blk: Vec<Signal<Local, Bit>>,
    gnd: Vec<Signal<Local, Bit>>,
    blk_any: Signal<Local, Bit>,
    gnd_any: Signal<Local, Bit>,
    pb: Signal<Local, Bits<4>>,
    pg: Signal<Local, Bits<4>>,
    n_c: Constant<Bits<4>>,
    kc: Vec<Constant<Bits<4>>>,
    /// Flip the "first blocked keeps the top" rule (a deliberately broken
    /// arbiter, only for the lockstep self-test).
    broken: Constant<Bit>,
    /// The first blocked input masks its free outputs (`false` for the
    /// mesh routing functions, `arbitrate_masking` with `maskable` = 0).
    masking: Constant<Bit>,
    _n: usize,
}

impl Arbiter {
    /// `masking`: the first blocked input masks the outputs it requests
    /// (tree and SPAM routing); mesh routing has no mask.
    pub fn new(n: usize, broken: bool, masking: bool) -> Arbiter {
        Arbiter {
            req: vdef(n),
            owned: Default::default(),
            prio: Default::default(),
            grant: vdef(n),
            prio_next: Default::default(),
            prio4: Default::default(),
            pk: vdef(n),
            idx: vdef(n),
            idx1: vdef(n),
            inc: vdef(n),
            r: vdef(n),
            g: vdef(n),
            bl: vdef(n),
            taken: vdef(n + 1),
            blk: vdef(n + 1),
            gnd: vdef(n + 1),
            blk_any: Default::default(),
            gnd_any: Default::default(),
            pb: Default::default(),
            pg: Default::default(),
            n_c: Constant::new((n as u64).into()),
            kc: (0..n).map(|k| Constant::new((k as u64).into())).collect(),
            broken: Constant::new(broken),
            masking: Constant::new(masking),
            _n: n,
        }
    }
}

impl Logic for Arbiter {
    #[hdl_gen]
    fn update(&mut self) {
        self.prio4.next = bit_cast::<4, PRIO_W>(self.prio.val());
        self.taken[0].next = self.owned.val();
        self.blk[0].next = false;
        self.gnd[0].next = false;
        self.blk_any.next = false;
        self.gnd_any.next = false;
        self.pb.next = self.prio4.val();
        self.pg.next = self.prio4.val();
        for k in 0..self._n {
            // Position k holds input (prio + k) mod n.
            self.pk[k].next = self.prio4.val() + self.kc[k].val();
            if self.pk[k].val() >= self.n_c.val() {
                self.idx[k].next = self.pk[k].val() - self.n_c.val();
            } else {
                self.idx[k].next = self.pk[k].val();
            }
            self.inc[k].next = self.idx[k].val() + 1;
            if self.inc[k].val() == self.n_c.val() {
                self.idx1[k].next = 0.into();
            } else {
                self.idx1[k].next = self.inc[k].val();
            }
            self.r[k].next = 0.into();
            for i in 0..self._n {
                if self.idx[k].val().index() == i {
                    self.r[k].next = self.req[i].val();
                }
            }
            self.g[k].next = self.r[k].val().any() & !(self.r[k].val() & self.taken[k].val()).any();
            self.bl[k].next = self.r[k].val().any() & !self.g[k].val();
            // Granted requests take their outputs; so does the first blocked one (the mask).
            if self.g[k].val() | (self.bl[k].val() & !self.blk[k].val() & self.masking.val()) {
                self.taken[k + 1].next = self.taken[k].val() | self.r[k].val();
            } else {
                self.taken[k + 1].next = self.taken[k].val();
            }
            if self.bl[k].val() {
                self.blk_any.next = true;
            }
            if self.g[k].val() {
                self.gnd_any.next = true;
            }
            if self.bl[k].val() & !self.blk[k].val() {
                self.pb.next = self.idx[k].val();
            }
            if self.g[k].val() & !self.gnd[k].val() {
                self.pg.next = self.idx1[k].val();
            }
            self.blk[k + 1].next = self.blk[k].val() | self.bl[k].val();
            self.gnd[k + 1].next = self.gnd[k].val() | self.g[k].val();
        }
        for i in 0..self._n {
            self.grant[i].next = false;
            for k in 0..self._n {
                if (self.idx[k].val().index() == i) & self.g[k].val() {
                    self.grant[i].next = true;
                }
            }
        }
        if self.blk_any.val() & !self.broken.val() {
            self.prio_next.next = bit_cast::<PRIO_W, 4>(self.pb.val());
        } else if self.gnd_any.val() {
            self.prio_next.next = bit_cast::<PRIO_W, 4>(self.pg.val());
        } else {
            self.prio_next.next = self.prio.val();
        }
    }
}
