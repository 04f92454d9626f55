//! One run on several threads (`run.threads`), with results bit-identical
//! to the serial kernel (docs/architecture.md §4, "Threads inside a run").
//!
//! Why it can be exact: every router output is a register, so within one
//! clock edge no router's evaluation reads what another writes.
//! - Phase 1 ([`Fabric::evaluate`]): a sender reads its own output registers
//!   and its receiver's registered `ready`, and appends the flit to one
//!   receiver input. Each link input has exactly one upstream, so every
//!   FIFO, shadow slot and `last_move` entry has exactly one writer. The
//!   only shared word is a receiver's `edge.arrived` mask and the active
//!   list: those are applied afterwards, serially, in the order the serial
//!   kernel would have made them.
//! - Phase 2 ([`Fabric::commit`]): a router steps from its own registers
//!   and its recorded handshake only.
//!
//! The active list is cut into contiguous chunks by position, one chunk a
//! thread. Concatenating the chunks' outputs in chunk order gives exactly
//! the serial order of wake-ups, of next cycle's active set and of the
//! activity callbacks, so everything downstream (the NIs, message numbers,
//! the delivery log, the VCD) sees the same sequence for every thread
//! count. No RNG is drawn in either phase.
//!
//! Why by position and not by fixed stripes of rows: traffic is rarely
//! even over the fabric (on a saturated DSTM-1 128×128 torus one half of
//! the rows did 60 % more router work than the other). Stripes dealt in
//! bands kept each router on one core but measured slower (0.85 s against
//! 0.78 s), and needed a merge by position to restore the serial order;
//! small blocks of positions dealt in turn were 2.5× slower, since
//! neighbouring routers then sit on different cores and their small
//! per-router entries share cache lines (docs/performance.md, "One run on
//! several threads").
//!
//! Cycles with few active routers run serially: below
//! [`Stripes::min_active`] the fork and join would cost more than the work
//! (docs/performance.md, "One run on several threads"). Of the larger
//! ones, the run times a sample in each mode and uses the threads only
//! while they are faster ([`Pacer`]): what they are worth depends on how
//! far apart the machine puts the cores.

use super::crew::Crew;
use super::pacer::Pacer;
use super::{Beside, Fabric, LinkEnd, Shadow};
use crate::config::{RouterConfig, RouterParams, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::Flit;
use crate::router::{self, Activity, Edge, PortMasks, RouterState};
use std::sync::Mutex;
use std::time::Instant;

/// Active routers below which a phase runs serially, unless set otherwise
/// (measured: docs/performance.md, "One run on several threads").
pub const DEFAULT_MIN_ACTIVE: usize = 1024;

/// The worker threads of one run and each chunk's scratch lists.
pub struct Stripes {
    crew: Crew,
    /// A phase with fewer active routers runs serially.
    pub min_active: usize,
    /// One a thread; each locked only by its own part of a phase.
    chunks: Vec<Mutex<Chunk>>,
    /// Whether the large cycles use the threads (`true`), as chosen by
    /// timing them ([`Pacer`]); `false`: always, when they are large enough.
    pub self_timed: bool,
    pub pacer: Pacer,
    /// The current cycle: when its phase 1 began, whether its large phases
    /// use the threads, and whether any phase was large.
    start: Instant,
    allow: bool,
    eligible: bool,
    /// The last cycle, to be timed at the start of the next one: its mode
    /// and router steps, when it was eligible.
    open: Option<(Instant, bool, u64)>,
    /// Cycles with a phase large enough to thread, and those of them whose
    /// large phases ran on the threads.
    pub eligible_cycles: u64,
    pub threaded_cycles: u64,
}

/// What one chunk of the active list produced, kept in chunk order.
/// Aligned to two cache lines: each thread pushes to its own lists all
/// phase long, and two chunks sharing a line would make every push a
/// cache miss on the other core.
#[derive(Default)]
#[repr(align(128))]
struct Chunk {
    /// Phase 1: receiver inputs that took a flit, in the chunk's order.
    arrivals: Vec<(u32, u8)>,
    /// Phase 2: routers that stay active, in stepping order.
    kept: Vec<u32>,
    /// Phase 2: steps that raised an error or ended a truncated worm.
    activity: Vec<(u32, Activity)>,
}

impl Stripes {
    /// `threads` ≥ 2 workers; `Err` if the operating system refuses them.
    pub fn new(threads: usize) -> Result<Stripes, String> {
        Ok(Stripes {
            crew: Crew::new(threads)?,
            min_active: DEFAULT_MIN_ACTIVE,
            chunks: (0..threads).map(|_| Mutex::new(Chunk::default())).collect(),
            self_timed: true,
            pacer: Pacer::default(),
            start: Instant::now(),
            allow: true,
            eligible: false,
            open: None,
            eligible_cycles: 0,
            threaded_cycles: 0,
        })
    }

    /// Starts a cycle: times the last one, if it was eligible, and chooses
    /// this one's mode.
    fn begin_cycle(&mut self) {
        let now = Instant::now();
        if let Some((t0, threads, steps)) = self.open.take() {
            let ns = now.saturating_duration_since(t0).as_nanos() as u64;
            self.pacer.record(threads, ns, steps);
        }
        self.start = now;
        self.allow = !self.self_timed || self.pacer.use_threads();
        self.eligible = false;
    }

    /// Whether a phase over `active` routers runs on the threads; a large
    /// one makes the cycle eligible either way.
    fn threaded(&mut self, active: usize) -> bool {
        if active < self.min_active {
            return false;
        }
        self.eligible = true;
        self.allow
    }

    pub fn threads(&self) -> usize {
        self.crew.parts()
    }

    /// Runs `work(router, scratch)` for every router of `active`, chunk
    /// `t` of the list on thread `t`, in list order within a chunk;
    /// returns when all threads are done.
    fn fork(&mut self, active: &[u32], work: impl Fn(usize, &mut Chunk) + Sync) {
        let chunks = &self.chunks;
        let (n, len) = (chunks.len(), active.len());
        self.crew.run(&|t| {
            let mut chunk = chunks[t].lock().expect("chunk lock");
            chunk.arrivals.clear();
            chunk.kept.clear();
            chunk.activity.clear();
            for &r in &active[len * t / n..len * (t + 1) / n] {
                work(r as usize, &mut chunk);
            }
        });
    }

    /// The chunks' results, in chunk order (after a [`Stripes::fork`]).
    fn results(&mut self) -> impl Iterator<Item = &mut Chunk> {
        self.chunks
            .iter_mut()
            .map(|c| c.get_mut().expect("chunk lock"))
    }
}

/// Raw views of the fabric's per-router arrays for the threads of one
/// phase. Each access touches only places this file's module comment shows
/// have a single writer in the phase, and no reference to a whole router
/// is formed while other threads run.
#[derive(Clone, Copy)]
struct Views {
    state: *mut RouterState,
    masks: *mut PortMasks,
    edge: *mut Edge,
    shadow: *mut Shadow,
    last_move: *mut [u64; MAX_INPUTS],
    sent: *mut [u64; MAX_OUTPUTS],
    mark: *mut u64,
    downstream: *const [LinkEnd; 4],
    cfg: *const RouterConfig,
}

// SAFETY: the pointers are used only under the single-writer discipline
// described on `Views`, inside `Stripes::fork`, which joins every thread
// before the fabric is touched again.
unsafe impl Send for Views {}
unsafe impl Sync for Views {}

impl Views {
    fn of(f: &mut Fabric) -> Views {
        Views {
            state: f.state.as_mut_ptr(),
            masks: f.masks.as_mut_ptr(),
            edge: f.edge.as_mut_ptr(),
            shadow: f.shadow.as_mut_ptr(),
            last_move: f.last_move.as_mut_ptr(),
            sent: f.sent.as_mut_ptr(),
            mark: f.mark.as_mut_ptr(),
            downstream: f.downstream.as_ptr(),
            cfg: f.cfg.as_ptr(),
        }
    }
}

/// Phase 1 on the threads, when it pays; `false`: the caller runs it
/// serially (too few active routers, or raw link drivers, whose blocking
/// reads span routers).
pub(super) fn evaluate(f: &mut Fabric) -> bool {
    let Some(mut st) = f.stripes.take() else {
        return false;
    };
    st.begin_cycle();
    if !f.drives.is_empty() || !st.threaded(f.active.len()) {
        f.stripes = Some(st);
        return false;
    }
    let v = Views::of(f);
    let depth = f.params.depth;
    let cycle = f.cycle;
    let active = &f.active[..];
    st.fork(active, |u, chunk| {
        // SAFETY: `u` is in this chunk alone (the active set has no
        // repeats): its masks, output registers, shadow outputs, edge and
        // counters are read or written by this thread alone. A receiver
        // input `(w, j)` has `u` as its only upstream, so its FIFO, shadow
        // slot and `last_move` are written here alone; its `ready` register
        // is not written in phase 1.
        unsafe { send(v, u, depth, cycle, &mut chunk.arrivals) };
    });
    // The serial kernel wakes each receiver at its first arrival, in the
    // order the active list sends: the chunks' arrivals in chunk order.
    for chunk in st.results() {
        for &(w, j) in &chunk.arrivals {
            f.edge[w as usize].arrived |= 1 << j;
            f.wake(w);
        }
    }
    f.stripes = Some(st);
    true
}

/// One sender's link handshakes (the body of the serial `evaluate` loop,
/// with the receiver's wake-up left to the caller).
#[inline(always)]
unsafe fn send(v: Views, u: usize, depth: usize, cycle: u64, arrivals: &mut Vec<(u32, u8)>) {
    let valid = (*v.masks.add(u)).valid;
    let mut sent = valid & 0xF0;
    for o in router::bits(valid & 0xF) {
        let Some((w, j)) = (*v.downstream.add(u))[o] else {
            continue;
        };
        let (w, j) = (w as usize, j as usize);
        if !(*v.state.add(w)).inp[j].ready {
            continue;
        }
        let flit: Flit = (*v.state.add(u)).out[o].flit;
        let msg = (*v.shadow.add(u)).out[o];
        let fifo = &mut (*v.state.add(w)).inp[j].fifo;
        let slot = (fifo.rd as usize + fifo.count as usize) % crate::config::MAX_DEPTH;
        if fifo.is_empty() {
            (*v.last_move.add(w))[j] = cycle;
        }
        fifo.push(flit, depth);
        (*v.shadow.add(w)).fifo[j][slot] = msg;
        arrivals.push((w as u32, j as u8));
        sent |= 1 << o;
    }
    (*v.edge.add(u)).sent = sent;
    for o in router::bits(sent) {
        (*v.sent.add(u))[o] += 1;
    }
}

/// One router's clock edge (the body of the serial `commit` loop), its
/// results kept in the chunk's lists.
#[inline(always)]
unsafe fn step(v: Views, r: usize, params: &RouterParams, cycle: u64, chunk: &mut Chunk) {
    let edge = std::mem::take(&mut *v.edge.add(r));
    let act = router::step_edge_as(
        &*v.cfg.add(r),
        params,
        &mut *v.state.add(r),
        &mut *v.masks.add(r),
        edge,
        &mut Beside {
            shadow: &mut *v.shadow.add(r),
            last_move: &mut *v.last_move.add(r),
            cycle,
        },
    );
    if act.errors != 0 || act.truncated != 0 {
        chunk.activity.push((r as u32, act));
    }
    let c = cycle + 1;
    if (act.busy != 0 || act.out_valid != 0) && *v.mark.add(r) != c {
        *v.mark.add(r) = c;
        chunk.kept.push(r as u32);
    }
}

/// Phase 2 on the threads, when it pays; `false`: the caller runs it
/// serially. Calls `on_activity` in the serial kernel's order.
pub(super) fn commit(f: &mut Fabric, on_activity: &mut dyn FnMut(u32, &Activity)) -> bool {
    let Some(mut st) = f.stripes.take() else {
        return false;
    };
    let threaded = st.threaded(f.active.len());
    if st.eligible {
        st.eligible_cycles += 1;
        st.threaded_cycles += st.allow as u64;
        if st.self_timed {
            st.open = Some((st.start, st.allow, f.active.len() as u64));
        }
    }
    if !threaded {
        f.stripes = Some(st);
        return false;
    }
    let v = Views::of(f);
    let params: &RouterParams = &f.params;
    let cycle = f.cycle;
    let active = &f.active[..];
    st.fork(active, |r, chunk| {
        // SAFETY: router `r` appears once in the active set, so this
        // thread alone touches its registers, masks, edge, shadows,
        // `last_move` and `mark`; configurations are read-only.
        unsafe { step(v, r, params, cycle, chunk) };
    });
    f.router_steps += f.active.len() as u64;
    // Next cycle's active set and the callbacks, in the serial order: the
    // chunks' lists in chunk order.
    f.active.clear();
    for chunk in st.results() {
        for (r, act) in &chunk.activity {
            on_activity(*r, act);
        }
        f.active.extend_from_slice(&chunk.kept);
    }
    f.cycle += 1;
    f.stripes = Some(st);
    true
}
