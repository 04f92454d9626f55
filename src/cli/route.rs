//! Placeholder replaced by the trees work (issue 2).
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct RouteArgs {}

pub fn run(_a: RouteArgs) -> Result<ExitCode, String> {
    Err("not yet implemented".into())
}
