//! The command line's parser and its subcommands, one module each.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

// First: its `out!`/`outln!` macros are used by every subcommand.
#[macro_use]
pub mod output;

pub mod bench;
pub mod bench_verilator;
pub mod crosscheck;
pub mod ftree;
pub mod heatmap;
pub mod interrupt;
pub mod measure;
pub mod mtree;
pub mod plot;
pub mod progress;
pub mod provenance;
pub mod replay;
pub mod route;
pub mod run;
pub mod shard;
pub mod sweep;
pub mod sweep_out;
pub mod tarjan;
pub mod trees;
pub mod verify;
pub mod verilog;

#[derive(Parser)]
#[command(
    name = "wormcast",
    version,
    about = "Cycle-accurate multicast wormhole router model (DSTM and friends)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Simulate a scenario (default: the built-in 8×8 DSTM-1 scenario).
    Run(run::RunArgs),
    /// Measure simulator speed and memory on the benchmark scenarios.
    Bench(bench::BenchArgs),
    /// Latency-vs-load curves over loads and schemes, in parallel.
    Sweep(sweep::SweepArgs),
    /// Merge the JSON of a sharded sweep (`sweep --shard I/N`) into the
    /// JSON and plot of the unsharded sweep.
    SweepMerge(shard::MergeArgs),
    /// Build two edge-disjoint spanning trees and print their metrics.
    Trees(trees::TreesArgs),
    /// Print the header flits and path of one unicast or multicast.
    Route(route::RouteArgs),
    /// Fault-tolerant tree multicast on a faulty mesh (paper 002): traffic steps.
    Ftree(ftree::FtreeArgs),
    /// Thesis tree multicast (VH, DIAG, DDS, MIN) on 2-D/3-D meshes and tori: traffic and one-port time.
    Mtree(mtree::MtreeArgs),
    /// Cross-check the matched unicast XY mesh against BookSim2's published curve.
    Crosscheck(crosscheck::CrosscheckArgs),
    /// Prove a configuration deadlock-free, or find a dependency cycle and
    /// replay its witness (exit 0 free, 1 cycle, 2 bad input).
    Verify(verify::VerifyArgs),
    /// Write the Verilog of one router or a whole fabric: DSTM or SPAM on a torus, mesh routing on a mesh.
    Verilog(verilog::VerilogArgs),
}

/// Runs one subcommand (none: `run` on the built-in default scenario).
/// `Err` is the message of a bad input or output, printed as `error: ...`
/// with exit status 2.
pub fn dispatch(command: Option<Command>) -> Result<ExitCode, String> {
    match command {
        Some(Command::Trees(a)) => trees::run(a),
        Some(Command::Route(a)) => route::run(a),
        Some(Command::Run(a)) => run::run(a),
        Some(Command::Bench(a)) => bench::run(a),
        Some(Command::Sweep(a)) => sweep::run(a),
        Some(Command::SweepMerge(a)) => shard::run(a),
        Some(Command::Verilog(a)) => verilog::run(a),
        Some(Command::Verify(a)) => verify::run(a),
        Some(Command::Ftree(a)) => ftree::run(a),
        Some(Command::Mtree(a)) => mtree::run(a),
        Some(Command::Crosscheck(a)) => crosscheck::run(a),
        None => run::run(run::RunArgs::default()),
    }
}
