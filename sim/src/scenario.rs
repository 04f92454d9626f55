//! Scenario files (TOML) and their validation: the single definition of every
//! run parameter, its default and its allowed range.
//!
//! Unknown keys are rejected by serde (`deny_unknown_fields`) with the key's
//! name. Values that name something (the topology, the routing function,
//! the fault information, faulty links, the traffic pattern, the multicast
//! scheme, a raw worm's port) deserialise straight into their types through
//! `FromStr` (`crate::error::text`), so a bad one is reported at the parse
//! with its key path. Each section checks its own ranges, and
//! [`Scenario::validate`] keeps the checks that span fields; every error
//! names the field, the value and what is allowed. `--set
//! section.key=value` overrides are applied to the parsed TOML tree before
//! deserialisation, so they go through exactly the same checks as the file.

use crate::config::{Hop, RouterParams, RoutingKind};
use crate::error::{InputError, InputResult};
use crate::flit::FlitFormat;
use crate::ftmesh::FaultyMesh;
use crate::network::collective::{CollectiveKind, DEFAULT_ROOT};
use crate::network::multicast::{MulticastDests, MulticastModel, Region};
use crate::network::patterns::{UnicastDests, UnicastPattern};
use crate::network::process::{OnOff, ProcessKind};
use crate::topology::{EdgeId, LinkName, NodeId, Topology};
use crate::trees::faults::FaultInfo;
use crate::trees::PairSpec;
use crate::treeworm::scheme::{MeshScheme, SchemeName};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    pub network: NetworkCfg,
    pub timing: TimingCfg,
    pub traffic: TrafficCfg,
    pub run: RunCfg,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkCfg {
    /// `torus:KxM` (DSTM needs a torus) or `mesh:KxM` (with a mesh routing).
    #[serde(with = "crate::error::text")]
    pub topology: Topology,
    /// `dstm1`, `dstm2`, a method such as `+x-y/-y+x` (\[DSTM\] §4–5), or
    /// a Roskind–Tarjan pair `tarjan-best`, `tarjan-average`, `tarjan-path`.
    pub construction: String,
    /// Starting node R1 as `X,Y` (with SPAM: the root of the BFS tree).
    pub r1: String,
    /// `tree` (DSTM up/down on the trees of `construction`) or `spam` (the
    /// SPAM baseline: one tree plus cross links; `construction = "bfs"` is
    /// a BFS tree rooted at R1, any other construction uses its tree 0);
    /// on a mesh `hamiltonian`, `dor` or `negative_first` (path-based
    /// worms, see `traffic.multicast_scheme`).
    #[serde(with = "crate::error::text")]
    pub routing: RoutingKind,
    /// Header setup delay in cycles per first HEAD per router (0 = none).
    pub header_setup_cycles: u32,
    /// Deferred strip (`RouterParams::strip_deferred`): a stripped first
    /// HEAD leaves its FIFO one cycle after its grant.
    pub strip_deferred: bool,
    /// The per-hop timing contract (`RouterParams::hop`): `standard`
    /// (3 cycles a first HEAD, 2 any other flit) or `fast` (2 and 1).
    #[serde(with = "crate::error::text")]
    pub hop: Hop,
    /// Input buffer depth in flits.
    pub buffer_depth: usize,
    pub flit_width: u32,
    pub injection_channels: usize,
    pub consumption_channels: usize,
    /// Faulty links as `X,Y,DIR` with DIR one of +x, -x, +y, -y. Tree
    /// routing on a torus: at most one link (\[DSTM\] §7 tolerates a single
    /// link fault). Mesh routing: any number; each makes its end node with
    /// the larger id faulty (\[FTTREE\] models node faults; docs/scenario.md).
    #[serde(with = "crate::error::text::list")]
    pub faulty_links: Vec<LinkName>,
    /// Mesh routing only: faulty nodes as `X,Y`. With the nodes \[FTTREE\]'s
    /// disable rule switches off they are cut out of the fabric and of the
    /// traffic; multicasts need a fault-tolerant scheme (`ft-s1`..`ft-s3`,
    /// `ft-unicast`).
    pub faulty_nodes: Vec<String>,
    /// Who knows about a faulty link (\[DSTM\] §7): `global` (sources avoid
    /// it: unicasts take the tree whose path avoids it, multicasts the good
    /// tree) or `local` (sources route as if fault-free; the router before
    /// the fault diverts the branch to its node, which re-injects it on the
    /// good tree).
    #[serde(with = "crate::error::text")]
    pub fault_info: FaultInfo,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingCfg {
    /// Cycles the NI spends before the first flit of each message.
    pub startup_cycles: u64,
    /// One start-up engine per node: start-ups of successive messages or
    /// worms run one after another (each worm of a path-based multicast is
    /// a send, \[BRCP\] §4), while the injection channels stream in
    /// parallel. False: every injection channel pays its own start-up.
    pub startup_serial: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a count such as 8, or [min, max] such as [4, 12]"
)]
pub enum DestCount {
    Fixed(u32),
    Range([u32; 2]),
}

/// As written in a scenario file (`8` or `[4, 12]`): error messages quote
/// what the user wrote, not Rust's debug text.
impl std::fmt::Display for DestCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DestCount::Fixed(d) => write!(f, "{d}"),
            DestCount::Range([a, b]) => write!(f, "[{a}, {b}]"),
        }
    }
}

/// The default `traffic.destinations`; on networks with fewer than 13 nodes
/// it is clamped to N − 1 (docs/scenario.md), so small tori run on the
/// defaults.
pub const DEFAULT_DESTINATIONS: DestCount = DestCount::Range([4, 12]);

/// Upper bound of every cycle count of `[run]` and `[timing]`: 1e9 cycles is
/// hours of simulation at today's speed, and sums of three such counts stay
/// far below `u64::MAX`.
pub const MAX_CYCLES: u64 = 1_000_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedMessage {
    pub cycle: u64,
    /// `X,Y`.
    pub source: String,
    /// List of `X,Y`.
    pub destinations: Vec<String>,
    /// Data flits (identity BODY ... TAIL), at least 2.
    pub length: u32,
    /// Force a tree (class); default: the DSTM policy.
    #[serde(default)]
    pub tree: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficCfg {
    /// `poisson`, `scripted` or `none`.
    #[serde(with = "crate::error::text")]
    pub pattern: Pattern,
    /// Mean message arrivals per node per cycle (Poisson).
    pub rate: f64,
    /// Fraction of messages that are multicasts.
    pub multicast_fraction: f64,
    /// Multicast destinations: a number, or `[min, max]` drawn uniformly.
    pub destinations: DestCount,
    /// Data flits per message (identity BODY ... TAIL), at least 2.
    pub length: u32,
    /// If not 0: message lengths are drawn uniformly from `length` to
    /// `length_max` (\[BRCP\] §4: 10 to 100 data flits).
    pub length_max: u32,
    /// Mesh routing only: the source algorithm of multicasts (`auto` = the
    /// routing's default: dual-path, brcp-minimal, column-path). See
    /// docs/scenario.md for the list and which routing each needs.
    #[serde(with = "crate::error::text")]
    pub multicast_scheme: SchemeName,
    /// Any u64. TOML integers stop at `i64::MAX`, so a larger seed is
    /// written as a string (`seed = "18446744073709551615"`); see
    /// [`seed_serde`].
    #[serde(with = "seed_serde")]
    pub seed: u64,
    /// Where generated unicasts go (`network::patterns`): `uniform`
    /// (default), `transpose`, `bitcomp`, `bitrev`, `shuffle`, `tornado`,
    /// `neighbor`, `randperm`, `hotspot`.
    #[serde(with = "crate::error::text", skip_serializing_if = "is_default")]
    pub unicast: UnicastPattern,
    /// `unicast = "hotspot"`: the hot nodes (`X,Y`) ...
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hotspots: Vec<String>,
    /// ... and their integer weights (default: 1 each).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hotspot_weights: Vec<u32>,
    /// Which nodes a generated multicast goes to (`network::multicast`):
    /// `uniform` (default), `local`, `row`, `column`, `rectangle`,
    /// `broadcast`.
    #[serde(with = "crate::error::text", skip_serializing_if = "is_default")]
    pub multicast: MulticastModel,
    /// `multicast = "local"`: the largest hop distance of a destination.
    #[serde(skip_serializing_if = "is_default_radius")]
    pub radius: u32,
    /// `multicast = "rectangle"`: `[w, h]`, placed at random per message ...
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub region: Vec<u32>,
    /// ... or two corners `["X,Y", "X,Y"]`, fixed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub region_corners: Vec<String>,
    /// `multicast = "invalidation"`: the sharer-count histogram, `[k,
    /// weight]` pairs (`network::coherence`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sharers: Vec<(u32, f64)>,
    /// A collective started at `run.warmup` (`network::collective`):
    /// `none` (default), `broadcast`, `allgather`, `scatter`.
    #[serde(with = "crate::error::text", skip_serializing_if = "is_default")]
    pub collective: CollectiveKind,
    /// The root `X,Y` of a `broadcast` or `scatter` collective.
    #[serde(skip_serializing_if = "is_default_root")]
    pub root: String,
    /// The arrival process of generated messages (`network::process`):
    /// `bernoulli` (default) or `onoff`.
    #[serde(with = "crate::error::text", skip_serializing_if = "is_default")]
    pub process: ProcessKind,
    /// `process = "onoff"`: mean on period in cycles ...
    #[serde(skip_serializing_if = "is_default_burst")]
    pub burst_length: f64,
    /// ... and the share of on cycles.
    #[serde(skip_serializing_if = "is_default_duty")]
    pub duty_cycle: f64,
    /// If not 0: the closed loop's window, the most requests a node has
    /// outstanding (`network::closed`).
    #[serde(skip_serializing_if = "is_default")]
    pub window: u32,
    /// With `window`: the length of the reply a unicast request's
    /// destination sends back (0: no replies; a request is done when
    /// delivered).
    #[serde(skip_serializing_if = "is_default")]
    pub reply_length: u32,
    /// If not 0: every node generates this many messages, then stops; the
    /// run ends when all are delivered and reports the completion cycle.
    #[serde(skip_serializing_if = "is_default")]
    pub batch: u64,
    /// Explicit messages for `pattern = "scripted"`.
    pub messages: Vec<ScriptedMessage>,
    /// Scripted raw flits (`[[traffic.raw]]`, any pattern): malformed input
    /// on a running network (`network::raw`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub raw: Vec<crate::network::raw::RawWormCfg>,
    /// `pattern = "trace"`: the trace file (`network::trace`), relative to
    /// the scenario file's folder ...
    #[serde(skip_serializing_if = "String::is_empty")]
    pub trace: String,
    /// ... in this format: `text` (default) or `netrace` ...
    #[serde(with = "crate::error::text", skip_serializing_if = "is_default")]
    pub trace_format: TraceFormat,
    /// ... and the cycles a message waits after a dependency's delivery
    /// when the trace gives none (every netrace dependency).
    #[serde(skip_serializing_if = "is_default")]
    pub trace_delay: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunCfg {
    /// Cycles before the measurement window.
    pub warmup: u64,
    /// Length of the measurement window.
    pub cycles: u64,
    /// After the window, cycles allowed for the network to drain (no new
    /// messages); 0 stops right at the end of the window.
    pub drain_cycles: u64,
    /// The deadlock detector looks at an input blocked this long.
    pub deadlock_threshold: u64,
    /// The most messages the run may hold: every created message is kept
    /// to the end (scoreboard, per-message CSV), so an overloaded network
    /// whose source queues grow without bound, or a very long run, would
    /// otherwise take all memory and be killed without a report. Reaching
    /// it stops the run like an interrupt (`stop_reason` names it). 0:
    /// derived from the memory available
    /// ([`crate::network::budget::auto_max_messages`]).
    #[serde(skip_serializing_if = "is_default")]
    pub max_messages: u64,
    /// Threads that step this run's routers (`fabric::stripes`); results
    /// are bit-identical for every value. Default 1: on the 2-core machine
    /// measured, two threads were not reliably faster (docs/performance.md,
    /// "One run on several threads").
    #[serde(skip_serializing_if = "is_one")]
    pub threads: usize,
}

/// `run.threads` above this is refused: far past any useful split of a
/// 256×256 fabric, and it bounds the threads a typo could start.
pub const MAX_THREADS: usize = 256;

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl RunCfg {
    /// End of the measurement window (`warmup + cycles`), checked.
    pub fn window_end(&self) -> Option<u64> {
        self.warmup.checked_add(self.cycles)
    }

    /// Last cycle a run may reach (`warmup + cycles + drain_cycles`),
    /// checked: `None` would mean a wrapped-around end, which
    /// [`Scenario::validate`] rejects.
    pub fn total_cycles(&self) -> Option<u64> {
        self.window_end()?.checked_add(self.drain_cycles)
    }
}

impl Default for NetworkCfg {
    fn default() -> Self {
        NetworkCfg {
            topology: Topology {
                kind: crate::topology::TopologyKind::Torus,
                k: 8,
                m: 8,
            },
            construction: "dstm1".into(),
            r1: "0,0".into(),
            routing: RoutingKind::Tree,
            header_setup_cycles: 0,
            strip_deferred: false,
            hop: Hop::Standard,
            buffer_depth: 2,
            flit_width: 32,
            injection_channels: 1,
            consumption_channels: 2,
            faulty_links: Vec::new(),
            faulty_nodes: Vec::new(),
            fault_info: FaultInfo::Global,
        }
    }
}

impl Default for TimingCfg {
    fn default() -> Self {
        TimingCfg {
            startup_cycles: 10,
            startup_serial: false,
        }
    }
}

impl Default for TrafficCfg {
    fn default() -> Self {
        TrafficCfg {
            pattern: Pattern::Poisson,
            rate: 0.002,
            multicast_fraction: 0.1,
            destinations: DEFAULT_DESTINATIONS,
            length: 16,
            length_max: 0,
            multicast_scheme: SchemeName::Auto,
            seed: 1,
            unicast: UnicastPattern::Uniform,
            multicast: MulticastModel::Uniform,
            radius: DEFAULT_RADIUS,
            region: Vec::new(),
            region_corners: Vec::new(),
            sharers: Vec::new(),
            collective: CollectiveKind::Off,
            root: DEFAULT_ROOT.to_string(),
            hotspots: Vec::new(),
            hotspot_weights: Vec::new(),
            process: ProcessKind::Bernoulli,
            burst_length: DEFAULT_BURST_LENGTH,
            duty_cycle: DEFAULT_DUTY_CYCLE,
            batch: 0,
            window: 0,
            reply_length: 0,
            messages: Vec::new(),
            raw: Vec::new(),
            trace: String::new(),
            trace_format: Default::default(),
            trace_delay: 0,
        }
    }
}

impl Default for RunCfg {
    fn default() -> Self {
        RunCfg {
            warmup: 2_000,
            cycles: 20_000,
            drain_cycles: 100_000,
            deadlock_threshold: 2_000,
            max_messages: 0,
            threads: 1,
        }
    }
}

/// `traffic.burst_length` and `traffic.duty_cycle` unless given: bursts of
/// 20 cycles half the time (BookSim2's α = β = 0.05).
pub const DEFAULT_BURST_LENGTH: f64 = 20.0;
pub const DEFAULT_DUTY_CYCLE: f64 = 0.5;

/// New keys are left out of a printed scenario at their defaults, so the
/// scenarios of before print as they did.
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// `traffic.radius` unless given.
pub const DEFAULT_RADIUS: u32 = 2;

fn is_default_root(v: &str) -> bool {
    v == DEFAULT_ROOT
}

fn is_default_radius(v: &u32) -> bool {
    *v == DEFAULT_RADIUS
}

fn is_default_burst(v: &f64) -> bool {
    *v == DEFAULT_BURST_LENGTH
}

fn is_default_duty(v: &f64) -> bool {
    *v == DEFAULT_DUTY_CYCLE
}

named_enum! {
    /// `traffic.trace_format`: how `traffic.trace` is written
    /// (`network::trace`, `network::netrace`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum TraceFormat("traffic.trace_format") {
        #[default]
        Text = "text",
        Netrace = "netrace",
    }
}

named_enum! {
    /// `traffic.pattern`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Pattern("pattern") {
        Poisson = "poisson",
        Scripted = "scripted",
        None = "none",
        Trace = "trace",
    }
}

/// `traffic.seed`: any u64, written as a TOML integer up to `i64::MAX`
/// (the largest TOML integer) and as a decimal string above it, both ways,
/// so every seed a run reports can be given back. Seeds that fit an integer
/// are read and written exactly as before.
pub mod seed_serde {
    use crate::error::{text, InputError};
    use serde::{de, Deserializer, Serializer};
    use std::fmt;

    /// What a seed may be, for the error messages.
    pub const ALLOWED: &str = "a whole number from 0 to 18446744073709551615 (u64); above 9223372036854775807, the largest TOML integer, write it as a string, e.g. \"18446744073709551615\"";

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        if *v <= i64::MAX as u64 {
            s.serialize_u64(*v)
        } else {
            s.collect_str(v)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Seed)
    }

    struct Seed;

    fn refuse<E: de::Error>(v: impl fmt::Display) -> E {
        E::custom(text::message(&InputError::new("traffic.seed", v, ALLOWED)))
    }

    impl de::Visitor<'_> for Seed {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(ALLOWED)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| refuse(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.trim().parse().map_err(|_| refuse(format!("\"{v}\"")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
            Err(refuse(v))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<u64, E> {
            Err(refuse(v))
        }
    }
}

/// A scripted message after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scripted {
    pub cycle: u64,
    pub source: NodeId,
    pub dests: Vec<NodeId>,
    pub length: u32,
    pub tree: Option<usize>,
}

/// Everything a network needs, checked.
#[derive(Debug, Clone)]
pub struct Validated {
    pub topo: Topology,
    pub construction: PairSpec,
    /// SPAM with `construction = "bfs"`: the tree is a BFS tree from R1.
    pub spam_bfs: bool,
    pub r1: NodeId,
    pub params: RouterParams,
    pub faulty: Vec<EdgeId>,
    pub fault_info: FaultInfo,
    pub pattern: Pattern,
    pub dest_range: (u32, u32),
    pub scripted: Vec<Scripted>,
    /// Mesh routing: the multicast source algorithm.
    pub scheme: Option<crate::treeworm::scheme::MeshScheme>,
    /// Mesh routing: the mesh with its faulty blocks (\[FTTREE\] disable
    /// rule; no blocks when fault-free).
    pub ftmesh: Option<crate::ftmesh::FaultyMesh>,
    /// Scripted raw worms (`traffic.raw`), in scenario order.
    pub raw: Vec<crate::network::raw::RawWorm>,
    /// Generated unicasts' destinations, made concrete on `topo`.
    pub unicast: UnicastDests,
    /// `process = "onoff"`: the chain's probabilities.
    pub onoff: Option<OnOff>,
    /// Generated multicasts' destination model.
    pub multicast: MulticastDests,
    /// `multicast = "invalidation"`: the sharer-count histogram.
    pub sharers: Option<crate::network::coherence::SharerHistogram>,
    /// `traffic.collective` and its root.
    pub collective: Option<(CollectiveKind, NodeId)>,
}

impl Validated {
    /// Whether node `n` is cut out of the fabric (faulty, or disabled by
    /// \[FTTREE\]'s rule): no links, no traffic.
    pub fn excluded(&self, n: NodeId) -> bool {
        self.ftmesh
            .as_ref()
            .is_some_and(|fm| fm.is_blocked(self.topo.coord(n)))
    }
}

/// Applies a `key=value` override (dotted key) to a TOML tree.
pub fn apply_set(root: &mut toml::Table, kv: &str) -> InputResult<()> {
    let (key, val) = kv.split_once('=').ok_or_else(|| {
        InputError::new(
            "--set",
            kv,
            "expected `section.key=value`, e.g. `traffic.rate=0.01`",
        )
    })?;
    let path: Vec<&str> = key.trim().split('.').collect();
    if path.len() != 2 || path.iter().any(|p| p.is_empty()) {
        return Err(InputError::new(
            "--set",
            kv,
            "the key must be `section.key`, e.g. `traffic.rate`",
        ));
    }
    // Parse the value as TOML; a bare word is taken as a string.
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {}", val.trim())) {
        Ok(mut t) => t.remove("v").expect("key v"),
        Err(_) => toml::Value::String(val.trim().to_string()),
    };
    let section = root
        .entry(path[0].to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(section) = section else {
        return Err(InputError::new(
            "--set",
            kv,
            format!("`{}` is not a section", path[0]),
        ));
    };
    section.insert(path[1].to_string(), parsed);
    Ok(())
}

impl Scenario {
    /// Parses a scenario from TOML text plus `--set` overrides.
    ///
    /// The file is checked on its own first, so a type error in it is
    /// reported with its line and column; errors that only appear with the
    /// overrides name the `--set` that caused them. Either way the error
    /// names the key (`section.key`), the value and what is allowed.
    pub fn from_toml(text: &str, sets: &[String], origin: &str) -> InputResult<Scenario> {
        let mut root: toml::Table =
            toml::from_str(text).map_err(|e| syntax_error(text, origin, &e))?;
        if let Err(e) =
            serde_path_to_error::deserialize::<_, Scenario>(toml::Deserializer::new(text))
        {
            let at = e
                .inner()
                .span()
                .map(|sp| format!(" ({origin}, {})", line_col(text, sp.start)))
                .unwrap_or_else(|| format!(" ({origin})"));
            return Err(type_error(&root, &e, &at));
        }
        for s in sets {
            apply_set(&mut root, s)?;
        }
        let value = toml::Value::Table(root.clone());
        serde_path_to_error::deserialize::<_, Scenario>(value).map_err(|e| {
            // Only an override can break what the file alone accepted.
            let path = e.path().to_string();
            let culprit = sets.iter().rev().find(|s| {
                s.split_once('=')
                    .is_some_and(|(k, _)| path.starts_with(k.trim()) || k.trim().starts_with(&path))
            });
            let at = culprit.map_or(String::new(), |s| {
                format!(" (from --set {})", crate::error::shorten(s))
            });
            type_error(&root, &e, &at)
        })
    }

    /// The checks that span fields, and the typed network they give. Each
    /// value was parsed on its own already ([`Scenario::from_toml`]) and
    /// each section checks its own ranges ([`TrafficCfg::check`],
    /// [`RunCfg::check`], [`TimingCfg::check`]); what is left here ties the
    /// fields together: the routing to the topology, nodes and links to the
    /// network, schemes to the routing and the faults, messages to the
    /// pattern.
    pub fn validate(&self) -> InputResult<Validated> {
        let n = &self.network;
        let (topo, routing) = (n.topology, n.routing);
        if routing.is_mesh() && topo.is_torus() {
            return Err(InputError::new(
                "network.routing",
                routing,
                "tree or spam on a torus (hamiltonian, dor and negative_first are mesh routing functions; use `mesh:KxM`)",
            ));
        }
        if !topo.is_torus() && !routing.is_mesh() {
            return Err(InputError::new(
                "network.topology",
                topo,
                "a torus (`torus:KxM`): tree routing here needs two edge-disjoint spanning trees; a mesh needs routing hamiltonian, dor or negative_first",
            ));
        }
        if !routing.is_mesh() && !n.faulty_nodes.is_empty() {
            return Err(InputError::new(
                "network.faulty_nodes",
                format!("{:?}", n.faulty_nodes),
                "none with tree or spam routing (faulty nodes are modelled on meshes, paper 002; a torus takes one faulty link)",
            ));
        }
        // `bfs` names SPAM's own tree; the pair is then only a placeholder.
        let spam_bfs = routing == RoutingKind::Spam && n.construction == "bfs";
        let construction = PairSpec::parse(if spam_bfs { "dstm1" } else { &n.construction })
            .map_err(|e| InputError {
                field: "network.construction".into(),
                ..e
            })?;
        if routing == RoutingKind::Spam && !n.faulty_links.is_empty() {
            return Err(InputError::new(
                "network.faulty_links",
                n.faulty_links.len(),
                "none with routing = \"spam\" (SPAM fault handling is not modelled)",
            ));
        }
        let r1 = topo.parse_node(&n.r1, "network.r1")?;
        let params = n.router_params()?;
        let mut faulty = Vec::new();
        for l in &n.faulty_links {
            let e = l.edge(&topo, "network.faulty_links")?;
            if !faulty.contains(&e) {
                faulty.push(e);
            }
        }
        let ftmesh = if routing.is_mesh() {
            Some(n.faulty_mesh()?)
        } else {
            None
        };
        if !routing.is_mesh() && faulty.len() > 1 {
            return Err(InputError::new(
                "network.faulty_links",
                format!("{:?}", names(&n.faulty_links)),
                "at most one link (paper 000 §7 tolerates a single link fault; the same link may be named from both ends)",
            ));
        }
        let t = &self.traffic;
        t.check()?;
        t.check_trace()?;
        let dest_range = t.dest_range(topo.nodes())?;
        let scheme = t.scheme(routing, ftmesh.as_ref())?;
        // LIN and XY-path multicasts start at the origin only.
        let origin_only = match scheme {
            Some(MeshScheme::Path(k)) if k.origin_only() => Some(k.name()),
            _ => None,
        };
        if let Some(name) = origin_only {
            if t.pattern == Pattern::Poisson && t.multicast_fraction > 0.0 {
                return Err(InputError::new(
                    "traffic.multicast_scheme",
                    name,
                    format!("a scheme for random sources; {name} multicasts start at 0,0 (use pattern = \"scripted\")"),
                ));
            }
        }
        let scripted = t
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| m.check(i, &topo, ftmesh.as_ref(), &params, origin_only, &self.run))
            .collect::<InputResult<Vec<_>>>()?;
        if t.pattern != Pattern::Scripted && !t.messages.is_empty() {
            return Err(InputError::new(
                "traffic.messages",
                t.messages.len(),
                "explicit messages need traffic.pattern = \"scripted\"",
            ));
        }
        let excluded = |u: NodeId| {
            ftmesh
                .as_ref()
                .is_some_and(|fm| fm.is_blocked(topo.coord(u)))
        };
        let raw = t
            .raw
            .iter()
            .enumerate()
            .map(|(i, w)| {
                crate::network::raw::validate(i, w, &topo, params.flit, params.injection, &excluded)
            })
            .collect::<InputResult<Vec<_>>>()?;
        let (unicast, onoff) = t.workload(&topo, ftmesh.as_ref())?;
        let multicast = t.multicast_dests(&topo, ftmesh.as_ref())?;
        let sharers =
            crate::network::coherence::validate(t.multicast, &t.sharers, t.window, topo.nodes())?;
        let keys = crate::network::collective::CollectiveKeys {
            kind: t.collective,
            root: &t.root,
            length_max: t.length_max,
            batch: t.batch,
        };
        let collective =
            crate::network::collective::validate(keys, &topo, ftmesh.as_ref(), origin_only)?;
        self.run.check()?;
        self.timing.check()?;
        Ok(Validated {
            topo,
            construction,
            spam_bfs,
            r1,
            params,
            faulty,
            fault_info: n.fault_info,
            pattern: t.pattern,
            dest_range,
            scripted,
            scheme,
            ftmesh,
            raw,
            unicast,
            onoff,
            multicast,
            sharers,
            collective,
        })
    }
}

/// Faulty links as written, for error messages.
fn names(links: &[LinkName]) -> Vec<String> {
    links.iter().map(|l| l.to_string()).collect()
}

impl NetworkCfg {
    /// The router parameters: the flit width, buffers and channels checked
    /// together with the routing function they serve.
    fn router_params(&self) -> InputResult<RouterParams> {
        let routing = self.routing;
        let flit = FlitFormat::new(self.flit_width).map_err(|e| InputError {
            field: "network.flit_width".into(),
            ..e
        })?;
        let params = RouterParams {
            flit,
            depth: self.buffer_depth,
            injection: self.injection_channels,
            consumption: self.consumption_channels,
            classes: if routing == RoutingKind::Spam {
                1
            } else if routing.is_mesh() {
                routing.mesh_classes()
            } else {
                2
            },
            routing,
            setup_cycles: self.header_setup_cycles,
            strip_deferred: self.strip_deferred,
            hop: self.hop,
        };
        params.validate().map_err(|e| InputError {
            field: format!("network.{}", e.field),
            ..e
        })?;
        flit.check_nodes(crate::router::mesh::address_space(routing, &self.topology))
            .map_err(|e| InputError {
                field: "network.flit_width".into(),
                ..e
            })?;
        Ok(params)
    }

    /// Mesh routing: the mesh with its faulty blocks (\[FTTREE\]'s disable
    /// rule), from the faulty nodes and links.
    fn faulty_mesh(&self) -> InputResult<FaultyMesh> {
        let topo = self.topology;
        // [FTTREE] models node faults: a faulty link takes its end node
        // with the larger id with it (docs/decisions.md).
        let mut nodes = Vec::new();
        for s in &self.faulty_nodes {
            nodes.push(topo.coord(topo.parse_node(s, "network.faulty_nodes")?));
        }
        for l in &self.faulty_links {
            let (a, b) = l.ends(&topo, "network.faulty_links")?;
            nodes.push(topo.coord(a.max(b)));
        }
        let fm = FaultyMesh::new(topo, &nodes)?;
        if !fm.blocks.is_empty() && self.routing == RoutingKind::Hamiltonian {
            return Err(InputError::new(
                "network.routing",
                "hamiltonian",
                "dor or negative_first on a mesh with faulty nodes or links (the fault-tolerant tree schemes)",
            ));
        }
        let healthy = (0..topo.nodes())
            .filter(|&u| !fm.is_blocked(topo.coord(u)))
            .count();
        if healthy < 2 {
            return Err(InputError::new(
                "network.faulty_nodes",
                format!("{:?}", self.faulty_nodes),
                "faults that leave at least two healthy nodes (after the disable rule)",
            ));
        }
        Ok(fm)
    }
}

impl TrafficCfg {
    /// The unicast pattern, hot nodes and injection process on `topo`; each
    /// serves generated traffic only, on a fault-free network for the
    /// patterns (a permutation has no answer for a node cut out).
    fn workload(
        &self,
        topo: &Topology,
        fm: Option<&FaultyMesh>,
    ) -> InputResult<(UnicastDests, Option<OnOff>)> {
        let generated = self.pattern == Pattern::Poisson;
        let changed = [
            (
                "traffic.unicast",
                self.unicast != UnicastPattern::Uniform,
                self.unicast.to_string(),
            ),
            (
                "traffic.process",
                self.process != ProcessKind::Bernoulli,
                self.process.to_string(),
            ),
            (
                "traffic.multicast",
                self.multicast != MulticastModel::Uniform,
                self.multicast.to_string(),
            ),
            ("traffic.batch", self.batch != 0, self.batch.to_string()),
            ("traffic.window", self.window != 0, self.window.to_string()),
        ];
        for (field, set, value) in changed {
            if set && !generated {
                return Err(InputError::new(
                    field,
                    value,
                    format!("its default with pattern = \"{}\" (it shapes generated traffic, pattern = \"poisson\")", self.pattern),
                ));
            }
        }
        let faulty = fm.is_some_and(|fm| !fm.blocks.is_empty());
        if self.unicast != UnicastPattern::Uniform && faulty {
            return Err(InputError::new(
                "traffic.unicast",
                self.unicast,
                "uniform on a mesh with faulty nodes or links (a pattern's destination may be cut out)",
            ));
        }
        let hot_field = "traffic.hotspots";
        if (self.unicast == UnicastPattern::Hotspot) == self.hotspots.is_empty() {
            return Err(InputError::new(
                hot_field,
                format!("{:?}", self.hotspots),
                "at least one node `X,Y` with unicast = \"hotspot\", and none otherwise",
            ));
        }
        let mut hot = Vec::new();
        for (i, h) in self.hotspots.iter().enumerate() {
            let n = topo.parse_node(h, &format!("{hot_field}[{i}]"))?;
            if hot.contains(&n) {
                return Err(InputError::new(
                    format!("{hot_field}[{i}]"),
                    h,
                    "each hot node once",
                ));
            }
            hot.push(n);
        }
        let weights = if self.hotspot_weights.is_empty() {
            vec![1; hot.len()]
        } else {
            self.hotspot_weights.clone()
        };
        if weights.len() != hot.len() || weights.contains(&0) {
            return Err(InputError::new(
                "traffic.hotspot_weights",
                format!("{:?}", self.hotspot_weights),
                format!(
                    "one whole number of at least 1 per hot node ({}), or none for equal weights",
                    hot.len()
                ),
            ));
        }
        if self.window > 1_000_000 {
            return Err(InputError::new(
                "traffic.window",
                self.window,
                "0 (open loop) to 1000000 requests outstanding per node",
            ));
        }
        if self.reply_length != 0 {
            if self.window == 0 {
                return Err(InputError::new(
                    "traffic.reply_length",
                    self.reply_length,
                    "0 unless traffic.window > 0 (replies close the loop)",
                ));
            }
            check_length(self.reply_length, "traffic.reply_length")?;
            if faulty {
                return Err(InputError::new(
                    "traffic.reply_length",
                    self.reply_length,
                    "0 on a mesh with faulty nodes or links (a reply's path may be cut)",
                ));
            }
        }
        if self.batch > 0 && self.rate == 0.0 {
            return Err(InputError::new(
                "traffic.batch",
                self.batch,
                "0 with traffic.rate = 0 (a batch is generated at the rate)",
            ));
        }
        if self.batch > MAX_CYCLES {
            return Err(InputError::new(
                "traffic.batch",
                self.batch,
                format!("0 (off) to {MAX_CYCLES} messages per node"),
            ));
        }
        let unicast = UnicastDests::new(self.unicast, topo, &hot, &weights, self.seed)?;
        let onoff = match self.process {
            ProcessKind::Bernoulli => {
                for (field, v, d) in [
                    (
                        "traffic.burst_length",
                        self.burst_length,
                        DEFAULT_BURST_LENGTH,
                    ),
                    ("traffic.duty_cycle", self.duty_cycle, DEFAULT_DUTY_CYCLE),
                ] {
                    if v != d {
                        return Err(InputError::new(
                            field,
                            v,
                            format!("its default ({d}) unless process = \"onoff\""),
                        ));
                    }
                }
                None
            }
            ProcessKind::OnOff => Some(OnOff::new(self.rate, self.burst_length, self.duty_cycle)?),
        };
        Ok((unicast, onoff))
    }

    /// The multicast destination model with its radius or region, checked
    /// against `topo`; on a fault-free network only, as the unicast
    /// patterns.
    fn multicast_dests(
        &self,
        topo: &Topology,
        fm: Option<&FaultyMesh>,
    ) -> InputResult<MulticastDests> {
        let model = self.multicast;
        let field = "traffic.multicast";
        // Generated traffic only: checked with the other workload keys
        // (`workload`, called first).
        let shaped = model != MulticastModel::Uniform;
        if shaped && fm.is_some_and(|fm| !fm.blocks.is_empty()) {
            return Err(InputError::new(
                field,
                model,
                "uniform on a mesh with faulty nodes or links (a shape's nodes may be cut out)",
            ));
        }
        if shaped && !model.counted() && self.destinations != DEFAULT_DESTINATIONS {
            return Err(InputError::new(
                "traffic.destinations",
                &self.destinations,
                format!("its default with multicast = \"{model}\", whose destinations are a shape or a sharers histogram, not a count (uniform and local draw a count)"),
            ));
        }
        if model != MulticastModel::Local && self.radius != DEFAULT_RADIUS {
            return Err(InputError::new(
                "traffic.radius",
                self.radius,
                format!("its default ({DEFAULT_RADIUS}) unless multicast = \"local\""),
            ));
        }
        if model == MulticastModel::Local && self.radius == 0 {
            return Err(InputError::new("traffic.radius", 0, "at least 1 hop"));
        }
        let rect = model == MulticastModel::Rectangle;
        let region = match (rect, self.region.as_slice(), self.region_corners.as_slice()) {
            (false, [], []) => None,
            (false, _, _) => {
                let (key, value) = if self.region.is_empty() {
                    ("traffic.region_corners", format!("{:?}", self.region_corners))
                } else {
                    ("traffic.region", format!("{:?}", self.region))
                };
                return Err(InputError::new(
                    key,
                    value,
                    "none unless multicast = \"rectangle\"",
                ));
            }
            (true, &[w, h], []) => {
                if !(1..=topo.k).contains(&w) || !(1..=topo.m).contains(&h) || w * h < 2 {
                    return Err(InputError::new(
                        "traffic.region",
                        format!("[{w}, {h}]"),
                        format!("[w, h] with 1 <= w <= {}, 1 <= h <= {} and at least 2 nodes", topo.k, topo.m),
                    ));
                }
                Some(Region::Sized(w, h))
            }
            (true, [], [a, b]) => {
                let (a, b) = (
                    topo.coord(topo.parse_node(a, "traffic.region_corners[0]")?),
                    topo.coord(topo.parse_node(b, "traffic.region_corners[1]")?),
                );
                let lo = (a.0.min(b.0), a.1.min(b.1));
                let hi = (a.0.max(b.0), a.1.max(b.1));
                if lo == hi {
                    return Err(InputError::new(
                        "traffic.region_corners",
                        format!("{:?}", self.region_corners),
                        "two corners of a rectangle of at least 2 nodes",
                    ));
                }
                Some(Region::Fixed(lo, hi))
            }
            (true, _, _) => {
                return Err(InputError::new(
                    "traffic.region",
                    format!("{:?} / region_corners = {:?}", self.region, self.region_corners),
                    "with multicast = \"rectangle\": either region = [w, h] (placed at random per message) or region_corners = [\"X,Y\", \"X,Y\"] (fixed), not both",
                ))
            }
        };
        Ok(MulticastDests {
            model,
            radius: self.radius,
            region,
        })
    }

    /// The ranges of the traffic section's own values.
    pub fn check(&self) -> InputResult<()> {
        if !(self.rate.is_finite() && (0.0..=1.0).contains(&self.rate)) {
            return Err(InputError::new(
                "traffic.rate",
                self.rate,
                "messages per node per cycle, from 0 to 1",
            ));
        }
        let f = self.multicast_fraction;
        if !(f.is_finite() && (0.0..=1.0).contains(&f)) {
            return Err(InputError::new(
                "traffic.multicast_fraction",
                f,
                "a fraction from 0 to 1",
            ));
        }
        check_length(self.length, "traffic.length")?;
        if self.length_max != 0 && !(self.length..=1_000_000).contains(&self.length_max) {
            return Err(InputError::new(
                "traffic.length_max",
                self.length_max,
                format!(
                    "0 (fixed length) or from traffic.length ({}) to 1e6",
                    self.length
                ),
            ));
        }
        Ok(())
    }

    /// Multicast destination counts `(min, max)` on a network of `nodes`.
    fn dest_range(&self, nodes: u32) -> InputResult<(u32, u32)> {
        let max_d = nodes - 1;
        let mut range = match self.destinations {
            DestCount::Fixed(d) => (d, d),
            DestCount::Range([a, b]) => (a, b),
        };
        // The network size bounds the count only where random traffic uses
        // it; a scripted scenario on a small torus keeps the default. The
        // default itself is clamped to the network (2×2, 3×3 tori).
        let poisson = self.pattern == Pattern::Poisson;
        if self.destinations == DEFAULT_DESTINATIONS && poisson && range.1 > max_d {
            range = (range.0.min(max_d), max_d);
        }
        if range.0 < 1 || range.0 > range.1 || (poisson && range.1 > max_d) {
            return Err(InputError::new(
                "traffic.destinations",
                &self.destinations,
                format!("a count or [min, max] with 1 <= min <= max <= {max_d} (nodes other than the source)"),
            ));
        }
        Ok(range)
    }

    /// The multicast scheme under `routing`: mesh routing only, and
    /// fault-tolerant when the mesh `fm` has faulty blocks.
    fn scheme(
        &self,
        routing: RoutingKind,
        fm: Option<&FaultyMesh>,
    ) -> InputResult<Option<MeshScheme>> {
        let field = "traffic.multicast_scheme";
        if !routing.is_mesh() {
            if self.multicast_scheme != SchemeName::Auto {
                return Err(InputError::new(
                    field,
                    self.multicast_scheme,
                    "auto with tree or spam routing (schemes are for mesh routing)",
                ));
            }
            return Ok(None);
        }
        let k = self.multicast_scheme.for_routing(routing, field)?;
        if fm.is_some_and(|fm| !fm.blocks.is_empty()) && !k.fault_tolerant() {
            return Err(InputError::new(
                field,
                self.multicast_scheme,
                "ft-s1, ft-s2, ft-s3 or ft-unicast on a mesh with faulty nodes or links (paper 002)",
            ));
        }
        Ok(Some(k))
    }
}

impl TrafficCfg {
    /// The trace keys of the `[traffic]` section, checked against each other:
    /// `pattern = "trace"` needs a file and takes it alone, the generated
    /// traffic's own knobs stay at their defaults (a trace fixes injection
    /// times, destinations and lengths; a value there would be silently
    /// ignored otherwise), and the trace keys need a trace.
    pub fn check_trace(&self) -> InputResult<()> {
        let t = self;
        let trace = t.pattern == Pattern::Trace;
        if trace && t.trace.trim().is_empty() {
            return Err(InputError::new(
                "traffic.trace",
                "\"\"",
                "the path of a trace file with pattern = \"trace\" (docs/scenario.md, \"Trace replay\")",
            ));
        }
        if !trace {
            let set = [
                ("traffic.trace", !t.trace.is_empty(), t.trace.clone()),
                (
                    "traffic.trace_format",
                    t.trace_format != TraceFormat::default(),
                    t.trace_format.to_string(),
                ),
                (
                    "traffic.trace_delay",
                    t.trace_delay != 0,
                    t.trace_delay.to_string(),
                ),
            ];
            if let Some((key, _, value)) = set.into_iter().find(|s| s.1) {
                return Err(InputError::new(
                    key,
                    value,
                    format!(
                        "none unless traffic.pattern = \"trace\" (it is \"{}\")",
                        t.pattern
                    ),
                ));
            }
            return Ok(());
        }
        let d = TrafficCfg::default();
        let ignored = [
            ("traffic.rate", t.rate != d.rate, t.rate.to_string()),
            (
                "traffic.multicast_fraction",
                t.multicast_fraction != d.multicast_fraction,
                t.multicast_fraction.to_string(),
            ),
            (
                "traffic.destinations",
                t.destinations != d.destinations,
                t.destinations.to_string(),
            ),
            ("traffic.length", t.length != d.length, t.length.to_string()),
            (
                "traffic.length_max",
                t.length_max != d.length_max,
                t.length_max.to_string(),
            ),
        ];
        if let Some((key, _, value)) = ignored.into_iter().find(|s| s.1) {
            return Err(InputError::new(
                key,
                value,
                "its default with pattern = \"trace\" (the trace gives every message's cycle, destinations and length; scale a trace's load by editing it, docs/decisions.md)",
            ));
        }
        if t.trace_delay > MAX_CYCLES {
            return Err(InputError::new(
                "traffic.trace_delay",
                t.trace_delay,
                "0 to 1e9 cycles",
            ));
        }
        Ok(())
    }
}

impl ScriptedMessage {
    /// Message `i` on `topo` (healthy nodes of `fm`), for routers with
    /// `params`; `origin_only` names a scheme whose multicasts start at 0,0.
    fn check(
        &self,
        i: usize,
        topo: &Topology,
        fm: Option<&FaultyMesh>,
        params: &RouterParams,
        origin_only: Option<&str>,
        run: &RunCfg,
    ) -> InputResult<Scripted> {
        let f = |k: &str| format!("traffic.messages[{i}].{k}");
        // Messages are created up to the end of the measured window
        // (`warmup + cycles`), never in the drain: a later one would
        // silently never exist. An overflowing end is `run.check`'s error.
        if let Some(end) = run.window_end() {
            if self.cycle >= end {
                return Err(InputError::new(
                    f("cycle"),
                    self.cycle,
                    if end == 0 {
                        "none: run.warmup + run.cycles is 0, so no message is ever created"
                            .to_string()
                    } else {
                        format!(
                            "0 to {} (messages are created before run.warmup + run.cycles = {end}; raise run.cycles to send later)",
                            end - 1
                        )
                    },
                ));
            }
        }
        let healthy = |s: &str, field: String| -> InputResult<NodeId> {
            let u = topo.parse_node(s, &field)?;
            match fm {
                Some(fm) => fm.healthy_node(topo.coord(u), &field).map(|_| u),
                None => Ok(u),
            }
        };
        let source = healthy(&self.source, f("source"))?;
        let mut dests = Vec::new();
        for (j, d) in self.destinations.iter().enumerate() {
            let d = healthy(d, f("destinations"))?;
            // The same node twice is a typo `wormcast route` refuses too;
            // merging it would hide it.
            if dests.contains(&d) {
                return Err(InputError::new(
                    f("destinations"),
                    format!("{:?}", self.destinations),
                    format!(
                        "distinct nodes: destination {j} (`{}`) repeats an earlier one",
                        self.destinations[j]
                    ),
                ));
            }
            if d == source {
                return Err(InputError::new(
                    f("destinations"),
                    &self.source,
                    "the source cannot be its own destination",
                ));
            }
            dests.push(d);
        }
        dests.sort_unstable();
        if dests.is_empty() {
            return Err(InputError::new(
                f("destinations"),
                "[]",
                "at least one destination",
            ));
        }
        check_length(self.length, &f("length"))?;
        if let Some(name) = origin_only.filter(|_| dests.len() > 1 && source != 0) {
            return Err(InputError::new(
                f("source"),
                &self.source,
                format!("0,0: {name} multicasts start at the origin"),
            ));
        }
        if params.routing.is_mesh() && self.tree.is_some() {
            return Err(InputError::new(
                f("tree"),
                self.tree.unwrap_or(0),
                "no tree with mesh routing (the scheme sets each worm's class)",
            ));
        }
        if let Some(tr) = self.tree {
            if tr >= params.classes {
                let allowed = if params.classes == 1 { "0" } else { "0 or 1" };
                return Err(InputError::new(f("tree"), tr, allowed));
            }
        }
        Ok(Scripted {
            cycle: self.cycle,
            source,
            dests,
            length: self.length,
            tree: self.tree,
        })
    }
}

impl RunCfg {
    /// The ranges of the run section's cycle counts.
    pub fn check(&self) -> InputResult<()> {
        if self.cycles == 0 || self.cycles > MAX_CYCLES {
            return Err(InputError::new("run.cycles", self.cycles, "1 to 1e9"));
        }
        if self.warmup > MAX_CYCLES {
            return Err(InputError::new("run.warmup", self.warmup, "0 to 1e9"));
        }
        if self.drain_cycles > MAX_CYCLES {
            return Err(InputError::new(
                "run.drain_cycles",
                self.drain_cycles,
                "0 to 1e9",
            ));
        }
        if !(16..=MAX_CYCLES).contains(&self.deadlock_threshold) {
            return Err(InputError::new(
                "run.deadlock_threshold",
                self.deadlock_threshold,
                "16 to 1e9 cycles",
            ));
        }
        if self.max_messages > crate::network::budget::MAX_MESSAGES {
            return Err(InputError::new(
                "run.max_messages",
                self.max_messages,
                "0 (derived from memory) to 4e9 (message ids are 32 bits)",
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(InputError::new(
                "run.threads",
                self.threads,
                format!("1 to {MAX_THREADS}"),
            ));
        }
        if self.total_cycles().is_none() {
            // Unreachable with the bounds above; kept so a future bound
            // change cannot make the run end wrap around.
            return Err(InputError::new(
                "run.drain_cycles",
                self.drain_cycles,
                "warmup + cycles + drain_cycles below 2^64",
            ));
        }
        Ok(())
    }
}

impl TimingCfg {
    /// The range of the start-up latency.
    pub fn check(&self) -> InputResult<()> {
        if self.startup_cycles > 1_000_000 {
            return Err(InputError::new(
                "timing.startup_cycles",
                self.startup_cycles,
                "0 to 1e6",
            ));
        }
        Ok(())
    }
}

/// A message length in data flits: the identity BODY and the TAIL at least.
pub fn check_length(l: u32, field: &str) -> InputResult<()> {
    if !(2..=1_000_000).contains(&l) {
        return Err(InputError::new(
            field,
            l,
            "data flits per message: 2 (identity BODY + TAIL) to 1e6",
        ));
    }
    Ok(())
}

/// Parses `X,Y,DIR` into an edge of `topo` (`network.faulty_links`).
pub fn parse_link(topo: &Topology, s: &str) -> InputResult<EdgeId> {
    let field = "network.faulty_links";
    let l: LinkName = s.parse().map_err(|e| InputError {
        field: field.into(),
        ..e
    })?;
    l.edge(topo, field)
}

/// Where `field` (`section.key`, or `traffic.messages[i].key`) is written
/// in the scenario text, as `line L, column C`: validation errors name the
/// field, and this lets the command line point into the file too. A plain
/// scan of section headers and keys, enough for the flat scenario format;
/// `None` when the key is not written there (a default or a `--set`).
pub fn locate(text: &str, field: &str) -> Option<String> {
    let (section, key) = field.split_once('.')?;
    // `messages[2].length` → the third `[[traffic.messages]]` block.
    let (section, key, nth) = match key.split_once('[') {
        Some((arr, rest)) => {
            let (i, k) = rest.split_once("].")?;
            (format!("{section}.{arr}"), k, i.parse::<usize>().ok()? + 1)
        }
        None => (section.to_string(), key, 0),
    };
    let key = key.split(['[', '.']).next()?;
    let (mut current, mut seen) = (String::new(), 0usize);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("[[").and_then(|h| h.split_once("]]")) {
            current = h.0.trim().to_string();
            if current == section {
                seen += 1;
            }
        } else if let Some(h) = t.strip_prefix('[').and_then(|h| h.split_once(']')) {
            current = h.0.trim().to_string();
        } else if current == section && (nth == 0 || seen == nth) {
            let k = t.split('=').next().unwrap_or("").trim();
            if t.contains('=') && k == key {
                let col = line.len() - line.trim_start().len();
                return Some(line_col(text, offset + col));
            }
        }
        offset += line.len();
    }
    None
}

/// `line L, column C` of byte offset `at` in `text` (both from 1).
fn line_col(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {col}")
}

/// A TOML syntax error: where it is, the offending line and the parser's
/// reason.
fn syntax_error(text: &str, origin: &str, e: &toml::de::Error) -> InputError {
    let (place, line) = match e.span() {
        Some(sp) => {
            let start = sp.start.min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            (
                format!("{origin} {}", line_col(text, start)),
                text[line_start..line_end].trim().to_string(),
            )
        }
        None => (origin.to_string(), String::new()),
    };
    let why = e.message().trim().replace('\n', "; ");
    InputError::new(place, line, format!("valid TOML ({why})"))
}

/// A value of the wrong type, or an unknown key, as `section.key = value:
/// allowed`. `at` says where it came from (file position or `--set`).
fn type_error(
    root: &toml::Table,
    e: &serde_path_to_error::Error<toml::de::Error>,
    at: &str,
) -> InputError {
    let msg = e.inner().message().trim().to_string();
    let mut field = e.path().to_string();
    // Find the offending value in the tree to quote it as written.
    let mut cur: Option<&toml::Value> = None;
    let mut table = Some(root);
    for seg in e.path().iter() {
        use serde_path_to_error::Segment;
        let next = match (seg, cur) {
            (Segment::Map { key }, None) => table.and_then(|t| t.get(key.as_str())),
            (Segment::Map { key }, Some(v)) => v.get(key.as_str()),
            (Segment::Seq { index }, Some(v)) => v.get(*index),
            _ => None,
        };
        cur = next;
        table = None;
    }
    let unknown = msg
        .strip_prefix("unknown field `")
        .and_then(|r| r.split_once('`'));
    let (value, allowed) = if let Some((key, rest)) = unknown {
        // The path normally ends with the unknown key; make sure it does.
        let last = e.path().iter().next_back().map(|s| s.to_string());
        if last.as_deref() != Some(key) {
            field = if field == "." || field.is_empty() {
                key.to_string()
            } else {
                format!("{field}.{key}")
            };
            cur = cur.and_then(|v| v.get(key)).or_else(|| root.get(key));
        }
        let v = cur.map_or(String::from("?"), |v| v.to_string());
        let keys = rest
            .trim_start_matches(", ")
            .replace("expected one of ", "");
        let keys = keys.replace("expected ", "");
        (
            v,
            format!("a known key; this section has {keys} (docs/scenario.md){at}"),
        )
    } else if let Some((key, _)) = msg
        .strip_prefix("missing field `")
        .and_then(|r| r.split_once('`'))
    {
        field = format!("{field}.{key}");
        (
            "(missing)".to_string(),
            format!("a value: `{key}` is required here (docs/scenario.md){at}"),
        )
    } else if let Some((v, allowed)) = crate::error::text::refused(&msg) {
        // A value its type's `FromStr` refused: quoted as it was read.
        (v.to_string(), format!("{allowed}{at}"))
    } else {
        let v = cur.map_or(String::from("?"), |v| v.to_string());
        let allowed = match documented(&field) {
            // The key's own limits, not its Rust type's.
            Some(doc) => format!("{doc} (docs/scenario.md; {msg})"),
            None => allowed_for(&msg),
        };
        (v, format!("{allowed}{at}"))
    };
    InputError::new(field, value, allowed)
}

/// The allowed values of a numeric key as docs/scenario.md gives them, for
/// a value of the wrong type (a test keeps the two in step). A wrong-type
/// error is found before validation, which would name the same limits.
pub fn documented(field: &str) -> Option<&'static str> {
    Some(match field {
        "network.header_setup_cycles" => "a whole number, 0..255",
        "network.buffer_depth" => "a whole number, 1..8",
        "network.flit_width" => "a whole number, 16..64, and `W − 10` bits must address every node",
        "network.injection_channels" => "a whole number, 1..4",
        "network.consumption_channels" => "a whole number, 1..4",
        "timing.startup_cycles" => "a whole number, 0..1e6",
        "traffic.rate" => "a number, 0..1",
        "traffic.multicast_fraction" => "a number, 0..1",
        "traffic.length" => "a whole number, 2..1e6",
        "traffic.length_max" => "a whole number, 0, or `length`..1e6",
        "run.warmup" => "a whole number, 0..1e9",
        "run.cycles" => "a whole number, 1..1e9",
        "run.drain_cycles" => "a whole number, 0..1e9",
        "run.deadlock_threshold" => "a whole number, 16..1e9",
        "run.max_messages" => "a whole number, 0..4e9",
        _ => return None,
    })
}

/// What serde's "expected ..." means in scenario terms, with serde's own
/// words after it.
fn allowed_for(msg: &str) -> String {
    let expected = msg.rsplit_once("expected ").map_or("", |(_, x)| x);
    let human = match expected {
        "f64" | "f32" => "a number such as 0.01".to_string(),
        "u64" | "u32" | "usize" | "u8" | "u16" => {
            format!("a whole number from 0 to {}", int_max(expected))
        }
        "a boolean" => "true or false".to_string(),
        "a string" => "a string in quotes, e.g. \"torus:8x8\"".to_string(),
        "a sequence" => "a list in brackets, e.g. [\"1,1\", \"2,2\"]".to_string(),
        x if x.starts_with("struct ") => {
            "a section of keys (a TOML table such as [traffic])".to_string()
        }
        _ => return msg.to_string(),
    };
    format!("{human} ({msg})")
}

fn int_max(t: &str) -> u64 {
    match t {
        "u8" => u8::MAX as u64,
        "u16" => u16::MAX as u64,
        "u32" => u32::MAX as u64,
        _ => u64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key's documented limits, as a wrong-type error names them,
    /// are the ones docs/scenario.md gives.
    #[test]
    fn documented_limits_match_the_docs() {
        let docs = include_str!("../../docs/scenario.md");
        let keys = [
            "network.header_setup_cycles",
            "network.buffer_depth",
            "network.flit_width",
            "network.injection_channels",
            "network.consumption_channels",
            "timing.startup_cycles",
            "traffic.rate",
            "traffic.multicast_fraction",
            "traffic.length",
            "traffic.length_max",
            "run.warmup",
            "run.cycles",
            "run.drain_cycles",
            "run.deadlock_threshold",
            "run.max_messages",
        ];
        for field in keys {
            let doc = documented(field).unwrap();
            let range = doc.split_once(", ").unwrap().1;
            let key = field.split_once('.').unwrap().1;
            let row = docs
                .lines()
                .find(|l| l.starts_with(&format!("| `{key}` |")))
                .unwrap_or_else(|| panic!("no row for {field}"));
            assert!(row.contains(range), "{field}: `{range}` not in {row}");
        }
        // A wrong type names them.
        let e = Scenario::from_toml("", &["network.buffer_depth={a=1}".into()], "t").unwrap_err();
        assert!(e.allowed.starts_with("a whole number, 1..8"), "{e}");
        assert!(!e.allowed.contains("18446744073709551615"), "{e}");
    }

    /// Seeds above the largest TOML integer are written as strings and
    /// read back; smaller ones stay integers.
    #[test]
    fn any_u64_seed_round_trips() {
        for (seed, written) in [
            (1u64, "seed = 1\n"),
            (i64::MAX as u64, "seed = 9223372036854775807\n"),
            (u64::MAX, "seed = \"18446744073709551615\"\n"),
        ] {
            let mut s = Scenario::default();
            s.traffic.seed = seed;
            let text = toml::to_string(&s).unwrap();
            assert!(text.contains(written), "{text}");
            let back = Scenario::from_toml(&text, &[], "t").unwrap();
            assert_eq!(back.traffic.seed, seed);
        }
        let set = |v: &str| Scenario::from_toml("", &[format!("traffic.seed={v}")], "t");
        assert_eq!(set("18446744073709551615").unwrap().traffic.seed, u64::MAX);
        assert_eq!(set("\"42\"").unwrap().traffic.seed, 42);
        let e = set("18446744073709551616").unwrap_err();
        assert_eq!(e.field, "traffic.seed");
        assert!(e.allowed.contains("write it as a string"), "{e}");
        assert!(set("-1").is_err());
    }
}
