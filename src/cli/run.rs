//! `wormcast run`: simulate a scenario and report.

use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

#[derive(clap::Args, Default)]
pub struct RunArgs {
    /// Scenario file (TOML); without it the built-in default runs
    /// (8×8 torus, DSTM-1, 90 % unicast / 10 % multicast).
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Override a scenario value, e.g. `--set traffic.rate=0.01` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Write the full report as JSON to this file (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print nothing but errors (and the JSON if it goes to stdout).
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn load(scenario: &Option<PathBuf>, sets: &[String]) -> Result<Scenario, String> {
    let (text, origin) = match scenario {
        Some(p) => (
            std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read scenario {}: {e}", p.display()))?,
            p.display().to_string(),
        ),
        None => (String::new(), "built-in default scenario".to_string()),
    };
    Scenario::from_toml(&text, sets, &origin).map_err(|e| e.to_string())
}

pub fn run(a: RunArgs) -> Result<ExitCode, String> {
    let sc = load(&a.scenario, &a.sets)?;
    let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
    let report = net.run(&mut |_| true);
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises");
        if path.as_os_str() == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n")
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    if !a.quiet {
        print!("{}", report.summary());
    }
    let clean = !report.deadlock
        && report.lost_messages == 0
        && report.duplicate_deliveries == 0
        && report.misdelivered == 0
        && report.corrupted_flits == 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
