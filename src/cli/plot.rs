//! Linear line charts in SVG, one or more panels side by side: what the
//! `ftree` and `mtree` reproductions draw (the `sweep` latency plot has its
//! own log scale and saturation markers).

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
