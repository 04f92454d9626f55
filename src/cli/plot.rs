//! Line charts in SVG: linear panels side by side (what the `ftree` and
//! `mtree` reproductions draw) and the `sweep` latency plot (log latency
//! axis, markers for saturated and interrupted points, and a key that says
//! what each marker means).

use crate::cli::output::Dest;
use plotters::prelude::*;

/// One panel: a titled chart with its own axes and named series.
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    /// `(name, points)`, drawn in palette order.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    pub legend: SeriesLabelPosition,
    /// Mark every point with a dot (sparse sweeps) or not (dense curves).
    pub dots: bool,
}

/// Writes `panels` side by side into `dest`, each 480×420 pixels; both axes
/// start at 0 and end 10 % above the largest y (x: the largest x, or 1 when
/// every x is 0). The SVG
/// is drawn in memory and written in one go through `output`, so a write
/// error is reported like any other output's.
pub fn panels(dest: &Dest, panels: &[Panel]) -> Result<(), Box<dyn std::error::Error>> {
    let mut svg = String::new();
    draw(&mut svg, panels).map_err(|e| e.to_string())?;
    Ok(dest.write(svg.as_bytes())?)
}

fn draw<'a>(svg: &'a mut String, panels: &[Panel]) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root =
        SVGBackend::with_string(svg, (480 * panels.len().max(1) as u32, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (area, p) in areas.iter().zip(panels) {
        let all = p.series.iter().flat_map(|(_, d)| d.iter());
        let xmax = all.clone().map(|q| q.0).fold(0.0, f64::max);
        let xmax = if xmax > 0.0 { xmax } else { 1.0 };
        let ymax = all.map(|q| q.1).fold(1.0, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&p.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax)?;
        chart
            .configure_mesh()
            .x_desc(p.x_desc.as_str())
            .y_desc(p.y_desc.as_str())
            .draw()?;
        for (i, (name, data)) in p.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(data.clone(), color.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            if p.dots {
                chart.draw_series(data.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
            }
        }
        chart
            .configure_series_labels()
            .position(p.legend.clone())
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// One point of a sweep plot.
pub struct SweepMark {
    pub series: String,
    /// Offered load, messages per node per cycle.
    pub load: f64,
    /// Mean latency in cycles; points at 0 (nothing delivered) are left out.
    pub latency: f64,
    pub saturated: bool,
    /// The point was stopped early (Ctrl-C): its figures cover part of the run.
    pub interrupted: bool,
}

/// Ticks of a log axis from `lo` to `hi`, each drawn once: the 1-2-5
/// multiples of the powers of ten inside, or, when the range spans too
/// little for three of those (latencies between 24 000 and 53 000
/// cycles), every integer multiple 1..9 of the power of ten below `hi`
/// and then its halves, until there are three.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |mults: &[f64]| {
        let mut out = Vec::new();
        let mut e = lo.log10().floor() as i32 - 1;
        while 10f64.powi(e) <= hi {
            for &m in mults {
                // Round away the float noise of m * 10^e (3 * 0.1).
                let v = m * 10f64.powi(e);
                let v = (v * 1e9).round() / 1e9;
                if v >= lo && v <= hi {
                    out.push(v);
                }
            }
            e += 1;
        }
        out
    };
    for mults in [
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[
            1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0,
            9.5,
        ],
    ] {
        let t = within(mults);
        if t.len() >= 3 {
            return t;
        }
    }
    within(&[
        1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0,
    ])
}

/// Mean latency (log scale) against offered load, one line per series,
/// into `dest`: a filled dot is a point below saturation, a hollow one a
/// saturated point, a cross an interrupted one; the key names all three.
pub fn sweep(
    dest: &Dest,
    points: &[SweepMark],
    title: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut svg = String::new();
    draw_sweep(&mut svg, points, title).map_err(|e| e.to_string())?;
    Ok(dest.write(svg.as_bytes())?)
}

fn draw_sweep<'a>(
    svg: &'a mut String,
    points: &[SweepMark],
    title: &str,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root = SVGBackend::with_string(svg, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let xmax = points.iter().map(|p| p.load).fold(0.0, f64::max) * 1.05;
    let ymin = points
        .iter()
        .map(|p| p.latency)
        .filter(|&y| y > 0.0)
        .fold(f64::INFINITY, f64::min)
        .min(1e9)
        * 0.8;
    let ymax = points.iter().map(|p| p.latency).fold(1.0, f64::max) * 1.5;
    let ymin = if ymin.is_finite() { ymin.max(1.0) } else { 1.0 };
    let ymax = ymax.max(ymin * 2.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("latency vs load — {title}"), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            0.0..xmax.max(1e-9),
            (ymin..ymax)
                .log_scale()
                .with_key_points(log_ticks(ymin, ymax)),
        )?;
    chart
        .configure_mesh()
        .x_desc("offered load (messages / node / cycle)")
        .y_desc("mean latency (cycles)")
        .y_label_formatter(&|y| format!("{y}"))
        .draw()?;
    let mut series: Vec<&str> = points.iter().map(|p| p.series.as_str()).collect();
    series.dedup();
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mut pts: Vec<&SweepMark> = points
            .iter()
            .filter(|p| p.series == *s && p.latency > 0.0)
            .collect();
        pts.sort_by(|a, b| a.load.total_cmp(&b.load));
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.load, p.latency)),
                color.stroke_width(2),
            ))?
            .label(*s)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        for p in pts {
            let at = (p.load, p.latency);
            if p.interrupted {
                chart.draw_series([Cross::new(at, 5, color.stroke_width(2))])?;
            } else if p.saturated {
                chart.draw_series([Circle::new(at, 4, color.stroke_width(2))])?;
            } else {
                chart.draw_series([Circle::new(at, 4, color.filled())])?;
            }
        }
    }
    // The key of the markers, in black, after the series.
    let keys: [(&str, bool); 3] = [
        ("below saturation", true),
        ("saturated (accepted < 95 % of offered)", true),
        (
            "interrupted (partial run)",
            points.iter().any(|p| p.interrupted),
        ),
    ];
    for (i, (name, shown)) in keys.into_iter().enumerate() {
        if !shown {
            continue;
        }
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(name)
            .legend(
                move |(x, y)| -> DynElement<'static, SVGBackend, (i32, i32)> {
                    let at = (x + 10, y);
                    match i {
                        0 => Circle::new(at, 4, BLACK.filled()).into_dyn(),
                        1 => Circle::new(at, 4, BLACK.stroke_width(2)).into_dyn(),
                        _ => Cross::new(at, 5, BLACK.stroke_width(2)).into_dyn(),
                    }
                },
            );
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The y-axis labels of a sweep plot, in order.
    fn y_labels(points: &[SweepMark]) -> Vec<f64> {
        let mut svg = String::new();
        draw_sweep(&mut svg, points, "t").unwrap();
        // plotters right-aligns the y labels (`text-anchor="end"`).
        svg.split("<text")
            .filter(|t| t.contains("text-anchor=\"end\""))
            .filter_map(|t| t[t.find('>')? + 1..t.find("</text>")?].trim().parse().ok())
            .collect()
    }

    fn mark(load: f64, latency: f64) -> SweepMark {
        SweepMark {
            series: "s".into(),
            load,
            latency,
            saturated: false,
            interrupted: false,
        }
    }

    /// A sweep deep in saturation, every latency between 24 000 and
    /// 53 000 cycles, has y labels (no power of ten lies in its range).
    #[test]
    fn a_narrow_high_range_has_labels() {
        let y = y_labels(&[mark(0.01, 24_000.0), mark(0.02, 53_000.0)]);
        assert!(y.len() >= 3, "{y:?}");
        assert!(
            y.iter().all(|&v| (19_000.0..80_000.0).contains(&v)),
            "{y:?}"
        );
    }

    /// The usual range, tens to thousands of cycles: each label once,
    /// ascending, with labels below 100.
    #[test]
    fn ticks_are_drawn_once_with_labels_below_100() {
        let y = y_labels(&[mark(0.001, 35.0), mark(0.002, 60.0), mark(0.003, 4000.0)]);
        assert!(
            y.windows(2).all(|w| w[0] < w[1]),
            "once each, ascending: {y:?}"
        );
        assert!(y.contains(&1000.0) && y.iter().any(|&v| v < 100.0), "{y:?}");
        for (lo, hi) in [(1.0, 2.0), (0.8, 1e6), (28.0, 56.0), (19_200.0, 79_500.0)] {
            let t = log_ticks(lo, hi);
            assert!(t.len() >= 3, "{lo}..{hi}: {t:?}");
            assert!(t.windows(2).all(|w| w[0] < w[1]) && t[0] >= lo && t[t.len() - 1] <= hi);
        }
    }

    /// The key names every marker drawn: filled, hollow, and (when a point
    /// was interrupted) crossed.
    #[test]
    fn the_key_explains_the_markers() {
        let draw = |pts: &[SweepMark]| {
            let mut svg = String::new();
            draw_sweep(&mut svg, pts, "t").unwrap();
            svg
        };
        let svg = draw(&[mark(0.001, 40.0)]);
        assert!(
            svg.contains("below saturation")
                && svg.contains("saturated (accepted &lt; 95 % of offered)")
        );
        assert!(!svg.contains("interrupted"));
        let mut cut = mark(0.002, 90.0);
        cut.interrupted = true;
        let svg = draw(&[mark(0.001, 40.0), cut]);
        assert!(svg.contains("interrupted (partial run)"));
    }
}
