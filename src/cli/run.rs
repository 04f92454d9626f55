//! `wormcast run`: simulate a scenario and report.

use crate::cli::interrupt::{self, requested as interrupted};
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
    /// Print nothing but errors (and the JSON if it goes to stdout).
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the registers of the chosen routers as a VCD waveform (GTKWave);
    /// 1 cycle = 1 time unit. See docs/waveforms.md.
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
    /// destination's delivery time).
    #[arg(long, value_name = "OUT.csv")]
    pub messages: Option<PathBuf>,
    /// `native` (the cycle model) or `verilator`: the generated Verilog of
    /// the whole fabric under Verilator, driven by the same NIs and checked
    /// against the native model at the NI ports every cycle (the first
    /// difference stops the run). The build is cached per configuration
    /// (`$WORMCAST_CACHE_DIR`, default ~/.cache/wormcast).
    #[arg(long, value_enum, default_value_t = Engine::Native)]
    pub engine: Engine,
    /// Print the effective scenario (file, overrides and defaults) as TOML
    /// and exit without simulating.
    #[arg(long)]
    pub dump_scenario: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    #[default]
    Native,
    Verilator,
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
    if a.dump_scenario {
        sc.validate().map_err(|e| e.to_string())?;
        print!(
            "{}",
            toml::to_string(&sc).map_err(|e| format!("cannot print scenario: {e}"))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut net = Network::new(&sc).map_err(|e| e.to_string())?;
    if a.engine == Engine::Verilator {
        let cache = wormcast_rtl::verilated::default_cache_dir();
        let info = wormcast_rtl::verilated::attach(&mut net, &cache)
            .map_err(|e| format!("engine verilator: {e}"))?;
        if !a.quiet {
            eprintln!(
                "engine verilator: {} {} ({:.1} s), {}",
                info.top,
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
    let report = match &a.vcd {
        None => net.run(&mut |n| progress.tick(n) && !interrupted()),
        Some(path) => run_with_vcd(&mut net, path, &a, &progress)?,
    };
    progress.done();
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises");
        if path.as_os_str() == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n")
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    if let Some(path) = &a.messages {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        wormcast_sim::network::records::write_csv(&net, std::io::BufWriter::new(f))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if !a.quiet {
        print!("{}", report.summary());
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
    if stuck && !a.quiet {
        eprintln!(
            "warning: {} messages still unfinished after {} drain cycles",
            report.unfinished_messages, sc.run.drain_cycles
        );
    }
    let clean = !report.deadlock && !stuck && report.scoreboard_clean();
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

/// Runs `net` with a VCD writer in its `observe` callback. Options are
/// checked before the file is created, so a typo leaves no empty file. A
/// write error stops the run (there is no point simulating on without the
/// waveform that was asked for) and is reported after the summary; the file
/// is finished and flushed however the run ended, deadlock included.
fn run_with_vcd(
    net: &mut Network,
    path: &PathBuf,
    a: &RunArgs,
    progress: &Progress,
) -> Result<Report, String> {
    let routers = waves::parse_routers(&net.fabric.topo, a.vcd_routers.as_deref())
        .map_err(|e| e.to_string())?;
    let window = waves::parse_window(a.vcd_window.as_deref()).map_err(|e| e.to_string())?;
    let io_err = |e: std::io::Error| format!("cannot write VCD {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(io_err)?;
    let mut w = VcdWriter::new(&net.fabric, &routers, window, std::io::BufWriter::new(file))
        .map_err(io_err)?;
    let mut err = w.sample(&net.fabric).err();
    let report = net.run(&mut |n| {
        if err.is_none() {
            err = w.sample(&n.fabric).err();
        }
        progress.tick(n) && err.is_none() && !interrupted()
    });
    let finished = w.finish();
    if let Some(e) = err.or(finished.err()) {
        if !a.quiet {
            print!("{}", report.summary());
        }
        return Err(io_err(e));
    }
    Ok(report)
}

/// A progress bar on stderr for long runs; nothing when stderr is not a
/// terminal (CI logs, pipes) or with `--quiet`.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(sc: &Scenario, quiet: bool) -> Progress {
        let total = sc.run.warmup + sc.run.cycles;
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
