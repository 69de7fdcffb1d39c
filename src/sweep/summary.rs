//! What a sweep's rows say: per (family, n, daemon, parameters) the runs,
//! how many stabilized, and the distribution of steps, moves and rounds to
//! stabilization; per (family, daemon, parameters) how each grows with n.

use super::table::{Row, Table};
use std::collections::HashMap;
use std::fmt::Write;

/// The three measures, in the order the summary gives them.
pub const MEASURES: [&str; 3] = ["steps", "moves", "rounds"];

/// Whether the runs of `table` are of a program that runs in ticks (its
/// one daemon): then a step is a tick, and so is a round.
pub fn in_ticks(table: &Table) -> bool {
    !table.rows.is_empty() && table.rows.iter().all(|r| &*r.daemon == "ticks")
}

/// What measure `k` is called in `table`: [`MEASURES`], where steps and
/// rounds are ticks in a program that runs in ticks.
pub fn measure_name(table: &Table, k: usize) -> &'static str {
    match k {
        0 | 2 if in_ticks(table) => "ticks",
        _ => MEASURES[k],
    }
}

/// The measures the summary shows: all three, but rounds, which repeat
/// the ticks, in a program that runs in ticks.
fn shown_measures(table: &Table) -> std::ops::Range<usize> {
    if in_ticks(table) {
        0..2
    } else {
        0..MEASURES.len()
    }
}

/// Which measure: an index into [`MEASURES`].
pub fn measure_index(name: &str) -> Option<usize> {
    MEASURES.iter().position(|m| *m == name)
}

/// The distribution of one measure over the runs of a group that stabilized.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// The least value.
    pub min: u64,
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The mean.
    pub mean: f64,
    /// The 95th percentile, by nearest rank.
    pub p95: u64,
    /// The greatest value.
    pub max: u64,
    /// The seed of the first run (in grid order) that reached the maximum.
    pub seed_of_max: u64,
}

impl Stats {
    /// The distribution of `(value, seed)` pairs in grid order; `None` when empty.
    pub fn of(values: &[(u64, u64)]) -> Option<Stats> {
        let mut sorted: Vec<u64> = values.iter().map(|v| v.0).collect();
        sorted.sort_unstable();
        let count = sorted.len();
        let max = *sorted.last()?;
        let median = if count % 2 == 1 {
            sorted[count / 2] as f64
        } else {
            (sorted[count / 2 - 1] as f64 + sorted[count / 2] as f64) / 2.0
        };
        let rank = (count * 95).div_ceil(100).max(1);
        Some(Stats {
            min: sorted[0],
            median,
            mean: sorted.iter().map(|&v| v as f64).sum::<f64>() / count as f64,
            p95: sorted[rank - 1],
            max,
            seed_of_max: values.iter().find(|v| v.0 == max).map_or(0, |v| v.1),
        })
    }
}

/// The runs of one (family, n, daemon, parameters).
#[derive(Clone, Debug)]
pub struct Group {
    /// The topology family.
    pub family: String,
    /// The number of processes.
    pub n: usize,
    /// The daemon.
    pub daemon: String,
    /// The swept parameters as written.
    pub params: String,
    /// Runs.
    pub runs: usize,
    /// Runs that stabilized.
    pub stabilized: usize,
    /// Runs that failed (a non-zero exit status).
    pub failed: usize,
    /// Steps, moves and rounds to stabilization.
    pub measures: [Option<Stats>; 3],
}

/// The groups of `rows`, in the order they first appear.
pub fn groups(rows: &[Row]) -> Vec<Group> {
    let mut keys: Vec<(&str, usize, &str, &str)> = Vec::new();
    let mut index: HashMap<(&str, usize, &str, &str), usize> = HashMap::new();
    let mut members: Vec<Vec<&Row>> = Vec::new();
    for r in rows {
        let key = (&*r.family, r.n, &*r.daemon, &*r.params);
        let i = *index.entry(key).or_insert_with(|| {
            keys.push(key);
            members.push(Vec::new());
            keys.len() - 1
        });
        members[i].push(r);
    }
    keys.into_iter()
        .zip(members)
        .map(|((family, n, daemon, params), rows)| {
            let stabilized: Vec<([u64; 3], u64)> = rows
                .iter()
                .filter_map(|r| Some((r.measured.as_ref()?.stabilized?, r.seed)))
                .collect();
            let measure = |k: usize| {
                let values: Vec<(u64, u64)> =
                    stabilized.iter().map(|(s, seed)| (s[k], *seed)).collect();
                Stats::of(&values)
            };
            Group {
                family: family.to_string(),
                n,
                daemon: daemon.to_string(),
                params: params.to_string(),
                runs: rows.len(),
                stabilized: stabilized.len(),
                failed: rows.iter().filter(|r| r.exit != 0).count(),
                measures: [measure(0), measure(1), measure(2)],
            }
        })
        .collect()
}

/// The groups of one (family, daemon, parameters), in increasing n.
#[derive(Clone, Debug)]
pub struct Series<'a> {
    /// The topology family.
    pub family: &'a str,
    /// The daemon.
    pub daemon: &'a str,
    /// The swept parameters as written.
    pub params: &'a str,
    /// Its groups, by increasing n.
    pub groups: Vec<&'a Group>,
}

impl Series<'_> {
    /// The growth exponents of the median and of the maximum of measure `k`:
    /// the slopes of least-squares lines through (log n, log value), over
    /// the sizes where some run stabilized with a positive value.
    pub fn growth(&self, k: usize) -> (Option<f64>, Option<f64>) {
        let points = |pick: fn(&Stats) -> f64| -> Vec<(f64, f64)> {
            self.groups
                .iter()
                .filter_map(|g| g.measures[k].as_ref().map(|s| (g.n as f64, pick(s))))
                .filter(|(n, v)| *n > 0.0 && *v > 0.0)
                .map(|(n, v)| (n.ln(), v.ln()))
                .collect()
        };
        (
            slope(&points(|s| s.median)),
            slope(&points(|s| s.max as f64)),
        )
    }
}

/// The series of `groups`, in the order they first appear.
pub fn series(groups: &[Group]) -> Vec<Series<'_>> {
    let mut out: Vec<Series> = Vec::new();
    for g in groups {
        let key = (g.family.as_str(), g.daemon.as_str(), g.params.as_str());
        match out
            .iter_mut()
            .find(|s| (s.family, s.daemon, s.params) == key)
        {
            Some(s) => s.groups.push(g),
            None => out.push(Series {
                family: key.0,
                daemon: key.1,
                params: key.2,
                groups: vec![g],
            }),
        }
    }
    for s in &mut out {
        s.groups.sort_by_key(|g| g.n);
    }
    out
}

/// The slope of the least-squares line through `points`; `None` without
/// two distinct abscissae.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let count = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / count;
    let my = points.iter().map(|p| p.1).sum::<f64>() / count;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (points.len() >= 2 && sxx > 1e-12).then(|| sxy / sxx)
}

/// A number as the summary prints it: whole numbers without decimals.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// An exponent as the summary and the legend print it.
pub fn exponent(e: Option<f64>) -> String {
    e.map_or("-".into(), |e| format!("{e:.2}"))
}

/// Cells laid out in columns: text columns to the left, numbers to the right.
/// Control characters (from a merged CSV, a program's path) are written as
/// escapes, never sent to the terminal.
fn columns(out: &mut String, header: &[&str], rows: &[Vec<String>], text_columns: usize) {
    let printable = |c: &String| -> String {
        c.chars()
            .flat_map(|ch| match ch.is_control() {
                true => ch.escape_default().collect::<Vec<_>>(),
                false => vec![ch],
            })
            .collect()
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(printable).collect())
        .collect();
    let rows = &rows[..];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let each: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| match i < text_columns {
                true => crate::report::pad(c, *w, true),
                false => crate::report::pad(c, *w, false),
            })
            .collect();
        each.join("  ").trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header.to_vec()));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_string()
    }
}

/// The summary of `table` as text.
pub fn text(table: &Table) -> String {
    let groups = groups(&table.rows);
    let rows = &table.rows;
    let stabilized = groups.iter().map(|g| g.stabilized).sum::<usize>();
    let failed: Vec<&Row> = rows.iter().filter(|r| r.exit != 0).collect();
    let Some(program) = rows.first().map(|r| &*r.program) else {
        return "no run finished\n".to_string();
    };
    let mut out = format!(
        "{program}: {} runs, {stabilized} stabilized, {} failed\n",
        rows.len(),
        failed.len()
    );
    if let Some(f) = failed.first() {
        let _ = writeln!(
            out,
            "first failure: point {} ({} {} seed {}), exit {}: {}",
            f.point, f.topology, f.daemon, f.seed, f.exit, f.message
        );
    }
    let series = series(&groups);
    // Each series' sizes together, so that its growth reads down a column.
    let in_order: Vec<&Group> = series
        .iter()
        .flat_map(|s| s.groups.iter().copied())
        .collect();
    for k in shown_measures(table) {
        let _ = writeln!(out, "\n{} to stabilization", measure_name(table, k));
        let cells: Vec<Vec<String>> = in_order
            .iter()
            .map(|g| {
                let mut c = vec![
                    g.family.clone(),
                    g.daemon.clone(),
                    or_dash(&g.params),
                    g.n.to_string(),
                    g.runs.to_string(),
                    g.stabilized.to_string(),
                ];
                match &g.measures[k] {
                    Some(s) => c.extend([
                        s.min.to_string(),
                        number(s.median),
                        format!("{:.1}", s.mean),
                        s.p95.to_string(),
                        s.max.to_string(),
                        s.seed_of_max.to_string(),
                    ]),
                    None => c.extend(std::iter::repeat_n("-".to_string(), 6)),
                }
                c
            })
            .collect();
        let header = [
            "family",
            "daemon",
            "params",
            "n",
            "runs",
            "stabilized",
            "min",
            "median",
            "mean",
            "p95",
            "max",
            "seed of max",
        ];
        columns(&mut out, &header, &cells, 3);
    }
    if series.iter().any(|s| s.groups.len() >= 2) {
        let _ = writeln!(
            out,
            "\ngrowth with n (slope of the least-squares line through log n and log measure)"
        );
        let mut cells = Vec::new();
        for s in &series {
            for k in shown_measures(table) {
                let m = measure_name(table, k);
                let (median, max) = s.growth(k);
                cells.push(vec![
                    s.family.to_string(),
                    s.daemon.to_string(),
                    or_dash(s.params),
                    m.to_string(),
                    exponent(median),
                    exponent(max),
                ]);
            }
        }
        let header = ["family", "daemon", "params", "measure", "median", "max"];
        columns(&mut out, &header, &cells, 4);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_of_values() {
        let s = Stats::of(&[(5, 10), (1, 11), (9, 12), (3, 13), (9, 14)]).unwrap();
        assert_eq!(
            (s.min, s.median, s.p95, s.max, s.seed_of_max),
            (1, 5.0, 9, 9, 12)
        );
        assert!((s.mean - 5.4).abs() < 1e-9);
        let even = Stats::of(&[(1, 0), (2, 1), (3, 2), (4, 3)]).unwrap();
        assert_eq!(even.median, 2.5);
        // Nearest rank: of 20 values the 19th, of 100 the 95th.
        let twenty: Vec<(u64, u64)> = (1..=20).map(|v| (v, v)).collect();
        assert_eq!(Stats::of(&twenty).unwrap().p95, 19);
        let hundred: Vec<(u64, u64)> = (1..=100).map(|v| (v, v)).collect();
        assert_eq!(Stats::of(&hundred).unwrap().p95, 95);
        assert_eq!(Stats::of(&[]), None);
    }

    #[test]
    fn slopes_of_powers() {
        let square: Vec<(f64, f64)> = [2.0f64, 4.0, 8.0, 16.0]
            .iter()
            .map(|n| (n.ln(), (3.0 * n * n).ln()))
            .collect();
        assert!((slope(&square).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(slope(&[(1.0, 1.0)]), None);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }
}
