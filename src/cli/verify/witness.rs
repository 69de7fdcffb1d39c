//! The runs `guarded verify` reports, written as an init file and a
//! schedule each, which `guarded run` replays, and as a Graphviz chain of
//! their configurations.

use super::*;

/// Writes each run the verdict reports as NAME.init and NAME.sched in
/// `dir`, and its configurations as NAME.dot; what each is, and its path
/// without the extension.
pub(super) fn write_witnesses(
    inst: &Instance,
    v: &Verdict,
    dir: &Path,
) -> Result<Vec<(String, PathBuf)>, String> {
    let daemon = v.daemon.name();
    let mut runs: Vec<(String, Run)> = Vec::new();
    if let Some((_, run)) = &v.invariant {
        runs.push(("invariant".into(), run.clone()));
    }
    if let Some(run) = &v.closure {
        runs.push(("closure".into(), run.clone()));
    }
    if let Some((_, run)) = &v.fault {
        runs.push(("fault".into(), run.clone()));
    }
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => {
            runs.push(("most-steps".into(), steps.clone()));
            if let Some(moves) = moves {
                runs.push(("most-moves".into(), moves.clone()));
            }
            if let Some((_, run)) = rounds {
                runs.push(("most-rounds".into(), run.clone()));
            }
        }
        Convergence::Deadlock(run)
        | Convergence::NotDeclared {
            deadlock: Some(run),
        } => runs.push(("deadlock".into(), run.clone())),
        Convergence::Cycle { run, .. } => runs.push(("cycle".into(), run.clone())),
        Convergence::HoldsUnderFairness { run, .. } => {
            runs.push(("unfair-cycle".into(), run.clone()))
        }
        Convergence::NotDeclared { deadlock: None } => {}
    }
    for p in &v.properties {
        if let Some((run, _)) = &p.run {
            let what = if p.holds { "example" } else { "property" };
            runs.push((format!("{what}-{}", p.name), run.clone()));
        }
    }
    let mut written = Vec::new();
    for (what, run) in runs {
        let path = dir.join(format!("{daemon}-{what}"));
        let init = format_config(
            &inst.prog,
            &inst.code,
            &inst.topo,
            &run.start.rows,
            &run.start.chans,
        );
        if inst.runs_in_ticks() {
            // A tick's line gives its delays; nothing else is chosen.
            let sched: String = run
                .delays
                .iter()
                .map(|d| {
                    let each: Vec<String> = d.iter().map(u16::to_string).collect();
                    format!("tick {}\n", each.join(" ")).replace("tick \n", "tick\n")
                })
                .collect();
            for (ext, text) in [("init", init), ("sched", sched)] {
                let file = path.with_extension(ext);
                std::fs::write(&file, text)
                    .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
            }
            written.push((what, path));
            continue;
        }
        let lines = show::step_texts(inst, v, &run, " ");
        let sched: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let caption = format!(
            "{daemon} daemon: {what} ({})",
            show::count(run.steps.len() as u64, "step")
        );
        let dot = run_picture(inst, &run, &lines, &caption);
        for (ext, text) in [("init", init), ("sched", sched), ("dot", dot)] {
            let file = path.with_extension(ext);
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
        }
        written.push((what, path));
    }
    Ok(written)
}

/// The run's configurations as a DOT chain, replayed through the step
/// relation (the configuration met again at the end of a cycle closes it),
/// each step labelled with its line of `lines`.
fn run_picture(inst: &Instance, run: &Run, lines: &[String], caption: &str) -> String {
    let mut relation = inst.step_relation();
    let mut configs = vec![run.start.clone()];
    for moves in &run.steps {
        let last = configs.last().expect("the start is there");
        let next = match relation.successor_of(last, moves) {
            Ok(mut c) => {
                c.canonicalize();
                c
            }
            // A faulting last step: the picture ends before it.
            Err(_) => break,
        };
        configs.push(next);
    }
    let steps = &lines[..configs.len() - 1];
    crate::export::dot::run_chain(&inst.prog, &inst.code, &inst.topo, &configs, steps, caption)
}
