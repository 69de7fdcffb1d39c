//! The runs `guarded verify` reports, written as an init file and a
//! schedule each, which `guarded run` replays.

use super::*;

/// Writes each run the verdict reports as NAME.init and NAME.sched in
/// `dir`; what each is, and its path without the extension.
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
            runs.push(("most-moves".into(), moves.clone()));
            if let Some((_, run)) = rounds {
                runs.push(("most-rounds".into(), run.clone()));
            }
        }
        Convergence::Deadlock(run)
        | Convergence::NotDeclared {
            deadlock: Some(run),
        } => runs.push(("deadlock".into(), run.clone())),
        Convergence::Cycle { run, .. } => runs.push(("cycle".into(), run.clone())),
        Convergence::HoldsUnderWeakFairness { run, .. } => {
            runs.push(("unfair-cycle".into(), run.clone()))
        }
        Convergence::NotDeclared { deadlock: None } => {}
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
        let sched: String = run
            .steps
            .iter()
            .map(|m| {
                let ps: Vec<String> = m.iter().map(u32::to_string).collect();
                ps.join(" ") + "\n"
            })
            .collect();
        for (ext, text) in [("init", init), ("sched", sched)] {
            let file = path.with_extension(ext);
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
        }
        written.push((what, path));
    }
    Ok(written)
}
