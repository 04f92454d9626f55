//! Rates and loads as people write them. Loads built by arithmetic carry
//! binary noise (`0.0002 + 4 × 0.0001 = 0.0006000000000000001`), and a
//! fixed number of decimals hides small rates (`5e-6` as `0.00000`). One
//! rule for every printed rate, and one for cleaning computed loads.

/// A computed value rounded to 12 significant digits: the noise of a few
/// additions goes, every value a person types survives.
pub fn denoise(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// A rate as configured, in plain decimal with at most 6 significant
/// digits and no exponent: `0.0006`, `0.000005`, `1`.
pub fn fmt_rate(x: f64) -> String {
    fmt_sig(x, 6)
}

/// `x` in plain decimal with at most `digits` significant digits (1..=17)
/// and no exponent; trailing zeros dropped. A measured rate prints with 4:
/// `0.0000049`, where `{:.5}` printed `0.00000`.
pub fn fmt_sig(x: f64, digits: usize) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let r: f64 = format!("{x:.*e}", digits.clamp(1, 17) - 1)
        .parse()
        .unwrap_or(x);
    format!("{r}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_goes_and_small_rates_stay_visible() {
        let noisy = 0.0002 + 4.0 * 0.0001;
        assert_ne!(noisy, 0.0006);
        assert_eq!(denoise(noisy), 0.0006);
        assert_eq!(fmt_rate(0.0006000000000000001), "0.0006");
        assert_eq!(fmt_rate(5e-6), "0.000005");
        assert_eq!(fmt_rate(0.0034012345), "0.00340123");
        assert_eq!(fmt_rate(1.0), "1");
        assert_eq!(fmt_rate(0.0), "0");
        assert_eq!(denoise(0.1), 0.1);
        assert_eq!(fmt_sig(0.0000049123, 4), "0.000004912");
        assert_eq!(fmt_sig(0.99999, 4), "1");
    }
}
