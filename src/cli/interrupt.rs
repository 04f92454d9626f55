//! Ctrl-C handling shared by long-running subcommands: the first Ctrl-C asks
//! the run to stop at the next cycle so it can still write what it has; a
//! second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

static STOP: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// Installs the handler (idempotent). Failure to install (e.g. no signal
/// support) only means Ctrl-C kills the process as usual.
pub fn install() {
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: stopping after the current cycle and writing partial results (Ctrl-C again to quit now)");
        });
    });
}

pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}
