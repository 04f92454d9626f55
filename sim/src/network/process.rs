//! Injection processes (`traffic.process`): when a node's next generated
//! message arrives.
//!
//! Both are discrete-time: at most one arrival per node per cycle.
//!
//! * **`bernoulli`** (the default): an arrival each cycle with probability
//!   `rate`, drawn as geometric gaps, the discrete-time Poisson process.
//! * **`onoff`**: a two-state Markov source, the bursty process of BookSim2's
//!   `on_off` injection (Dally and Towles, *Principles and Practices of
//!   Interconnection Networks*, 2004, §24.2). Each cycle the state moves
//!   first (on → off with probability β, off → on with α), then an on node
//!   injects with probability r₁. The scenario gives the mean burst (on
//!   period) length `burst_length` = 1/β and the duty cycle `duty_cycle` =
//!   α/(α+β), the stationary share of on cycles; r₁ = `rate`/`duty_cycle`,
//!   so the mean rate is `rate` as with `bernoulli`. The chain starts in its
//!   stationary distribution (on with probability `duty_cycle`), so no
//!   warm-up transient of its own.
//!
//! Both are sampled by jumps, not cycle by cycle: geometric run lengths of
//! the Markov chain and geometric gaps within an on period are exact by
//! memorylessness, and a node costs nothing between its arrivals.

use crate::error::{InputError, InputResult};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

named_enum! {
    /// `traffic.process`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum ProcessKind("process") {
        #[default]
        Bernoulli = "bernoulli",
        OnOff = "onoff",
    }
}

/// A geometric count ≥ 1 with success probability `p` per trial: the
/// trials up to and including the first success. The draw is the one the
/// Bernoulli generator has always made, so default runs keep their bits.
pub fn geometric(rng: &mut ChaCha8Rng, p: f64) -> u64 {
    if p >= 1.0 {
        return 1;
    }
    let x: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    (x.ln() / (1.0 - p).ln()).floor() as u64 + 1
}

/// The on/off chain's probabilities, from the scenario's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnOff {
    /// off → on per cycle.
    pub alpha: f64,
    /// on → off per cycle.
    pub beta: f64,
    /// Injection probability per on cycle.
    pub r1: f64,
    pub duty: f64,
}

impl OnOff {
    /// Checks `burst_length` and `duty_cycle` against `rate`: the on rate
    /// r₁ = rate/duty and the mean off period burst·(1−duty)/duty must be
    /// possible per-cycle values.
    pub fn new(rate: f64, burst_length: f64, duty: f64) -> InputResult<OnOff> {
        if !(burst_length.is_finite() && burst_length >= 1.0) {
            return Err(InputError::new(
                "traffic.burst_length",
                burst_length,
                "the mean on period in cycles, at least 1",
            ));
        }
        if !(duty.is_finite() && duty > 0.0 && duty <= 1.0) {
            return Err(InputError::new(
                "traffic.duty_cycle",
                duty,
                "the share of on cycles, in (0, 1]",
            ));
        }
        if rate > duty {
            return Err(InputError::new(
                "traffic.rate",
                rate,
                format!("at most traffic.duty_cycle ({duty}) with process = \"onoff\": an on node injects at rate / duty_cycle, at most 1 per cycle"),
            ));
        }
        let beta = 1.0 / burst_length;
        let off_mean = burst_length * (1.0 - duty) / duty;
        if duty < 1.0 && off_mean < 1.0 {
            return Err(InputError::new(
                "traffic.duty_cycle",
                duty,
                format!("at most burst_length / (burst_length + 1) = {:.4} with burst_length = {burst_length}: the mean off period, burst_length·(1 − duty)/duty, must be at least one cycle", burst_length / (burst_length + 1.0)),
            ));
        }
        let alpha = if duty < 1.0 { 1.0 / off_mean } else { 1.0 };
        Ok(OnOff {
            alpha,
            beta,
            r1: rate / duty,
            duty,
        })
    }
}

/// Per-node state of the injection process.
#[derive(Debug, Clone)]
pub enum Process {
    Bernoulli {
        rate: f64,
    },
    /// `on_until[u]`: the last cycle of node u's current (or last) on
    /// period, already drawn.
    OnOff {
        p: OnOff,
        on_until: Vec<u64>,
    },
}

impl Process {
    pub fn bernoulli(rate: f64) -> Process {
        Process::Bernoulli { rate }
    }

    pub fn on_off(p: OnOff, nodes: usize) -> Process {
        Process::OnOff {
            p,
            on_until: vec![0; nodes],
        }
    }

    /// Node `u`'s first arrival, searching from cycle 1; draws the chain's
    /// initial state from the stationary distribution.
    pub fn first(&mut self, u: usize, rng: &mut ChaCha8Rng) -> u64 {
        if let Process::OnOff { p, on_until } = self {
            // On at cycle 1 with the stationary probability; otherwise the
            // search starts in an off period.
            on_until[u] = if p.duty >= 1.0 || rng.gen_bool(p.duty) {
                geometric(rng, p.beta)
            } else {
                0
            };
        }
        self.next(u, 1, rng)
    }

    /// Node `u`'s next arrival at or after cycle `from`.
    pub fn next(&mut self, u: usize, from: u64, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            Process::Bernoulli { rate } => from - 1 + geometric(rng, *rate),
            Process::OnOff { p, on_until } => {
                let mut t = from;
                loop {
                    if p.duty >= 1.0 {
                        return t - 1 + geometric(rng, p.r1);
                    }
                    if t <= on_until[u] {
                        let a = t - 1 + geometric(rng, p.r1);
                        if a <= on_until[u] {
                            return a;
                        }
                        t = on_until[u] + 1;
                    }
                    // Off at t: off for D ≥ 1 cycles, then on for L ≥ 1.
                    let start = t + geometric(rng, p.alpha);
                    on_until[u] = start - 1 + geometric(rng, p.beta);
                    t = start;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Arrival cycles of one node up to `horizon`.
    fn arrivals(mut pr: Process, horizon: u64, seed: u64) -> Vec<u64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = Vec::new();
        let mut t = pr.first(0, &mut rng);
        while t < horizon {
            v.push(t);
            t = pr.next(0, t + 1, &mut rng);
        }
        v
    }

    #[test]
    fn bernoulli_rate_matches() {
        let a = arrivals(Process::bernoulli(0.05), 2_000_000, 1);
        let rate = a.len() as f64 / 2e6;
        assert!((rate - 0.05).abs() < 0.001, "{rate}");
        assert!(a.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn onoff_rate_burst_and_duty_match_their_parameters() {
        let (rate, burst, duty) = (0.1, 20.0, 0.25);
        let p = OnOff::new(rate, burst, duty).unwrap();
        assert!((p.r1 - 0.4).abs() < 1e-12 && (p.beta - 0.05).abs() < 1e-12);
        // Mean off period 20·0.75/0.25 = 60 cycles.
        assert!((p.alpha - 1.0 / 60.0).abs() < 1e-12);
        let horizon = 4_000_000;
        let a = arrivals(Process::on_off(p, 1), horizon, 2);
        let got = a.len() as f64 / horizon as f64;
        assert!((got - rate).abs() < 0.003, "mean rate {got}");
        // Bursty: gaps are over-dispersed against the geometric gap of the
        // same mean (variance (1-p)/p^2 = 90): the off periods add long gaps.
        let gaps: Vec<f64> = a.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.3, "mean gap {mean}");
        assert!(var > 3.0 * 90.0, "gap variance {var}");
        // Short gaps run at the on rate: P(gap = 1) ≈ r1·(1-β) = 0.38.
        let ones = gaps.iter().filter(|&&g| g == 1.0).count() as f64 / gaps.len() as f64;
        assert!((ones - 0.38).abs() < 0.01, "P(gap = 1) = {ones}");
    }

    #[test]
    fn onoff_with_full_duty_is_bernoulli_at_the_rate() {
        let p = OnOff::new(0.05, 10.0, 1.0).unwrap();
        let a = arrivals(Process::on_off(p, 1), 2_000_000, 3);
        assert!((a.len() as f64 / 2e6 - 0.05).abs() < 0.001);
    }

    #[test]
    fn impossible_parameters_are_refused() {
        let e = OnOff::new(0.5, 10.0, 0.25).unwrap_err();
        assert_eq!(e.field, "traffic.rate");
        let e = OnOff::new(0.1, 0.5, 0.5).unwrap_err();
        assert_eq!(e.field, "traffic.burst_length");
        let e = OnOff::new(0.1, 4.0, 0.9).unwrap_err();
        assert_eq!(e.field, "traffic.duty_cycle");
        assert!(e.to_string().contains("0.8000"), "{e}");
        for d in [0.0, -0.1, 1.5, f64::NAN] {
            assert_eq!(
                OnOff::new(0.0, 4.0, d).unwrap_err().field,
                "traffic.duty_cycle"
            );
        }
    }
}
