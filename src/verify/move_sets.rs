//! The steps of a daemon from the moves of the enabled processes, each a
//! number: what a move adds to a configuration's index summed over the
//! move set, in the order of [`Daemon::move_sets`]
//! (lexicographic, each set followed by its extensions), numbered by the
//! caller (an index of the space, or the place a store of reached
//! configurations gives it).

use super::successors::Succ;
#[cfg(doc)]
use crate::runtime::daemon::Daemon;

/// Up to how many enabled processes the distributed daemon's move sets
/// are listed from a table: 4,095 sets, 32 KB.
pub(super) const TABULATED: usize = 12;

/// A non-empty subset of places in a list of subsets: the position of
/// the subset it extends (itself without its last place; [`Extends::NONE`]
/// for one place) and its last place.
#[derive(Clone, Copy)]
pub(super) struct Extends {
    parent: u32,
    place: u32,
}

impl Extends {
    const NONE: u32 = u32::MAX;
}

/// The non-empty subsets of `m` places in lexicographic order, each set
/// followed by its extensions (the order of [`Daemon::move_sets`]): each
/// comes after the set it extends.
pub(super) fn subset_order(m: usize) -> Vec<Extends> {
    fn extend(parent: u32, from: usize, m: usize, out: &mut Vec<Extends>) {
        for place in from..m {
            let at = out.len() as u32;
            out.push(Extends {
                parent,
                place: place as u32,
            });
            extend(at, place + 1, m, out);
        }
    }
    let mut out = Vec::with_capacity((1 << m) - 1);
    extend(Extends::NONE, 0, m, &mut out);
    out
}

/// Appends every non-empty extension of the move set `(index, size, members)`
/// by moves of `rest`, in [`Daemon::move_sets`]'s lexicographic order,
/// each where `number` numbers its index; with `apart`, only sets with no
/// two processes kept apart.
pub(super) fn subsets(
    rest: &[(u32, i64)],
    apart: Option<&[u64]>,
    set: (i64, u32, u64),
    number: impl Fn(i64) -> u32,
    out: &mut Vec<Succ>,
) {
    // The recursion's order, without recursion: the members' places in
    // `rest` on a stack; each set is followed by its extensions by a later
    // place, then by its last member's next place.
    let len = rest.len();
    // At most one move of a process (its moves come together in `rest`).
    let fits = |k: usize, members: u64| {
        let p = rest[k].0 as usize;
        members >> p & 1 == 0 && apart.is_none_or(|a| a[p] & members == 0)
    };
    out.reserve((1usize << len.min(16)) - 1);
    // At most 64 processes: on the stack, no allocation.
    let mut places = [0usize; 64];
    let mut sets = [set; 65];
    let (mut depth, mut next) = (0, 0);
    loop {
        let (index, size, members) = sets[depth];
        // The next place from `next` on that may join.
        let Some(k) = (next..len).find(|&k| fits(k, members)) else {
            // None: back to the last member, on to its next place.
            if depth == 0 {
                return;
            }
            depth -= 1;
            next = places[depth] + 1;
            continue;
        };
        let (p, d) = rest[k];
        let with = (index + d, size + 1, members | 1 << p);
        out.push(Succ {
            to: number(with.0),
            moves: with.1,
            movers: with.2,
        });
        places[depth] = k;
        depth += 1;
        sets[depth] = with;
        next = k + 1;
    }
}

/// Every step that moves each process of `moves` (its moves together, in
/// increasing order of processes) by one of its moves, extending the move
/// set `(index, size, members)`: every combination, the first process's
/// moves varying slowest (the order of [`Daemon::each_choice_set`]), each
/// where `number` numbers its index.
pub(super) fn every_one_of_each(
    moves: &[(u32, i64)],
    set: (i64, u32, u64),
    number: impl Fn(i64) -> u32 + Copy,
    out: &mut Vec<Succ>,
) {
    let Some(&(p, _)) = moves.first() else {
        out.push(Succ {
            to: number(set.0),
            moves: set.1,
            movers: set.2,
        });
        return;
    };
    let mine = moves.iter().take_while(|m| m.0 == p).count();
    for &(_, d) in &moves[..mine] {
        every_one_of_each(
            &moves[mine..],
            (set.0 + d, set.1 + 1, set.2 | 1 << p),
            number,
            out,
        );
    }
}

/// Every non-empty subset of `moves` (the enabled processes and what each
/// one's move adds to index `code`) as a step from there into `out`,
/// empty, in `order`, the table of [`subset_order`] for as many places,
/// each where `number` numbers its index: each built from the one it
/// extends, whose index is in `codes` at the position the table names,
/// without a branch that depends on the set.
pub(super) fn all_subsets(
    moves: &[(u32, i64)],
    order: &[Extends],
    (code, number): (i64, impl Fn(i64) -> u32),
    codes: &mut Vec<i64>,
    out: &mut Vec<Succ>,
) {
    debug_assert!(out.is_empty(), "positions count from the first set");
    out.reserve(order.len());
    codes.clear();
    codes.reserve(order.len());
    let alone = Succ {
        to: 0,
        moves: 0,
        movers: 0,
    };
    for e in order {
        let (from, from_code) = match e.parent {
            Extends::NONE => (alone, code),
            at => (out[at as usize], codes[at as usize]),
        };
        let (p, d) = moves[e.place as usize];
        // Every subset is a step, so every sum is an index.
        codes.push(from_code + d);
        out.push(Succ {
            to: number(from_code + d),
            moves: from.moves + 1,
            movers: from.movers | 1 << p,
        });
    }
}
