//! `wormcast`: the command line (docs/architecture.md §6).
//!
//! With no subcommand it runs the built-in default scenario, so a fresh
//! checkout does something real with `cargo run --release`.

mod cli;
#[cfg(test)]
mod fuzz_cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "wormcast",
    version,
    about = "Cycle-accurate multicast wormhole router model (DSTM and friends)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scenario (default: the built-in 8×8 DSTM-1 scenario).
    Run(cli::run::RunArgs),
    /// Measure simulator speed and memory on the benchmark scenarios.
    Bench(cli::bench::BenchArgs),
    /// Latency-vs-load curves over loads and schemes, in parallel.
    Sweep(cli::sweep::SweepArgs),
    /// Merge the JSON of a sharded sweep (`sweep --shard I/N`) into the
    /// JSON and plot of the unsharded sweep.
    SweepMerge(cli::shard::MergeArgs),
    /// Build two edge-disjoint spanning trees and print their metrics.
    Trees(cli::trees::TreesArgs),
    /// Print the header flits and path of one unicast or multicast.
    Route(cli::route::RouteArgs),
    /// Fault-tolerant tree multicast on a faulty mesh (paper 002): traffic steps.
    Ftree(cli::ftree::FtreeArgs),
    /// Thesis tree multicast (VH, DIAG, DDS, MIN) on 2-D/3-D meshes and tori: traffic and one-port time.
    Mtree(cli::mtree::MtreeArgs),
    /// Cross-check the matched unicast XY mesh against BookSim2's published curve.
    Crosscheck(cli::crosscheck::CrosscheckArgs),
    /// Prove a configuration deadlock-free, or find a dependency cycle and
    /// replay its witness (exit 0 free, 1 cycle, 2 bad input).
    Verify(cli::verify::VerifyArgs),
    /// Write the Verilog of one router or a whole fabric: DSTM or SPAM on a torus, mesh routing on a mesh.
    Verilog(cli::verilog::VerilogArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Trees(a)) => cli::trees::run(a),
        Some(Command::Route(a)) => cli::route::run(a),
        Some(Command::Run(a)) => cli::run::run(a),
        Some(Command::Bench(a)) => cli::bench::run(a),
        Some(Command::Sweep(a)) => cli::sweep::run(a),
        Some(Command::SweepMerge(a)) => cli::shard::run(a),
        Some(Command::Verilog(a)) => cli::verilog::run(a),
        Some(Command::Verify(a)) => cli::verify::run(a),
        Some(Command::Ftree(a)) => cli::ftree::run(a),
        Some(Command::Mtree(a)) => cli::mtree::run(a),
        Some(Command::Crosscheck(a)) => cli::crosscheck::run(a),
        None => cli::run::run(cli::run::RunArgs::default()),
    };
    cli::output::finish();
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
