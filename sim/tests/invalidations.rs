//! Directory-coherence invalidation traffic (`traffic.multicast =
//! "invalidation"`, `network::coherence`): every transaction is a miss to
//! its home, the home's invalidation multicast to its sharers and one ack
//! per sharer back to the requester; its latency runs from the miss to the
//! last ack. Checked here against hand-computed timing on a free network,
//! against the sharers histogram, across schemes, per seed, and for bad
//! keys.

use wormcast_sim::network::collective_run::bound_params;
use wormcast_sim::scenario::Scenario;

mod common;
use common::run_with as run;
use common::scenario_with as scenario;

fn refused(sets: &[&str]) -> wormcast_sim::error::InputError {
    match scenario(sets).validate() {
        Err(e) => e,
        Ok(_) => panic!("{sets:?} was accepted"),
    }
}

fn inval<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [
        "traffic.multicast=\"invalidation\"",
        "traffic.multicast_fraction=1",
        "run.warmup=0",
        "run.cycles=4000",
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .collect()
}

/// On an XY mesh (minimal paths, one HEAD per unicast) a transaction with
/// one sharer alone in the network takes exactly three contention-free
/// unicasts: miss, invalidation, ack, each `S + 3h + 4 + L` cycles
/// (docs/architecture.md §3, `BoundParams::unicast_time`). A delivery is
/// stamped at the end of the cycle its TAIL is consumed and the answer is
/// created in that cycle, so each of the two answers starts one cycle
/// before its trigger's stamp.
#[test]
fn an_isolated_one_sharer_transaction_takes_three_unicast_times() {
    let (net, r) = run(&inval(&[
        "network.topology=\"mesh:6x6\"",
        "network.routing=\"dor\"",
        "traffic.sharers=[[1, 1]]",
        "traffic.rate=0.0002",
        "run.cycles=20000",
    ]));
    assert!(r.scoreboard_clean() && !r.deadlock);
    let p = bound_params(&net.v, &net.scenario);
    let c = net.coherence.as_ref().unwrap();
    let t = net.v.topo;
    let spans: Vec<(u64, u64)> = c
        .transactions
        .iter()
        .map(|x| (x.created, x.done.unwrap()))
        .collect();
    let mut isolated = 0;
    for (i, x) in c.transactions.iter().enumerate() {
        assert_eq!(x.sharers.len(), 1);
        let s = x.sharers[0];
        let want = p.unicast_time(t.distance(x.requester, x.home) as u64)
            + p.unicast_time(t.distance(x.home, s) as u64)
            + p.unicast_time(t.distance(s, x.requester) as u64)
            - 2;
        let got = spans[i].1 - spans[i].0;
        assert!(got >= want, "transaction {i}: {got} < {want}");
        let alone = spans
            .iter()
            .enumerate()
            .all(|(j, &(a, b))| j == i || b < spans[i].0 || a > spans[i].1);
        if alone {
            assert_eq!(got, want, "transaction {i} alone: {x:?}");
            isolated += 1;
        }
    }
    assert!(isolated >= 5, "only {isolated} isolated transactions");
    // Three messages per transaction, all delivered.
    assert_eq!(net.msgs.len(), 3 * c.transactions.len());
    let s = r.coherence.unwrap();
    assert_eq!(s.transactions as usize, c.transactions.len());
    assert_eq!(s.sharers_mean, 1.0);
}

/// Every transaction's messages exist with the right ends: the miss to
/// the home, the invalidation from the home to exactly the sharers, one
/// ack from each sharer to the requester; nothing else is generated.
#[test]
fn each_transaction_sends_miss_invalidation_and_acks() {
    let (net, r) = run(&inval(&[
        "traffic.sharers=[[2, 0.5], [8, 0.3], [20, 0.2]]",
        "traffic.rate=0.0005",
    ]));
    assert!(r.scoreboard_clean() && !r.deadlock && r.lost_messages == 0);
    let c = net.coherence.as_ref().unwrap();
    assert!(c.transactions.len() > 50);
    let mut want = 0;
    for x in &c.transactions {
        let done = x.done.expect("drained: every transaction done");
        assert!(x.home != x.requester && !x.sharers.contains(&x.home));
        assert!(!x.sharers.contains(&x.requester));
        let miss = net
            .msgs
            .iter()
            .find(|m| m.source == x.requester && m.dests == [x.home] && m.created == x.created)
            .expect("the miss");
        let inv = net
            .msgs
            .iter()
            .find(|m| {
                m.source == x.home
                    && m.dests == x.sharers
                    && m.created + 1 == miss.finished().unwrap()
            })
            .expect("the invalidation");
        for (i, &s) in x.sharers.iter().enumerate() {
            let ack = net
                .msgs
                .iter()
                .find(|m| {
                    m.source == s && m.dests == [x.requester] && m.created + 1 == inv.delivered[i]
                })
                .expect("the sharer's ack, sent when its invalidation arrived");
            assert!(ack.finished().unwrap() <= done);
        }
        want += 2 + x.sharers.len();
    }
    assert_eq!(net.msgs.len(), want);
}

/// The sharer counts follow the histogram, and more sharers cost more
/// latency at the same miss rate.
#[test]
fn statistics_follow_the_histogram() {
    let (_, r) = run(&inval(&[
        "traffic.sharers=[[2, 3], [12, 1]]",
        "traffic.rate=0.001",
        "run.cycles=8000",
    ]));
    let s = r.coherence.unwrap();
    assert_eq!(s.sharers_expected, 4.5);
    // Mean of n draws of {2 w.p. 3/4, 12 w.p. 1/4}: sd 4.33 / sqrt(n).
    let sd = 4.33 / (s.transactions as f64).sqrt();
    assert!(
        (s.sharers_mean - 4.5).abs() < 5.0 * sd,
        "{} over {} transactions",
        s.sharers_mean,
        s.transactions
    );
    let lat = |k: &str| {
        let sh = format!("traffic.sharers=[[{k}, 1]]");
        let (_, r) = run(&inval(&[&sh, "traffic.rate=0.0005"]));
        r.coherence.unwrap().latency
    };
    let (l2, l40) = (lat("2"), lat("40"));
    assert!(l40.mean > l2.mean + 20.0, "{l2:?} vs {l40:?}");
    assert!(l2.p50 <= l2.p99 && l2.p99 <= l2.max);
}

/// Every scheme carries the transactions to completion, scoreboard clean.
#[test]
fn invalidations_run_on_every_scheme_family() {
    let sets: [&[&str]; 5] = [
        &[],
        &["network.construction=\"dstm2\""],
        &["network.routing=\"spam\"", "network.construction=\"bfs\""],
        &[
            "network.topology=\"mesh:8x8\"",
            "network.routing=\"hamiltonian\"",
        ],
        &[
            "network.topology=\"mesh:8x8\"",
            "network.routing=\"negative_first\"",
            "traffic.multicast_scheme=\"brcp-minimal\"",
        ],
    ];
    for extra in sets {
        let mut all = inval(&["traffic.sharers=[[4, 1], [16, 1]]", "traffic.rate=0.0005"]);
        all.extend_from_slice(extra);
        let (net, r) = run(&all);
        assert!(r.scoreboard_clean() && !r.deadlock, "{extra:?}");
        let s = r.coherence.unwrap();
        assert!(s.transactions > 20 && s.unfinished == 0, "{extra:?}: {s:?}");
        assert!(net
            .coherence
            .unwrap()
            .transactions
            .iter()
            .all(|t| t.done.is_some()));
    }
}

#[test]
fn same_seed_same_transactions() {
    let key = |seed: &str| {
        let s = format!("traffic.seed={seed}");
        let (net, r) = run(&inval(&[
            "traffic.sharers=[[3, 1], [9, 1]]",
            "traffic.rate=0.001",
            &s,
        ]));
        let c = net.coherence.unwrap();
        let t: Vec<_> = c
            .transactions
            .iter()
            .map(|x| (x.requester, x.home, x.sharers.clone(), x.created, x.done))
            .collect();
        (t, r.coherence.unwrap().latency)
    };
    assert_eq!(key("7"), key("7"));
    assert_ne!(key("7").0, key("8").0);
}

#[test]
fn bad_invalidation_keys_are_refused_by_name() {
    let e = refused(&inval(&[]));
    assert_eq!(e.field, "traffic.sharers");
    assert!(e.allowed.contains("at least one [k, weight]"), "{e}");
    let e = refused(&inval(&["traffic.sharers=[[63, 1]]"]));
    assert_eq!(e.field, "traffic.sharers[0]");
    assert!(e.allowed.contains("1 to 62"), "{e}");
    let e = refused(&inval(&["traffic.sharers=[[2, -1]]"]));
    assert!(e.allowed.contains("≥ 0"), "{e}");
    let e = refused(&["traffic.sharers=[[2, 1]]"]);
    assert_eq!(e.field, "traffic.sharers");
    assert!(
        e.allowed.contains("unless multicast = \"invalidation\""),
        "{e}"
    );
    let e = refused(&inval(&["traffic.sharers=[[2, 1]]", "traffic.window=2"]));
    assert_eq!(e.field, "traffic.window");
    let e = refused(&inval(&[
        "traffic.sharers=[[2, 1]]",
        "traffic.destinations=3",
    ]));
    assert_eq!(e.field, "traffic.destinations");
    let e = refused(&inval(&[
        "traffic.sharers=[[2, 1]]",
        "traffic.pattern=\"none\"",
    ]));
    assert_eq!(e.field, "traffic.multicast");
    let e = refused(&inval(&[
        "traffic.sharers=[[2, 1]]",
        "network.topology=\"mesh:6x6\"",
        "network.routing=\"dor\"",
        "network.faulty_nodes=[\"2,2\"]",
        "traffic.multicast_scheme=\"ft-s1\"",
    ]));
    assert_eq!(e.field, "traffic.multicast");
    // A wrong shape fails at the parse, naming the key.
    let sets = vec!["traffic.sharers=[2, 1]".to_string()];
    let e = Scenario::from_toml("", &sets, "t").unwrap_err();
    assert!(e.field.starts_with("traffic.sharers"), "{e}");
}
