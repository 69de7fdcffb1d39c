//! A configuration and a runtime error in one line each, as the outputs
//! of `verify` and `expect` name them.

use super::*;

/// A configuration in one line: `x = [0, 2, 1]` for one variable per
/// process, else `0: x=1 y=2 | 1: ...`; then the messages in transit, if
/// any (`; in transit 0->1: tok, 1->2: elect(3) elected(2)`).
pub(super) fn config_text(inst: &Instance, cfg: &Config) -> String {
    let rows = rows_text(inst, cfg);
    let transit = crate::runtime::init::in_transit(&inst.prog, &inst.topo, &cfg.chans);
    if transit.is_empty() {
        return rows;
    }
    let channels: Vec<String> = transit
        .iter()
        .map(|(p, q, ms)| format!("{p}->{q}: {}", ms.join(" ")))
        .collect();
    format!("{rows}; in transit {}", channels.join(", "))
}

/// [`config_text`]'s rows.
fn rows_text(inst: &Instance, cfg: &Config) -> String {
    let (prog, code, topo) = (&inst.prog, &inst.code, &inst.topo);
    let stride = code.stride;
    let show = |p: usize, v: usize| {
        code.show_var(
            prog,
            topo.nbrs(p),
            v,
            &cfg.rows[p * stride..(p + 1) * stride],
        )
    };
    if prog.vars.len() == 1 {
        let each: Vec<String> = (0..topo.n()).map(|p| show(p, 0)).collect();
        return format!("{} = [{}]", prog.vars[0].name, each.join(", "));
    }
    let procs: Vec<String> = (0..topo.n())
        .map(|p| {
            let vars: Vec<String> = (0..prog.vars.len())
                .map(|v| format!("{}={}", prog.vars[v].name, show(p, v)))
                .collect();
            format!("{p}: {}", vars.join(" "))
        })
        .collect();
    procs.join(" | ")
}

/// A runtime error in a few words.
pub(super) fn fault_text(e: &crate::runtime::step::RunError) -> String {
    use crate::runtime::step::RunError;
    match e {
        RunError::Fault {
            fault,
            process,
            action,
            ..
        } => {
            let at = match (process, action) {
                (Some(p), Some((label, _))) => format!(" (process {p}, action `{label}`)"),
                _ => String::new(),
            };
            format!("{}{at}", fault.message)
        }
        RunError::Conflict {
            var, edge, writers, ..
        } => format!(
            "processes {} and {} both write `{var}` of edge {}-{}",
            writers[0].0, writers[1].0, edge.0, edge.1
        ),
        RunError::Schedule { message, .. } => message.clone(),
    }
}
