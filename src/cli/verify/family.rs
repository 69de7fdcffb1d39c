//! `guarded verify` over a family of sizes (`--topology ring:3..9`, with
//! parameters as formulas of `n`, `--param K=n`): each size verified in
//! turn, a table of what each daemon gives at each size, and for each worst
//! case the exact closed form in `n` ([`crate::report::closed_form`]). As
//! text, JSON or CSV.

use super::*;
use crate::report::closed_form::{fit, Fit};

/// The highest degree of polynomial a closed form is looked for in.
const MOST_DEGREE: usize = 3;

/// One size of the family: its topology, processes, parameters, the
/// configurations explored (from every configuration), and each daemon's
/// verdict.
struct Size {
    topology: String,
    n: u64,
    params: Vec<(String, i64)>,
    configurations: Option<u64>,
    verdicts: Vec<Verdict>,
}

/// The worst steps, moves and rounds of a verdict, where it converges.
fn worst(v: &Verdict) -> Option<[Option<u64>; 3]> {
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } if v.holds() => Some([
            Some(steps.steps.len() as u64),
            moves.as_ref().map(|m| m.moves()),
            rounds.as_ref().map(|r| r.0),
        ]),
        _ => None,
    }
}

/// The verdict in a word or two, for a table's cell.
fn verdict_word(v: &Verdict) -> String {
    if let Some((name, _)) = &v.invariant {
        return format!("invariant {name} fails");
    }
    if let Some(p) = v.properties.iter().find(|p| !p.holds) {
        return format!("property {} fails", p.name);
    }
    if v.closure.is_some() {
        return "closure fails".into();
    }
    if v.fault.is_some() && !v.holds() {
        return "a step faults".into();
    }
    match &v.convergence {
        Convergence::Holds { .. } if v.fault.is_some() => "holds where no step faults".into(),
        Convergence::Holds { .. } => "holds".into(),
        Convergence::HoldsUnderFairness { .. } => format!("holds if {} fair", v.fairness.adverb()),
        Convergence::Deadlock(_) => "deadlock".into(),
        Convergence::Cycle { run, cycle_from } => {
            format!(
                "cycle of {}",
                show::count((run.steps.len() - cycle_from) as u64, "step")
            )
        }
        Convergence::NotDeclared { deadlock: None } => "no deadlock".into(),
        Convergence::NotDeclared { deadlock: Some(_) } => "deadlock".into(),
    }
}

/// Verifies every size of the family `specs` (the program's own topology
/// when none is given) under `daemons`, and prints the table and the
/// closed forms; returns the exit code.
pub(super) fn family(a: &VerifyArgs, specs: &[String], daemons: &[Daemon]) -> i32 {
    let mut sizes: Vec<Size> = Vec::new();
    let bar = Bar::new();
    let one = [None];
    let topologies: Vec<Option<&String>> = if specs.is_empty() {
        one.to_vec()
    } else {
        specs.iter().map(Some).collect()
    };
    for spec in topologies {
        let mut args = a.instance.clone();
        args.topology = spec.cloned();
        let mut loaded = match load(&args) {
            Ok(l) => l,
            Err(code) => return code,
        };
        let start = match start_from(a.from.as_deref(), &a.instance.program, &mut loaded) {
            Ok(s) => s,
            Err(code) => return code,
        };
        let inst = &loaded.inst;
        let witness = a
            .witness
            .as_ref()
            .map(|dir| dir.join(show::folder_name(&inst.topo.name)));
        if let Some(dir) = &witness {
            if let Err(e) = std::fs::create_dir_all(dir) {
                return usage_error(format!("--witness: cannot create `{}`: {e}", dir.display()));
            }
        }
        let found = explore(a, inst, &start, daemons, &bar, witness.as_deref());
        let (found, stopped) = match found {
            Ok(found) => (found, None),
            Err((found, stop)) => (found, Some(stop)),
        };
        sizes.push(Size {
            topology: inst.topo.name.clone(),
            n: inst.topo.n() as u64,
            params: inst.code.params.clone(),
            configurations: found.configurations,
            verdicts: found.verdicts.into_iter().map(|(v, _)| v).collect(),
        });
        match stopped {
            None => {}
            Some(stop) => {
                bar.bar.finish_and_clear();
                // What the sizes before said, then why this one stopped.
                print!("{}", render(a, &sizes, daemons));
                return match stop {
                    Stop::Refused(r) => refused(&r, inst, &a.instance.program, &loaded.source),
                    Stop::Witness(e) => usage_error(format!("--witness: {e}")),
                };
            }
        }
    }
    bar.bar.finish_and_clear();
    print!("{}", render(a, &sizes, daemons));
    let all_hold = sizes.iter().flat_map(|s| &s.verdicts).all(Verdict::holds);
    if all_hold {
        EXIT_OK
    } else {
        EXIT_PROPERTY
    }
}

/// The family's results in the format asked for.
fn render(a: &VerifyArgs, sizes: &[Size], daemons: &[Daemon]) -> String {
    let forms = closed_forms(sizes, daemons, !a.no_rounds);
    match a.format {
        Format::Text => text(a, sizes, &forms),
        Format::Json => json_text(a, sizes, &forms),
        Format::Csv => csv(sizes),
    }
}

/// Per daemon (in order) and measure (steps, moves, rounds; rounds only
/// when counted): the closed form of its worst case over the sizes, or why
/// there is none.
type Forms = Vec<(String, Vec<(&'static str, Result<Fit, String>)>)>;

const MEASURES: [&str; 3] = ["steps", "moves", "rounds"];

fn closed_forms(sizes: &[Size], daemons: &[Daemon], rounds: bool) -> Forms {
    let distinct = sizes.windows(2).all(|w| w[0].n < w[1].n);
    daemons
        .iter()
        .enumerate()
        .map(|(d, daemon)| {
            let measures = MEASURES
                .iter()
                .enumerate()
                .filter(|&(k, _)| k < 2 || rounds)
                .map(|(k, &name)| {
                    // Per size, its worst case if it converges, and that
                    // worst case's measure if counted.
                    let worsts: Vec<Option<Option<u64>>> = sizes
                        .iter()
                        .map(|s| s.verdicts.get(d).and_then(worst).map(|w| w[k]))
                        .collect();
                    let uncounted: Vec<String> = sizes
                        .iter()
                        .zip(&worsts)
                        .filter(|(_, w)| matches!(w, Some(None)))
                        .map(|(s, _)| s.n.to_string())
                        .collect();
                    let fitted = if !distinct {
                        Err("the sizes do not grow with n".to_string())
                    } else if worsts.iter().any(Option::is_none) {
                        Err("not every size converges".to_string())
                    } else if !uncounted.is_empty() {
                        Err(format!("not counted at n = {}", uncounted.join(", ")))
                    } else {
                        let points: Vec<(i64, i64)> = sizes
                            .iter()
                            .zip(worsts.iter().flatten().flatten())
                            .map(|(s, &w)| (s.n as i64, w as i64))
                            .collect();
                        Ok(fit(&points, MOST_DEGREE))
                    };
                    (name, fitted)
                })
                .collect();
            (daemon.name().to_string(), measures)
        })
        .collect()
}

/// A size's parameters as `K=3 L=1`.
fn params_text(s: &Size) -> String {
    show::params_text(&s.params)
}

/// The table and the closed forms as text.
fn text(a: &VerifyArgs, sizes: &[Size], forms: &Forms) -> String {
    let mut rows: Vec<[String; 9]> = vec![[
        "n",
        "topology",
        "parameters",
        "configurations",
        "daemon",
        "verdict",
        "steps",
        "moves",
        "rounds",
    ]
    .map(String::from)];
    for s in sizes {
        for v in &s.verdicts {
            let w = worst(v);
            let cell = |k: usize| match w.and_then(|w| w[k]) {
                Some(x) => x.to_string(),
                None => "-".into(),
            };
            let configurations = s.configurations.unwrap_or(v.configurations);
            rows.push([
                s.n.to_string(),
                s.topology.clone(),
                params_text(s),
                configurations.to_string(),
                v.daemon.name().to_string(),
                verdict_word(v),
                cell(0),
                cell(1),
                cell(2),
            ]);
        }
    }
    let widths: Vec<usize> = (0..9)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!(
        "{} on {} ({}){}\n",
        a.instance.program,
        a.instance.topology.as_deref().unwrap_or("its topology"),
        show::count(sizes.len() as u64, "size"),
        match (&sizes.first(), a.from.as_deref()) {
            (_, Some(from)) if from != "all" => format!(", from {from}"),
            _ => String::new(),
        }
    );
    let (may_choose, draws) = sizes_may_choose(sizes);
    if let Some(line) = show::choices_line_for(may_choose, draws, a.choice.into()) {
        out += line;
        out.push('\n');
    }
    out.push('\n');
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                // Numbers to the right, words to the left.
                crate::report::pad(cell, widths[c], ![0, 3, 6, 7, 8].contains(&c))
            })
            .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    let symbolic: Vec<String> = sizes
        .iter()
        .filter(|s| s.verdicts.iter().any(|v| v.engine == Engine::Symbolic))
        .map(|s| s.n.to_string())
        .collect();
    if !symbolic.is_empty() {
        // The daemons of this run under which it leaves moves uncounted.
        let moves: Vec<&str> = forms
            .iter()
            .map(|(daemon, _)| daemon.as_str())
            .filter(|&d| {
                matches!(d, "distributed" | "locally-central")
                    || (d == "synchronous" && a.no_rounds)
            })
            .collect();
        let uncounted = match moves.as_slice() {
            [] => "rounds".to_string(),
            [one] => format!("rounds, and moves under the {one} daemon,"),
            [first @ .., last] => format!(
                "rounds, and moves under the {} and {last} daemons,",
                first.join(", ")
            ),
        };
        out += &format!(
            "\nthe symbolic engine explored n = {} ({uncounted} not counted: --engine explicit counts them)\n",
            symbolic.join(", ")
        );
    }
    let fitted = sizes.len().saturating_sub(2);
    if let (Some(first), Some(last)) = (sizes.first(), fitted.checked_sub(1).map(|l| &sizes[l])) {
        let checked: Vec<String> = sizes[fitted..].iter().map(|s| s.n.to_string()).collect();
        out += &format!(
            "\nclosed forms in n (the lowest-degree polynomial through n = {}..{}, predicting n = {} exactly):\n",
            first.n,
            last.n,
            checked.join(" and ")
        );
    } else {
        // Two sizes leave none to fit: each measure says "too few sizes".
        out += "\nclosed forms in n:\n";
    }
    for (daemon, measures) in forms {
        for (k, (measure, form)) in measures.iter().enumerate() {
            let d = if k == 0 { daemon.as_str() } else { "" };
            let text = match form {
                Ok(f) => f.to_string(),
                Err(why) => why.clone(),
            };
            out += &format!("  {d:<15} {measure:<6}  {text}\n");
        }
    }
    out
}

/// Whether a process of some size may choose, and whether one draws.
fn sizes_may_choose(sizes: &[Size]) -> (bool, bool) {
    let may = sizes.iter().flat_map(|s| &s.verdicts).any(|v| v.may_choose);
    let draws = sizes.iter().flat_map(|s| &s.verdicts).any(|v| v.draws);
    (may, draws)
}

/// The family as one JSON object.
fn json_text(a: &VerifyArgs, sizes: &[Size], forms: &Forms) -> String {
    let rows: Vec<serde_json::Value> = sizes
        .iter()
        .map(|s| {
            let params: serde_json::Map<String, serde_json::Value> = s
                .params
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            let daemons: Vec<serde_json::Value> = s
                .verdicts
                .iter()
                .map(|v| {
                    let w = worst(v);
                    json!({
                        "daemon": v.daemon.name(),
                        "holds": v.holds(),
                        "verdict": verdict_word(v),
                        "configurations": v.configurations,
                        "worst_steps": w.and_then(|w| w[0]),
                        "worst_moves": w.and_then(|w| w[1]),
                        "worst_rounds": w.and_then(|w| w[2]),
                    })
                })
                .collect();
            json!({
                "n": s.n,
                "topology": s.topology,
                "parameters": params,
                "configurations": s.configurations,
                "daemons": daemons,
            })
        })
        .collect();
    let closed: serde_json::Map<String, serde_json::Value> = forms
        .iter()
        .map(|(daemon, measures)| {
            let each: serde_json::Map<String, serde_json::Value> = measures
                .iter()
                .map(|(m, f)| {
                    let v = match f {
                        Ok(Fit::Exact {
                            polynomial,
                            exceptions,
                        }) => json!({
                            "polynomial": polynomial.to_string(),
                            "degree": polynomial.degree(),
                            "exceptions": exceptions,
                            "text": f.as_ref().map(ToString::to_string).unwrap_or_default(),
                        }),
                        Ok(other) => json!({"polynomial": null, "why": other.to_string()}),
                        Err(why) => json!({"polynomial": null, "why": why}),
                    };
                    (m.to_string(), v)
                })
                .collect();
            (daemon.clone(), serde_json::Value::Object(each))
        })
        .collect();
    let all_hold = sizes.iter().flat_map(|s| &s.verdicts).all(Verdict::holds);
    let v = json!({
        "program": a.instance.program,
        "topology": a.instance.topology,
        "choice": match Choices::from(a.choice) {
            Choices::Every => "every",
            Choices::First => "first",
        },
        "holds": all_hold,
        "sizes": rows,
        "closed_forms": closed,
    });
    format!("{v}\n")
}

/// A CSV row per size and daemon.
fn csv(sizes: &[Size]) -> String {
    let mut out = String::from(
        "n,topology,parameters,configurations,daemon,holds,verdict,worst_steps,worst_moves,worst_rounds\n",
    );
    let quoted = show::csv_field;
    for s in sizes {
        for v in &s.verdicts {
            let w = worst(v);
            let cell = |k: usize| {
                w.and_then(|w| w[k])
                    .map_or(String::new(), |x| x.to_string())
            };
            out += &format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
                s.n,
                quoted(&s.topology),
                quoted(&params_text(s)),
                s.configurations.unwrap_or(v.configurations),
                v.daemon.name(),
                v.holds(),
                quoted(&verdict_word(v)),
                cell(0),
                cell(1),
                cell(2)
            );
        }
    }
    out
}
