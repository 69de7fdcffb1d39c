//! `guarded expect` over several sizes (`--topology ring:3..8`) or daemons
//! (`-d central,synchronous`): each instance under each daemon in turn, as
//! a table (text), a row each (CSV) or one object (JSON). No closed forms,
//! unlike `verify`'s family: expected times are rationals, and value
//! iteration gives them to a precision (certified where it can be), not
//! exactly.

use super::expect::{compute, expect_refused, starting, write_worst, Computed, Measure};
use super::*;
use crate::report::{counted, pad};

/// One instance under one daemon, as the table shows it.
struct Row {
    n: usize,
    topology: String,
    params: String,
    configurations: usize,
    starts: usize,
    daemon: &'static str,
    how: String,
    /// Where probability 1 fails: a start, and where runs are kept out.
    unsure: Option<(String, String)>,
    /// What each measure came to, where probability 1 holds.
    steps: Option<Values>,
    moves: Option<Values>,
    /// Or why rounds were not computed.
    rounds: Option<Result<Values, String>>,
    /// Whether the values are certified, where probability 1 holds.
    certified: Option<bool>,
}

/// One measure's expected value from the worst start, from the declared
/// one (where the program declares every value and the starts reach that
/// configuration), and on average over the starts.
#[derive(Clone, Copy)]
struct Values {
    worst: f64,
    declared: Option<f64>,
    average: f64,
}

impl Values {
    fn of(m: &Measure) -> Self {
        Values {
            worst: m.worst.0,
            declared: m.declared,
            average: m.average,
        }
    }
}

impl Row {
    /// Whether legitimacy is reached with probability 1 from every start.
    fn sure(&self) -> bool {
        self.unsure.is_none()
    }

    /// The expected rounds, where they were computed.
    fn rounds_values(&self) -> Option<Values> {
        self.rounds.as_ref().and_then(|r| r.as_ref().ok().copied())
    }

    /// Each measure's values, steps, moves and rounds.
    fn measures(&self) -> [Option<Values>; 3] {
        [self.steps, self.moves, self.rounds_values()]
    }

    fn of(inst: &Instance, daemon: &Daemon, c: &Computed) -> Self {
        Row {
            n: inst.topo.n(),
            topology: inst.topo.name.clone(),
            params: show::params_text(&inst.code.params),
            configurations: c.model.configs.len(),
            starts: c.model.starts,
            daemon: daemon.name(),
            how: c.how.clone(),
            unsure: c.bad.map(|(start, trap)| {
                let config = |i: u32| config_text(inst, &c.model.configs[i as usize]);
                (config(start), config(trap))
            }),
            steps: c.measures.as_ref().map(|m| Values::of(&m.steps)),
            moves: c.measures.as_ref().map(|m| Values::of(&m.moves)),
            rounds: c
                .measures
                .as_ref()
                .map(|m| m.rounds.as_ref().map(Values::of).map_err(Clone::clone)),
            certified: c.measures.as_ref().map(|m| m.certified),
        }
    }
}

/// Expects every size of `specs` (the program's own topology when none is
/// given) under every one of `daemons`; prints what was found (also when
/// a size stops the family) and returns the exit code.
pub(super) fn expect_family(a: &ExpectArgs, specs: &[String], daemons: &[Daemon]) -> i32 {
    let bar = Bar::new();
    let mut rows: Vec<Row> = Vec::new();
    let one = [None];
    let topologies: Vec<Option<&String>> = if specs.is_empty() {
        one.to_vec()
    } else {
        specs.iter().map(Some).collect()
    };
    let several = topologies.len() * daemons.len() > 1;
    // What the instances before said (nothing before the first), then the
    // exit code.
    let stopped = |rows: &[Row], code: i32| {
        bar.bar.finish_and_clear();
        if !rows.is_empty() {
            print!("{}", render(a, rows));
        }
        code
    };
    for spec in topologies {
        let mut args = a.instance.clone();
        args.topology = spec.cloned();
        let mut loaded = match load(&args) {
            Ok(l) => l,
            Err(code) => return stopped(&rows, code),
        };
        let (origin, declared) = match starting(a, &mut loaded) {
            Ok(s) => s,
            Err(code) => return stopped(&rows, code),
        };
        let inst = &loaded.inst;
        for daemon in daemons {
            let c = match compute(a, inst, (&origin, declared.as_ref()), daemon, &bar) {
                Ok(c) => c,
                Err(r) => {
                    stopped(&rows, 0);
                    return expect_refused(&r, inst, &args.program, &loaded.source);
                }
            };
            if let Some(dir) = &a.witness {
                // A folder per instance and daemon where there are several.
                let dir = match several {
                    true => dir
                        .join(show::folder_name(&inst.topo.name))
                        .join(daemon.name()),
                    false => dir.clone(),
                };
                if let Err(e) = write_worst(inst, &c.model, c.bad, c.measures.as_ref(), &dir) {
                    stopped(&rows, 0);
                    eprintln!("error: --witness: {e}");
                    return EXIT_INPUT;
                }
            }
            rows.push(Row::of(inst, daemon, &c));
        }
    }
    let sure = rows.iter().all(Row::sure);
    stopped(&rows, if sure { EXIT_OK } else { EXIT_PROPERTY })
}

/// The rows in the format asked for.
fn render(a: &ExpectArgs, rows: &[Row]) -> String {
    match a.format {
        Format::Json => json_text(a, rows),
        Format::Csv => csv(rows, a.choice.name()),
        Format::Text => text(a, rows),
    }
}

/// A measure's cells: worst, declared (when `declared`), average.
fn cells(values: Option<Values>, declared: bool) -> Vec<String> {
    let cell = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.4}"));
    let mut out = vec![cell(values.map(|v| v.worst))];
    if declared {
        out.push(cell(values.and_then(|v| v.declared)));
    }
    out.push(cell(values.map(|v| v.average)));
    out
}

fn text(a: &ExpectArgs, rows: &[Row]) -> String {
    // The declared start's columns, where some instance has one.
    let declared = rows.iter().any(|r| {
        r.measures()
            .iter()
            .any(|m| m.is_some_and(|v| v.declared.is_some()))
    });
    let mut header: Vec<String> = [
        "n",
        "topology",
        "parameters",
        "configurations",
        "daemon",
        "probability 1",
    ]
    .map(String::from)
    .to_vec();
    for measure in ["steps", "moves", "rounds"] {
        header.push(format!("{measure} worst"));
        if declared {
            header.push("declared".into());
        }
        header.push("average".into());
    }
    let mut table: Vec<Vec<String>> = vec![header];
    for r in rows {
        let mut line = vec![
            r.n.to_string(),
            r.topology.clone(),
            r.params.clone(),
            r.configurations.to_string(),
            r.daemon.to_string(),
            if r.sure() { "holds" } else { "fails" }.to_string(),
        ];
        for values in r.measures() {
            line.extend(cells(values, declared));
        }
        table.push(line);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let sizes = {
        let mut ns: Vec<usize> = rows.iter().map(|r| r.n).collect();
        ns.dedup();
        ns.len()
    };
    let mut out = format!(
        "{} on {} ({}){}\n",
        a.instance.program,
        a.instance.topology.as_deref().unwrap_or("its topology"),
        counted(sizes as u64, "size"),
        match a.from.as_deref() {
            Some(from) if from != "all" => format!(", from {from}"),
            _ => String::new(),
        }
    );
    // How each daemon's steps are drawn, once.
    let mut told: Vec<&str> = Vec::new();
    for r in rows {
        if !told.contains(&r.daemon) {
            told.push(r.daemon);
            let _ = writeln!(out, "steps: {}", r.how);
        }
    }
    let _ = writeln!(
        out,
        "expected times to legitimacy: from the worst start,{} and the average over the starts; by value iteration, {}\n",
        if declared { " from the declared one," } else { "" },
        match rows.iter().all(|r| r.certified != Some(false)) {
            true => super::expect::precision(true),
            false => "certified where no line below says otherwise".into(),
        }
    );
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| pad(cell, widths[c], [1, 2, 4, 5].contains(&c)))
            .collect();
        out += line.join("  ").trim_end();
        out.push('\n');
    }
    for r in rows {
        if let Some((start, trap)) = &r.unsure {
            let _ = writeln!(
                out,
                "probability 1 fails on {} under the {} daemon: from {start}, legitimacy may never be reached: from {trap}, runs can be kept out of it for ever",
                r.topology, r.daemon
            );
        }
        if r.certified == Some(false) {
            let _ = writeln!(
                out,
                "not certified on {} under the {} daemon: no bounds within {:e} were found, and values may be further from the exact ones (value iteration stopped once no value changed by more than {:e}, relative)",
                r.topology,
                r.daemon,
                crate::verify::expected::CERTIFIED_WITHIN,
                crate::verify::expected::TOLERANCE
            );
        }
        if let Some(Err(why)) = &r.rounds {
            let _ = writeln!(
                out,
                "rounds not computed on {} under the {} daemon: {why}",
                r.topology, r.daemon
            );
        }
    }
    out
}

/// A row per instance and daemon; `choice` (as `--choice` spells it) in
/// each, so that files from several commands can be put together.
fn csv(rows: &[Row], choice: &str) -> String {
    let mut out = String::from(
        "n,topology,parameters,configurations,starts,daemon,choice,probability_1,worst_steps,declared_steps,average_steps,worst_moves,declared_moves,average_moves,worst_rounds,declared_rounds,average_rounds,certified\n",
    );
    let quoted = show::csv_field;
    // To the precision value iteration certifies, not its last digits; an
    // empty field where there is no value.
    let field = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.9}"));
    let values = |v: Option<Values>| {
        let declared = v.and_then(|v| v.declared);
        let (worst, average) = (v.map(|v| v.worst), v.map(|v| v.average));
        format!("{},{},{}", field(worst), field(declared), field(average))
    };
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{choice},{},{},{},{},{}",
            r.n,
            quoted(&r.topology),
            quoted(&r.params),
            r.configurations,
            r.starts,
            r.daemon,
            r.sure(),
            values(r.steps),
            values(r.moves),
            values(r.rounds_values()),
            r.certified.map_or(String::new(), |c| c.to_string()),
        );
    }
    out
}

fn json_text(a: &ExpectArgs, rows: &[Row]) -> String {
    let values = |v: Option<Values>| {
        v.map(|v| json!({"worst": v.worst, "declared": v.declared, "average": v.average}))
    };
    let each: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "n": r.n,
                "topology": r.topology,
                "parameters": r.params,
                "configurations": r.configurations,
                "starts": r.starts,
                "daemon": r.daemon,
                "steps_drawn": r.how,
                "choice": a.choice.name(),
                "probability_1": r.sure(),
                "no_sure_arrival": r.unsure.as_ref().map(|(from, kept)| json!({"from": from, "kept_at": kept})),
                "expected_steps": values(r.steps),
                "expected_moves": values(r.moves),
                "expected_rounds": values(r.rounds_values()),
                "rounds_not_computed": r.rounds.as_ref().and_then(|r| r.as_ref().err()),
                "certified": r.certified,
            })
        })
        .collect();
    let v = json!({
        "program": a.instance.program,
        "topology": a.instance.topology,
        "probability_1": rows.iter().all(Row::sure),
        "certified_within": crate::verify::expected::CERTIFIED_WITHIN,
        "instances": each,
    });
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}
