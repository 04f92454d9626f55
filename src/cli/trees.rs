//! Placeholder replaced by the trees work (issue 2).
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct TreesArgs {}

pub fn run(_a: TreesArgs) -> Result<ExitCode, String> {
    Err("not yet implemented".into())
}
