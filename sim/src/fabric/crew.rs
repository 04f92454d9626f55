//! A fixed crew of threads that runs one short job per clock phase.
//!
//! Why not rayon: a threaded cycle forks twice (phase 1 and phase 2), and a
//! 128×128 fabric's phase takes tens of microseconds. A rayon scope from
//! outside its pool wakes sleeping workers through the kernel each time,
//! which cost more than the phase saved (measured: docs/performance.md,
//! "One run on several threads"). Here the calling thread takes part
//! (it runs part 0), and idle workers spin briefly on an epoch counter,
//! then yield, then sleep, so back-to-back phases hand over in well under
//! a microsecond while an idle crew costs nothing. Yielding before sleeping
//! keeps an oversubscribed run (more threads than cores) moving.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle worker spins before it yields its core.
const SPIN: Duration = Duration::from_micros(20);
/// How long the caller spins for the workers before it yields. Long on
/// purpose: a worker woken from sleep is often placed on the caller's core,
/// and two threads that hand the core to each other every few microseconds
/// look cache-hot to the scheduler, which then never moves one to the idle
/// core; the run went at a third of serial speed (measured). A caller that
/// keeps its core lets the idle core take the waiting worker.
const CALLER_SPIN: Duration = Duration::from_micros(500);
/// How long an idle worker keeps yielding before it sleeps until woken.
const YIELD: Duration = Duration::from_millis(2);

/// Waits until `ready()`: spins for `spin`, then yields; after `sleep_after`
/// (if any) returns `false` without `ready()`, for the caller to sleep.
#[inline]
fn wait(ready: impl Fn() -> bool, spin: Duration, sleep_after: Option<Duration>) -> bool {
    let t0 = Instant::now();
    let mut k = 0u32;
    loop {
        if ready() {
            return true;
        }
        k = k.wrapping_add(1);
        // The clock is read every 64 rounds: cheap, and fine-grained enough.
        if !k.is_multiple_of(64) {
            std::hint::spin_loop();
            continue;
        }
        let waited = t0.elapsed();
        if waited < spin {
            std::hint::spin_loop();
        } else if sleep_after.is_some_and(|d| waited >= d) {
            return false;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The job of the current phase: part `k` of the work for every `k`.
type Job = dyn Fn(usize) + Sync;

struct Shared {
    /// Bumped once per job; a worker runs each new value once.
    epoch: AtomicU64,
    /// Workers that finished the current job.
    done: AtomicUsize,
    /// The current job. It lives on the caller's stack for as long as
    /// [`Crew::run`] waits, which is until every worker is done with it.
    job: Mutex<Option<&'static Job>>,
    /// A worker's job panicked (the caller re-raises it).
    panicked: AtomicBool,
    stop: AtomicBool,
    /// Per worker: asleep, waiting for an unpark.
    asleep: Vec<AtomicBool>,
}

/// Cores of this process, in order (Linux: its affinity set).
#[cfg(target_os = "linux")]
fn allowed_cores() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, filled by the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Pins the calling thread to `core`; returns its affinity before, to put
/// back. Best effort: a refusal leaves the thread where it was.
#[cfg(target_os = "linux")]
fn pin(core: usize) -> Option<libc::cpu_set_t> {
    // SAFETY: plain calls on the calling thread (pid 0) with valid sets.
    unsafe {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mut old: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut old) != 0 {
            return None;
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        (libc::sched_setaffinity(0, size, &set) == 0).then_some(old)
    }
}

/// Puts back the affinity [`pin`] returned.
#[cfg(target_os = "linux")]
fn unpin(old: &libc::cpu_set_t) {
    // SAFETY: restores the calling thread's own earlier set.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), old) };
}

#[cfg(not(target_os = "linux"))]
fn allowed_cores() -> Vec<usize> {
    Vec::new()
}

/// Round trip of a cache line between the first two cores of this
/// process, in nanoseconds (median of 5 runs of 20 000 round trips), or
/// `None` with fewer than two cores. What two threads of a run are worth
/// depends on it: every threaded cycle moves router state between the
/// cores (docs/performance.md, "One run on several threads"), so `wormcast
/// bench --threads` prints it beside its figures.
#[cfg(target_os = "linux")]
pub fn core_round_trip_ns() -> Option<f64> {
    use std::sync::atomic::AtomicU64;
    #[repr(align(128))]
    struct Line(AtomicU64);
    let cores = allowed_cores();
    if cores.len() < 2 {
        return None;
    }
    const ROUNDS: u64 = 20_000;
    let mut runs = Vec::new();
    for _ in 0..5 {
        let line = Arc::new(Line(AtomicU64::new(0)));
        let other = Arc::clone(&line);
        let far = cores[1];
        let echo = std::thread::spawn(move || {
            pin(far);
            for i in 0..ROUNDS {
                while other.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                other.0.store(2 * i + 2, Ordering::Release);
            }
        });
        let before = pin(cores[0]);
        let t0 = Instant::now();
        for i in 0..ROUNDS {
            line.0.store(2 * i + 1, Ordering::Release);
            while line.0.load(Ordering::Acquire) != 2 * i + 2 {
                std::hint::spin_loop();
            }
        }
        runs.push(t0.elapsed().as_nanos() as f64 / ROUNDS as f64);
        if let Some(old) = before {
            unpin(&old);
        }
        echo.join().ok()?;
    }
    runs.sort_by(f64::total_cmp);
    Some(runs[runs.len() / 2])
}

#[cfg(not(target_os = "linux"))]
pub fn core_round_trip_ns() -> Option<f64> {
    None
}

/// Crews started so far: each takes its cores from where the last left
/// off, so that the runs of a sweep that get threads do not share cores.
static NEXT_CORE: AtomicUsize = AtomicUsize::new(0);

/// Threads of all live crews: a crew that would share cores with others
/// (parallel golden cases, sweep points) neither spins nor pins.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// `parts` − 1 worker threads plus the caller.
pub struct Crew {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// [`CALLER_SPIN`], or 0 when the live crews have more threads than the
    /// process has cores: a spinner would then hold the core the thread it
    /// waits for needs.
    caller_spin: Duration,
    /// The core the caller is pinned to while it runs a job, if any.
    caller_core: Option<usize>,
}

impl Crew {
    /// A crew that runs jobs in `parts` ≥ 2 parts.
    pub fn new(parts: usize) -> Result<Crew, String> {
        let n = parts.max(2) - 1;
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let crowded = LIVE.fetch_add(parts, Ordering::Relaxed) + parts > cores;
        // With a core for every part, each worker is pinned to its own core
        // and the caller to another for its runs (`Crew::run`): left alone,
        // the scheduler often put a woken worker on the caller's core and
        // kept it there (a run 3-5× slower than serial, measured).
        let allowed = allowed_cores();
        let mut mine = Vec::new();
        if !crowded && parts <= allowed.len() {
            let first = NEXT_CORE.fetch_add(parts, Ordering::Relaxed);
            mine = (0..parts)
                .map(|k| allowed[(first + k) % allowed.len()])
                .collect();
        }
        let (spin, caller_spin) = if crowded {
            (Duration::ZERO, Duration::ZERO)
        } else {
            (SPIN, CALLER_SPIN)
        };
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            job: Mutex::new(None),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            asleep: (0..n).map(|_| AtomicBool::new(false)).collect(),
        });
        let mut workers = Vec::with_capacity(n);
        for w in 0..n {
            let sh = Arc::clone(&shared);
            let core = mine.get(w + 1).copied();
            let h = std::thread::Builder::new()
                .name(format!("wormcast-crew-{}", w + 1))
                .spawn(move || {
                    #[cfg(target_os = "linux")]
                    if let Some(c) = core {
                        pin(c);
                    }
                    #[cfg(not(target_os = "linux"))]
                    let _ = core;
                    work(&sh, w, spin)
                })
                .map_err(|e| format!("cannot start thread {} of {parts}: {e}", w + 2))?;
            workers.push(h);
        }
        Ok(Crew {
            shared,
            workers,
            caller_spin,
            caller_core: mine.first().copied(),
        })
    }

    /// Parts a job is run in (workers + the caller).
    pub fn parts(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job(k)` for every part `k`, part 0 on the calling thread, and
    /// returns when all parts are done.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        let sh = &*self.shared;
        // SAFETY: the reference is dropped from `job` below before this
        // function returns, and no worker touches it after counting itself
        // done, so it never outlives the borrow it came from.
        let job_static: &'static Job = unsafe { std::mem::transmute(job) };
        *sh.job.lock().expect("crew job lock") = Some(job_static);
        sh.done.store(0, Ordering::Relaxed);
        // SeqCst here and in the worker's sleep: the epoch bump and the
        // flag check, against the flag raise and the epoch check, must not
        // both miss each other.
        sh.epoch.fetch_add(1, Ordering::SeqCst);
        for (w, a) in sh.asleep.iter().enumerate() {
            if a.swap(false, Ordering::SeqCst) {
                self.workers[w].thread().unpark();
            }
        }
        // The caller is pinned only while it takes part, so the thread that
        // owns the network (a Python interpreter, a sweep worker) keeps its
        // own affinity in between.
        #[cfg(target_os = "linux")]
        let before = self.caller_core.and_then(pin);
        #[cfg(not(target_os = "linux"))]
        let _ = self.caller_core;
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(0)));
        let n = self.workers.len();
        wait(
            || sh.done.load(Ordering::Acquire) >= n,
            self.caller_spin,
            None,
        );
        #[cfg(target_os = "linux")]
        if let Some(old) = before {
            unpin(&old);
        }
        *sh.job.lock().expect("crew job lock") = None;
        if let Err(p) = mine {
            std::panic::resume_unwind(p);
        }
        if sh.panicked.swap(false, Ordering::AcqRel) {
            panic!("a kernel thread panicked (its message is printed above)");
        }
    }
}

/// A worker: waits for each new epoch, runs its part, counts itself done.
fn work(sh: &Shared, w: usize, spin: Duration) {
    let mut seen = 0u64;
    loop {
        while !wait(
            || sh.epoch.load(Ordering::Acquire) != seen,
            spin,
            Some(YIELD),
        ) {
            // Sleep; the caller clears `asleep` and unparks after each new
            // epoch. Re-checking the epoch after raising the flag means a
            // job posted in between is never missed (and a stray unpark
            // only costs one more wait).
            sh.asleep[w].store(true, Ordering::SeqCst);
            if sh.epoch.load(Ordering::SeqCst) == seen {
                std::thread::park();
            }
            sh.asleep[w].store(false, Ordering::Release);
        }
        seen = sh.epoch.load(Ordering::Acquire);
        if sh.stop.load(Ordering::Acquire) {
            return;
        }
        let job = *sh.job.lock().expect("crew job lock");
        if let Some(job) = job {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(w + 1))).is_err() {
                sh.panicked.store(true, Ordering::Release);
            }
        }
        sh.done.fetch_add(1, Ordering::AcqRel);
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        LIVE.fetch_sub(self.workers.len() + 1, Ordering::Relaxed);
        let sh = &*self.shared;
        sh.stop.store(true, Ordering::Release);
        sh.epoch.fetch_add(1, Ordering::Release);
        for h in &self.workers {
            h.thread().unpark();
        }
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Crew;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn every_part_runs_once_per_job() {
        for parts in [2, 3, 4] {
            let crew = Crew::new(parts).unwrap();
            assert_eq!(crew.parts(), parts);
            let hits: Vec<AtomicU64> = (0..parts).map(|_| AtomicU64::new(0)).collect();
            for round in 0..2000u64 {
                crew.run(&|k| {
                    hits[k].fetch_add(round, Ordering::Relaxed);
                });
            }
            let want = 1999 * 2000 / 2;
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == want));
        }
    }

    #[test]
    fn workers_asleep_wake_for_the_next_job() {
        let crew = Crew::new(2).unwrap();
        let hit = AtomicU64::new(0);
        crew.run(&|_| {
            hit.fetch_add(1, Ordering::Relaxed);
        });
        // Long enough for the worker to spin, yield and park.
        std::thread::sleep(std::time::Duration::from_millis(300));
        crew.run(&|_| {
            hit.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hit.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let crew = Crew::new(2).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crew.run(&|k| assert_ne!(k, 1, "part 1 fails"));
        }));
        assert!(r.is_err());
        // The crew still works afterwards.
        let hit = AtomicU64::new(0);
        crew.run(&|_| {
            hit.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hit.load(Ordering::Relaxed), 2);
    }
}
