//! The picture of a sweep: one measure to stabilization against n, one
//! series per (family, daemon, parameters): the median as a line through
//! dots, the band from min to max shaded, the max marked by triangles, and
//! the fitted growth exponents in the legend. An SVG that opens in a
//! browser as it is (plotters' SVG backend; text is left to the viewer's
//! fonts).

use super::grid::Formula;
use super::summary::{exponent, groups, measure_name, series, Series};
use super::table::Table;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

/// The series' colours, in order (then repeated).
pub const COLOURS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// A series' name in the legend: only what tells it apart from the others.
fn label(s: &Series, all: &[Series]) -> String {
    let mut parts = Vec::new();
    if all.iter().any(|o| o.family != s.family) {
        parts.push(s.family.to_string());
    }
    if all.iter().any(|o| o.daemon != s.daemon) || parts.is_empty() {
        parts.push(s.daemon.to_string());
    }
    if all.iter().any(|o| o.params != s.params) {
        parts.push(s.params.to_string());
    }
    parts.join(" ")
}

/// One measured point of a series: n, min, median, max.
type Point4 = (f64, f64, f64, f64);

fn points(s: &Series, k: usize) -> Vec<Point4> {
    s.groups
        .iter()
        .filter_map(|g| {
            let st = g.measures[k].as_ref()?;
            Some((g.n as f64, st.min as f64, st.median, st.max as f64))
        })
        .collect()
}

/// A reference curve drawn beside the series: a paper's bound as a
/// formula of n, and how it was written.
pub struct Bound<'a> {
    /// As written, for the legend.
    pub text: &'a str,
    /// The formula.
    pub formula: &'a Formula,
}

/// The bound's value at each n in `from..=to` (up to 200 of them).
fn bound_points(b: &Bound, from: f64, to: f64) -> Result<Vec<(f64, f64)>, String> {
    let (from, to) = (from.ceil() as i64, to.floor() as i64);
    let stride = ((to - from) / 200).max(1);
    let mut ns: Vec<i64> = (from..=to).step_by(stride as usize).collect();
    if ns.last() != Some(&to) {
        ns.push(to);
    }
    ns.into_iter()
        .map(|n| {
            let v = b
                .formula
                .eval(n)
                .map_err(|e| format!("--plot-bound {}: at n = {n} it {e}", b.text))?;
            Ok((n as f64, v as f64))
        })
        .collect()
}

/// The plot of measure `k` ([`super::summary::MEASURES`]) of `table` as an SVG document;
/// `log` draws both axes logarithmic; `bound`, if given, is drawn dashed.
pub fn svg(table: &Table, k: usize, log: bool, bound: Option<&Bound>) -> Result<String, String> {
    let groups = groups(&table.rows);
    let all = series(&groups);
    let measured: Vec<(&Series, Vec<Point4>)> = all
        .iter()
        .map(|s| (s, points(s, k)))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    if measured.is_empty() {
        return Err(format!(
            "nothing to plot: no run stabilized, so there is no {} to stabilization",
            measure_name(table, k)
        ));
    }
    let each = measured.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(n, lo, _, hi) in each {
        (x0, x1, y0, y1) = (x0.min(n), x1.max(n), y0.min(lo), y1.max(hi));
    }
    let reference = match bound {
        Some(b) => Some((b.text, bound_points(b, x0, x1)?)),
        None => None,
    };
    for &(_, v) in reference.iter().flat_map(|r| r.1.iter()) {
        (y0, y1) = (y0.min(v), y1.max(v));
    }
    // On log axes a value of 0 (a run that started legitimate) has no
    // place: it is drawn on the axis's bottom edge, and the note says so.
    let floor = y0.max(1.0) / 1.5;
    let mut zeros = false;
    let measured: Vec<(&Series, Vec<Point4>)> = match log {
        false => measured,
        true => {
            let mut lift = |v: f64| {
                zeros |= v < floor;
                v.max(floor)
            };
            measured
                .into_iter()
                .map(|(s, pts)| {
                    let pts = pts
                        .into_iter()
                        .map(|p| (p.0, lift(p.1), lift(p.2), lift(p.3)));
                    (s, pts.collect())
                })
                .collect()
        }
    };
    let program = table.rows.first().map_or("", |r| &*r.program);
    let measure = measure_name(table, k);
    let caption = format!("{measure} to stabilization: {program}");
    let entries = legend_entries(&measured, &all, k, reference.as_ref());
    // The legend under the chart, never over its data.
    let legend_height = 18 * entries.len() as u32 + 12;
    let mut out = String::new();
    {
        let root =
            SVGBackend::with_string(&mut out, (800, 540 + legend_height)).into_drawing_area();
        let draw = |e: DrawingAreaErrorKind<_>| format!("cannot draw the plot: {e}");
        root.fill(&WHITE).map_err(draw)?;
        let (upper, lower) = root.split_vertically(500);
        let mut chart = ChartBuilder::on(&upper);
        chart
            .caption(caption, ("sans-serif", 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64);
        if log {
            let y1 = y1.max(1.0) * 1.5;
            let mut c = chart
                .build_cartesian_2d((x0 / 1.2..x1 * 1.2).log_scale(), (floor..y1).log_scale())
                .map_err(draw)?;
            body(&mut c, &measured, measure, reference.as_ref()).map_err(draw)?;
        } else {
            let pad = (x1 - x0).max(1.0) * 0.05;
            let mut c = chart
                .build_cartesian_2d(x0 - pad..x1 + pad, 0f64..y1 * 1.08 + 1.0)
                .map_err(draw)?;
            body(&mut c, &measured, measure, reference.as_ref()).map_err(draw)?;
        }
        let note = match zeros {
            false => "line and dots: median; triangles: max; band: min to max (runs that stabilized)",
            true => "line and dots: median; triangles: max; band: min to max (runs that stabilized); 0 is drawn on the bottom edge of the log axis",
        };
        lower
            .draw(&Text::new(
                note,
                (16, 6),
                ("sans-serif", 12).into_font().color(&BLACK.mix(0.7)),
            ))
            .map_err(draw)?;
        for (i, (text, sample)) in entries.into_iter().enumerate() {
            let y = 34 + 18 * i as i32;
            let style = match sample {
                Sample::Series(colour) => colour.stroke_width(2),
                Sample::Bound => BLACK.mix(0.7).stroke_width(1),
            };
            // The bound's sample dashed, as its curve.
            let dashes: &[(i32, i32)] = match sample {
                Sample::Series(_) => &[(80, 100)],
                Sample::Bound => &[(80, 86), (90, 96)],
            };
            for &(from, to) in dashes {
                lower
                    .draw(&PathElement::new(vec![(from, y), (to, y)], style))
                    .map_err(draw)?;
            }
            lower
                .draw(&Text::new(text, (108, y - 7), ("sans-serif", 13)))
                .map_err(draw)?;
        }
        root.present().map_err(draw)?;
    }
    Ok(out)
}

/// How a legend entry's sample is drawn.
enum Sample {
    Series(RGBColor),
    Bound,
}

/// The legend: each series's name and growth, then the bound.
fn legend_entries(
    measured: &[(&Series, Vec<Point4>)],
    all: &[Series],
    k: usize,
    reference: Option<&(&str, Vec<(f64, f64)>)>,
) -> Vec<(String, Sample)> {
    let mut out: Vec<(String, Sample)> = measured
        .iter()
        .enumerate()
        .map(|(i, (s, _))| {
            let (median, max) = s.growth(k);
            let name = format!(
                "{}: median ~ n^{}, max ~ n^{}",
                label(s, all),
                exponent(median),
                exponent(max)
            );
            (name, Sample::Series(COLOURS[i % COLOURS.len()]))
        })
        .collect();
    if let Some((text, _)) = reference {
        out.push((format!("bound: {text}"), Sample::Bound));
    }
    out
}

/// An axis label: whole numbers without decimals.
fn whole(v: f64) -> String {
    if v >= 10.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

type Fallible<'b> = Result<(), DrawingAreaErrorKind<<SVGBackend<'b> as DrawingBackend>::ErrorType>>;

/// The mesh and the series, on either kind of axes.
fn body<'b, X, Y>(
    chart: &mut ChartContext<'b, SVGBackend<'b>, Cartesian2d<X, Y>>,
    measured: &[(&Series, Vec<Point4>)],
    measure: &str,
    reference: Option<&(&str, Vec<(f64, f64)>)>,
) -> Fallible<'b>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc("n (processes)")
        .y_desc(format!("{measure} to stabilization"))
        .light_line_style(WHITE.mix(0.0))
        .x_label_formatter(&|v| whole(*v))
        .y_label_formatter(&|v| whole(*v))
        .draw()?;
    for (i, (_, pts)) in measured.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut band: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
        band.extend(pts.iter().rev().map(|p| (p.0, p.3)));
        chart.draw_series(std::iter::once(Polygon::new(
            band,
            colour.mix(0.15).filled(),
        )))?;
        chart.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.2)),
            colour.stroke_width(2),
        ))?;
        chart.draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.2), 4, colour.filled())),
        )?;
        chart.draw_series(
            pts.iter()
                .map(|p| TriangleMarker::new((p.0, p.3), 6, colour)),
        )?;
    }
    if let Some((_, points)) = reference {
        let style = BLACK.mix(0.7).stroke_width(1);
        chart.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, style))?;
    }
    Ok(())
}
