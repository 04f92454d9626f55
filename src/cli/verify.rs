//! `wormcast verify`: the static deadlock check
//! (`wormcast_sim::verify`, docs/verify.md). Exit status 0 when the
//! configuration is deadlock-free, 1 on a dependency cycle (confirmed by a
//! replay or not), 2 on bad input.

use super::output::{prepare, Dest};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::scenario::{Pattern, Scenario, TrafficCfg};
use wormcast_sim::verify;

#[derive(Args, Debug, Default)]
pub struct VerifyArgs {
    /// Scenario file (TOML) whose `[network]` is checked (the same file
    /// `wormcast run` takes); without it the built-in default network.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Override a scenario value, e.g. `--set network.consumption_channels=1`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Write the verdict as JSON (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the first dependency cycle as a Graphviz digraph (`-` for stdout).
    #[arg(long)]
    pub dot: Option<PathBuf>,
    /// Write the first cycle's witness as a scripted scenario that
    /// `wormcast run --scenario FILE` replays (the confirmed timing when the
    /// replay deadlocked).
    #[arg(long, value_name = "FILE.toml")]
    pub emit_scenario: Option<PathBuf>,
    /// Cycles to report (one shortest cycle per strongly connected component).
    #[arg(long, default_value_t = 4)]
    pub cycles: usize,
    /// Start-offset patterns a witness replay tries before it is called
    /// unconfirmed (0: do not replay).
    #[arg(long, default_value_t = 64)]
    pub replay_trials: usize,
    /// Candidate cycles whose witness is built and replayed, over all
    /// components; the verdict says when the search stopped there
    /// (docs/verify.md, "Witness search").
    #[arg(long, default_value_t = verify::SEARCH_LIMIT,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub search_limit: usize,
}

/// The scenario's network and multicast scheme: the checks of its
/// generated traffic are skipped, since the analysis sends none (an
/// XY-path scheme, whose multicasts start at the origin only, is refused
/// with random sources, yet its network is what is checked). The other
/// traffic settings are reset to their defaults with no generated
/// traffic; unknown keys and bad network values are still refused.
pub fn network_only(scenario: &Option<PathBuf>, sets: &[String]) -> Result<Scenario, String> {
    let (text, origin) = match scenario {
        Some(p) => (super::run::read_scenario(p)?, p.display().to_string()),
        None => (String::new(), crate::cli::provenance::BUILT_IN.to_string()),
    };
    let mut sc = Scenario::from_toml(&text, sets, &origin).map_err(|e| e.to_string())?;
    sc.traffic = TrafficCfg {
        pattern: Pattern::None,
        multicast_scheme: sc.traffic.multicast_scheme,
        ..TrafficCfg::default()
    };
    sc.validate()
        .map_err(|e| super::run::locate_error(e, &text, &origin, sets))?;
    Ok(sc)
}

pub fn run(a: VerifyArgs) -> Result<ExitCode, String> {
    if let Some(input) = a.scenario.as_deref() {
        super::output::refuse_overwriting_inputs(
            &[
                ("--json", a.json.as_deref()),
                ("--dot", a.dot.as_deref()),
                ("--emit-scenario", a.emit_scenario.as_deref()),
            ],
            &[("--scenario", input)],
        )?;
    }
    let json = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let dot = a.dot.as_deref().map(|p| Dest::new("DOT", p));
    let emit = a.emit_scenario.as_deref().map(|p| Dest::new("scenario", p));
    // Bad input is refused first, then the outputs are checked, before
    // the analysis runs.
    if a.cycles == 0 {
        return Err(wormcast_sim::InputError::new("--cycles", 0, "at least 1").to_string());
    }
    let sc = network_only(&a.scenario, &a.sets)?;
    prepare(&[json.as_ref(), dot.as_ref(), emit.as_ref()])?;
    let pb = crate::cli::progress::bar(a.search_limit as u64, "candidate cycles", true);
    let search = verify::Search {
        cycle_limit: a.cycles,
        replay_trials: a.replay_trials,
        limit: a.search_limit,
        progress: &|| pb.inc(1),
    };
    // The model lines first: the witness search after them can take
    // minutes on a large mesh.
    // The bar is first drawn after them (indicatif draws on an update).
    let v = verify::verify_with(&sc, &search, &mut |head| {
        out!("{head}");
        pb.set_message("witness search");
    })
    .map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    out!("{}", verify::render_body(&v));
    if let Some(d) = &json {
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n";
        d.write(text.as_bytes())?;
    }
    if let Some(d) = &dot {
        d.write(verify::render_dot(&v).as_bytes())?;
    }
    if let Some(d) = &emit {
        let Some(c) = v.cycles.iter().find(|c| !c.witness.is_empty()) else {
            return Err(if v.deadlock_free() {
                "--emit-scenario: the configuration is deadlock-free, there is no witness to emit"
                    .into()
            } else {
                "--emit-scenario: no cycle found has a witness (see the report)".into()
            });
        };
        let offsets = if c.replay.confirmed {
            c.replay.offsets.clone()
        } else {
            vec![0; c.witness.len()]
        };
        let s = verify::witness::scenario(&sc, &c.witness, &offsets);
        let text = toml::to_string(&s).map_err(|e| e.to_string())?;
        let head = format!(
            "# Witness of a dependency cycle found by `wormcast verify` ({}).\n# {}\n",
            if c.replay.confirmed {
                "confirmed: this timing deadlocked"
            } else {
                "unconfirmed"
            },
            v.config
        );
        d.write((head + &text).as_bytes())?;
    }
    Ok(ExitCode::from(if v.deadlock_free() { 0 } else { 1 }))
}
