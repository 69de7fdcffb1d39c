//! The warning about actions of one role and one priority whose guards
//! may hold together (the compiler finds the pairs it cannot prove
//! exclusive): where the two semantics, every choice and the first, part.

use super::Compiled;
use crate::diagnostic::Problem;
use crate::syntax::ast;

/// A warning for each pair of actions of one role and one priority that
/// may be enabled together: there `verify` explores both, and runs take
/// the first.
pub fn overlapping_actions(code: &Compiled, ast: &ast::Program) -> Vec<Problem> {
    let mut out = Vec::new();
    for (r, role) in code.roles.iter().enumerate() {
        let label_span = |label: &str| {
            let ast = ast.roles.get(r)?;
            let a = ast.actions.iter().find(|a| a.label.name == label)?;
            Some(a.label.span)
        };
        for &(i, j) in &role.overlaps {
            let (a, b) = (&role.actions[i as usize], &role.actions[j as usize]);
            // A binder's guard is read member by member, and exclusion
            // often rests on what one member's guard says of the others
            // (matching's R1 and R2), which the proof leaves aside: not
            // worth a warning that may well be wrong. A receive's
            // exclusion from a plain action rests on the process's own
            // state, which the proof reads (two receives are never paired:
            // the oldest message decides between them).
            if a.binder.is_some() || b.binder.is_some() {
                continue;
            }
            let problem = Problem::new(
                "guarded::check::overlapping_actions",
                format!(
                    "`{}` and `{}` (priority {}) may be enabled together",
                    a.label, b.label, a.priority
                ),
            )
            .label_opt(label_span(&a.label), format!("`{}`", a.label))
            .label_opt(label_span(&b.label), format!("`{}`, whose guard may hold with `{}`'s", b.label, a.label))
            .help(format!(
                "a process where both are enabled may take either: `verify` explores both (every run); `run` takes `{}`, the first in program order (one at random with --choice random). Make the guards exclusive if only one should run",
                a.label
            ))
            .warning();
            out.push(problem);
        }
    }
    out
}
