//! `verify --format json`: the verdicts, their runs and configurations
//! as JSON.

use super::one_line::fault_text;
use super::show::no_run_counts;
use super::*;

/// A configuration as JSON: one object of values per process.
pub(super) fn config_json(inst: &Instance, cfg: &Config) -> serde_json::Value {
    let stride = inst.code.stride;
    serde_json::Value::Array(
        (0..inst.topo.n())
            .map(|p| {
                crate::report::values_json(
                    &inst.prog,
                    &inst.code,
                    inst.topo.nbrs(p),
                    &cfg.rows[p * stride..(p + 1) * stride],
                )
            })
            .collect(),
    )
}

/// A run as JSON: its start, each step's movers and each step's moves as
/// a schedule writes them (`3:copy`), and how many moves it makes.
pub(super) fn run_json(inst: &Instance, run: &Run) -> serde_json::Value {
    let movers: Vec<Vec<u32>> = (0..run.steps.len()).map(|k| run.movers(k)).collect();
    let actions: Vec<Vec<String>> = run
        .steps
        .iter()
        .map(|step| step.iter().map(|m| m.text(&inst.code, true)).collect())
        .collect();
    let mut v = json!({
        "start": config_json(inst, &run.start),
        "steps": movers,
        "actions": actions,
        "moves": run.moves(),
    });
    if inst.runs_in_ticks() {
        // In ticks, what varies from run to run: each tick's delays.
        v["delays"] = json!(run.delays);
    }
    v
}

/// One daemon's verdict as JSON.
pub(super) fn verdict_json(
    inst: &Instance,
    v: &Verdict,
    written: &[(String, PathBuf)],
) -> serde_json::Value {
    let convergence = match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => json!({
            "holds": true,
            "vacuous": no_run_counts(inst, steps),
            "worst_steps": steps.steps.len(),
            "worst_moves": moves.as_ref().map(Run::moves),
            "worst_rounds": rounds.as_ref().map(|r| r.0),
            "most_steps": run_json(inst, steps),
            "most_moves": moves.as_ref().map(|m| run_json(inst, m)),
            "most_rounds": rounds.as_ref().map(|r| run_json(inst, &r.1)),
        }),
        Convergence::Deadlock(run) => json!({"holds": false, "deadlock": run_json(inst, run)}),
        Convergence::Cycle { run, cycle_from } => {
            json!({"holds": false, "cycle": run_json(inst, run), "cycle_from": cycle_from})
        }
        Convergence::HoldsUnderFairness { run, cycle_from } => json!({
            "holds": true,
            "under_fairness": v.fairness.name(),
            "under_weak_fairness": v.fairness == crate::verify::Fairness::Weak,
            "unfair_cycle": run_json(inst, run),
            "cycle_from": cycle_from,
        }),
        Convergence::NotDeclared { deadlock } => json!({
            "holds": deadlock.is_none(),
            "legitimacy": "not declared",
            "deadlock": deadlock.as_ref().map(|run| run_json(inst, run)),
        }),
    };
    let witnesses: serde_json::Map<String, serde_json::Value> = written
        .iter()
        .map(|(what, path)| (what.clone(), json!(path.display().to_string())))
        .collect();
    let mut out = json!({
        "daemon": v.daemon.name(),
        "fairness": v.fairness.name(),
        "holds": v.holds(),
        // By orbits, how many configurations the orbits hold is not counted.
        "configurations": (v.symmetries == 1).then_some(v.configurations),
        "orbits": (v.symmetries > 1).then_some(v.configurations),
        "symmetries": v.symmetries,
        "legitimate": v.legitimate,
        "transitions": v.transitions,
        "invariant": v.invariant.as_ref().map(|(name, run)| json!({"name": name, "run": run_json(inst, run)})),
        // Where they were not checked (the symbolic engine, ticks), each
        // with `holds` null.
        "properties": if v.properties.is_empty() {
            inst.code.properties.iter().map(|p| json!({"name": p.name, "holds": null})).collect::<Vec<_>>()
        } else {
            v.properties.iter().map(|p| json!({
            "name": p.name,
            "form": p.form,
            "fairness": p.fairness.name(),
            "holds": p.not_checked.is_none().then_some(p.holds),
            "not_checked": p.not_checked,
            "process": p.process,
            "run": p.run.as_ref().map(|(run, _)| run_json(inst, run)),
            "cycle_from": p.run.as_ref().and_then(|(_, from)| *from),
        })).collect::<Vec<_>>()
        },
        "fault": v.fault.as_ref().map(|(e, run)| json!({"error": fault_text(e), "run": run_json(inst, run)})),
        "closure": v.closure.as_ref().map(|run| json!({"holds": false, "step": run_json(inst, run)})).unwrap_or(json!({"holds": true})),
        "convergence": convergence,
        "witnesses": witnesses,
        "engine": match v.engine {
            Engine::Explicit => "explicit",
            Engine::Symbolic => "symbolic",
        },
    });
    if let Some((peak, limit)) = v.nodes {
        out["nodes"] = json!({"peak": peak, "limit": limit});
    }
    if let Some(for_good) = &v.for_good {
        // Where legitimacy is not closed: how late it may still be lost.
        out["for_good"] = match for_good {
            Some(run) => {
                json!({"bounded": true, "steps": run.steps.len(), "run": run_json(inst, run)})
            }
            None => json!({"bounded": false}),
        };
    }
    out
}

/// The whole verdict as one JSON object.
pub(super) fn summary_json(
    a: &VerifyArgs,
    inst: &Instance,
    (every, symmetries): (Option<u64>, usize),
    from_start: bool,
    all_hold: bool,
    blocks: Vec<serde_json::Value>,
) -> String {
    let params: serde_json::Map<String, serde_json::Value> = inst
        .code
        .params
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let v = json!({
        "program": a.instance.program,
        "topology": inst.topo.name,
        "processes": inst.topo.n(),
        "parameters": params,
        "configurations": match symmetries {
            1 => every,
            _ => every.map(|_| inst.space().count() as u64),
        },
        "orbits": every.filter(|_| symmetries > 1),
        "symmetries": symmetries,
        "from": a.from.as_deref().unwrap_or(if from_start { "declared" } else { "all" }),
        "choice": match Choices::from(a.choice) {
            Choices::Every => "every",
            Choices::First => "first",
        },
        "may_choose": inst.code.may_choose(),
        "holds": all_hold,
        "daemons": blocks,
    });
    format!("{v}\n")
}
