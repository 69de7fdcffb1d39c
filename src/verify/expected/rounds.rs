//! Expected rounds: the model lifted to a configuration and the processes
//! its round still owes a move, as `guarded run` counts rounds. A round
//! begins with the processes enabled at its first step; each step drops
//! from them those that moved and those it leaves disabled (neutralized);
//! when none is left, the next step begins a new round. A round is counted
//! when it begins, so a run that reaches legitimacy in the middle of one
//! counts it, as runs do.

use super::flat::Flat;
use super::Model;
use crate::verify::Refusal;
use rustc_hash::FxHashMap;

/// A state of the lifted model: a configuration of the model and the
/// processes (as bits) its round still owes; none owed: a round begins
/// with the next step.
type State = (u32, u64);

/// The model lifted to rounds.
pub(super) struct Lifted {
    /// Its states, laid out for value iteration.
    pub(super) flat: Flat,
    /// The order a sweep takes the states outside legitimacy in: by the
    /// processes they owe, fewest first (a round's starts owe none).
    pub(super) order: Vec<u32>,
    /// Each state's configuration in the model.
    pub(super) configs: Vec<u32>,
}

/// Bytes a state takes beyond its parts in the layout: itself, its
/// number's entry in the index (with the table's slack), its place in the
/// order, its configuration.
const STATE_BYTES: u64 = 16 + 32 + 4 + 4;

/// `model` lifted to rounds, laid out for value iteration: its first states
/// are its configurations each at a round's start, in its order (so a
/// start keeps its number); a choice costs the rounds it begins (1 from a
/// round's start, else 0). At most `most` states, and `bytes` in all;
/// processes past 64 are refused.
pub(super) fn lift(
    model: &Model,
    processes: usize,
    (most, bytes): (usize, u64),
) -> Result<Lifted, Refusal> {
    if processes > 64 {
        return Err(Refusal::Unsupported(
            "rounds follow each process as a bit: at most 64 processes".into(),
        ));
    }
    let count = model.legit.len();
    // Each configuration's enabled processes: the movers of its steps
    // together (every enabled process moves in some step).
    let enabled: Vec<u64> = model
        .outcomes
        .iter()
        .map(|outcomes| {
            outcomes
                .iter()
                .flat_map(|o| &o.choices)
                .fold(0, |bits, c| bits | c.movers)
        })
        .collect();
    let mut states: Vec<State> = (0..count as u32).map(|c| (c, 0)).collect();
    let mut index: FxHashMap<State, u32> = states
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, i as u32))
        .collect();
    let mut lifted = Flat::new();
    let mut legit = Vec::new();
    let mut next = 0;
    while next < states.len() {
        let (c, owed_before) = states[next];
        let begins = owed_before == 0;
        let owed = match begins {
            true => enabled[c as usize],
            false => owed_before,
        };
        for o in &model.outcomes[c as usize] {
            lifted.outcome(o.weight);
            for choice in &o.choices {
                lifted.choice(f64::from(u8::from(begins)));
                for &(t, p) in &choice.to {
                    let left = owed & !choice.movers & enabled[t as usize];
                    let state = (t, left);
                    let i = match index.get(&state) {
                        Some(&i) => i,
                        None => {
                            if states.len() >= most {
                                return Err(Refusal::TooManyReached(states.len() as u64));
                            }
                            let i = states.len() as u32;
                            states.push(state);
                            index.insert(state, i);
                            i
                        }
                    };
                    lifted.successor(i, p);
                }
            }
        }
        lifted.config();
        legit.push(model.legit[c as usize]);
        next += 1;
        let taken = lifted.bytes() + states.len() as u64 * STATE_BYTES;
        if taken > bytes {
            return Err(Refusal::Unsupported(format!(
                "the model lifted to rounds passes {} MB (the memory budget less the model's) at {} states: raise --memory-limit",
                bytes >> 20,
                states.len()
            )));
        }
    }
    // A state's steps lead to states owing fewer processes, or as many
    // (its mover was not owed), or to a round's start: a sweep that takes
    // them in that order reads what it has updated already through much of
    // a round (Herman's ring of 9: 2,555 sweeps in index order, 1,611 so).
    let mut order: Vec<u32> = (0..states.len() as u32)
        .filter(|&i| !legit[i as usize])
        .collect();
    order.sort_by_key(|&i| states[i as usize].1.count_ones());
    Ok(Lifted {
        flat: lifted,
        order,
        configs: states.iter().map(|&(c, _)| c).collect(),
    })
}
