//! Fuzz harness for the command line (proptest, stable Rust): arbitrary
//! argv for every subcommand goes through clap's parser only (nothing is
//! simulated). Invariant: never a panic; clap answers with a parse or a
//! usage error. `WORMCAST_FUZZ_CASES` sets the case count
//! (`scripts/fuzz.sh`); docs/reliability.md has the figures.
//! `tests/cli_fuzz_runs.rs` runs what parses: subcommands with random
//! subsets of their flags, as processes.

use clap::{CommandFactory, Parser};
use proptest::prelude::*;
use wormcast::cli::Cli;

const SUBCOMMANDS: &[&str] = &[
    "run",
    "bench",
    "sweep",
    "sweep-merge",
    "trees",
    "route",
    "ftree",
    "mtree",
    "crosscheck",
    "verify",
    "verilog",
    "help",
    "",
];

/// Every long option some subcommand takes, plus a few that none does.
const FLAGS: &[&str] = &[
    "alg",
    "buffer-depth",
    "construction",
    "consumption-channels",
    "dest-list",
    "dests",
    "dest",
    "dump-scenario",
    "fault-info",
    "fault-list",
    "fault-table",
    "faults",
    "faulty-link",
    "faulty-nodes",
    "fig10",
    "fig11",
    "fit-k",
    "flit-width",
    "greedy",
    "grid",
    "injection-channels",
    "json",
    "keep",
    "ks",
    "loads",
    "mesh",
    "messages",
    "node",
    "out",
    "plot",
    "quiet",
    "r1",
    "r2",
    "repeat",
    "roots",
    "router",
    "routing",
    "runs",
    "sampler",
    "scenario",
    "scheme",
    "schemes",
    "search-limit",
    "seed",
    "set",
    "setup-cycles",
    "source",
    "spec",
    "step",
    "strategy",
    "table",
    "tarjan-table",
    "thesis",
    "threads",
    "topology",
    "tree",
    "trials",
    "vcd",
    "vcd-routers",
    "vcd-window",
    "wraps",
    "help",
    "version",
    "nonsense",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(FLAGS).prop_map(|f| format!("--{f}")),
        prop::sample::select(FLAGS).prop_map(|f| format!("--{f}=")),
        (prop::sample::select(FLAGS), "[a-z0-9,:;.=+x-]{0,10}")
            .prop_map(|(f, v)| format!("--{f}={v}")),
        "[a-z0-9,:;.=+x-]{0,12}",
        any::<i64>().prop_map(|v| v.to_string()),
        "\\PC{0,16}",
        Just("-".to_string()),
        Just("--".to_string()),
        Just("-h".to_string()),
    ]
}

fn cases() -> u32 {
    std::env::var("WORMCAST_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn argv_parsing_never_panics(
        sub in prop::sample::select(SUBCOMMANDS),
        words in prop::collection::vec(word(), 0..8),
    ) {
        let mut argv = vec!["wormcast".to_string()];
        if !sub.is_empty() {
            argv.push(sub.to_string());
        }
        argv.extend(words);
        // Errors (including --help and --version, which clap reports as
        // errors to print) are fine; a panic fails the case.
        let _ = Cli::try_parse_from(&argv);
    }
}
