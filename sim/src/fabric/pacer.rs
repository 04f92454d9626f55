//! Whether a threaded run's cycles use their threads: a run times itself.
//!
//! Why: on the same two cores, two threads stepped the saturated 128×128
//! DSTM-1 torus at 1.4× serial speed while a cache line crossed between the
//! cores in a 65 ns round trip, and at 0.6× once the host had moved the two
//! virtual CPUs apart (a 320–350 ns round trip) a few minutes later
//! (docs/performance.md, "One run on several threads"). Every
//! threaded cycle moves router state between the cores, so what threads are
//! worth depends on where the machine puts them, and can change during a
//! run. The pacer therefore measures both: in every epoch of [`EPOCH`]
//! eligible cycles it runs [`PROBE`] of them serially and [`PROBE`] on the
//! threads, and spends the rest of the epoch in whichever cost less wall
//! time per router step. Results never depend on the choice (both kernels
//! give the same bits); only the speed does.
//!
//! A cycle is eligible when at least one of its phases is large enough to
//! thread (`Stripes::min_active`); smaller cycles run serially either way
//! and are not timed. A cycle's time runs from the start of its phase 1 to
//! the start of the next cycle's, so it includes the serial NI work between
//! the phases, which is the same in both modes on average.

/// Eligible cycles per epoch: the choice is re-made this often, so a run
/// follows the host within about a second of a large fabric.
pub const EPOCH: u32 = 1024;
/// Cycles of each mode timed at the start of an epoch (serial first).
pub const PROBE: u32 = 32;
/// Cycles at the start of each probe that are not counted: the first
/// threaded cycles wake workers asleep since the last probe and pull their
/// routers' state to their core, the first serial ones pull it back.
const WARM: u32 = 4;
/// Threaded cycles after the probes are timed in windows of this many; two
/// windows in a row slower than the serial probe start a new epoch, whose
/// probes decide again (the host moved the cores apart, another program
/// took one, or the load changed since the serial probe). Two, since a
/// single window sometimes runs 20 % slower than its neighbours for no
/// lasting reason (measured on the 2-core VM).
pub const WINDOW: usize = 32;

/// The self-timing state of one threaded run.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// Eligible cycles seen in the current epoch.
    k: u32,
    /// Nanoseconds per router step of each counted probe cycle (serial,
    /// threaded): medians, so one cycle hit by an interrupt or a page
    /// fault does not decide.
    probe: [Vec<f64>; 2],
    /// The serial probe's median, the yardstick of the threaded windows.
    serial: f64,
    /// The current threaded window, and whether the last one was slower
    /// than the serial probe.
    window: Vec<f64>,
    slow: bool,
    /// The mode for the rest of the epoch: the threads (true) or not.
    choice: bool,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            k: 0,
            probe: [
                Vec::with_capacity(PROBE as usize),
                Vec::with_capacity(PROBE as usize),
            ],
            serial: f64::INFINITY,
            window: Vec::with_capacity(WINDOW),
            slow: false,
            choice: true,
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl Pacer {
    /// Whether the next eligible cycle runs on the threads.
    pub fn use_threads(&self) -> bool {
        match self.k {
            k if k < PROBE => false,
            k if k < 2 * PROBE => true,
            _ => self.choice,
        }
    }

    /// An eligible cycle ran, in mode `threads`, taking `ns` nanoseconds
    /// for `steps` router steps.
    pub fn record(&mut self, threads: bool, ns: u64, steps: u64) {
        let per = ns as f64 / steps.max(1) as f64;
        let planned = self.use_threads();
        if self.k < 2 * PROBE {
            if self.k % PROBE >= WARM && threads == planned {
                self.probe[threads as usize].push(per);
            }
        } else if threads && planned {
            self.window.push(per);
            if self.window.len() == WINDOW {
                let slow = median(&mut self.window) > self.serial;
                self.window.clear();
                if slow && self.slow {
                    // Probe again at once rather than trust a serial probe
                    // taken before the network's load changed.
                    self.restart();
                    return;
                }
                self.slow = slow;
            }
        }
        self.k += 1;
        if self.k == 2 * PROBE {
            // Threads win when their time per router step is lower; a
            // probe with nothing counted keeps the previous choice.
            let [s, p] = &mut self.probe;
            if !s.is_empty() && !p.is_empty() {
                self.serial = median(s);
                self.choice = median(p) < self.serial;
            }
            s.clear();
            p.clear();
        }
        if self.k == EPOCH {
            self.restart();
        }
    }

    /// A new epoch: the probes come next.
    fn restart(&mut self) {
        self.k = 0;
        self.window.clear();
        self.slow = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives a pacer through `epochs` epochs where a router step costs
    /// `serial` ns serially and `par` ns on the threads; returns the share
    /// of eligible cycles that ran on the threads.
    fn share(serial: u64, par: u64, epochs: u32) -> f64 {
        let mut p = Pacer::default();
        let mut threaded = 0;
        for _ in 0..epochs * EPOCH {
            let t = p.use_threads();
            threaded += t as u32;
            let steps = 2000;
            p.record(t, steps * if t { par } else { serial }, steps);
        }
        threaded as f64 / (epochs * EPOCH) as f64
    }

    #[test]
    fn faster_threads_run_all_but_the_serial_probe() {
        let s = share(50, 30, 3);
        let want = 1.0 - PROBE as f64 / EPOCH as f64;
        assert!((s - want).abs() < 1e-9, "{s} vs {want}");
    }

    #[test]
    fn slower_threads_run_only_their_probe() {
        let s = share(50, 80, 3);
        let want = PROBE as f64 / EPOCH as f64;
        assert!((s - want).abs() < 1e-9, "{s} vs {want}");
    }

    #[test]
    fn the_choice_follows_a_change_at_the_next_epoch() {
        let mut p = Pacer::default();
        let run = |p: &mut Pacer, serial: u64, par: u64| {
            for _ in 0..EPOCH {
                let t = p.use_threads();
                p.record(t, if t { par } else { serial }, 1);
            }
            p.choice
        };
        assert!(run(&mut p, 50, 30));
        assert!(!run(&mut p, 50, 90), "the host moved the cores apart");
        assert!(run(&mut p, 50, 30), "and back");
    }

    #[test]
    fn warm_up_cycles_are_not_counted() {
        // The first cycles of the threaded probe cost a wake-up each; the
        // rest are fast. Counting the wake-ups would choose serial.
        let mut p = Pacer::default();
        for _ in 0..2 * PROBE {
            let t = p.use_threads();
            let at = p.k % PROBE;
            let ns = match (t, at < WARM) {
                (true, true) => 1_000_000,
                (true, false) => 30,
                (false, _) => 50,
            };
            p.record(t, ns, 1);
        }
        assert!(p.use_threads());
    }

    #[test]
    fn threads_that_turn_slow_are_probed_again_and_dropped() {
        let mut p = Pacer::default();
        for _ in 0..2 * PROBE {
            let t = p.use_threads();
            p.record(t, if t { 30 } else { 50 }, 1);
        }
        assert!(p.use_threads(), "threads chosen after the probes");
        // Mid-epoch another program takes the second core: two windows,
        // a new pair of probes, then serial.
        let mut threaded_after = 0;
        for _ in 2 * PROBE..EPOCH {
            let t = p.use_threads();
            threaded_after += t as u32;
            p.record(t, if t { 90 } else { 50 }, 1);
        }
        assert_eq!(threaded_after, 2 * WINDOW as u32 + PROBE);
        assert!(!p.use_threads());
    }

    #[test]
    fn one_slow_window_keeps_the_threads() {
        let mut p = Pacer::default();
        let mut threaded_after = 0;
        for k in 0..EPOCH {
            let t = p.use_threads();
            let window = (k as i64 - 2 * PROBE as i64).div_euclid(WINDOW as i64);
            let ns = match (t, window == 3) {
                (true, true) => 90,
                (true, false) => 30,
                (false, _) => 50,
            };
            threaded_after += (t && k >= 2 * PROBE) as u32;
            p.record(t, ns, 1);
        }
        assert_eq!(threaded_after, EPOCH - 2 * PROBE);
    }

    #[test]
    fn one_outlier_in_a_probe_does_not_decide() {
        let mut p = Pacer::default();
        for i in 0..2 * PROBE {
            let t = p.use_threads();
            // One threaded cycle hit by a long interrupt.
            let ns = if t && i == PROBE + 10 {
                10_000_000
            } else if t {
                30
            } else {
                50
            };
            p.record(t, ns, 1);
        }
        assert!(p.use_threads());
    }
}
