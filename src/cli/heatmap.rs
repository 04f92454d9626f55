//! Link heat maps (`run --heatmap`, `sweep --heatmap-dir`):
//! where the hot links are and which sources starve, at a glance.
//!
//! Everything drawn comes from the kernel's own counters after the run:
//! link utilisation is `Fabric::sent` (flits that left each router output,
//! counted at the clock edge since cycle 0) over the cycles simulated, the
//! same figure as the report's `link_utilisation_mean/max`; the class of a
//! link direction is its routers' `out_class` (a tree of DSTM, a channel
//! class of the Hamiltonian schemes), so per-class panels need no new
//! counter and no simulated bit changed. Node colour is accepted
//! throughput per source: messages of that source whose last TAIL was
//! consumed inside the measurement window, per window cycle (the report's
//! `source_throughput_min/median`).
//!
//! Layout: one panel per channel class (small multiples: a link direction
//! is drawn, coloured, in the panel of its class and as a faint grey trace
//! in the others, so each panel still shows the whole fabric). Each
//! direction of a link is its own arrow, offset to its right-hand side, so
//! the two directions of a link never hide each other. A torus wrap link
//! is drawn as two stubs, one leaving the border at the sender and one
//! entering the opposite border at the receiver, with the same colour.

use crate::cli::output::Dest;
use plotters::coord::Shift;
use plotters::prelude::*;
use wormcast_sim::config::MAX_OUTPUTS;
use wormcast_sim::network::Network;
use wormcast_sim::topology::{Dir, NodeId, Topology};

/// Fewest messages a source must have offered in the window for its colour
/// to mean something: below this the node is drawn grey (its rate rests
/// on too few messages to compare), whatever it accepted. A starved source
/// that offered many and delivered none stays dark purple.
pub const MIN_SAMPLES: u64 = 10;

/// Which cycles the link colours count (`--heatmap-window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Span {
    /// The measurement window only: warm-up and drain excluded, the
    /// cycles the node colours (and the report's throughput) count.
    Window,
    /// Every simulated cycle, warm-up and drain included.
    All,
}

/// `--heatmap-scale`: the top of the colour scales.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Each map its own: the busiest link rounded up to a tenth, the best
    /// served source.
    Auto,
    /// One scale for every map of a sweep (for one map, as `auto`), so
    /// maps compare by eye.
    Common,
    /// The link scale tops at this many flits per cycle (0 < max <= 1);
    /// the node scale is each map's own.
    Max(f64),
}

impl std::str::FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Scale, String> {
        match s {
            "auto" => Ok(Scale::Auto),
            "common" => Ok(Scale::Common),
            _ => match s.parse::<f64>() {
                Ok(x) if x > 0.0 && x <= 1.0 => Ok(Scale::Max(x)),
                _ => Err(format!(
                    "`{s}`: allowed: `auto`, `common` or a link utilisation above 0 and at most 1 (flits per cycle)"
                )),
            },
        }
    }
}

/// The heat map options `run` and `sweep` share.
#[derive(clap::Args, Debug, Clone)]
pub struct HeatOpts {
    /// Top of the heat maps' colour scales: `common` (one scale for all of
    /// a sweep's maps, so they compare by eye; for one map as `auto`),
    /// `auto` (each map its own), or a link utilisation in flits per cycle
    /// (0 < MAX <= 1; nodes then each map's own).
    #[arg(long, value_name = "auto|common|MAX", default_value = "common")]
    pub heatmap_scale: Scale,
    /// Cycles the heat map's link colours count: `window` (the measurement
    /// window, warm-up and drain excluded, as the node colours) or `all`.
    #[arg(long, value_enum, default_value_t = Span::Window)]
    pub heatmap_window: Span,
}

impl Default for HeatOpts {
    fn default() -> HeatOpts {
        HeatOpts {
            heatmap_scale: Scale::Common,
            heatmap_window: Span::Window,
        }
    }
}

/// Per-direction flit counts at the start and the end of the span the
/// link colours count: `Fabric::sent` is cumulative from cycle 0, so the
/// span's flits are the difference of two snapshots. Sample it before the
/// run and after every cycle (the run's `observe` callback).
#[derive(Debug, Clone)]
pub struct LinkCounts {
    span: Span,
    from: u64,
    to: u64,
    start: Option<Vec<[u64; MAX_OUTPUTS]>>,
    end: Option<(u64, Vec<[u64; MAX_OUTPUTS]>)>,
}

impl LinkCounts {
    /// Counts for `net`, not yet run (or at any cycle up to the span's start).
    pub fn new(net: &Network, span: Span) -> LinkCounts {
        let r = &net.scenario.run;
        let (from, to) = match span {
            Span::Window => (r.warmup, r.window_end().unwrap_or(u64::MAX)),
            Span::All => (0, u64::MAX),
        };
        let mut c = LinkCounts {
            span,
            from,
            to,
            start: None,
            end: None,
        };
        c.sample(net);
        c
    }

    /// Takes the snapshots at the span's first and last cycle.
    pub fn sample(&mut self, net: &Network) {
        let c = net.cycle();
        if c == self.from && self.start.is_none() {
            self.start = Some(net.fabric.sent.clone());
        }
        if c == self.to && self.end.is_none() {
            self.end = Some((c, net.fabric.sent.clone()));
        }
    }

    /// `(first cycle, end cycle, flits per direction)` of the span, as far
    /// as the run got: a run that stopped early ends the span there; one
    /// that stopped before the span began has an empty span.
    fn flits(&self, net: &Network) -> (u64, u64, Vec<[u64; MAX_OUTPUTS]>) {
        let now = net.cycle();
        let (end, last) = match &self.end {
            Some((c, v)) => (*c, v.clone()),
            None => (now, net.fabric.sent.clone()),
        };
        match &self.start {
            Some(s) => {
                let d = last
                    .iter()
                    .zip(s)
                    .map(|(a, b)| std::array::from_fn(|i| a[i] - b[i]))
                    .collect();
                (self.from, end.max(self.from), d)
            }
            None => (end, end, vec![[0; MAX_OUTPUTS]; last.len()]),
        }
    }
}

/// One direction of one wired link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkUse {
    pub from: NodeId,
    pub dir: Dir,
    pub to: NodeId,
    /// `out_class` of the sending port.
    pub class: u8,
    /// Flits sent over it per cycle of the span, 0..=1.
    pub util: f64,
}

/// What a heat map shows, taken from a finished run.
#[derive(Debug, Clone)]
pub struct HeatData {
    pub topo: Topology,
    pub links: Vec<LinkUse>,
    /// Per node: accepted messages per window cycle as a source; `None`
    /// for a node cut out of a faulty mesh.
    pub source_rate: Vec<Option<f64>>,
    /// Per node: messages it offered (created) inside the window, the
    /// sample its colour rests on; below [`MIN_SAMPLES`] it is drawn grey.
    pub offered: Vec<u64>,
    /// Link directions of the topology no class uses (DSTM's links in
    /// neither tree, faulty links, mesh channels a scheme never takes): not
    /// wired in the fabric, drawn as thin dotted traces.
    pub unused: Vec<(NodeId, Dir, NodeId)>,
    /// Distinct classes, ascending.
    pub classes: Vec<u8>,
    pub title: String,
    /// What the link colours count, in words (cycles, warm-up and drain).
    pub span: String,
}

impl HeatData {
    /// `construction` names the scheme in the title (the report's words);
    /// `counts` are the link flits of the span it was sampled for.
    pub fn of(net: &Network, construction: &str, counts: &LinkCounts) -> HeatData {
        let f = &net.fabric;
        let topo = f.topo;
        let (s0, s1, flits) = counts.flits(net);
        let cycles = s1.saturating_sub(s0).max(1) as f64;
        let mut links = Vec::new();
        let mut unused = Vec::new();
        for u in 0..topo.nodes() {
            for d in Dir::ALL {
                let (Some((v, _)), Some(class)) = (
                    f.downstream[u as usize][d.index()],
                    f.cfg[u as usize].out_class[d.index()],
                ) else {
                    if let Some(v) = topo.neighbor(u, d) {
                        unused.push((u, d, v));
                    }
                    continue;
                };
                links.push(LinkUse {
                    from: u,
                    dir: d,
                    to: v,
                    class,
                    util: flits[u as usize][d.index()] as f64 / cycles,
                });
            }
        }
        let mut classes: Vec<u8> = links.iter().map(|l| l.class).collect();
        classes.sort_unstable();
        classes.dedup();
        let r = &net.scenario.run;
        let (w0, w1) = (r.warmup, r.window_end().unwrap_or(u64::MAX));
        let win = w1.min(net.cycle()).saturating_sub(w0).max(1) as f64;
        let mut per = vec![0u64; topo.nodes() as usize];
        let mut offered = vec![0u64; topo.nodes() as usize];
        for m in &net.msgs {
            if let Some(t) = m.finished() {
                if t >= w0 && t < w1 {
                    per[m.source as usize] += 1;
                }
            }
            if m.created >= w0 && m.created < w1 {
                offered[m.source as usize] += 1;
            }
        }
        let source_rate = per
            .iter()
            .enumerate()
            .map(|(u, &c)| (!net.v.excluded(u as NodeId)).then_some(c as f64 / win))
            .collect();
        let span = match counts.span {
            Span::Window => format!(
                "links: cycles {s0}..{s1}, the measurement window (warm-up and drain excluded)"
            ),
            Span::All => format!("links: cycles {s0}..{s1}, warm-up and drain included"),
        };
        HeatData {
            title: format!(
                "{construction}, {topo}, offered {} msgs/node/cycle",
                net.scenario.traffic.rate,
            ),
            span,
            topo,
            links,
            unused,
            source_rate,
            offered,
            classes,
        }
    }

    /// The busiest link direction's utilisation.
    pub fn link_max(&self) -> f64 {
        self.links.iter().map(|l| l.util).fold(0.0, f64::max)
    }

    /// The best-served source's accepted rate.
    pub fn node_max(&self) -> f64 {
        self.source_rate
            .iter()
            .flatten()
            .copied()
            .fold(0.0, f64::max)
    }
}

/// Link colour scale, 0 (idle) to 1 (the top of the scale): pale
/// yellow through orange and red to near-black, so a hot link stands out
/// from idle ones even in greyscale.
pub fn link_color(u: f64) -> RGBColor {
    ramp(
        u,
        &[
            (255, 247, 188),
            (254, 196, 79),
            (236, 112, 20),
            (204, 30, 30),
            (60, 0, 10),
        ],
    )
}

/// Node colour scale, 0 to the largest source rate: a starved source is
/// dark purple, a served one bright green-yellow (viridis stops).
pub fn node_color(t: f64) -> RGBColor {
    ramp(
        t,
        &[
            (68, 1, 84),
            (59, 82, 139),
            (33, 145, 140),
            (94, 201, 98),
            (253, 231, 37),
        ],
    )
}

fn ramp(t: f64, stops: &[(u8, u8, u8)]) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (stops.len() - 1) as f64;
    let i = (x.floor() as usize).min(stops.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Top of the link colour scale for a busiest direction of `max`: rounded
/// up to a tenth (at least 0.1). A fixed 0..1 scale would paint a whole mesh
/// pale when its busiest link carries 0.2 flits/cycle; the legend states
/// the top.
pub fn link_top(max: f64) -> f64 {
    ((max * 10.0).ceil() / 10.0).clamp(0.1, 1.0)
}

/// The tops of the link and node scales of each map under `scale`.
pub fn tops(maps: &[&HeatData], scale: Scale) -> Vec<(f64, f64)> {
    let lmax = maps.iter().map(|d| d.link_max()).fold(0.0, f64::max);
    let tmax = maps.iter().map(|d| d.node_max()).fold(0.0, f64::max);
    maps.iter()
        .map(|d| match scale {
            Scale::Auto => (link_top(d.link_max()), d.node_max()),
            Scale::Common => (link_top(lmax), tmax),
            Scale::Max(x) => (x, d.node_max()),
        })
        .collect()
}

/// Fill of a node whose rate rests on fewer than [`MIN_SAMPLES`] messages.
const FEW: RGBColor = RGBColor(200, 200, 200);

/// Pixels per node in a panel.
fn cell(topo: &Topology) -> i32 {
    let (k, m) = (topo.k as i32, topo.m as i32);
    (640 / k.max(m)).clamp(24, 90)
}

/// Writes one heat map into `dest` (for one map `common` is `auto`). The
/// SVG is drawn in memory and written in one go, so a write error is
/// reported like any output's.
pub fn write(dest: &Dest, data: &HeatData, scale: Scale) -> Result<(), String> {
    let top = tops(&[data], scale)[0];
    let svg = render(data, top).map_err(|e| format!("heat map: {e}"))?;
    dest.write(svg.as_bytes())
}

/// Writes a sweep's maps, on one scale under `common`; the errors of the
/// ones that could not be written.
pub fn write_all(maps: &[(Dest, HeatData)], scale: Scale) -> Vec<String> {
    let data: Vec<&HeatData> = maps.iter().map(|(_, d)| d).collect();
    let tops = tops(&data, scale);
    maps.iter()
        .zip(tops)
        .filter_map(|((dest, d), top)| {
            render(d, top)
                .map_err(|e| format!("heat map: {e}"))
                .and_then(|svg| dest.write(svg.as_bytes()))
                .err()
        })
        .collect()
}

/// `sweep --heatmap-dir`: the directory exists (created if missing) and
/// takes files, checked before any point runs.
pub fn prepare_dir(dir: &std::path::Path) -> Result<(), String> {
    let bad = |e: std::io::Error| {
        format!(
            "invalid --heatmap-dir = `{}`: a directory that can be written ({e})",
            dir.display()
        )
    };
    std::fs::create_dir_all(dir).map_err(bad)?;
    let probe = dir.join(".wormcast-heatmap-probe");
    std::fs::write(&probe, b"").map_err(bad)?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// The heat map of one sweep point and its file, `DIR/SCHEME-load-LOAD.svg`
/// (`:` in a scheme such as `spam:dstm1` becomes `_`), written with the
/// others by [`write_all`] once every point has run.
pub fn point(
    dir: &std::path::Path,
    scheme: &str,
    load: f64,
    net: &Network,
    report: &wormcast_sim::network::stats::Report,
    counts: &LinkCounts,
) -> (Dest, HeatData) {
    // A load from `A..B/STEP` carries float noise (0.0006000000000000001):
    // twelve decimals name it.
    let load = (load * 1e12).round() / 1e12;
    let name = format!("{}-load-{load}.svg", scheme.replace([':', '/'], "_"));
    (
        Dest::new("heat map", &dir.join(name)),
        HeatData::of(net, &report.construction, counts),
    )
}

/// The SVG text of `data`, its link scale topping at `lmax` flits per
/// cycle and its node scale at `tmax` messages per node per cycle.
pub fn render(data: &HeatData, (lmax, tmax): (f64, f64)) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, data, (lmax, tmax)).map_err(|e| e.to_string())?;
    Ok(svg)
}

fn draw<'a>(
    svg: &'a mut String,
    d: &HeatData,
    (lmax, tmax): (f64, f64),
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let c = cell(&d.topo);
    let (k, m) = (d.topo.k as i32, d.topo.m as i32);
    let pad = 40;
    let pw = k * c + 2 * pad;
    let ph = m * c + 2 * pad + 24;
    let panels = d.classes.len().max(1) as i32;
    let legend_h = 130;
    let head = 52;
    let w = (pw * panels).max(720) as u32;
    let h = (head + ph + legend_h) as u32;
    let root = SVGBackend::with_string(svg, (w, h)).into_drawing_area();
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        d.title.clone(),
        (10, 8),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))?;
    root.draw(&Text::new(
        d.span.clone(),
        (10, 30),
        ("sans-serif", 13).into_font().color(&BLACK),
    ))?;
    for (i, &class) in d.classes.iter().enumerate() {
        let area = root
            .clone()
            .shrink((i as i32 * pw, head), (pw as u32, ph as u32));
        panel(&area, d, class, (c, pad), (lmax, tmax))?;
    }
    let legend = root.clone().shrink((0, head + ph), (w, legend_h as u32));
    draw_legend(&legend, d, lmax, tmax)?;
    root.present()?;
    Ok(())
}

fn panel<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    d: &HeatData,
    class: u8,
    (c, pad): (i32, i32),
    (lmax, tmax): (f64, f64),
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let (k, m) = (d.topo.k as i32, d.topo.m as i32);
    let in_class: Vec<&LinkUse> = d.links.iter().filter(|l| l.class == class).collect();
    let mean = in_class.iter().map(|l| l.util).sum::<f64>() / in_class.len().max(1) as f64;
    let max = in_class.iter().map(|l| l.util).fold(0.0, f64::max);
    area.draw(&Text::new(
        format!(
            "class {class}: {} link directions, util mean {mean:.3}, max {max:.3}",
            in_class.len()
        ),
        (pad, 4),
        ("sans-serif", 14).into_font().color(&BLACK),
    ))?;
    // Node (x, y) at the centre of its cell, y growing upwards as in the
    // papers' figures.
    let top = 24 + pad;
    let at = |u: NodeId| {
        let (x, y) = d.topo.coord(u);
        (
            (pad + x as i32 * c + c / 2) as f64,
            (top + (m - 1 - y as i32) * c + c / 2) as f64,
        )
    };
    let step = |dir: Dir| match dir {
        Dir::XPlus => (1.0, 0.0),
        Dir::XMinus => (-1.0, 0.0),
        Dir::YPlus => (0.0, -1.0),
        Dir::YMinus => (0.0, 1.0),
    };
    let cf = c as f64;
    let node_r = cf * 0.16;
    let off = cf * 0.1;
    let width = ((cf * 0.09).round() as u32).max(2);
    // A link direction no class uses: a thin dotted trace on its side.
    for &(u, dir, v) in &d.unused {
        let (sx, sy) = step(dir);
        let (ox, oy) = (-sy * off, sx * off);
        let (ux, uy) = at(u);
        let (vx, vy) = at(v);
        let mut dots = Vec::new();
        for j in 0..4 {
            let t = node_r + j as f64 * cf * 0.1;
            dots.push((ux + sx * t + ox, uy + sy * t + oy));
            dots.push((vx - sx * t + ox, vy - sy * t + oy));
        }
        for (x, y) in dots {
            let p = (x.round() as i32, y.round() as i32);
            area.draw(&Circle::new(p, 1, RGBColor(150, 150, 150).filled()))?;
        }
    }
    // Grey traces first (other classes), then the coloured arrows on top,
    // coolest first so hot links are never covered.
    let mut order: Vec<&LinkUse> = d.links.iter().collect();
    order.sort_by(|a, b| {
        (a.class == class)
            .cmp(&(b.class == class))
            .then(a.util.total_cmp(&b.util))
    });
    for l in order {
        let (sx, sy) = step(l.dir);
        // Right-hand offset of the direction of travel (screen coordinates).
        let (ox, oy) = (-sy * off, sx * off);
        let (ux, uy) = at(l.from);
        let (vx, vy) = at(l.to);
        let p = |x: f64, y: f64| ((x + ox).round() as i32, (y + oy).round() as i32);
        let (a0, a1) = (
            p(ux + sx * node_r, uy + sy * node_r),
            p(ux + sx * cf / 2.0, uy + sy * cf / 2.0),
        );
        let (b0, b1) = (
            p(vx - sx * cf / 2.0, vy - sy * cf / 2.0),
            p(
                vx - sx * (node_r + cf * 0.12),
                vy - sy * (node_r + cf * 0.12),
            ),
        );
        let mine = l.class == class;
        let color = if mine {
            link_color(l.util / lmax)
        } else {
            RGBColor(225, 225, 225)
        };
        let style = color.stroke_width(if mine { width } else { 1 });
        area.draw(&PathElement::new(vec![a0, a1], style))?;
        area.draw(&PathElement::new(vec![b0, b1], style))?;
        if mine {
            // Arrowhead at the receiver.
            let tip = p(vx - sx * node_r, vy - sy * node_r);
            let hw = cf * 0.08;
            let back = (
                vx - sx * (node_r + cf * 0.14),
                vy - sy * (node_r + cf * 0.14),
            );
            let w1 = p(back.0 - sy * hw, back.1 + sx * hw);
            let w2 = p(back.0 + sy * hw, back.1 - sx * hw);
            area.draw(&Polygon::new(vec![tip, w1, w2], color.filled()))?;
        }
    }
    // Torus wrap links leave through the dashed frame.
    if d.topo.is_torus() {
        let r = [(pad, top), (pad + k * c, top + m * c)];
        area.draw(&Rectangle::new(r, RGBColor(170, 170, 170).stroke_width(1)))?;
    }
    // Node coordinates on both axes, so (0,0) and the way y grows read
    // off the picture.
    let axis = || ("sans-serif", 11).into_font().color(&RGBColor(80, 80, 80));
    let centred = |t: &str, x: i32| x - 3 * t.len() as i32;
    for x in 0..k {
        let t = x.to_string();
        let cx = pad + x * c + c / 2;
        area.draw(&Text::new(
            t.clone(),
            (centred(&t, cx), top + m * c + 5),
            axis(),
        ))?;
    }
    for y in 0..m {
        let t = y.to_string();
        let cy = top + (m - 1 - y) * c + c / 2 - 5;
        area.draw(&Text::new(
            t.clone(),
            (pad - 8 - 6 * t.len() as i32, cy),
            axis(),
        ))?;
    }
    area.draw(&Text::new(
        "x \u{2192}",
        (pad + k * c - 12, top + m * c + 18),
        axis(),
    ))?;
    area.draw(&Text::new("y \u{2191}", (pad - 30, top - 16), axis()))?;
    for u in 0..d.topo.nodes() {
        let (x, y) = at(u);
        let (x, y) = (x.round() as i32, y.round() as i32);
        let r = node_r.round() as i32;
        match d.source_rate[u as usize] {
            Some(t) => {
                let col = if d.offered[u as usize] < MIN_SAMPLES {
                    FEW
                } else {
                    node_color(if tmax > 0.0 { t / tmax } else { 0.0 })
                };
                area.draw(&Rectangle::new(
                    [(x - r, y - r), (x + r, y + r)],
                    col.filled(),
                ))?;
                area.draw(&Rectangle::new(
                    [(x - r, y - r), (x + r, y + r)],
                    BLACK.stroke_width(1),
                ))?;
            }
            None => {
                // Cut out of the fabric: a cross, no colour.
                area.draw(&PathElement::new(
                    vec![(x - r, y - r), (x + r, y + r)],
                    BLACK.stroke_width(2),
                ))?;
                area.draw(&PathElement::new(
                    vec![(x - r, y + r), (x + r, y - r)],
                    BLACK.stroke_width(2),
                ))?;
            }
        }
    }
    Ok(())
}

fn draw_legend<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    d: &HeatData,
    lmax: f64,
    tmax: f64,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let font = || ("sans-serif", 13).into_font().color(&BLACK);
    let bar = |area: &DrawingArea<SVGBackend<'a>, Shift>,
               y: i32,
               label: String,
               ticks: [String; 3],
               col: &dyn Fn(f64) -> RGBColor|
     -> Result<(), Box<dyn std::error::Error + 'a>> {
        area.draw(&Text::new(label, (30, y), font()))?;
        let (x0, w, y0) = (30, 360, y + 18);
        for i in 0..w {
            area.draw(&Rectangle::new(
                [(x0 + i, y0), (x0 + i + 1, y0 + 12)],
                col(i as f64 / (w - 1) as f64).filled(),
            ))?;
        }
        area.draw(&Rectangle::new(
            [(x0, y0), (x0 + w, y0 + 12)],
            BLACK.stroke_width(1),
        ))?;
        for (j, t) in ticks.into_iter().enumerate() {
            let x = x0 + j as i32 * w / 2;
            area.draw(&Text::new(t, (x - 10, y0 + 15), font()))?;
        }
        Ok(())
    };
    bar(
        area,
        4,
        "link: flits per cycle, per direction (arrow on the right of its link; dotted: no class)"
            .into(),
        [
            "0".into(),
            format!("{:.2}", lmax / 2.0),
            format!("{lmax:.2}"),
        ],
        &link_color,
    )?;
    let rates: Vec<f64> = d.source_rate.iter().flatten().copied().collect();
    let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
    bar(
        area,
        56,
        format!(
            "node: accepted msgs/node/cycle as a source, in the window (min {:.4}, max {:.4})",
            if min.is_finite() { min } else { 0.0 },
            d.node_max()
        ),
        [
            "0".into(),
            format!("{:.4}", tmax / 2.0),
            format!("{tmax:.4}"),
        ],
        &node_color,
    )?;
    let few = d
        .offered
        .iter()
        .zip(&d.source_rate)
        .filter(|(&n, r)| r.is_some() && n < MIN_SAMPLES)
        .count();
    area.draw(&Rectangle::new([(30, 106), (42, 118)], FEW.filled()))?;
    area.draw(&Rectangle::new(
        [(30, 106), (42, 118)],
        BLACK.stroke_width(1),
    ))?;
    area.draw(&Text::new(
        format!("grey: offered fewer than {MIN_SAMPLES} messages in the window ({few} nodes)"),
        (48, 105),
        font(),
    ))?;
    if d.offered.len() > d.source_rate.iter().flatten().count() {
        area.draw(&Text::new(
            "crossed: cut out of the fabric",
            (480, 105),
            font(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wormcast_sim::scenario::Scenario;

    fn run(
        sets: &[&str],
        span: Span,
    ) -> (Network, wormcast_sim::network::stats::Report, LinkCounts) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let sc = Scenario::from_toml("", &sets, "test").unwrap();
        let mut net = Network::new(&sc).unwrap();
        let mut counts = LinkCounts::new(&net, span);
        let r = net.run(&mut |n| {
            counts.sample(n);
            true
        });
        (net, r, counts)
    }

    /// By default the links count the measurement window only: the
    /// per-direction flits are the kernel's counter at the window's end
    /// minus the counter at its start, read here by stepping the same
    /// scenario by hand, and the title says which cycles they are.
    #[test]
    fn the_default_span_excludes_warmup_and_drain() {
        let sets = [
            "run.warmup=400",
            "run.cycles=1000",
            "run.drain_cycles=600",
            "traffic.rate=0.006",
        ];
        let (net, rep, counts) = run(&sets, Span::Window);
        let d = HeatData::of(&net, &rep.construction, &counts);
        assert!(d.span.contains("cycles 400..1400"), "{}", d.span);
        assert!(d.span.contains("warm-up and drain excluded"), "{}", d.span);
        let sc = Scenario::from_toml(
            "",
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "t",
        )
        .unwrap();
        let mut by_hand = Network::new(&sc).unwrap();
        let mut at = std::collections::BTreeMap::new();
        while by_hand.cycle() < 1400 {
            by_hand.step();
            if by_hand.cycle() == 400 || by_hand.cycle() == 1400 {
                at.insert(by_hand.cycle(), by_hand.fabric.sent.clone());
            }
        }
        let mut differs = false;
        for l in &d.links {
            let (u, i) = (l.from as usize, l.dir.index());
            let want = (at[&1400][u][i] - at[&400][u][i]) as f64 / 1000.0;
            assert!((l.util - want).abs() < 1e-12, "{l:?}: want {want}");
            differs |= (l.util - net.fabric.sent[u][i] as f64 / rep.cycles as f64).abs() > 1e-6;
        }
        assert!(differs, "warm-up and drain change some link's figure");
        // `all`: from cycle 0 to the run's end, the plain counter.
        let all = HeatData::of(
            &net,
            &rep.construction,
            &LinkCounts::new(&Network::new(&sc).unwrap(), Span::All),
        );
        assert!(all.span.contains("included"), "{}", all.span);
        for l in &all.links {
            let sent = net.fabric.sent[l.from as usize][l.dir.index()];
            assert!((l.util * rep.cycles as f64 - sent as f64).abs() < 1e-6);
        }
    }

    /// A common scale is the same top for every map; `auto` is each map's
    /// own; a number fixes the link top.
    #[test]
    fn common_scale_is_shared_across_maps() {
        let (n1, r1, c1) = run(&["run.cycles=1500", "traffic.rate=0.002"], Span::Window);
        let (n2, r2, c2) = run(&["run.cycles=1500", "traffic.rate=0.008"], Span::Window);
        let (a, b) = (
            HeatData::of(&n1, &r1.construction, &c1),
            HeatData::of(&n2, &r2.construction, &c2),
        );
        assert!(link_top(a.link_max()) < link_top(b.link_max()));
        let common = tops(&[&a, &b], Scale::Common);
        assert_eq!(common[0], common[1]);
        assert_eq!(
            common[0],
            (link_top(b.link_max()), b.node_max().max(a.node_max()))
        );
        let auto = tops(&[&a, &b], Scale::Auto);
        assert_ne!(auto[0].0, auto[1].0);
        assert_eq!(tops(&[&a], Scale::Max(0.25))[0].0, 0.25);
        assert!("0".parse::<Scale>().is_err() && "1.5".parse::<Scale>().is_err());
        assert!("x".parse::<Scale>().unwrap_err().contains("auto"));
        // The top is in the legend.
        let svg = render(&a, common[0]).unwrap();
        assert!(svg.contains(&format!("{:.2}", common[0].0)), "legend top");
    }

    /// A node whose colour would rest on fewer than `MIN_SAMPLES` offered
    /// messages is grey, and the legend counts them.
    #[test]
    fn sparse_sources_are_grey() {
        let (net, rep, counts) = run(&["run.cycles=2500", "traffic.rate=0.004"], Span::Window);
        let d = HeatData::of(&net, &rep.construction, &counts);
        let few = d.offered.iter().filter(|&&n| n < MIN_SAMPLES).count();
        assert!(few > 0 && few < 64, "some but not all sparse: {few}");
        let svg = render(&d, tops(&[&d], Scale::Auto)[0]).unwrap();
        assert_eq!(
            svg.matches("fill=\"#C8C8C8\"").count(),
            d.classes.len() * few + 1,
            "grey nodes in every panel, and the key"
        );
        assert!(svg.contains(&format!("({few} nodes)")));
    }

    /// The picture's numbers are the kernel's: per-direction utilisation
    /// times the cycles adds up to the report's link flit hops, the busiest
    /// one is the report's maximum, and the per-source rates add up to the
    /// accepted messages. One arrowhead per wired link direction.
    #[test]
    fn figures_are_the_kernel_counters() {
        let (net, rep, counts) = run(
            &[
                "run.warmup=300",
                "run.cycles=3000",
                "run.drain_cycles=0",
                "traffic.rate=0.004",
            ],
            Span::All,
        );
        let d = HeatData::of(&net, &rep.construction, &counts);
        assert_eq!(d.classes, vec![0, 1], "DSTM-1 has two trees");
        assert_eq!(
            d.links.len() + d.unused.len(),
            8 * 8 * 4,
            "every torus link, both ways"
        );
        assert_eq!(d.unused.len(), 4, "DSTM-1: two links in neither tree");
        let hops: f64 = d.links.iter().map(|l| l.util).sum::<f64>() * rep.cycles as f64;
        assert_eq!(hops.round() as u64, rep.flit_hops);
        assert!(rep.flit_hops > 1000, "the run moved traffic");
        let max = d.links.iter().map(|l| l.util).fold(0.0, f64::max);
        assert!((max - rep.link_utilisation_max).abs() < 1e-12);
        let accepted: f64 = d.source_rate.iter().flatten().sum::<f64>() * rep.window_cycles as f64;
        let want = rep.accepted_messages_per_node_cycle * 64.0 * rep.window_cycles as f64;
        assert!((accepted - want).abs() < 1e-6, "{accepted} vs {want}");
        for l in &d.links {
            assert_eq!(
                net.fabric.cfg[l.from as usize].out_class[l.dir.index()],
                Some(l.class)
            );
            assert_eq!(net.fabric.topo.neighbor(l.from, l.dir), Some(l.to));
        }
        let svg = render(&d, tops(&[&d], Scale::Auto)[0]).unwrap();
        assert_eq!(svg.matches("<polygon").count(), d.links.len());
        assert!(svg.contains("class 1:"), "one panel per tree");
    }

    #[test]
    fn scales_run_from_pale_to_dark_and_clamp() {
        assert_eq!(link_color(0.0), RGBColor(255, 247, 188));
        assert_eq!(link_color(1.0), RGBColor(60, 0, 10));
        assert_eq!(link_color(7.0), link_color(1.0));
        assert_eq!(link_color(f64::NAN), link_color(0.0));
        assert_eq!(node_color(0.0), RGBColor(68, 1, 84));
        assert_eq!(node_color(1.0), RGBColor(253, 231, 37));
        let l = |c: RGBColor| c.0 as u32 + c.1 as u32 + c.2 as u32;
        assert!(l(link_color(0.3)) > l(link_color(0.6)));
    }
}
