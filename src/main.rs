//! `wormcast`: the command line (docs/architecture.md §6).
//!
//! With no subcommand it runs the built-in default scenario, so a fresh
//! checkout does something real with `cargo run --release`.

#[cfg(test)]
mod fuzz_cli;

use clap::Parser;
use std::process::ExitCode;
use wormcast::cli::{self, Cli};

fn main() -> ExitCode {
    let result = cli::dispatch(Cli::parse().command);
    cli::output::finish();
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
