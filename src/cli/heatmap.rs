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
use wormcast_sim::network::Network;
use wormcast_sim::topology::{Dir, NodeId, Topology};

/// One direction of one wired link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkUse {
    pub from: NodeId,
    pub dir: Dir,
    pub to: NodeId,
    /// `out_class` of the sending port.
    pub class: u8,
    /// Flits sent over it per cycle simulated, 0..=1.
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
    /// Link directions of the topology no class uses (DSTM's links in
    /// neither tree, faulty links, mesh channels a scheme never takes): not
    /// wired in the fabric, drawn as thin dotted traces.
    pub unused: Vec<(NodeId, Dir, NodeId)>,
    /// Distinct classes, ascending.
    pub classes: Vec<u8>,
    pub title: String,
}

impl HeatData {
    /// `construction` names the scheme in the title (the report's words).
    pub fn of(net: &Network, construction: &str) -> HeatData {
        let f = &net.fabric;
        let topo = f.topo;
        let cycles = net.cycle().max(1) as f64;
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
                    util: f.sent[u as usize][d.index()] as f64 / cycles,
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
        for m in &net.msgs {
            if let Some(t) = m.finished() {
                if t >= w0 && t < w1 {
                    per[m.source as usize] += 1;
                }
            }
        }
        let source_rate = per
            .iter()
            .enumerate()
            .map(|(u, &c)| (!net.v.excluded(u as NodeId)).then_some(c as f64 / win))
            .collect();
        HeatData {
            title: format!(
                "{construction}, {topo}, rate {}, {} cycles",
                net.scenario.traffic.rate,
                net.cycle()
            ),
            topo,
            links,
            unused,
            source_rate,
            classes,
        }
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

/// Top of the link colour scale: the busiest link direction rounded up to
/// a tenth (at least 0.1). A fixed 0..1 scale would paint a whole mesh
/// pale when its busiest link carries 0.2 flits/cycle; the legend states
/// the top, so two maps compare by their legends.
pub fn link_scale_max(d: &HeatData) -> f64 {
    let max = d.links.iter().map(|l| l.util).fold(0.0, f64::max);
    ((max * 10.0).ceil() / 10.0).clamp(0.1, 1.0)
}

/// Pixels per node in a panel.
fn cell(topo: &Topology) -> i32 {
    let (k, m) = (topo.k as i32, topo.m as i32);
    (640 / k.max(m)).clamp(24, 90)
}

/// Writes the heat map of `net` into `dest`. The SVG is drawn in memory
/// and written in one go, so a write error is reported like any output's.
pub fn write(dest: &Dest, net: &Network, construction: &str) -> Result<(), String> {
    let data = HeatData::of(net, construction);
    let svg = render(&data).map_err(|e| format!("heat map: {e}"))?;
    dest.write(svg.as_bytes())
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

/// The heat map of one sweep point, `DIR/SCHEME-load-LOAD.svg` (`:` in a
/// scheme such as `spam:dstm1` becomes `_`).
pub fn write_point(
    dir: &std::path::Path,
    scheme: &str,
    load: f64,
    net: &Network,
    report: &wormcast_sim::network::stats::Report,
) -> Result<(), String> {
    // A load from `A..B/STEP` carries float noise (0.0006000000000000001):
    // twelve decimals name it.
    let load = (load * 1e12).round() / 1e12;
    let name = format!("{}-load-{load}.svg", scheme.replace([':', '/'], "_"));
    write(
        &Dest::new("heat map", &dir.join(name)),
        net,
        &report.construction,
    )
}

/// The SVG text of `data`.
pub fn render(data: &HeatData) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, data).map_err(|e| e.to_string())?;
    Ok(svg)
}

fn draw<'a>(svg: &'a mut String, d: &HeatData) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let c = cell(&d.topo);
    let (k, m) = (d.topo.k as i32, d.topo.m as i32);
    let pad = 30;
    let pw = k * c + 2 * pad;
    let ph = m * c + 2 * pad + 24;
    let panels = d.classes.len().max(1) as i32;
    let legend_h = 110;
    let head = 36;
    let w = (pw * panels).max(620) as u32;
    let h = (head + ph + legend_h) as u32;
    let root = SVGBackend::with_string(svg, (w, h)).into_drawing_area();
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        d.title.clone(),
        (10, 8),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))?;
    let tmax = d.source_rate.iter().flatten().copied().fold(0.0, f64::max);
    let lmax = link_scale_max(d);
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
    for u in 0..d.topo.nodes() {
        let (x, y) = at(u);
        let (x, y) = (x.round() as i32, y.round() as i32);
        let r = node_r.round() as i32;
        match d.source_rate[u as usize] {
            Some(t) => {
                let col = node_color(if tmax > 0.0 { t / tmax } else { 0.0 });
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
            format!("{lmax:.1}"),
        ],
        &link_color,
    )?;
    let rates: Vec<f64> = d.source_rate.iter().flatten().copied().collect();
    let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
    bar(
        area,
        56,
        format!(
            "node: accepted messages per cycle as a source (min {:.4}, max {tmax:.4})",
            if min.is_finite() { min } else { 0.0 }
        ),
        [
            "0".into(),
            format!("{:.4}", tmax / 2.0),
            format!("{tmax:.4}"),
        ],
        &node_color,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wormcast_sim::scenario::Scenario;

    fn run(sets: &[&str]) -> (Network, wormcast_sim::network::stats::Report) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let sc = Scenario::from_toml("", &sets, "test").unwrap();
        let mut net = Network::new(&sc).unwrap();
        let r = net.run(&mut |_| true);
        (net, r)
    }

    /// The picture's numbers are the kernel's: per-direction utilisation
    /// times the cycles adds up to the report's link flit hops, the busiest
    /// one is the report's maximum, and the per-source rates add up to the
    /// accepted messages. One arrowhead per wired link direction.
    #[test]
    fn figures_are_the_kernel_counters() {
        let (net, rep) = run(&[
            "run.warmup=300",
            "run.cycles=3000",
            "run.drain_cycles=0",
            "traffic.rate=0.004",
        ]);
        let d = HeatData::of(&net, &rep.construction);
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
        let svg = render(&d).unwrap();
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
