//! `wormcast._native`: the Rust side of the Python package (docs/python.md).
//!
//! It is thin on purpose. Scenarios travel as the TOML text plus the
//! `--set` overrides the command line takes, and results come back as the
//! JSON the command line writes, so the two can never disagree: the same
//! parser, validation, error messages, sweep points and report. The Python
//! side (`python/wormcast/__init__.py`) turns them into objects.
//!
//! Three rules hold for every function here:
//! * long work runs with the interpreter released (`Python::detach`), so
//!   other Python threads run and a sweep's workers are never serialised;
//! * Ctrl-C (`KeyboardInterrupt`) is polled from the calling thread a few
//!   times a second and stops the work at its next cycle, and the partial
//!   result is returned as the command line writes it on Ctrl-C;
//! * no Rust panic crosses into Python: `guard` turns one into
//!   `wormcast.InternalError`.

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use wormcast::cli;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

pyo3::create_exception!(
    wormcast,
    ScenarioError,
    PyValueError,
    "A bad scenario, key, value or option: the message names the key, the value and what is allowed, as the command line's does."
);
pyo3::create_exception!(
    wormcast,
    InternalError,
    PyRuntimeError,
    "A bug in wormcast (a Rust panic), never a bad input: please report it with the scenario."
);

/// Runs `f`, turning a Rust panic into `InternalError`.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!(
                "wormcast panicked (a bug, not your input): {msg}"
            )))
        }
    }
}

fn bad(msg: impl Into<String>) -> PyErr {
    ScenarioError::new_err(msg.into())
}

/// Parses and validates a scenario exactly as `wormcast run` does, with
/// the same error text (the key, the value, what is allowed, and the
/// `--set` or file line that gave it).
fn load(text: &str, sets: &[String], origin: &str) -> PyResult<Scenario> {
    let mut sc = cli::run::checked(text, sets, origin).map_err(bad)?;
    // `Scenario.from_file` names its file as the origin: a trace is then
    // beside it, as with `--scenario`.
    let file = std::path::Path::new(origin);
    cli::run::resolve_trace(&mut sc, file.is_file().then_some(file), sets);
    Ok(sc)
}

/// What the caller asked to see while work runs: a terminal bar, a Python
/// callable `(done, total)`, both or neither.
struct Watch {
    bar: Option<indicatif::ProgressBar>,
    callback: Option<Py<PyAny>>,
    /// Between two visits to the interpreter.
    every: Duration,
    last: Instant,
    interrupted: bool,
    /// An exception of the callback or a signal handler other than
    /// Ctrl-C: stops the work and is raised after it.
    error: Option<PyErr>,
}

impl Watch {
    fn new(bar: bool, callback: Option<Py<PyAny>>, total: u64, unit: &str) -> Watch {
        let bar = (bar && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "{{bar:40}} {{pos}}/{{len}} {unit} ({{per_sec}}, ETA {{eta}})"
                ))
                .expect("template"),
            );
            b
        });
        Watch {
            bar,
            callback,
            every: Duration::from_millis(100),
            last: Instant::now(),
            interrupted: false,
            error: None,
        }
    }

    /// Called with the interpreter released; visits it when `every` has
    /// passed. False stops the work.
    fn poll(&mut self, done: u64, total: u64) -> bool {
        if self.last.elapsed() < self.every {
            return true;
        }
        self.last = Instant::now();
        if let Some(b) = &self.bar {
            b.set_position(done.min(total));
        }
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                if e.is_instance_of::<PyKeyboardInterrupt>(py) {
                    self.interrupted = true;
                } else {
                    self.error = Some(e);
                }
                return;
            }
            if let Some(cb) = &self.callback {
                if let Err(e) = cb.call1(py, (done, total)) {
                    self.error = Some(e);
                }
            }
        });
        !self.interrupted && self.error.is_none()
    }

    fn finish(self) -> PyResult<bool> {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.interrupted),
        }
    }
}

/// The effective scenario: (TOML as `run --dump-scenario` prints it, JSON).
#[pyfunction]
fn scenario(text: String, sets: Vec<String>, origin: String) -> PyResult<(String, String)> {
    guard(|| {
        let sc = load(&text, &sets, &origin)?;
        let toml = toml::to_string(&sc).map_err(|e| bad(format!("cannot print scenario: {e}")))?;
        let json = serde_json::to_string(&sc).map_err(|e| bad(e.to_string()))?;
        Ok((toml, json))
    })
}

/// A scenario file's text, refused past the command line's size cap.
#[pyfunction]
fn read_scenario(path: std::path::PathBuf) -> PyResult<String> {
    guard(|| cli::run::read_scenario(&path).map_err(bad))
}

/// A Python value, as `json.dumps` wrote it, read as TOML (`T`: a value
/// or a table); `what` says what TOML allows when it is not.
fn from_python_json<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> PyResult<T> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    serde_json::from_value(v).map_err(|e| bad(format!("{what}: {e}")))
}

/// A JSON value as a TOML literal for a `--set`.
#[pyfunction]
fn toml_literal(json: String) -> PyResult<String> {
    guard(|| {
        let t: toml::Value =
            from_python_json(&json, "not representable in TOML (None has no TOML form)")?;
        Ok(t.to_string())
    })
}

/// A nested table (a dict of sections) as TOML text.
#[pyfunction]
fn toml_document(json: String) -> PyResult<String> {
    guard(|| {
        let t: toml::Table = from_python_json(
            &json,
            "a scenario dict must be sections of keys with TOML values (no None)",
        )?;
        toml::to_string(&t).map_err(|e| bad(e.to_string()))
    })
}

/// `wormcast run`: (report JSON, per-message records JSON, interrupted).
#[pyfunction]
#[pyo3(signature = (text, sets, origin, bar, callback=None, messages=false))]
fn run(
    py: Python<'_>,
    text: String,
    sets: Vec<String>,
    origin: String,
    bar: bool,
    callback: Option<Py<PyAny>>,
    messages: bool,
) -> PyResult<(String, Option<String>, bool)> {
    guard(|| {
        let sc = load(&text, &sets, &origin)?;
        let total = sc.run.window_end().unwrap_or(u64::MAX);
        let (report, records, watch) = py.detach(|| -> PyResult<_> {
            let mut net = Network::new(&sc).map_err(|e| bad(e.to_string()))?;
            let mut watch = Watch::new(bar, callback, total, "cycles");
            let report = net.run(&mut |n| {
                // A clock read every 1024 cycles costs nothing measurable.
                !n.cycle().is_multiple_of(1024) || watch.poll(n.cycle(), total)
            });
            let records = messages
                .then(|| serde_json::to_string(&wormcast_sim::network::records::records(&net)));
            Ok((report, records, watch))
        })?;
        let interrupted = watch.finish()?;
        let json = serde_json::to_string(&report).map_err(|e| bad(e.to_string()))?;
        let records = records.transpose().map_err(|e| bad(e.to_string()))?;
        Ok((json, records, interrupted))
    })
}

/// `--schemes` of the command line: a comma list of names.
#[pyfunction]
fn parse_schemes(s: String) -> PyResult<Vec<String>> {
    guard(|| Ok(cli::sweep_out::parse_schemes(&s)))
}

/// `--loads` of the command line: `A..B/STEP` or a comma list.
#[pyfunction]
fn parse_loads(s: String) -> PyResult<Vec<f64>> {
    guard(|| cli::sweep::parse_loads(&s).map_err(|e| bad(e.to_string())))
}

/// `wormcast sweep`: (points JSON as the sweep JSON's `points`, complete).
/// The points run on `threads` workers (0: every core) with the
/// interpreter released, while the calling thread polls for Ctrl-C.
#[pyfunction]
#[pyo3(signature = (text, sets, origin, loads, schemes, threads, bar, callback=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    text: String,
    sets: Vec<String>,
    origin: String,
    loads: Vec<f64>,
    schemes: Vec<String>,
    threads: usize,
    bar: bool,
    callback: Option<Py<PyAny>>,
) -> PyResult<(String, bool)> {
    guard(|| {
        if schemes.is_empty() {
            return Err(bad(
                "invalid schemes = []: at least one, such as `dstm1`, `spam` or `dual-path`",
            ));
        }
        let mut jobs = cli::sweep::points(&text, &origin, &sets, &loads, &schemes).map_err(bad)?;
        let cores = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        };
        let workers = cli::sweep::divide_cores(&jobs, cores);
        cli::sweep::share_budget(&mut jobs, workers);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .map_err(|e| bad(format!("cannot start threads: {e}")))?;
        let stop = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let total = jobs.len() as u64;
        let (points, watch) = py.detach(|| {
            let mut watch = Watch::new(bar, callback, total, "points");
            let points = std::thread::scope(|s| {
                let worker = s.spawn(|| {
                    pool.install(|| {
                        jobs.par_iter()
                            .map(|(scheme, l, sc)| {
                                if stop.load(Ordering::Relaxed) {
                                    return Ok(None);
                                }
                                let mut net = Network::new(sc).map_err(|e| e.to_string())?;
                                let r = net.run(&mut |_| !stop.load(Ordering::Relaxed));
                                done.fetch_add(1, Ordering::Relaxed);
                                Ok(Some(cli::sweep_out::Point::of(scheme, *l, &r)))
                            })
                            .collect::<Result<Vec<_>, String>>()
                    })
                });
                while !worker.is_finished() {
                    std::thread::sleep(Duration::from_millis(20));
                    if !watch.poll(done.load(Ordering::Relaxed) as u64, total) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                match worker.join() {
                    Ok(r) => r,
                    Err(p) => std::panic::resume_unwind(p),
                }
            });
            (points, watch)
        });
        let interrupted = watch.finish()?;
        let points: Vec<_> = points.map_err(bad)?.into_iter().flatten().collect();
        let complete =
            !interrupted && points.iter().all(|p| p.complete) && points.len() == jobs.len();
        let json = serde_json::to_string(&points).map_err(|e| bad(e.to_string()))?;
        Ok((json, complete))
    })
}

/// `wormcast verify`: (verdict JSON, the text the command line prints,
/// deadlock-free).
#[pyfunction]
fn verify(
    py: Python<'_>,
    text: String,
    sets: Vec<String>,
    origin: String,
    cycles: usize,
    replay_trials: usize,
) -> PyResult<(String, String, bool)> {
    guard(|| {
        if cycles == 0 {
            return Err(bad(wormcast_sim::InputError::new(
                "cycles",
                0,
                "at least 1",
            )
            .to_string()));
        }
        let sc = load(&text, &sets, &origin)?;
        let v = py
            .detach(|| wormcast_sim::verify::verify(&sc, cycles, replay_trials))
            .map_err(|e| bad(e.to_string()))?;
        let json = serde_json::to_string(&v).map_err(|e| bad(e.to_string()))?;
        Ok((
            json,
            wormcast_sim::verify::render_text(&v),
            v.deadlock_free(),
        ))
    })
}

/// The subcommands a Python caller runs through the command line's own
/// parser and code: their flags, defaults and errors are the CLI's.
const COMMANDS: &[&str] = &["trees", "route", "verilog"];

/// Runs `wormcast ARGV...` in-process for one of [`COMMANDS`]: (exit
/// status, the text it printed). A parse error or bad input raises
/// `ScenarioError` with the command line's message.
#[pyfunction]
fn command(py: Python<'_>, argv: Vec<String>) -> PyResult<(u8, String)> {
    guard(|| {
        let name = argv.first().map(String::as_str).unwrap_or("");
        if !COMMANDS.contains(&name) {
            return Err(bad(format!(
                "invalid command = `{name}`: allowed: {}",
                COMMANDS.join(", ")
            )));
        }
        let parsed = <cli::Cli as clap::Parser>::try_parse_from(
            std::iter::once("wormcast".to_string()).chain(argv.iter().cloned()),
        )
        .map_err(|e| bad(e.render().to_string().trim_end().to_string()))?;
        let (result, text) = py.detach(|| cli::output::capture(|| cli::dispatch(parsed.command)));
        let code = result.map_err(bad)?;
        // ExitCode hides its value; the commands return 0, 1 or 2.
        let code = [0u8, 1, 2]
            .into_iter()
            .find(|&c| std::process::ExitCode::from(c) == code)
            .unwrap_or(1);
        Ok((code, text))
    })
}

/// Raises `InternalError` through [`guard`], as any panic would: the test
/// that no panic crosses into Python (python/tests/test_errors.py).
#[pyfunction]
fn _panic_for_test(msg: String) -> PyResult<()> {
    guard(|| panic!("{msg}"))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(scenario, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(toml_literal, m)?)?;
    m.add_function(wrap_pyfunction!(toml_document, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(parse_loads, m)?)?;
    m.add_function(wrap_pyfunction!(parse_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(command, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
