//! What the page is sent: the instance's picture once, then the state at
//! the current node (values, enabled processes, legitimacy, invariants,
//! reports, messages, arrows), the moves allowed there with a preview of
//! each, and the tree.

use super::session::Exploration;
use crate::export::dot::arrows;
use crate::report::msg_text;
use crate::runtime::engine::Simulation;
use crate::state::Config;
use serde_json::{json, Value};

/// The most moves whose changes are worked out for the page.
const MOST_PREVIEWS: usize = 200;

/// Every value of every process, as the trace prints them (without the
/// variables' names).
fn rows(sim: &Simulation, cfg: &Config) -> Vec<Vec<String>> {
    let stride = sim.stride();
    (0..sim.n())
        .map(|p| {
            let row = cfg.row(p, stride);
            (0..sim.prog.vars.len())
                .map(|v| sim.code.show_var(&sim.prog, sim.topology().nbrs(p), v, row))
                .collect()
        })
        .collect()
}

/// What the page needs at the current node.
pub(super) fn state(x: &Exploration) -> Result<Value, String> {
    let sim = x.sim();
    let cfg = sim.config();
    let now = sim.now();
    let mut enabled = sim.enabled().to_vec();
    enabled.sort_unstable();
    let invariant = match sim.violated_invariant() {
        Ok(Some(i)) => Some(sim.invariant_name(i).to_string()),
        _ => None,
    };
    let reports: Vec<Value> = sim
        .reports()
        .into_iter()
        .map(|(name, v)| json!([name, v.unwrap_or_else(|e| format!("error: {e}"))]))
        .collect();
    let before = rows(sim, &cfg);
    let mut rel = sim.step_relation();
    let mut moves = Vec::new();
    for (k, listed) in x.moves()?.into_iter().enumerate() {
        let mut changes = Vec::new();
        if k < MOST_PREVIEWS {
            match rel.successor_of(&cfg, std::slice::from_ref(&listed.mv)) {
                Ok(next) => {
                    let after = rows(sim, &next);
                    for (p, (b, a)) in before.iter().zip(&after).enumerate() {
                        for (v, (bv, av)) in b.iter().zip(a).enumerate() {
                            if bv != av {
                                changes.push(json!([p, sim.prog.vars[v].name, bv, av]));
                            }
                        }
                    }
                    // What it takes and sends, as the trace says it.
                    let record = rel.last_record();
                    if let Some(Some((from, m))) = record.received.first() {
                        let took = format!("took {} from {from}", msg_text(sim, m));
                        changes.push(json!(["message", took]));
                    }
                    for (_, to, m) in &record.sent {
                        let sent = format!("sent {} to {to}", msg_text(sim, m));
                        changes.push(json!(["message", sent]));
                    }
                }
                Err(e) => changes.push(json!(["error", x.error(&e)])),
            }
        }
        let role = &sim.code.roles[sim.code.role_of.of(listed.mv.process as usize)];
        moves.push(json!({
            "process": listed.mv.process,
            "text": listed.text,
            "label": role.actions[listed.mv.action as usize].label,
            "changes": changes,
        }));
    }
    let path = x.path();
    let last_movers: Vec<u32> = if now.step == 0 {
        Vec::new()
    } else {
        let mut m = sim.last().movers().to_vec();
        m.sort_unstable();
        m
    };
    Ok(json!({
        "node": x.current,
        "step": now.step,
        "moves_taken": now.moves,
        "round": now.round,
        "rows": before,
        "enabled": enabled,
        "last_movers": last_movers,
        "legitimate": sim.legitimate(),
        "invariant": invariant,
        "reports": reports,
        "channels": crate::report::nonempty_channels(sim),
        "arrows": arrows(&sim.prog, &sim.code, sim.topology(), &cfg)
            .into_iter()
            .map(|(a, b, _)| (a, b))
            .collect::<Vec<_>>(),
        "daemon": sim.daemon().name(),
        "ticks": sim.runs_in_ticks(),
        "moves": moves,
        "path": path
            .iter()
            .chain(&x.ahead())
            .map(|&id| {
                let n = &x.nodes[id];
                json!({"node": id, "text": n.text, "messages": n.messages})
            })
            .collect::<Vec<_>>(),
        "here": path.len() - 1,
        "tree": x
            .nodes
            .iter()
            .enumerate()
            .map(|(id, n)| json!({"node": id, "parent": n.parent, "text": n.text}))
            .collect::<Vec<_>>(),
    }))
}

/// The instance as drawn, with the program's text and the daemons.
pub(super) fn instance(x: &Exploration) -> Value {
    let sim = x.sim();
    json!({
        "program": x.launch.program,
        "source": x.source(),
        "picture": crate::export::html::Picture::of(sim),
        "has_legitimacy": sim.prog.legitimate.is_some(),
        "has_messages": !sim.prog.messages.is_empty(),
        "daemons": if sim.runs_in_ticks() {
            vec!["ticks"]
        } else {
            vec!["central", "locally-central", "distributed", "synchronous"]
        },
    })
}
