//! Which action a process runs: the first of its actions (priority, then
//! program order) whose guard holds, except that among receive actions of
//! one priority the one whose message is oldest runs. Used by every path
//! that steps (the engine, the step relation).

use crate::compile::{CRole, Env, Fault, NO_ACTION};

/// The first action of `role` whose guard holds in `env`, among all its
/// actions or only those whose guards read timers; `NO_ACTION` when none
/// does. A fault comes with the index of the action whose guard raised it.
#[inline]
pub(crate) fn first_true(
    role: &CRole,
    env: &Env,
    only_timers: bool,
) -> Result<u16, (usize, Box<Fault>)> {
    for (i, a) in role.actions.iter().enumerate() {
        if only_timers && !a.reads_timers {
            continue;
        }
        match (a.guard)(env) {
            Ok(true) if a.receive_from.is_some() => return oldest_receive(role, env, i),
            Ok(true) => return Ok(i as u16),
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    Ok(NO_ACTION)
}

/// Among the enabled receive actions of the priority of action `first`
/// (enabled, a receive), the one whose message is oldest: the process
/// takes its messages oldest first whichever action takes them, so that
/// no channel starves another.
#[cold]
fn oldest_receive(role: &CRole, env: &Env, first: usize) -> Result<u16, (usize, Box<Fault>)> {
    // The sequence number of the message an enabled receive would take,
    // read right after its guard bound the sender.
    let head_seq = |a: &crate::compile::CAction| {
        let s = env.locals[a.receive_from.expect("a receive")].get() as usize;
        env.chans
            .between(env.topo, s, env.me)
            .and_then(|c| c.front())
            .map_or(u64::MAX, |m| m.seq)
    };
    let priority = role.actions[first].priority;
    let mut best = (head_seq(&role.actions[first]), first);
    for (i, a) in role.actions.iter().enumerate().skip(first + 1) {
        if a.priority != priority {
            break;
        }
        if a.receive_from.is_none() {
            continue;
        }
        match (a.guard)(env) {
            Ok(true) => {
                let seq = head_seq(a);
                if seq < best.0 {
                    best = (seq, i);
                }
            }
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    Ok(best.1 as u16)
}
