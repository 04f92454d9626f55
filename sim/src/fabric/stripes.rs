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
//! Each thread owns bands of whole rows for the whole run ([`owners`]), and
//! steps the active routers of its bands. The results carry each router's
//! position in the active list, and are merged by it: the
//! wake-ups, next cycle's active set and the activity callbacks come out in
//! exactly the serial order, so everything downstream (the NIs, message
//! numbers, the delivery log, the VCD) sees the same sequence for every
//! thread count. No RNG is drawn in either phase.
//!
//! Cycles with few active routers run serially: below
//! [`Stripes::min_active`] the fork and join would cost more than the work
//! (docs/performance.md, "One run on several threads").

use super::crew::Crew;
use super::{Beside, Fabric, LinkEnd, Shadow};
use crate::config::{RouterConfig, RouterParams, MAX_INPUTS, MAX_OUTPUTS};
use crate::flit::Flit;
use crate::router::{self, Activity, Edge, PortMasks, RouterState};
use std::sync::Mutex;

/// Active routers below which a phase runs serially, unless set otherwise
/// (measured: docs/performance.md, "One run on several threads").
pub const DEFAULT_MIN_ACTIVE: usize = 64;

/// The worker threads of one run and each chunk's scratch lists.
pub struct Stripes {
    crew: Crew,
    /// A phase with fewer active routers runs serially.
    pub min_active: usize,
    /// One a thread; each locked only by its own part of a phase.
    chunks: Vec<Mutex<Chunk>>,
    /// Per router: the thread whose stripe it lies in.
    owner: Vec<u8>,
}

/// What one thread's stripe produced in a phase, each entry with the
/// position in the active list of the router it came from. Aligned to two
/// cache lines: each thread pushes to its own lists' lengths all phase
/// long, and neighbours sharing a line made every push a cache miss.
#[derive(Default)]
#[repr(align(128))]
struct Chunk {
    /// Phase 1: `(position, receiver, input)` of every flit that crossed.
    arrivals: Vec<(u32, u32, u8)>,
    /// Phase 2: steps that raised an error or ended a truncated worm.
    activity: Vec<(u32, u32, Activity)>,
}

impl Stripes {
    /// `threads` ≥ 2 workers for a fabric of `routers` routers numbered
    /// row by row, `row` to a row; `Err` if the system refuses the threads.
    pub fn new(threads: usize, routers: usize, row: usize) -> Result<Stripes, String> {
        Ok(Stripes {
            crew: Crew::new(threads)?,
            min_active: DEFAULT_MIN_ACTIVE,
            chunks: (0..threads).map(|_| Mutex::new(Chunk::default())).collect(),
            owner: owners(threads, routers, row),
        })
    }

    pub fn threads(&self) -> usize {
        self.crew.parts()
    }

    /// Runs `work(position, router, scratch)` for every router of `active`
    /// on the thread that owns it, in active-list order within a thread;
    /// returns when all threads are done.
    fn fork(&mut self, active: &[u32], work: impl Fn(u32, usize, &mut Chunk) + Sync) {
        let chunks = &self.chunks;
        let owner = &self.owner[..];
        self.crew.run(&|t| {
            let mut chunk = chunks[t].lock().expect("chunk lock");
            chunk.arrivals.clear();
            chunk.activity.clear();
            for (k, &r) in active.iter().enumerate() {
                if owner[r as usize] as usize == t {
                    work(k as u32, r as usize, &mut chunk);
                }
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

/// Each router's thread: bands of whole rows, dealt round the threads,
/// [`BANDS_A_THREAD`] bands a thread where the rows allow. Contiguous rows
/// keep a router's registers, and most of its neighbours', on one core:
/// cutting the active list by position instead balanced the count exactly,
/// but neighbouring routers on different cores then share cache lines of
/// the small per-router arrays (masks, edges, marks), and the threads did
/// twice the serial CPU work (measured). Several bands a thread even out
/// traffic that is not uniform over the fabric: with one half of a DSTM-1
/// 128×128 torus a thread, one thread did 60 % more router work than the
/// other.
fn owners(threads: usize, routers: usize, row: usize) -> Vec<u8> {
    let row = row.max(1);
    let rows = routers.div_ceil(row);
    let band = (rows / (threads * BANDS_A_THREAD)).max(1) * row;
    (0..routers).map(|r| ((r / band) % threads) as u8).collect()
}

/// Bands of rows a thread owns (see [`owners`]).
const BANDS_A_THREAD: usize = 8;

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
    if f.active.len() < st.min_active || !f.drives.is_empty() {
        f.stripes = Some(st);
        return false;
    }
    let v = Views::of(f);
    let depth = f.params.depth;
    let cycle = f.cycle;
    let active = &f.active[..];
    st.fork(active, |k, u, chunk| {
        // SAFETY: `u` is stepped by its owner alone (the active set has no
        // repeats): its masks, output registers, shadow outputs, edge and
        // counters are read or written by this thread alone. A receiver
        // input `(w, j)` has `u` as its only upstream, so its FIFO, shadow
        // slot and `last_move` are written here alone; its `ready` register
        // is not written in phase 1.
        unsafe { send(v, k, u, depth, cycle, &mut chunk.arrivals) };
    });
    // The serial kernel wakes each receiver at its first arrival, in the
    // order the active list sends: the threads' arrivals merged by the
    // sender's position (each thread's list is in that order already).
    let mut lists: Vec<&[(u32, u32, u8)]> = st.results().map(|c| &c.arrivals[..]).collect();
    while let Some(t) = first_of(&lists, |a| a.0) {
        let (_, w, j) = lists[t][0];
        lists[t] = &lists[t][1..];
        f.edge[w as usize].arrived |= 1 << j;
        f.wake(w);
    }
    f.stripes = Some(st);
    true
}

/// One sender's link handshakes (the body of the serial `evaluate` loop,
/// with the receiver's wake-up left to the caller).
#[inline(always)]
unsafe fn send(
    v: Views,
    k: u32,
    u: usize,
    depth: usize,
    cycle: u64,
    arrivals: &mut Vec<(u32, u32, u8)>,
) {
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
        arrivals.push((k, w as u32, j as u8));
        sent |= 1 << o;
    }
    (*v.edge.add(u)).sent = sent;
    for o in router::bits(sent) {
        (*v.sent.add(u))[o] += 1;
    }
}

/// The list whose first entry has the smallest key (a merge step); `None`
/// when all are empty.
fn first_of<T>(lists: &[&[T]], key: impl Fn(&T) -> u32) -> Option<usize> {
    let mut best: Option<(u32, usize)> = None;
    for (t, l) in lists.iter().enumerate() {
        if let Some(x) = l.first() {
            let k = key(x);
            if best.is_none_or(|(b, _)| k < b) {
                best = Some((k, t));
            }
        }
    }
    best.map(|(_, t)| t)
}

/// One router's clock edge (the body of the serial `commit` loop), its
/// results kept in the chunk's lists.
#[inline(always)]
unsafe fn step(v: Views, k: u32, r: usize, params: &RouterParams, cycle: u64, chunk: &mut Chunk) {
    let edge = std::mem::take(&mut *v.edge.add(r));
    let act = router::step_edge(
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
        chunk.activity.push((k, r as u32, act));
    }
    // Marked for the next cycle: the serial merge keeps it there.
    if act.busy != 0 || act.out_valid != 0 {
        *v.mark.add(r) = cycle + 1;
    }
}

/// Phase 2 on the threads, when it pays; `false`: the caller runs it
/// serially. Calls `on_activity` in the serial kernel's order.
pub(super) fn commit(f: &mut Fabric, on_activity: &mut dyn FnMut(u32, &Activity)) -> bool {
    let Some(mut st) = f.stripes.take() else {
        return false;
    };
    if f.active.len() < st.min_active {
        f.stripes = Some(st);
        return false;
    }
    let v = Views::of(f);
    let params: &RouterParams = &f.params;
    let cycle = f.cycle;
    let active = &f.active[..];
    st.fork(active, |k, r, chunk| {
        // SAFETY: router `r` appears once in the active set and is stepped
        // by its owner alone, so this thread alone touches its registers,
        // masks, edge, shadows, `last_move` and `mark`; configurations are
        // read-only.
        unsafe { step(v, k, r, params, cycle, chunk) };
    });
    f.router_steps += f.active.len() as u64;
    // Next cycle's active set in the serial order: the routers that stay
    // busy, in the order they stepped.
    let c = cycle + 1;
    let mark = &f.mark;
    f.next_active.clear();
    f.next_active
        .extend(f.active.iter().copied().filter(|&r| mark[r as usize] == c));
    std::mem::swap(&mut f.active, &mut f.next_active);
    f.next_active.clear();
    let mut lists: Vec<&[(u32, u32, Activity)]> = st.results().map(|c| &c.activity[..]).collect();
    while let Some(t) = first_of(&lists, |a| a.0) {
        let (_, r, act) = &lists[t][0];
        on_activity(*r, act);
        lists[t] = &lists[t][1..];
    }
    f.cycle += 1;
    f.stripes = Some(st);
    true
}
