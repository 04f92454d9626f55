//! Per-message records: one per message with its injection time and every
//! destination's delivery time, for analyses the aggregate report does not
//! cover (latency distributions per destination count, per source, over
//! time). The command line writes them as CSV (`run --messages`), the
//! Python package as a list of dicts; both read [`records`].

use super::Network;
use serde::Serialize;
use std::io::Write;

/// One message. Times are cycles; `None` means "not yet" (never injected,
/// or not delivered when the run stopped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    pub message: usize,
    pub source_x: u32,
    pub source_y: u32,
    /// Number of destinations.
    pub destinations: usize,
    pub class: u8,
    pub length: u32,
    pub created: u64,
    pub injected: Option<u64>,
    pub finished: Option<u64>,
    pub latency: Option<u64>,
    /// Each destination with its delivery cycle.
    pub deliveries: Vec<Delivery>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Delivery {
    pub x: u32,
    pub y: u32,
    pub cycle: Option<u64>,
}

/// Every message of the run so far, in creation order.
pub fn records(net: &Network) -> Vec<Record> {
    let topo = &net.v.topo;
    let opt = |t: u64| (t != u64::MAX).then_some(t);
    let xy = |n| {
        let (x, y) = topo.coord(n);
        [x, y]
    };
    net.msgs
        .iter()
        .enumerate()
        .map(|(id, m)| {
            let fin = m.finished();
            Record {
                message: id,
                source_x: xy(m.source)[0],
                source_y: xy(m.source)[1],
                destinations: m.dests.len(),
                class: m.class,
                length: m.length,
                created: m.created,
                injected: opt(m.injected),
                finished: fin,
                latency: fin.map(|f| f - m.created),
                deliveries: m
                    .dests
                    .iter()
                    .zip(&m.delivered)
                    .map(|(&d, &t)| Delivery {
                        x: xy(d)[0],
                        y: xy(d)[1],
                        cycle: opt(t),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Writes the header and one row per message; an empty field is `None`.
/// `deliveries` lists `x,y@cycle` per destination, separated by `;`.
pub fn write_csv<W: Write>(net: &Network, mut w: W) -> std::io::Result<()> {
    writeln!(w, "message,source_x,source_y,destinations,class,length,created,injected,finished,latency,deliveries")?;
    let opt = |t: Option<u64>| t.map(|t| t.to_string()).unwrap_or_default();
    for r in records(net) {
        let deliveries: Vec<String> = r
            .deliveries
            .iter()
            .map(|d| format!("{},{}@{}", d.x, d.y, opt(d.cycle)))
            .collect();
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},\"{}\"",
            r.message,
            r.source_x,
            r.source_y,
            r.destinations,
            r.class,
            r.length,
            r.created,
            opt(r.injected),
            opt(r.finished),
            opt(r.latency),
            deliveries.join(";")
        )?;
    }
    w.flush()
}
