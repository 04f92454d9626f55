//! What produced a result file: the `provenance` object of `run --json`
//! and `sweep --json` (and of `sweep-merge`, from its first shard). A JSON
//! found later says which build, which scenario and overrides, and which
//! load, length and multicast mix it measured, without the command line
//! that wrote it. Added beside the existing keys, none renamed.

use serde::{Deserialize, Serialize};
use wormcast_sim::scenario::Scenario;

/// The origin of a scenario loaded without a file.
pub const BUILT_IN: &str = "built-in default scenario";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// `CARGO_PKG_VERSION` of the `wormcast` that wrote the file.
    pub wormcast_version: String,
    /// The subcommand: `run` or `sweep`.
    pub command: String,
    /// The scenario file as given, or [`BUILT_IN`].
    pub scenario: String,
    /// The `--set` overrides in order, as typed.
    pub overrides: Vec<String>,
    pub topology: String,
    /// `run`: `traffic.rate` (messages per node per cycle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// `sweep`: the loads of the grid, as run, and the schemes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loads: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schemes: Option<Vec<String>>,
    pub pattern: String,
    /// Data flits per message: `length`, or `length`..`length_max`.
    pub length: String,
    pub multicast_fraction: f64,
    /// Destinations of a generated multicast, as the scenario gives them.
    pub destinations: String,
}

impl Provenance {
    /// The provenance of `sc`, loaded from `scenario` (a path, or `None`
    /// for the built-in default) with `sets`.
    pub fn new(
        command: &str,
        scenario: Option<&std::path::Path>,
        sets: &[String],
        sc: &Scenario,
    ) -> Provenance {
        let t = &sc.traffic;
        Provenance {
            wormcast_version: env!("CARGO_PKG_VERSION").to_string(),
            command: command.to_string(),
            scenario: scenario.map_or(BUILT_IN.to_string(), |p| p.display().to_string()),
            overrides: sets.to_vec(),
            topology: sc.network.topology.to_string(),
            load: (command == "run").then_some(wormcast_sim::decimal::denoise(t.rate)),
            loads: None,
            schemes: None,
            pattern: t.pattern.name().to_string(),
            length: if t.length_max > t.length {
                format!("{}..{}", t.length, t.length_max)
            } else {
                t.length.to_string()
            },
            multicast_fraction: t.multicast_fraction,
            destinations: toml_word(&t.destinations),
        }
    }
}

/// A scenario value as the scenario file writes it (`"poisson"` without
/// its quotes, `[4, 12]`).
fn toml_word<T: Serialize>(v: &T) -> String {
    let s = toml::Value::try_from(v).map_or_else(|_| String::new(), |v| v.to_string());
    s.trim_matches('"').to_string()
}
