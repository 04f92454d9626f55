//! Ctrl-C and SIGTERM handling shared by long-running subcommands.
//!
//! The first signal asks the run to stop at the next cycle so it can still
//! write what it has. Schedulers send SIGTERM at a time limit (Slurm, then
//! SIGKILL), and `timeout` sends its signal to the child and to the process
//! group, so one request often arrives twice: a second signal must not lose
//! the finished part of the run. It only repeats that the partial results
//! are being written; a third one quits at once without writing.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static INSTALL: Once = Once::new();

/// Installs the handler for SIGINT and SIGTERM (idempotent; the `ctrlc`
/// crate's `termination` feature). Failure to install (no signal support)
/// only means a signal kills the process as usual.
pub fn install() {
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| match SIGNALS.fetch_add(1, Ordering::SeqCst) {
            0 => eprintln!(
                "\ninterrupt: stopping after the current cycle and writing partial results (signal twice more to quit without writing)"
            ),
            1 => eprintln!("interrupt: still writing partial results (once more to quit without writing)"),
            _ => std::process::exit(130),
        });
    });
}

pub fn requested() -> bool {
    SIGNALS.load(Ordering::Relaxed) > 0
}
