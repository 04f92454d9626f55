//! `wormcast run`: simulate a scenario and report.

use crate::cli::interrupt::{self, requested as interrupted};
use crate::cli::output::{self, Dest};
use crate::cli::replay::{self, Recorder};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_sim::network::{stats::Report, Network};
use wormcast_sim::scenario::Scenario;
use wormcast_sim::waves::{self, VcdWriter};

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
    /// Print nothing but errors (and the outputs that go to stdout). With an
    /// output `-` the summary goes to stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the registers of the chosen routers as a VCD waveform (GTKWave;
    /// `-` for stdout); 1 cycle = 1 time unit. See docs/waveforms.md.
    #[arg(long, value_name = "OUT.vcd")]
    pub vcd: Option<PathBuf>,
    /// Routers to dump: `all` or `X,Y;X,Y;...` (default: all on networks of
    /// at most 64 nodes; larger networks need a list).
    #[arg(long, value_name = "LIST", requires = "vcd")]
    pub vcd_routers: Option<String>,
    /// Cycles to dump: `A..B` (A to B-1) or `A..` (default: the whole run).
    #[arg(long, value_name = "A..B", requires = "vcd")]
    pub vcd_window: Option<String>,
    /// Write one CSV row per message (creation, injection and every
    /// destination's delivery time; `-` for stdout).
    #[arg(long, value_name = "OUT.csv")]
    pub messages: Option<PathBuf>,
    /// `native` (the cycle model) or `verilator`: the generated Verilog of
    /// the whole fabric under Verilator, driven by the same NIs and checked
    /// against the native model at the NI ports every cycle (the first
    /// difference stops the run). The build is cached per configuration
    /// (`$WORMCAST_CACHE_DIR`, default ~/.cache/wormcast).
    #[arg(long, value_enum, default_value_t = Engine::Native)]
    pub engine: Engine,
    /// How `--engine verilator` compiles the fabric: `flat` (every router
    /// inlined; the fastest model, whose build grows with the router
    /// count), `hierarchical` (the router module compiled once; a build of
    /// one router, the same at any size, a slower model) or `auto` (hierarchical
    /// from 64 routers on). Part of the cache key. See
    /// docs/performance.md, "Hierarchical Verilator builds".
    #[arg(long, value_enum, default_value_t = VerilatorBuild::Auto)]
    pub verilator_build: VerilatorBuild,
    /// Draw a link heat map of the run as SVG: every link direction
    /// coloured by its utilisation, one panel per channel class, nodes by
    /// accepted throughput per source (docs/sight.md).
    #[arg(long, value_name = "OUT.svg")]
    pub heatmap: Option<PathBuf>,
    #[command(flatten)]
    pub heat: crate::cli::heatmap::HeatOpts,
    /// Write an HTML replay of a window of the run: one self-contained page,
    /// worms moving cycle by cycle (docs/sight.md).
    #[arg(long, value_name = "OUT.html")]
    pub replay: Option<PathBuf>,
    /// Cycles to replay: `A..B` (A to B-1) or `A..` (to the end; default:
    /// 500 cycles from the end of the warm-up).
    #[arg(long, value_name = "A..B", requires = "replay")]
    pub replay_window: Option<String>,
    /// Size limit of the replay's trace in MB; recording stops there and
    /// the run reports an error (the page keeps the cycles before it).
    #[arg(long, value_name = "MB", requires = "replay",
          default_value_t = crate::cli::replay::DEFAULT_MAX_MB,
          value_parser = clap::value_parser!(u64).range(1..=2000))]
    pub replay_max_mb: u64,
    /// Print the effective scenario (file, overrides and defaults) as TOML
    /// and exit without simulating.
    #[arg(long)]
    pub dump_scenario: bool,
    /// Step this run's routers on N threads (as `--set run.threads=N`;
    /// default 1). Results are bit-identical for every N; whether it is
    /// faster depends on the fabric and the machine (docs/performance.md,
    /// "One run on several threads").
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=wormcast_sim::scenario::MAX_THREADS as u64))]
    pub threads: Option<u64>,
}

/// `--verilator-build` (`wormcast_rtl::verilated::BuildMode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerilatorBuild {
    #[default]
    Auto,
    Flat,
    Hierarchical,
}

impl VerilatorBuild {
    pub fn mode(self) -> wormcast_rtl::verilated::BuildMode {
        use wormcast_rtl::verilated::BuildMode;
        match self {
            VerilatorBuild::Auto => BuildMode::Auto,
            VerilatorBuild::Flat => BuildMode::Flat,
            VerilatorBuild::Hierarchical => BuildMode::Hierarchical,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    #[default]
    Native,
    Verilator,
}

/// The largest scenario file read. Real ones are kilobytes (scripted
/// traffic may make them megabytes); without a cap an endless input such
/// as `/dev/zero` would be read until memory runs out.
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;

/// A scenario file's text, refused past [`MAX_SCENARIO_BYTES`].
pub fn read_scenario(p: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read scenario {}: {e}", p.display());
    let mut bytes = Vec::new();
    std::fs::File::open(p)
        .and_then(|f| f.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(format!(
            "invalid scenario {}: larger than {} MiB (allowed: a TOML file of at most {} bytes)",
            p.display(),
            MAX_SCENARIO_BYTES >> 20,
            MAX_SCENARIO_BYTES
        ));
    }
    String::from_utf8(bytes).map_err(|e| cannot(&format!("not UTF-8 text ({e})")))
}

/// A scenario file (the built-in default without one) with `--set`
/// overrides, parsed and validated ([`checked`]).
pub fn load_checked(scenario: &Option<PathBuf>, sets: &[String]) -> Result<Scenario, String> {
    let (text, origin) = match scenario {
        Some(p) => (read_scenario(p)?, p.display().to_string()),
        None => (String::new(), "built-in default scenario".to_string()),
    };
    let mut sc = checked(&text, sets, &origin)?;
    resolve_trace(&mut sc, scenario.as_deref(), sets);
    Ok(sc)
}

/// A trace named in the scenario file `file` is beside the file; one from
/// `--set` is where the command line says (docs/scenario.md, "Trace
/// replay"). The command line and the Python package's `from_file` share
/// this.
pub fn resolve_trace(sc: &mut Scenario, file: Option<&std::path::Path>, sets: &[String]) {
    let from_set = sets.iter().any(|s| {
        s.split_once('=')
            .is_some_and(|(k, _)| k.trim() == "traffic.trace")
    });
    let dir = file.and_then(std::path::Path::parent);
    wormcast_sim::network::trace::resolve_path(&mut sc.traffic, dir, from_set);
}

/// Scenario text (from `origin`) with `--set` overrides, parsed and
/// validated; a bad value written in the text is reported with its line
/// and column, one set by `--set` with the flag. The command line and the
/// Python package load scenarios through here.
pub fn checked(text: &str, sets: &[String], origin: &str) -> Result<Scenario, String> {
    let sc = Scenario::from_toml(text, sets, origin).map_err(|e| e.to_string())?;
    sc.validate()
        .map_err(|e| locate_error(e, text, origin, sets))?;
    Ok(sc)
}

/// A validation error with where its field was given: the last `--set` of
/// that key, or its line in the scenario file.
pub fn locate_error(
    e: wormcast_sim::InputError,
    text: &str,
    origin: &str,
    sets: &[String],
) -> String {
    let set = sets.iter().rev().find(|s| {
        s.split_once('=').is_some_and(|(k, _)| {
            e.field == k.trim() || e.field.starts_with(&format!("{}[", k.trim()))
        })
    });
    match (set, wormcast_sim::scenario::locate(text, &e.field)) {
        (Some(s), _) => format!("{e} (from --set {})", wormcast_sim::error::shorten(s)),
        (None, Some(at)) => format!("{e} ({origin}, {at})"),
        (None, None) => e.to_string(),
    }
}

pub fn run(a: RunArgs) -> Result<ExitCode, String> {
    if let Some(input) = a.scenario.as_deref() {
        output::refuse_overwriting_inputs(
            &[
                ("--json", a.json.as_deref()),
                ("--messages", a.messages.as_deref()),
                ("--vcd", a.vcd.as_deref()),
                ("--heatmap", a.heatmap.as_deref()),
                ("--replay", a.replay.as_deref()),
            ],
            &[("--scenario", input)],
        )?;
    }
    let mut sets = a.sets.clone();
    sets.extend(a.threads.map(|t| format!("run.threads={t}")));
    let sc = load_checked(&a.scenario, &sets)?;
    if a.dump_scenario {
        out!(
            "{}",
            toml::to_string(&sc).map_err(|e| format!("cannot print scenario: {e}"))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
    if !a.quiet {
        if let Some(w) = overload_warning(&net) {
            eprintln!("{w}");
        }
    }
    // Every output is checked before simulating: a bad path
    // costs nothing, and `-` sends the summary to stderr.
    let json = a.json.as_deref().map(|p| Dest::new("JSON", p));
    let messages = a.messages.as_deref().map(|p| Dest::new("CSV", p));
    let vcd = a.vcd.as_deref().map(|p| Dest::new("VCD", p));
    let heatmap = a.heatmap.as_deref().map(|p| Dest::new("heat map", p));
    let replay = a.replay.as_deref().map(|p| Dest::new("replay", p));
    let mut rec = match &replay {
        Some(_) => Some(Recorder::new(
            replay::parse_window(
                a.replay_window.as_deref(),
                sc.run.warmup,
                sc.run.total_cycles().unwrap_or(u64::MAX - 1),
            )?,
            a.replay_max_mb * 1_000_000,
        )),
        None => None,
    };
    let vcd_opts = match &vcd {
        Some(_) => Some((
            waves::parse_routers(&net.fabric.topo, a.vcd_routers.as_deref())
                .map_err(|e| e.to_string())?,
            waves::parse_window(a.vcd_window.as_deref()).map_err(|e| e.to_string())?,
        )),
        None => None,
    };
    output::prepare(&[
        json.as_ref(),
        messages.as_ref(),
        vcd.as_ref(),
        heatmap.as_ref(),
        replay.as_ref(),
    ])?;
    if a.engine == Engine::Verilator {
        let cache = wormcast_rtl::verilated::default_cache_dir();
        let quiet = a.quiet;
        let notice = |dir: &std::path::Path| {
            if !quiet {
                eprintln!(
                    "engine verilator: building the fabric's Verilog under Verilator into {} (a first build takes about a minute for a 2×2 fabric and grows with the routers a flat build inlines, 17 to 20 minutes for a flat 16×16; later runs take it from the cache, $WORMCAST_CACHE_DIR)",
                    dir.display()
                );
            }
        };
        let info = wormcast_rtl::verilated::attach_as_noticed(
            &mut net,
            &cache,
            a.verilator_build.mode(),
            &notice,
        )
        .map_err(|e| format!("engine verilator: {e}"))?;
        if !a.quiet {
            eprintln!(
                "engine verilator: {} {} {} ({:.1} s), {}",
                info.top,
                match info.mode {
                    wormcast_rtl::verilated::BuildMode::Hierarchical => "hierarchical",
                    _ => "flat",
                },
                if info.built {
                    "built"
                } else {
                    "from the cache"
                },
                info.seconds,
                info.library.display()
            );
        }
    }
    interrupt::install();
    let progress = Progress::new(&sc, a.quiet);
    let mut errors = Vec::new();
    if let Some(r) = rec.as_mut() {
        r.sample(&net);
    }
    let mut heat = heatmap
        .as_ref()
        .map(|_| crate::cli::heatmap::LinkCounts::new(&net, a.heat.heatmap_window));
    let report = match (&vcd, vcd_opts) {
        (Some(d), Some((routers, window))) => {
            let (r, e) = run_with_vcd(
                &mut net,
                d,
                &routers,
                window,
                &progress,
                (&mut rec, &mut heat),
            )?;
            errors.extend(e);
            r
        }
        _ => net.run(&mut |n| {
            if let Some(r) = rec.as_mut() {
                r.sample(n);
            }
            if let Some(h) = heat.as_mut() {
                h.sample(n);
            }
            progress.tick(n) && !interrupted()
        }),
    };
    progress.done();
    // Files first, then the summary: a closed stdout pipe ends the program
    // after everything asked for is on disk.
    if let Some(d) = &json {
        let file = RunJson {
            report: &report,
            provenance: crate::cli::provenance::Provenance::new(
                "run",
                a.scenario.as_deref(),
                &a.sets,
                &sc,
            ),
        };
        let text = serde_json::to_string_pretty(&file).expect("report serialises");
        if let Err(e) = d.write((text + "\n").as_bytes()) {
            errors.push(e);
        }
    }
    if let Some(d) = &messages {
        let r = d.writer().and_then(|w| {
            wormcast_sim::network::records::write_csv(&net, w).map_err(|e| d.stream_error(e))
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    if let (Some(d), Some(h)) = (&heatmap, &heat) {
        let data = crate::cli::heatmap::HeatData::of(&net, &report.construction, h);
        if let Err(e) = crate::cli::heatmap::write(d, &data, a.heat.heatmap_scale) {
            errors.push(e);
        }
    }
    if let (Some(d), Some(r)) = (&replay, &rec) {
        if let Err(e) = write_replay(d, r, &net, &report, a.replay_window.as_deref()) {
            errors.push(e);
        }
    }
    if !a.quiet {
        out!("{}", report.summary());
        if a.engine == Engine::Verilator && report.engine_mismatch.is_none() {
            outln!(
                "  engine verilator      the generated Verilog matched the native model at every NI port for all {} cycles",
                report.cycles
            );
        }
    }
    if !errors.is_empty() {
        // The summary above still shows what was simulated.
        return Err(errors.join("\nerror: "));
    }
    if let Some(m) = &report.engine_mismatch {
        eprintln!("error: the generated Verilog differs from the native model: {m}");
        return Ok(ExitCode::from(1));
    }
    // Messages left over after a drain that had room to finish them mean
    // the network wedged somewhere: as bad as a reported deadlock.
    let stuck = sc.run.drain_cycles > 0
        && report.unfinished_messages > 0
        && report.stop_reason == "end of drain";
    // `--quiet` silences the summary, not the reason for a failed run:
    // every non-zero exit says why on stderr.
    if stuck {
        eprintln!(
            "error: {} messages still unfinished after {} drain cycles",
            report.unfinished_messages, sc.run.drain_cycles
        );
    }
    let stalled = report.stop_reason == "trace stalled";
    if stalled {
        let why = (net.trace.as_ref())
            .and_then(|t| t.stalled())
            .unwrap_or_default();
        eprintln!(
            "error: the trace replay stalled at cycle {}: {why} (the report covers the run so far)",
            report.cycles
        );
    }
    if let Some(t) = report
        .trace
        .as_ref()
        .filter(|t| t.unreleased > 0 && !stalled)
    {
        // A window shorter than the trace is a way to replay its start:
        // said, not an error.
        eprintln!(
            "note: {} of {} trace messages were never released (the run ended at cycle {}; raise run.cycles to replay the whole trace)",
            t.unreleased, t.messages, report.cycles
        );
    }
    if report.deadlock {
        eprintln!(
            "error: the network deadlocked (the run stopped at cycle {})",
            report.cycles
        );
    }
    if !report.scoreboard_clean() {
        eprintln!(
            "error: the scoreboard is not clean: {} lost messages, {} duplicate deliveries, {} misdelivered, {} corrupted flits",
            report.lost_messages,
            report.duplicate_deliveries,
            report.misdelivered,
            report.corrupted_flits
        );
    }
    // The memory budget cut the run short: its report is written, but it
    // is not the run that was asked for.
    let over_budget = report.stop_reason.starts_with("message budget");
    if over_budget {
        eprintln!(
            "error: the run stopped at cycle {} holding {} messages, past run.max_messages = {} (the memory budget; the report covers the cycles simulated); allowed: a lower traffic.rate or shorter run, or a larger run.max_messages (at most 4e9; about {} bytes each)",
            report.cycles,
            report.delivered_messages + report.lost_messages + report.unfinished_messages,
            net.max_messages,
            wormcast_sim::network::budget::BUDGET_BYTES_PER_MESSAGE
        );
    }
    let clean = !report.deadlock && !stuck && !stalled && !over_budget && report.scoreboard_clean();
    Ok(if interrupted() {
        // Conventional status for SIGINT: the run is incomplete, whatever
        // the report says.
        ExitCode::from(130)
    } else if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `run --json`: the report's keys, then what produced it.
#[derive(serde::Serialize)]
struct RunJson<'a> {
    #[serde(flatten)]
    report: &'a Report,
    provenance: crate::cli::provenance::Provenance,
}

/// How far past its capacity the offered load must be for a warning: the
/// capacity is an upper bound, and runs just past saturation are asked
/// for on purpose (latency curves); a factor of 2 is overload whatever
/// the bound leaves out.
pub const OVERLOAD_FACTOR: f64 = 2.0;

/// A warning when the offered load is more than [`OVERLOAD_FACTOR`] times
/// the network's estimated capacity (`network::capacity`): such a run
/// accepts only the capacity, its source queues grow for the whole run,
/// and on a large network it takes long before the summary shows it.
pub fn overload_warning(net: &Network) -> Option<String> {
    let c = wormcast_sim::network::capacity::estimate(&net.scenario, &net.v, &net.trees)?;
    let rate = net.scenario.traffic.rate;
    (rate > OVERLOAD_FACTOR * c.rate).then(|| {
        format!(
            "warning: the offered load traffic.rate = {} msgs/node/cycle is {:.0}× this network's estimated capacity of at most {} msgs/node/cycle (bound by the {}; docs/decisions.md, \"Overload warning\"): the source queues will grow for the whole run and latency will be the run's length",
            wormcast_sim::decimal::fmt_rate(rate),
            rate / c.rate,
            wormcast_sim::decimal::fmt_rate(c.rate),
            c.bound
        )
    })
}

/// Runs `net` with a VCD writer in its `observe` callback. Its options are
/// checked (in `run`) before the file is created, so a typo leaves no empty
/// file. A
/// write error stops the run (there is no point simulating on without the
/// waveform that was asked for) and is returned beside the report, so the
/// other outputs and the summary are still written; the file is finished
/// and flushed however the run ended, deadlock included.
fn run_with_vcd(
    net: &mut Network,
    dest: &Dest,
    routers: &[wormcast_sim::topology::NodeId],
    window: waves::Window,
    progress: &Progress,
    (rec, heat): (
        &mut Option<Recorder>,
        &mut Option<crate::cli::heatmap::LinkCounts>,
    ),
) -> Result<(Report, Option<String>), String> {
    let io_err = |e: std::io::Error| dest.stream_error(e);
    let mut w = VcdWriter::new(&net.fabric, routers, window, dest.writer()?).map_err(io_err)?;
    let mut err = w.sample(&net.fabric).err();
    let report = net.run(&mut |n| {
        if err.is_none() {
            err = w.sample(&n.fabric).err();
        }
        if let Some(r) = rec.as_mut() {
            r.sample(n);
        }
        if let Some(h) = heat.as_mut() {
            h.sample(n);
        }
        progress.tick(n) && err.is_none() && !interrupted()
    });
    let finished = w.finish();
    Ok((report, err.or(finished.err()).map(io_err)))
}

/// Writes the replay page. A window the run never reached writes nothing
/// (the run can stop early: drained, deadlock); a trace cut by the size
/// limit is written up to the limit and still reported as an error, so a
/// script notices.
fn write_replay(
    d: &Dest,
    r: &Recorder,
    net: &Network,
    report: &Report,
    window: Option<&str>,
) -> Result<(), String> {
    if r.frames() == 0 {
        return Err(format!(
            "invalid --replay-window = `{}`: the run stopped at cycle {} ({}); allowed: a window starting at most there",
            window.map_or(format!("{}..{}", r.from, r.to), str::to_string),
            report.cycles,
            report.stop_reason
        ));
    }
    let what = format!("{}, {}", report.construction, report.traffic);
    d.write(r.page(net, &what).as_bytes())?;
    match r.truncated_at {
        Some(c) => Err(format!(
            "{}: the trace reached --replay-max-mb = {} at cycle {c}; the page holds cycles {}..{c} only; allowed: raise --replay-max-mb (at most 2000) or narrow --replay-window",
            d.name(),
            r.max_bytes / 1_000_000,
            r.from
        )),
        None => Ok(()),
    }
}

/// A progress bar on stderr for long runs; nothing when stderr is not a
/// terminal (CI logs, pipes) or with `--quiet`.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(sc: &Scenario, quiet: bool) -> Progress {
        let total = sc.run.window_end().unwrap_or(u64::MAX);
        let show = !quiet && std::io::stderr().is_terminal() && total >= 200_000;
        let bar = show.then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} cycles ({per_sec}, ETA {eta}) {msg}",
                )
                .expect("template"),
            );
            b
        });
        Progress { bar }
    }

    /// Called after every cycle; always true (never stops the run).
    fn tick(&self, n: &Network) -> bool {
        if let Some(b) = &self.bar {
            let c = n.cycle();
            if c.is_multiple_of(4096) {
                b.set_position(c.min(b.length().unwrap_or(c)));
                if c >= b.length().unwrap_or(u64::MAX) {
                    b.set_message("draining");
                }
            }
        }
        true
    }

    fn done(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
