//! Peer cross-check in CI (`sim/src/crosscheck.rs`): the matched
//! 16×16 XY mesh must follow BookSim2's published latency curve at loads
//! 0.01–0.09 flits/node/cycle and its saturation throughput, within the
//! tolerances stored next to the reference (fixed from the two routers'
//! pipelines before wormcast's figures were looked at).

use wormcast_sim::crosscheck::{compare, Comparison, Reference};

#[test]
fn matched_mesh_agrees_with_booksim2() {
    let r = Reference::builtin();
    let loads: Vec<f64> = r
        .curve
        .load
        .iter()
        .copied()
        .filter(|&l| l <= 0.09 + 1e-9)
        .collect();
    assert_eq!(loads.len(), 9);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let c = compare(&r, &loads, 1, &[], threads).unwrap();
    let bad = check(&r, &c, 1000);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(c.all_within());
}

/// Prints every point and the saturation figure of `c`, checks each point
/// has more than `min_samples` latency samples, and returns what left its
/// tolerance (or, at a recorded deviation, stopped deviating).
fn check(r: &Reference, c: &Comparison, min_samples: u64) -> Vec<String> {
    let name = &r.name;
    let mut bad = Vec::new();
    for p in &c.points {
        eprintln!(
            "{name} load {}: BookSim {:6.1}  wormcast {:6.1}  ratio {:.3} ({}, {} samples)",
            p.load,
            p.booksim_latency,
            p.wormcast_latency,
            p.ratio,
            match (p.known_deviation, p.tolerance) {
                (true, _) => "known deviation".to_string(),
                (false, t) => format!("±{:.0} %", t.unwrap_or(f64::NAN) * 100.0),
            },
            p.samples
        );
        assert!(
            p.samples > min_samples,
            "{name} load {}: only {} latency samples",
            p.load,
            p.samples
        );
        if !p.within {
            bad.push(format!(
                "{name} load {}: latency ratio {:.3} {}",
                p.load,
                p.ratio,
                if p.known_deviation {
                    "no longer deviates: update the reference's [deviation]"
                } else {
                    "outside its tolerance"
                }
            ));
        }
    }
    eprintln!(
        "{name} saturation: BookSim {:.4}  wormcast {:.4}  ratio {:.3}",
        c.booksim_saturation, c.wormcast_saturation, c.saturation_ratio
    );
    if !c.saturation_within {
        bad.push(format!(
            "{name} saturation throughput ratio {:.3}",
            c.saturation_ratio
        ));
    }
    bad
}

/// A load that is not in the reference is an error naming it.
#[test]
fn loads_outside_the_reference_are_rejected() {
    let e = compare(&Reference::builtin(), &[0.015], 1, &[], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("0.015") && e.contains("loads"), "{e}");
}

/// The check can fail: the same mesh with 1-flit buffers (a 2-cycle
/// registered-ready round trip per data hop, docs/router.md) is not the
/// network BookSim modelled, and its latency and saturation leave the
/// tolerances.
#[test]
fn a_mismatched_network_fails_the_check() {
    let r = Reference::builtin();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let c = compare(
        &r,
        &[0.01, 0.05],
        1,
        &["network.buffer_depth=1".to_string()],
        threads,
    )
    .unwrap();
    assert!(!c.all_within(), "{c:?}");
    assert!(
        !c.saturation_within,
        "saturation ratio {}",
        c.saturation_ratio
    );
    assert!(c.points.iter().any(|p| !p.within), "{:?}", c.points);
}

/// The unicast patterns and the on/off source against their own BookSim2
/// curves (`sim/reference/booksim2-mesh-16x16-*.toml`), at every load the
/// reference compares, and their saturation throughput; tolerances were
/// written into each reference before any wormcast figure of it existed.
#[test]
fn patterns_and_bursts_agree_with_booksim2() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut bad = Vec::new();
    for (name, _) in wormcast_sim::crosscheck::REFERENCES.iter().skip(1) {
        let r = Reference::named(name).unwrap();
        assert!(!r.wormcast.sets.is_empty(), "{name}: no wormcast keys");
        let loads: Vec<f64> = r
            .curve
            .load
            .iter()
            .copied()
            .filter(|&l| r.latency_tolerance(l).is_some() || r.deviates_at(l))
            .collect();
        assert!(loads.len() >= 3, "{name}: {} compared loads", loads.len());
        let c = compare(&r, &loads, 1, &[], threads).unwrap();
        bad.extend(check(&r, &c, 100));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
