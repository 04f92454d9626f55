//! Progress bars of the long steps that are not simulations (`trees` on a
//! large torus, `verify`'s witness search): shown on stderr when it is a
//! terminal and the step is expected to take more than a few seconds;
//! hidden otherwise, so logs, pipes and tests see no bar text. Runs and
//! sweeps draw their own (`run::Progress`, `sweep`).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` `unit`s, drawn only when `show` and stderr is a
/// terminal.
pub fn bar(len: u64, unit: &str, show: bool) -> ProgressBar {
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} {{bar:40}} {{pos}}/{{len}} {unit} ({{elapsed}}, ETA {{eta}})"
        ))
        .expect("template"),
    );
    b
}
