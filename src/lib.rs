//! The `wormcast` command line as a library: its parser and subcommands
//! ([`cli`]), shared by the `wormcast` binary and the Python package
//! (`python/`, docs/python.md), so both read the same flags, run the same
//! sweeps and report the same errors.

pub mod cli;
