//! Steps that move several processes, where SPIN chooses who moves and how:
//! the distributed daemon (any non-empty set of enabled processes), the
//! locally central one (no two of them neighbours), and the synchronous
//! one where a process has several moves. Within one `atomic` sequence,
//! whose states SPIN does not store, the step first picks its movers (the
//! first by number, then each later enabled process or not, so that every
//! set comes once) and each mover's move, into hidden variables; then one
//! `d_step` moves them from a copy of the configuration, as the
//! synchronous step does (messages taken before any is sent); where the
//! program draws, the moves stay in the `atomic` sequence (see
//! [`super::draws`]).

use super::expr::disjunction;
use super::stmt::indent;
use super::{copies, invariant_checks, now_and_old, PromelaDaemon, Tr, Untranslatable};
use std::fmt::Write;

/// The hidden variables the choice of movers and moves uses.
pub(super) fn declare(n: usize, out: &mut String) {
    let _ = writeln!(out, "hidden int mv[{n}];  /* 1: moves in the step */");
    let _ = writeln!(out, "hidden int cm[{n}];  /* the move made, from 1 */");
    let _ = writeln!(out, "hidden int f0;       /* the first mover */");
}

/// The loop's branch for a step of several movers under `daemon`.
pub(super) fn several_movers(base: &Tr, daemon: PromelaDaemon) -> Result<String, Untranslatable> {
    let base = &base.drawing_steps();
    let n = base.topo.n();
    let mut enabled = Vec::new();
    let mut choose = Vec::new();
    let mut takes = Vec::new();
    let mut moves = Vec::new();
    for p in 0..n {
        let (now, old) = now_and_old(base, p);
        enabled.push(now.enabled(p)?);
        // What fires is read before anything moves; what a move does,
        // from the copy, as the synchronous step reads it.
        let fires = now.moves()?;
        let own = old.moves()?;
        let mut branches: Vec<String> = fires
            .iter()
            .enumerate()
            .map(|(i, m)| format!(":: mv[{p}] == 1 && {} -> cm[{p}] = {}", m.fires, i + 1))
            .collect();
        branches.push(format!(":: mv[{p}] == 0 -> cm[{p}] = 0"));
        choose.push(format!("if\n{}\nfi", branches.join("\n")));
        let taking: Vec<(String, usize)> = own
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((format!("cm[{p}] == {}", i + 1), m.takes?)))
            .collect();
        if let Some(take) = base.channels.and_then(|c| c.take_when(&taking)) {
            takes.push(format!("/* process {p} takes */\n{take}"));
        }
        let bodies: Vec<String> = own
            .iter()
            .enumerate()
            .map(|(i, m)| {
                format!(
                    ":: cm[{p}] == {} ->  /* {} */\n{}",
                    i + 1,
                    m.label,
                    indent(&m.body)
                )
            })
            .collect();
        if !bodies.is_empty() {
            moves.push(format!(
                "/* process {p} */\nif\n{}\n:: else -> skip\nfi",
                bodies.join("\n")
            ));
        }
    }
    let movers = match daemon {
        PromelaDaemon::Synchronous => (0..n)
            .map(|p| format!("mv[{p}] = ({} -> 1 : 0)", enabled[p]))
            .collect(),
        _ => pick_movers(base, &enabled, daemon == PromelaDaemon::LocallyCentral),
    };
    let step = if base.atomic_move {
        // In the `atomic` sequence, where a choice made in a `d_step`
        // would be SPIN's first.
        format!(
            "{}{}",
            base.prepared_moves(copies(base), takes, moves),
            invariant_checks(base)
        )
    } else {
        let mut steps: Vec<String> = takes.into_iter().chain(moves).collect();
        if steps.is_empty() {
            steps.push("skip".into());
        }
        format!(
            "d_step {{\n{};\n{}{}\n}}",
            indent(&copies(base).join("; ")),
            indent(&steps.join(";\n")),
            indent(&invariant_checks(base))
        )
    };
    let body = [movers, choose, vec![step]].concat().join(";\n");
    Ok(format!(
        "    :: atomic {{ {} ->\n{}\n       }}\n",
        disjunction(enabled),
        indent(&indent(&body))
    ))
}

/// The movers of a distributed (or, `apart`, locally central) step: the
/// first by number, then each later enabled process or not (where no
/// neighbour before it moves, `apart`).
fn pick_movers(base: &Tr, enabled: &[String], apart: bool) -> Vec<String> {
    let first: Vec<String> = enabled
        .iter()
        .enumerate()
        .map(|(p, en)| format!(":: {en} -> f0 = {p}"))
        .collect();
    let mut out = vec![format!("if\n{}\nfi", first.join("\n"))];
    for (p, en) in enabled.iter().enumerate() {
        let mut may = vec![format!("f0 < {p}"), en.clone()];
        if apart {
            let before = (0..p).filter(|&q| {
                base.topo.nbrs(p).contains(&(q as u32)) || base.topo.nbrs(q).contains(&(p as u32))
            });
            may.extend(before.map(|q| format!("mv[{q}] == 0")));
        }
        out.push(format!(
            "if\n:: f0 == {p} -> mv[{p}] = 1\n:: {} -> mv[{p}] = 1\n:: f0 != {p} -> mv[{p}] = 0\nfi",
            may.join(" && ")
        ));
    }
    out
}
