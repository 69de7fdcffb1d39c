//! The worst case in rounds. A round ends at the first step by which every
//! process enabled at its start has moved or been neutralized (a started
//! round counts as one), so how many rounds a run takes depends on more
//! than its configurations: the search runs over (configuration, the
//! round's processes still pending, whether the round has started), from
//! every configuration outside legitimacy with a fresh round, as
//! `guarded run` starts one.

use super::search::Search;
use super::{Explorer, Refusal, Run, MAX_ROUND_STATES};
use std::collections::HashMap;

/// A configuration, the round's pending processes as bits, and whether a
/// step of the round has been taken.
type Key = (u32, u64, bool);

/// A step between keys: where it leads, whether it ends a round, who moves.
struct Step {
    to: Key,
    ends_round: u32,
    movers: Vec<u32>,
}

struct Frame {
    key: Key,
    steps: Vec<(Key, u32)>,
    next: usize,
    /// Whether the step into this key ended a round.
    ends_round: u32,
    best: u32,
}

/// The steps from `key`: each mover leaves the round, so does every pending
/// process the step disables; when none is left, the round ends and the
/// next starts with the processes then enabled.
fn steps(s: &mut Search, ex: &Explorer, (c, pending, _): Key) -> Result<Vec<Step>, Refusal> {
    Ok(s.edges(c)?
        .into_iter()
        .map(|e| {
            let moved = e.movers.iter().fold(0u64, |m, &p| m | 1 << p);
            let enabled = ex.enabled[e.to as usize];
            let left = pending & !moved & enabled;
            let (to, ends_round) = if left == 0 {
                ((e.to, enabled, false), 1)
            } else {
                ((e.to, left, true), 0)
            };
            Step {
                to,
                ends_round,
                movers: e.movers,
            }
        })
        .collect())
}

/// The rounds still to count at a legitimate key: the started round.
fn at_legitimacy(key: Key) -> u32 {
    u32::from(key.2)
}

/// The most rounds any run takes to legitimacy, with such a run; `None`
/// when rounds are not counted (more than 64 processes) or the search
/// would pass [`MAX_ROUND_STATES`] states. Only for instances that
/// converge: the search assumes no cycle outside legitimacy.
pub(super) fn worst_rounds(s: &mut Search, ex: &Explorer) -> Result<Option<(u64, Run)>, Refusal> {
    if ex.enabled.is_empty() {
        return Ok(None);
    }
    let legit = &ex.legit;
    let mut memo: HashMap<Key, u32> = HashMap::new();
    let value = |memo: &HashMap<Key, u32>, k: Key| {
        if legit[k.0 as usize] {
            Some(at_legitimacy(k))
        } else {
            memo.get(&k).copied()
        }
    };
    let mut worst: Option<(u32, Key)> = None;
    // From a start, only the start's fresh round; else every configuration's.
    let starts: Vec<u32> = if ex.states.reached_from_a_start() {
        vec![0]
    } else {
        (0..ex.count).collect()
    };
    let starts: Vec<u32> = starts.into_iter().filter(|&c| !legit[c as usize]).collect();
    for &c in &starts {
        let start = (c, ex.enabled[c as usize], false);
        if memo.contains_key(&start) {
            continue;
        }
        let mut stack = vec![open(s, ex, start, 0)?];
        while let Some(top) = stack.last_mut() {
            if let Some(&(k, w)) = top.steps.get(top.next) {
                top.next += 1;
                match value(&memo, k) {
                    Some(v) => top.best = top.best.max(w + v),
                    None => {
                        if memo.len() + stack.len() > MAX_ROUND_STATES {
                            return Ok(None);
                        }
                        let frame = open(s, ex, k, w)?;
                        stack.push(frame);
                    }
                }
                continue;
            }
            let done = stack.pop().expect("the loop saw a top");
            memo.insert(done.key, done.best);
            if (memo.len() as u64).is_multiple_of(super::PROGRESS_EVERY) {
                let what = format!("{}: rounds", s.daemon_name());
                ex.tell(&what, memo.len() as u64, 0)?;
            }
            if let Some(below) = stack.last_mut() {
                below.best = below.best.max(done.ends_round + done.best);
            }
        }
    }
    for &c in &starts {
        let start = (c, ex.enabled[c as usize], false);
        let v = memo[&start];
        if worst.is_none_or(|(w, _)| v > w) {
            worst = Some((v, start));
        }
    }
    let Some((most, start)) = worst else {
        // Every configuration is legitimate: no run takes a round.
        let start = ex.states.config(0);
        return Ok(Some((
            0,
            Run {
                start,
                steps: vec![],
            },
        )));
    };
    let mut run = Run {
        start: ex.states.config(start.0),
        steps: Vec::new(),
    };
    let mut at = start;
    while !legit[at.0 as usize] {
        let want = memo[&at];
        let next = steps(s, ex, at)?
            .into_iter()
            .find(|st| value(&memo, st.to).is_some_and(|v| st.ends_round + v == want));
        let Some(st) = next else {
            return Err(Refusal::Unsupported(
                "the worst case in rounds could not be retraced (an inconsistency in the explorer)"
                    .into(),
            ));
        };
        run.steps.push(st.movers);
        at = st.to;
    }
    Ok(Some((u64::from(most), run)))
}

fn open(s: &mut Search, ex: &Explorer, key: Key, ends_round: u32) -> Result<Frame, Refusal> {
    let steps = steps(s, ex, key)?
        .into_iter()
        .map(|st| (st.to, st.ends_round))
        .collect();
    Ok(Frame {
        key,
        steps,
        next: 0,
        ends_round,
        best: 0,
    })
}
