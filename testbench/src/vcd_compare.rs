//! Compares the native model's VCD (`sim/src/waves.rs`) with the VCD that
//! iverilog dumps from the generated Verilog, signal by signal and cycle by
//! cycle, through the one name mapping of [`crate::signals`].
//!
//! A small VCD reader is enough here: both files are written by known
//! tools, and only scalar and vector value changes matter. Values containing
//! `x` or `z` read as unknown and never equal a number.

use crate::signals::{native_scope, router_signals, verilog_instance};
use std::collections::HashMap;
use wormcast_sim::config::RouterParams;
use wormcast_sim::topology::Topology;

/// One VCD file: variables by full dotted name, value changes by id.
#[derive(Debug, Default)]
pub struct Vcd {
    /// `scope.scope.name` → id code.
    pub vars: HashMap<String, String>,
    /// id code → changes `(time, value)`, time ascending; `None` = x/z.
    pub changes: HashMap<String, Vec<(u64, Option<u64>)>>,
}

impl Vcd {
    pub fn parse(text: &str) -> Result<Vcd, String> {
        let mut v = Vcd::default();
        let mut scopes: Vec<String> = Vec::new();
        let mut toks = text.split_ascii_whitespace();
        let mut t = 0u64;
        let mut in_defs = true;
        while let Some(tok) = toks.next() {
            if in_defs {
                match tok {
                    "$scope" => {
                        let _kind = toks.next();
                        let name = toks.next().ok_or("truncated $scope")?;
                        // iverilog escapes identifiers containing `$`.
                        scopes.push(name.trim_start_matches('\\').to_string());
                    }
                    "$upscope" => {
                        scopes.pop();
                    }
                    "$var" => {
                        let _ty = toks.next();
                        let _w = toks.next();
                        let id = toks.next().ok_or("truncated $var")?.to_string();
                        let name = toks.next().ok_or("truncated $var")?;
                        let mut full = scopes.join(".");
                        full.push('.');
                        full.push_str(name.trim_start_matches('\\'));
                        v.vars.insert(full, id.clone());
                        v.changes.entry(id).or_default();
                    }
                    "$enddefinitions" => in_defs = false,
                    _ => {}
                }
                continue;
            }
            if let Some(ts) = tok.strip_prefix('#') {
                t = ts.parse().map_err(|_| format!("bad timestamp {tok}"))?;
            } else if tok.starts_with('$') {
                // $dumpvars / $end / $comment …: structure only.
            } else if let Some(bits) = tok.strip_prefix(['b', 'B']) {
                let id = toks.next().ok_or("truncated vector change")?;
                let val = u64::from_str_radix(bits, 2).ok();
                if let Some(c) = v.changes.get_mut(id) {
                    c.push((t, val));
                }
            } else if tok.starts_with(['r', 'R']) {
                toks.next();
            } else {
                let (b, id) = tok.split_at(1);
                let val = match b {
                    "0" => Some(0),
                    "1" => Some(1),
                    _ => None,
                };
                if let Some(c) = v.changes.get_mut(id) {
                    c.push((t, val));
                }
            }
        }
        Ok(v)
    }

    /// Value of variable `name` at time `t` (the last change at or before
    /// `t`); `Err` if the variable does not exist.
    pub fn value_at(&self, name: &str, t: u64) -> Result<Option<u64>, String> {
        let id = self
            .vars
            .get(name)
            .ok_or_else(|| format!("no variable `{name}` in the VCD"))?;
        let ch = &self.changes[id];
        let k = ch.partition_point(|&(ct, _)| ct <= t);
        Ok(if k == 0 { None } else { ch[k - 1].1 })
    }
}

/// What a waveform comparison covered.
#[derive(Debug, Clone, Default)]
pub struct WaveStats {
    pub signals: usize,
    pub samples: u64,
}

/// Verilog VCD time at which the registers after edge `c` are sampled
/// (see the timing of [`crate::vectors`]: edge at `10c+5`, check at `10c+9`).
pub fn verilog_time(c: u64) -> u64 {
    10 * c + 9
}

/// Compares every router signal of every router, cycles `0..=cycles`.
/// `tb_prefix` is the scope of the fabric instance in the Verilog VCD
/// (`tb.dut`). `Err` names the first difference: cycle, router, both names
/// and both values.
pub fn compare_fabric(
    native: &Vcd,
    verilog: &Vcd,
    topo: &Topology,
    p: &RouterParams,
    tb_prefix: &str,
    cycles: u64,
) -> Result<WaveStats, String> {
    let sigs = router_signals(p, true);
    let mut st = WaveStats::default();
    let mut pairs = Vec::new();
    for node in 0..topo.nodes() {
        let (x, y) = topo.coord(node);
        for s in &sigs {
            pairs.push((
                node,
                format!("{}.{}", native_scope(x, y), s.native),
                format!("{tb_prefix}.{}.{}", verilog_instance(node), s.verilog),
            ));
        }
    }
    st.signals = pairs.len();
    for c in 0..=cycles {
        for (node, n, v) in &pairs {
            let a = native.value_at(n, c)?;
            let b = verilog.value_at(v, verilog_time(c))?;
            if a.is_none() || a != b {
                return Err(format!(
                    "cycle {c} router {node}: native {n} = {a:?}, Verilog {v} = {b:?}"
                ));
            }
            st.samples += 1;
        }
    }
    Ok(st)
}
