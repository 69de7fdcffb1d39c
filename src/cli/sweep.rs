//! `guarded sweep`: the flags, the worker threads, the progress bar, Ctrl-C,
//! and where the CSV, the summary and the plot go. What a run is and what
//! the rows say live in `crate::sweep`.

use super::{parse_ids, report_load_error, usage_error, InitArgs, LimitArgs, MemoryArgs};
use super::{EXIT_INPUT, EXIT_OK};
use crate::sweep::grid::Formula;
use crate::sweep::plot::Bound;
use crate::sweep::table::{self, Table};
use crate::sweep::{summary, Axes, Options, PlanError, Sweep};
use crate::topology::Ids;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status when Ctrl-C stopped the sweep.
const EXIT_INTERRUPTED: i32 = 130;

/// Set by Ctrl-C: no run starts after it, and runs under way stop.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

const SWEEP_HELP: &str = "\
A list is comma-separated; a range A..B is inclusive and may step: A..B+S adds S, A..B*F multiplies by F.
  --topology ring:8..128*2      ring:8, ring:16, ..., ring:128
  --topology ring:8,12 --topology grid:2..4x2..4   ring:8, ring:12, grid:2x2, grid:3x3, grid:4x4
  --param K=n,n+1               two values of K at each size (a formula of n: + - * / mod ^)
  --daemon central,synchronous  (all: the four daemons)
  --seeds 0..49                 50 seeds
The CSV has one row per run, in grid order (topologies, then daemons, then parameters, then seeds);
docs/sweep.md lists its columns.

Exit codes: 0 every run succeeded; 1 the program or an input file is wrong; 2 the command line is
wrong; otherwise the status of the first run that failed (3 runtime error, 4 invariant violated;
its row says why); 130 interrupted (the CSV holds the runs that finished).";

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Measure {
    /// Steps (ticks, in a program that runs in ticks).
    #[value(alias = "ticks")]
    Steps,
    Moves,
    Rounds,
}

/// `guarded sweep`'s flags.
#[derive(Args, Debug)]
#[command(after_help = SWEEP_HELP)]
pub(super) struct SweepArgs {
    /// The program (a `.gc` file).
    #[arg(required_unless_present = "merge")]
    program: Option<String>,
    /// Topologies: specs as `run` takes them, with lists and ranges of sizes
    /// (repeatable) [default: the program's]
    #[arg(short, long = "topology", value_name = "SPECS")]
    topologies: Vec<String>,
    /// Daemons, comma-separated, or `all` (repeatable).
    /// [default: central, or ticks for a program that runs in ticks]
    #[arg(short, long = "daemon", value_name = "DAEMONS")]
    daemons: Vec<String>,
    /// A parameter's values: NAME=V1,V2,... each an integer, a range or a
    /// formula of n (repeatable; the grid takes every combination).
    #[arg(short, long = "param", value_name = "NAME=VALUES")]
    params: Vec<String>,
    /// Seeds: a list and ranges, e.g. 0..99.
    #[arg(long, default_value = "0", value_name = "SEEDS")]
    seeds: String,
    /// Process ids, as `run` takes them.
    #[arg(long, default_value = "index", value_parser = parse_ids)]
    ids: Ids,
    #[command(flatten)]
    init: InitArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Write one row per run to this CSV file (`-`: standard output, and the
    /// summary goes to standard error).
    #[arg(long, value_name = "FILE")]
    csv: Option<String>,
    /// Draw the measure against n into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<String>,
    /// The measure the plot draws.
    #[arg(long, value_enum, default_value_t = Measure::Moves)]
    plot_measure: Measure,
    /// Draw a reference curve on the plot, dashed: a formula of n (a paper's
    /// bound, e.g. `3*n+1`).
    #[arg(long, value_name = "FORMULA", value_parser = parse_formula)]
    plot_bound: Option<(String, Formula)>,
    /// Logarithmic axes on the plot.
    #[arg(long)]
    log: bool,
    /// Add each run's time (`seconds`) to the CSV: the one column that
    /// differs between identical sweeps.
    #[arg(long)]
    timings: bool,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Run only the I-th of N slices of the grid (I from 1 to N): point k
    /// belongs to slice (k mod N) + 1.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Instead of running, merge the CSVs of a sweep's shards (in any order)
    /// into one table, summary and plot.
    #[arg(long, value_name = "CSV", num_args = 1.., conflicts_with_all = ["program", "topologies", "params", "shard", "threads", "timings"])]
    merge: Vec<String>,
}

fn parse_formula(s: &str) -> Result<(String, Formula), String> {
    Formula::parse(s).map(|f| (s.trim().to_string(), f))
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected I/N with 1 <= I <= N, found `{s}`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Runs `guarded sweep`; returns the exit code.
pub(super) fn sweep(a: &SweepArgs) -> i32 {
    if !a.merge.is_empty() {
        return merge(a);
    }
    crate::memory::set_limit(a.memory.memory_limit);
    let Some(program) = &a.program else {
        return usage_error("give a program, or --merge and the CSVs to merge".into());
    };
    let source = match crate::load::read_program(program) {
        Ok(s) => s,
        Err(e) => return report_load_error(&e, program, ""),
    };
    super::warnings::warn_about_precedence_in(program, &source);
    let axes = Axes {
        topologies: a.topologies.clone(),
        daemons: a.daemons.clone(),
        params: a.params.clone(),
        seeds: a.seeds.clone(),
        shard: a.shard,
    };
    let options = Options {
        ids: a.ids.clone(),
        init: a.init.init.clone(),
        sets: a.init.sets.clone(),
        choice: a.init.choice.into(),
        limits: a.limits.limits(),
        timings: a.timings,
    };
    let plan = Sweep::plan(program, &source, &axes, options, &crate::load::read_file);
    let sweep = match plan {
        Ok(s) => s,
        Err(PlanError::Usage(m)) => return usage_error(m),
        Err(PlanError::Program(e)) => return report_load_error(&e, program, &source),
    };
    let points: Vec<&crate::sweep::Point> = sweep.points.iter().collect();
    let mut csv = match open_csv(a.csv.as_deref(), &sweep.table()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let threads = a.threads.unwrap_or(0);
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(super::STACK_SIZE)
        .build()
    {
        Ok(p) => p,
        Err(e) => return usage_error(format!("--threads: {e}")),
    };
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    let mut table = sweep.table();
    let bar = progress(points.len() as u64);
    let csv_cell = std::cell::RefCell::new(csv.as_mut());
    let write_failed = sweep.run_points(
        &pool,
        &points,
        &INTERRUPTED,
        |row| {
            bar.inc(1);
            let ok = csv_cell
                .borrow_mut()
                .as_mut()
                .is_none_or(|w| row.write_to(w).is_ok());
            table.rows.push(row);
            ok
        },
        // Flushed whenever no row is waiting, so that a sweep killed
        // outright keeps what finished (not after each row: a system call
        // a row was a fifth of a sweep of short runs).
        || {
            csv_cell
                .borrow_mut()
                .as_mut()
                .is_none_or(|w| w.flush().is_ok())
        },
    );
    bar.finish_and_clear();
    if let Some(w) = csv.as_mut() {
        if w.flush().is_err() || write_failed {
            eprintln!(
                "error: cannot write the CSV `{}`",
                a.csv.as_deref().unwrap_or("")
            );
            return EXIT_INPUT;
        }
    }
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    let code = report(a, &table);
    if interrupted {
        eprintln!(
            "interrupted: {} of {} runs finished{}",
            table.rows.len(),
            points.len(),
            if a.csv.is_some() {
                "; the CSV holds them"
            } else {
                ""
            }
        );
        return EXIT_INTERRUPTED;
    }
    code
}

/// The CSV writer `--csv` asks for, its header written.
fn open_csv(path: Option<&str>, table: &Table) -> Result<Option<csv::Writer<Box<dyn Write>>>, i32> {
    let Some(path) = path else { return Ok(None) };
    table.writer(csv_destination(path)?).map(Some).map_err(|e| {
        eprintln!("error: cannot write the CSV `{path}`: {e}");
        EXIT_INPUT
    })
}

/// Where `--csv` writes: standard output for `-`, else the file, created.
fn csv_destination(path: &str) -> Result<Box<dyn Write>, i32> {
    if path == "-" {
        return Ok(Box::new(std::io::stdout()));
    }
    match std::fs::File::create(path) {
        Ok(f) => Ok(Box::new(std::io::BufWriter::new(f))),
        Err(e) => Err(usage_error(format!("--csv: cannot create `{path}`: {e}"))),
    }
}

/// A progress bar on standard error, drawn only on a terminal.
fn progress(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = "sweep {bar:30} {human_pos}/{human_len} runs ({rate}, {eta} left)";
    if let Ok(style) = ProgressStyle::with_template(template) {
        // Runs a second with one decimal: indicatif's own rate shows four.
        let rate = |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1}/s", s.per_sec());
        };
        bar.set_style(style.with_key("rate", rate));
    }
    bar
}

/// Prints the summary and draws the plot; the exit status the rows give.
fn report(a: &SweepArgs, table: &Table) -> i32 {
    let text = summary::text(table);
    if a.csv.as_deref() == Some("-") {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    if let Some(path) = &a.plot {
        let k = match a.plot_measure {
            Measure::Steps => 0,
            Measure::Moves => 1,
            Measure::Rounds => 2,
        };
        let bound = a
            .plot_bound
            .as_ref()
            .map(|(text, formula)| Bound { text, formula });
        match crate::sweep::plot::svg(table, k, a.log, bound.as_ref()) {
            Ok(svg) => {
                if let Err(e) = std::fs::write(path, svg) {
                    eprintln!("error: cannot write the plot `{path}`: {e}");
                    return EXIT_INPUT;
                }
            }
            Err(why) => eprintln!("warning: no plot written to `{path}`: {why}"),
        }
    }
    table
        .rows
        .iter()
        .map(|r| r.exit)
        .find(|&e| e != EXIT_OK)
        .unwrap_or(EXIT_OK)
}

/// `--merge`: the pieces read, merged and reported as one sweep.
fn merge(a: &SweepArgs) -> i32 {
    let mut pieces = Vec::new();
    for path in &a.merge {
        let text = match crate::load::read_file(path) {
            Ok(t) => t,
            Err(e) => return usage_error(format!("--merge: {e}")),
        };
        match Table::read(path, &text) {
            Ok(t) => pieces.push((path.clone(), t)),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_INPUT;
            }
        }
    }
    let table = match table::merge(pieces) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_INPUT;
        }
    };
    let last = table.rows.last().map_or(0, |r| r.point + 1);
    if table.rows.len() < last {
        let mut missing = String::new();
        let have: std::collections::HashSet<usize> = table.rows.iter().map(|r| r.point).collect();
        for (shown, k) in (0..last).filter(|k| !have.contains(k)).enumerate() {
            if shown == 8 {
                missing.push_str(", ...");
                break;
            }
            let _ = write!(missing, "{}{k}", if shown > 0 { ", " } else { "" });
        }
        eprintln!(
            "warning: the pieces hold {} of the points 0..{} (missing: {missing}); is a shard missing?",
            table.rows.len(),
            last - 1
        );
    }
    if let Some(path) = &a.csv {
        let out = match csv_destination(path) {
            Ok(out) => out,
            Err(code) => return code,
        };
        if table.write(out).is_err() {
            eprintln!("error: cannot write the CSV `{path}`");
            return EXIT_INPUT;
        }
    }
    report(a, &table)
}
