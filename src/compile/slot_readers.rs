//! Which of a role's guards read each slot of a row, by where they read
//! it: the table that tells, from the slots a step changed, which guards
//! of a process it affected must be evaluated again (the others keep
//! their values), in a few loads a changed slot rather than a test an
//! action.

use super::CAction;

/// For each slot of a row (numbered as [`super::slot_bit`] numbers them:
/// slots from 63 on share 63), the actions of one role whose guards read
/// it, as bits (bit `i`: action `i`), by where the step changed it.
pub struct SlotReaders {
    /// Changed at the process itself (it was the step's one mover).
    pub own: [u64; 64],
    /// Changed at the step's one mover, another process: by whether
    /// `named` names the mover (bit 0 of the index) and whether the
    /// mover's `under` slot named the process before or after the step
    /// (bit 1), the guards whose reads there count (see
    /// [`crate::check::ir::GuardReads`]).
    pub others: [[u64; 64]; 4],
    /// Changed at the process or at others (a step of several movers).
    pub anywhere: [u64; 64],
    /// The slot of the own node variable through which `others` leaves
    /// reads out (the one most guards read others through); `None` where
    /// no guard reads through one.
    pub named: Option<usize>,
    /// The slot of the node variable of the mover whose test leaves
    /// reads out (the same in every role: see [`under_slot`]).
    pub under: Option<usize>,
    /// Every action, as bits.
    pub all: u64,
}

impl SlotReaders {
    /// The table for `actions` (at most 64: `None` otherwise), with
    /// `under` the program's [`under_slot`].
    pub(super) fn of(actions: &[CAction], under: Option<usize>) -> Option<Box<SlotReaders>> {
        if actions.len() > 64 {
            return None;
        }
        let named = most_common(actions.iter().filter_map(|a| a.guard_reads.named));
        let mut table = Box::new(SlotReaders {
            own: [0; 64],
            others: [[0; 64]; 4],
            anywhere: [0; 64],
            named,
            under,
            all: 0,
        });
        for (i, action) in actions.iter().enumerate() {
            let bit = 1u64 << i;
            let reads = &action.guard_reads;
            // Reads through another node variable than `named`, or under
            // another test than `under`'s, count wherever they are.
            let (mut elsewhere, mut through, mut tested) = (reads.others_elsewhere, 0, 0);
            match reads.named {
                Some((slot, there)) if Some(slot) == named => through = there,
                Some((_, there)) => elsewhere |= there,
                None => {}
            }
            match reads.under {
                Some((slot, there)) if Some(slot) == under => tested = there,
                Some((_, there)) => elsewhere |= there,
                None => {}
            }
            let [plain, through_named, under_tested, both] = &mut table.others;
            let masks = [
                (&mut table.own, reads.at_self),
                (plain, elsewhere),
                (through_named, elsewhere | through),
                (under_tested, elsewhere | tested),
                (both, elsewhere | through | tested),
                (&mut table.anywhere, reads.anywhere),
            ];
            for (column, read) in masks {
                for (slot, readers) in column.iter_mut().enumerate() {
                    if read >> slot & 1 != 0 {
                        *readers |= bit;
                    }
                }
            }
            table.all |= bit;
        }
        Some(table)
    }

    /// The actions (as bits) whose guards read a slot of `changed` (slot
    /// bits) in `column`.
    #[inline(always)]
    pub fn reading(column: &[u64; 64], mut changed: u64) -> u64 {
        let mut readers = 0;
        while changed != 0 {
            readers |= column[changed.trailing_zeros() as usize];
            changed &= changed - 1;
        }
        readers
    }
}

/// The slot of the node variable whose test (`q.v == self`) the most
/// guards of every role read others under (see
/// [`crate::check::ir::GuardReads::under`]): one for the program, so that
/// a step finds once what the mover's named before and after it.
pub(super) fn under_slot<'a>(actions: impl Iterator<Item = &'a CAction>) -> Option<usize> {
    most_common(actions.filter_map(|a| a.guard_reads.under))
}

/// The slot that comes most often in `found` (slot and mask pairs), ties
/// to the smallest, so that the choice is the same each time.
fn most_common(found: impl Iterator<Item = (usize, u64)>) -> Option<usize> {
    let slots: Vec<usize> = found.map(|(slot, _)| slot).collect();
    let count = |s: usize| slots.iter().filter(|&&t| t == s).count();
    slots
        .iter()
        .copied()
        .max_by_key(|&s| (count(s), std::cmp::Reverse(s)))
}
