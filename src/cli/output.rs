//! Every byte the command line writes goes through here, so output failures
//! behave the same in every subcommand:
//!
//! * human text (`out!`, `outln!`) goes to stdout, or to stderr once a data
//!   output (`--json -`, ...) has claimed stdout, so stdout stays parseable;
//! * a closed stdout pipe (`| head`) ends the program quietly with status
//!   141, what a shell reports for a tool killed by SIGPIPE; files finished
//!   before that stay complete (commands write their files before their
//!   tables);
//! * any other write error (disk full, `/dev/full`, unwritable file) is a
//!   clear error and exit status 2, never a panic;
//! * output files are opened before the work starts ([`prepare`]), so a
//!   typo in a path does not cost a whole simulation.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

static HUMAN_TO_STDERR: AtomicBool = AtomicBool::new(false);

/// Human text, `print!`-style.
macro_rules! out {
    ($($t:tt)*) => {
        $crate::cli::output::human(format_args!($($t)*))
    };
}

/// Human text, `println!`-style.
macro_rules! outln {
    () => {
        $crate::cli::output::human(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::cli::output::human(format_args!("{}\n", format_args!($($t)*)))
    };
}

thread_local! {
    /// Human text of the commands run by [`capture`] on this thread.
    static CAPTURED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's human text collected instead of printed,
/// and returns it beside `f`'s result: how the Python package runs a
/// subcommand (`trees --json`, `route --json`, `verilog`) in-process and
/// hands its output to the caller, where a process exit on a failed
/// stdout write would end the interpreter.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(String::new()));
    let r = f();
    let text = CAPTURED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    (r, text.unwrap_or_default())
}

/// Writes human text to stdout (stderr once stdout carries data), or to
/// the [`capture`] in force on this thread.
pub fn human(args: fmt::Arguments) {
    let captured = CAPTURED.with(|c| {
        c.borrow_mut()
            .as_mut()
            .map(|s| fmt::Write::write_fmt(s, args).is_ok())
    });
    if captured.is_some() {
        return;
    }
    let r = if HUMAN_TO_STDERR.load(Ordering::Relaxed) {
        io::stderr().lock().write_fmt(args)
    } else {
        io::stdout().lock().write_fmt(args)
    };
    if let Err(e) = r {
        stdout_failed(e);
    }
}

/// Flushes stdout at the end of `main`: a last line without a newline is
/// still in the buffer, and its write error must not be lost.
pub fn finish() {
    if let Err(e) = io::stdout().lock().flush() {
        stdout_failed(e);
    }
}

/// A write to stdout (or stderr) failed: quiet exit on a closed pipe, an
/// error and status 2 otherwise.
fn stdout_failed(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    let _ = writeln!(io::stderr(), "error: cannot write to standard output: {e}");
    std::process::exit(2);
}

/// Where a data output goes: a file, or stdout for `-`; with what it is
/// (`JSON`, `VCD`, ...) for the error messages.
#[derive(Debug, Clone)]
pub enum Dest {
    Stdout(&'static str),
    File(&'static str, PathBuf),
}

impl Dest {
    pub fn new(what: &'static str, p: &Path) -> Dest {
        if p.as_os_str() == "-" {
            Dest::Stdout(what)
        } else {
            Dest::File(what, p.to_path_buf())
        }
    }

    /// `JSON x.json` or `JSON on standard output`.
    pub fn name(&self) -> String {
        match self {
            Dest::Stdout(w) => format!("{w} on standard output"),
            Dest::File(w, p) => format!("{w} {}", p.display()),
        }
    }

    fn err(&self, e: io::Error) -> String {
        format!("cannot write {}: {e}", self.name())
    }

    /// Writes the whole output. A stdout failure ends the program (see the
    /// module doc); a file failure is returned so the caller can still
    /// print its summary.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Dest::Stdout(_) => {
                let mut o = io::stdout().lock();
                if let Err(e) = o.write_all(bytes).and_then(|_| o.flush()) {
                    stdout_failed(e);
                }
                Ok(())
            }
            Dest::File(_, p) => std::fs::write(p, bytes).map_err(|e| self.err(e)),
        }
    }

    /// A streaming writer (CSV, VCD); errors come back from its writes.
    pub fn writer(&self) -> Result<Box<dyn Write>, String> {
        Ok(match self {
            Dest::Stdout(_) => Box::new(io::BufWriter::new(io::stdout())),
            Dest::File(_, p) => Box::new(io::BufWriter::new(
                std::fs::File::create(p).map_err(|e| self.err(e))?,
            )),
        })
    }

    /// Maps an error of a streaming write to the message of this output,
    /// ending the program quietly on a closed stdout pipe.
    pub fn stream_error(&self, e: io::Error) -> String {
        if matches!(self, Dest::Stdout(_)) {
            stdout_failed(e);
        }
        self.err(e)
    }
}

/// Refuses an output that is the same file as an input, before anything
/// runs: writing it would replace the input (`--scenario f.toml --json
/// f.toml`). `outputs` and `inputs` are `(flag, path)`; an output `-` and
/// missing paths are skipped. Two existing paths are the same file when
/// they share device and inode (hard links, `./f.toml` and `f.toml`); an
/// output that does not exist yet is compared by canonical path. Inputs
/// that are not regular files (`/dev/null`, a pipe) are not overwritten by
/// a write and are let through.
pub fn refuse_overwriting_inputs(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[(&str, &Path)],
) -> Result<(), String> {
    for &(out_flag, out) in outputs {
        let Some(out) = out.filter(|p| p.as_os_str() != "-") else {
            continue;
        };
        for &(in_flag, input) in inputs {
            if same_file(out, input) {
                return Err(format!(
                    "invalid {out_flag} = `{}`: it is the same file as the input {in_flag} `{}`, which writing it would replace; allowed: a path that is not an input",
                    out.display(),
                    input.display()
                ));
            }
        }
    }
    Ok(())
}

/// Whether the output path `out` names the regular file `input`.
fn same_file(out: &Path, input: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(i) = std::fs::metadata(input) else {
        return false;
    };
    if !i.is_file() {
        return false;
    }
    if let Ok(o) = std::fs::metadata(out) {
        return o.dev() == i.dev() && o.ino() == i.ino();
    }
    // The output does not exist yet: only its canonical path can say.
    let canonical_out = match (out.parent(), out.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::canonicalize(dir).map(|d| d.join(name))
        }
        _ => return false,
    };
    match (canonical_out, std::fs::canonicalize(input)) {
        (Ok(o), Ok(i)) => o == i,
        _ => false,
    }
}

/// Checks every output before the work starts: at most one goes to stdout
/// (then human text goes to stderr), and every file can be opened for
/// writing. An existing file is left as it is until its content is
/// written; a missing one is created to prove it can be, and removed
/// again, so a command that fails before writing leaves no empty file.
pub fn prepare(dests: &[Option<&Dest>]) -> Result<(), String> {
    let mut stdout = 0;
    for d in dests.iter().flatten() {
        match d {
            Dest::Stdout(_) => stdout += 1,
            Dest::File(_, p) => {
                if p.is_dir() {
                    return Err(format!("cannot write {}: it is a directory", d.name()));
                }
                let existed = std::fs::symlink_metadata(p).is_ok();
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(p)
                    .map_err(|e| d.err(e))?;
                if !existed {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    }
    if stdout > 1 {
        return Err(format!(
            "{stdout} outputs are `-` (standard output); at most one may be"
        ));
    }
    if stdout == 1 {
        HUMAN_TO_STDERR.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// A node as `(x,y)`, the way every table prints it.
pub fn pt([x, y]: [u32; 2]) -> String {
    format!("({x},{y})")
}
