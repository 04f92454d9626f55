//! Per-message records as CSV: one row per message with its injection time
//! and every destination's delivery time, for analyses the aggregate report
//! does not cover (latency distributions per destination count, per source,
//! over time).

use super::Network;
use std::io::Write;

/// Writes the header and one row per message. Times are cycles; an empty
/// field means "not yet" (never injected / not delivered when the run stopped).
/// `deliveries` lists `x,y@cycle` per destination, separated by `;`.
pub fn write_csv<W: Write>(net: &Network, mut w: W) -> std::io::Result<()> {
    let topo = &net.v.topo;
    writeln!(w, "message,source_x,source_y,destinations,class,length,created,injected,finished,latency,deliveries")?;
    let opt = |t: u64| {
        if t == u64::MAX {
            String::new()
        } else {
            t.to_string()
        }
    };
    for (id, m) in net.msgs.iter().enumerate() {
        let (sx, sy) = topo.coord(m.source);
        let fin = m.finished();
        let deliveries: Vec<String> = m
            .dests
            .iter()
            .zip(&m.delivered)
            .map(|(&d, &t)| {
                let (x, y) = topo.coord(d);
                format!("{x},{y}@{}", opt(t))
            })
            .collect();
        writeln!(
            w,
            "{id},{sx},{sy},{},{},{},{},{},{},{},\"{}\"",
            m.dests.len(),
            m.class,
            m.length,
            m.created,
            opt(m.injected),
            fin.map(|f| f.to_string()).unwrap_or_default(),
            fin.map(|f| (f - m.created).to_string()).unwrap_or_default(),
            deliveries.join(";")
        )?;
    }
    w.flush()
}
