//! A sweep's rows and their CSV form, written by a sweep and read back by
//! `--merge`: the summary and the plot are always worked out from rows, so
//! that a merged sweep says exactly what a one-machine sweep says.

use crate::report::exit::{EXIT_INPUT, EXIT_INVARIANT, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE};
use std::io::Write;
use std::sync::Arc;

/// The `stop` cells a sweep writes: `load` where the instance was not
/// built, else why the run stopped (an interrupted run is no row).
const WRITTEN_STOPS: [&str; 9] = [
    "load",
    "silent",
    "legitimate",
    "step-limit",
    "move-limit",
    "idle-limit",
    "schedule-done",
    "invariant",
    "error",
];

/// The `exit` cells a sweep writes.
const WRITTEN_EXITS: [i32; 5] = [
    EXIT_OK,
    EXIT_INPUT,
    EXIT_USAGE,
    EXIT_RUNTIME,
    EXIT_INVARIANT,
];

/// The member of `allowed` that `value` of column `column` is.
fn one_of<'a, T: PartialEq<V> + std::fmt::Display, V: std::fmt::Display>(
    column: &str,
    value: &V,
    allowed: &'a [T],
) -> Result<&'a T, String> {
    if let Some(member) = allowed.iter().find(|a| *a == value) {
        return Ok(member);
    }
    let list: Vec<String> = allowed.iter().map(T::to_string).collect();
    Err(format!(
        "`{}` in column `{column}` is not what a sweep writes ({})",
        value.to_string().escape_default(),
        list.join(", ")
    ))
}

/// The columns every sweep's CSV has, in order; then one `param.NAME` per
/// parameter, one `report.NAME` per `report` of the program, and `seconds`
/// with `--timings`. docs/sweep.md describes each.
pub const FIXED_COLUMNS: &[&str] = &[
    "point",
    "program",
    "topology",
    "family",
    "n",
    "edges",
    "daemon",
    "seed",
    "init",
    "params",
    "steps",
    "moves",
    "rounds",
    "rounds_complete",
    "stabilized_step",
    "stabilized_move",
    "stabilized_round",
    "legitimate",
    "silent",
    "stop",
    "exit",
    "message",
];

/// What a run that started measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Steps taken.
    pub steps: u64,
    /// Moves made.
    pub moves: u64,
    /// Rounds, the one under way counted.
    pub rounds: u64,
    /// Complete rounds.
    pub rounds_complete: u64,
    /// Step, move and round from which legitimacy held to the end.
    pub stabilized: Option<[u64; 3]>,
    /// Whether legitimacy held at the end (`None`: no predicate declared).
    pub legitimate: Option<bool>,
    /// No process enabled at the end.
    pub silent: bool,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The point's index in the whole grid (shards keep it).
    pub point: usize,
    /// The program's path.
    pub program: Arc<str>,
    /// The topology spec.
    pub topology: Arc<str>,
    /// Its family (`ring`, `grid`, ...).
    pub family: Arc<str>,
    /// The number of processes.
    pub n: usize,
    /// Edges of the graph built, when the run started.
    pub edges: Option<usize>,
    /// The daemon.
    pub daemon: Arc<str>,
    /// The seed.
    pub seed: u64,
    /// The initial configuration's origin.
    pub init: Arc<str>,
    /// The swept parameters as written (`K=n+1`), space-separated.
    pub params: Arc<str>,
    /// The measures, when the run started.
    pub measured: Option<Measured>,
    /// Why the run stopped (a key as `run --format json` words it), or
    /// `load` when it could not start.
    pub stop: &'static str,
    /// The exit status `guarded run` would give.
    pub exit: i32,
    /// The error's headline when the run failed.
    pub message: String,
    /// Each parameter's value, in the table's order (empty when unknown).
    pub param_values: Vec<String>,
    /// Each report's value, in the table's order (empty when undefined).
    pub reports: Vec<String>,
    /// Seconds the run took, with `--timings`.
    pub seconds: Option<f64>,
}

/// Rows and the columns they fill.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The program's parameters.
    pub params: Vec<String>,
    /// The program's reports.
    pub reports: Vec<String>,
    /// Whether the `seconds` column is present.
    pub timings: bool,
    /// The rows, in grid order.
    pub rows: Vec<Row>,
}

impl Table {
    /// The header line's columns.
    pub fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = FIXED_COLUMNS.iter().map(|c| c.to_string()).collect();
        h.extend(self.params.iter().map(|p| format!("param.{p}")));
        h.extend(self.reports.iter().map(|r| format!("report.{r}")));
        if self.timings {
            h.push("seconds".into());
        }
        h
    }

    /// A CSV writer of this table's rows onto `out`, its header written.
    pub fn writer<W: Write>(&self, out: W) -> csv::Result<csv::Writer<W>> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.header())?;
        Ok(w)
    }

    /// Writes the whole table as CSV.
    pub fn write<W: Write>(&self, out: W) -> csv::Result<()> {
        let mut w = self.writer(out)?;
        for row in &self.rows {
            row.write_to(&mut w)?;
        }
        w.flush()?;
        Ok(())
    }

    /// Reads a table a sweep wrote; `name` names the source in errors.
    pub fn read(name: &str, text: &str) -> Result<Table, String> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        let header: Vec<String> = r
            .headers()
            .map_err(|e| format!("{name}: {e}"))?
            .iter()
            .map(str::to_string)
            .collect();
        let fixed = FIXED_COLUMNS.len();
        if header.len() < fixed || header[..fixed] != *FIXED_COLUMNS {
            return Err(format!(
                "{name}: not a sweep's CSV (its header should begin `{}`)",
                FIXED_COLUMNS[..4].join(",")
            ));
        }
        let mut table = Table {
            params: Vec::new(),
            reports: Vec::new(),
            timings: false,
            rows: Vec::new(),
        };
        for (i, col) in header[fixed..].iter().enumerate() {
            let last = fixed + i + 1 == header.len();
            if let Some(p) = col.strip_prefix("param.") {
                table.params.push(p.to_string());
            } else if let Some(r) = col.strip_prefix("report.") {
                table.reports.push(r.to_string());
            } else if col == "seconds" && last {
                table.timings = true;
            } else {
                return Err(format!("{name}: unexpected column `{col}`"));
            }
        }
        if table.header() != header {
            return Err(format!(
                "{name}: the columns are out of order (parameters, then reports, then seconds)"
            ));
        }
        let width = header.len();
        for record in r.records() {
            let record = record.map_err(|e| format!("{name}: {e}"))?;
            let line = record.position().map_or(0, |p| p.line());
            let row =
                Row::parse(&table, width, &record).map_err(|e| format!("{name}:{line}: {e}"))?;
            table.rows.push(row);
        }
        Ok(table)
    }
}

impl Row {
    /// The row's cells, in the header's order.
    pub fn record(&self) -> Vec<String> {
        let mut r = Vec::new();
        self.cells(|cell| r.push(cell.to_string()));
        r
    }

    /// Writes the row to `w` as one record, without a string per cell.
    pub fn write_to<W: Write>(&self, w: &mut csv::Writer<W>) -> csv::Result<()> {
        let mut result = Ok(());
        self.cells(|cell| {
            if result.is_ok() {
                result = w.write_field(cell);
            }
        });
        result?;
        w.write_record(None::<&[u8]>)
    }

    /// Hands each cell to `each`, in the header's order; numbers and
    /// booleans are written in one buffer.
    fn cells(&self, mut each: impl FnMut(&str)) {
        use std::fmt::Write as _;
        let mut buf = String::new();
        let mut shown = |each: &mut dyn FnMut(&str), v: Option<&dyn std::fmt::Display>| {
            buf.clear();
            if let Some(v) = v {
                let _ = write!(buf, "{v}");
            }
            each(&buf);
        };
        let m = self.measured.as_ref();
        let stab = m.and_then(|m| m.stabilized);
        shown(&mut each, Some(&self.point));
        each(&self.program);
        each(&self.topology);
        each(&self.family);
        shown(&mut each, Some(&self.n));
        shown(&mut each, self.edges.as_ref().map(|e| e as _));
        each(&self.daemon);
        shown(&mut each, Some(&self.seed));
        each(&self.init);
        each(&self.params);
        shown(&mut each, m.map(|m| &m.steps as _));
        shown(&mut each, m.map(|m| &m.moves as _));
        shown(&mut each, m.map(|m| &m.rounds as _));
        shown(&mut each, m.map(|m| &m.rounds_complete as _));
        for k in 0..3 {
            shown(&mut each, stab.as_ref().map(|s| &s[k] as _));
        }
        shown(
            &mut each,
            m.and_then(|m| m.legitimate.as_ref()).map(|l| l as _),
        );
        shown(&mut each, m.map(|m| &m.silent as _));
        each(self.stop);
        shown(&mut each, Some(&self.exit));
        each(&self.message);
        for v in self.param_values.iter().chain(&self.reports) {
            each(v);
        }
        if let Some(s) = self.seconds {
            buf.clear();
            let _ = write!(buf, "{s:.6}");
            each(&buf);
        }
    }

    /// A record of `table`, whose header has `width` columns. The `stop`
    /// and `exit` cells must be what a sweep writes.
    fn parse(table: &Table, width: usize, rec: &csv::StringRecord) -> Result<Row, String> {
        if rec.len() != width {
            return Err(format!("{} cells where the header has {width}", rec.len()));
        }
        let cell = |k: usize| rec.get(k).unwrap_or("");
        fn num<T: std::str::FromStr>(col: &str, v: &str) -> Result<T, String> {
            v.parse()
                .map_err(|_| format!("`{v}` in column `{col}` is not a number"))
        }
        let opt_num = |k: usize| -> Result<Option<u64>, String> {
            match cell(k) {
                "" => Ok(None),
                v => num(FIXED_COLUMNS[k], v).map(Some),
            }
        };
        let opt_bool = |k: usize| -> Result<Option<bool>, String> {
            match cell(k) {
                "" => Ok(None),
                "true" => Ok(Some(true)),
                "false" => Ok(Some(false)),
                v => Err(format!(
                    "`{v}` in column `{}` is not true or false",
                    FIXED_COLUMNS[k]
                )),
            }
        };
        let measured = match (opt_num(10)?, opt_num(11)?, opt_num(12)?, opt_num(13)?) {
            (Some(steps), Some(moves), Some(rounds), Some(rounds_complete)) => Some(Measured {
                steps,
                moves,
                rounds,
                rounds_complete,
                stabilized: match (opt_num(14)?, opt_num(15)?, opt_num(16)?) {
                    (Some(s), Some(m), Some(r)) => Some([s, m, r]),
                    _ => None,
                },
                legitimate: opt_bool(17)?,
                silent: opt_bool(18)?.unwrap_or(false),
            }),
            _ => None,
        };
        let fixed = FIXED_COLUMNS.len();
        let (np, nr) = (table.params.len(), table.reports.len());
        Ok(Row {
            point: num("point", cell(0))?,
            program: cell(1).into(),
            topology: cell(2).into(),
            family: cell(3).into(),
            n: num("n", cell(4))?,
            edges: opt_num(5)?.map(|e| e as usize),
            daemon: cell(6).into(),
            seed: num("seed", cell(7))?,
            init: cell(8).into(),
            params: cell(9).into(),
            measured,
            stop: one_of("stop", &cell(19), &WRITTEN_STOPS)?,
            exit: *one_of("exit", &num::<i32>("exit", cell(20))?, &WRITTEN_EXITS)?,
            message: cell(21).to_string(),
            param_values: (fixed..fixed + np).map(|k| cell(k).to_string()).collect(),
            reports: (fixed + np..fixed + np + nr)
                .map(|k| cell(k).to_string())
                .collect(),
            seconds: match table.timings {
                true => Some(num("seconds", cell(width - 1))?),
                false => None,
            },
        })
    }
}

/// The tables' rows together, in grid order: the pieces of one sweep (its
/// shards) merged. Every piece must have the same columns; a point present
/// twice must be the same row twice.
pub fn merge(pieces: Vec<(String, Table)>) -> Result<Table, String> {
    let mut pieces = pieces.into_iter();
    let Some((first_name, mut all)) = pieces.next() else {
        return Err("nothing to merge".into());
    };
    for (name, t) in pieces {
        if t.header() != all.header() {
            return Err(format!(
                "{name} and {first_name} have different columns: they are not pieces of one sweep"
            ));
        }
        all.rows.extend(t.rows);
    }
    all.rows.sort_by_key(|r| r.point);
    let mut kept: Vec<Row> = Vec::with_capacity(all.rows.len());
    for row in std::mem::take(&mut all.rows) {
        match kept.last() {
            Some(prev) if prev.point == row.point && differs(prev, &row) => {
                return Err(format!(
                    "point {} appears twice with different results: the pieces come from different sweeps",
                    row.point
                ))
            }
            Some(prev) if prev.point == row.point => {}
            _ => kept.push(row),
        }
    }
    all.rows = kept;
    Ok(all)
}

/// Whether two rows of one point differ in more than their timing.
fn differs(a: &Row, b: &Row) -> bool {
    let mut b = b.clone();
    b.seconds = a.seconds;
    *a != b
}

#[cfg(test)]
mod tests {
    use super::WRITTEN_STOPS;
    use crate::runtime::run::Stop;

    /// What `--merge` accepts as a stop is what a sweep's runs write.
    #[test]
    fn the_stops_merge_accepts_are_the_stops_runs_write() {
        let stops = [
            Stop::Silent,
            Stop::Legitimate,
            Stop::StepLimit,
            Stop::MoveLimit,
            Stop::IdleLimit,
            Stop::ScheduleDone,
            Stop::Invariant(0),
        ];
        let keys: Vec<&str> = stops.iter().map(crate::report::stop_key).collect();
        for key in &keys {
            assert!(WRITTEN_STOPS.contains(key), "{key} is refused by --merge");
        }
        // `load` is the sweep's own, `error` the key of failed steps.
        for written in WRITTEN_STOPS {
            assert!(
                keys.contains(&written) || ["load", "error"].contains(&written),
                "{written} is no run's stop"
            );
        }
    }
}
