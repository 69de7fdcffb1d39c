//! The depth-first search for the most steps (or moves) to legitimacy from
//! each configuration outside it. One walk, over counts that either one
//! search keeps (recording the cycles and deadlocks it meets, see
//! [`OneSearch`]) or several threads share (see [`super::shared`]).

use super::super::counts::{Counts, NO_RUN, OPEN, UNSEEN};
use super::super::successors::Succ;
use super::super::Refusal;
use super::Search;
use crate::verify::walk::Stop;

/// What the search knows of a configuration: its most steps and moves
/// once done.
pub(super) type Seen = crate::verify::walk::Seen<(u32, u32)>;

/// Where a walk keeps its counts (legitimate configurations done from the
/// start, with 0 steps and moves) and gets its steps.
pub(super) trait Walk {
    fn is_legit(&self, i: u32) -> bool;
    /// What is known of configuration `i`, claiming it when unseen.
    fn claim(&mut self, i: u32) -> Seen;
    /// What is known for good of configuration `i` ([`Seen::Done`] or
    /// [`Seen::NoRun`]), without claiming it; `None` while unseen or open.
    fn settled(&self, i: u32) -> Option<Seen>;
    /// The steps from configuration `i`, reached from `from` (see
    /// [`Search::successors_from`]), into `out`; whether no process is
    /// enabled there.
    fn successors(
        &mut self,
        i: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<bool, Stop>;
    /// No process is enabled in configuration `i`, outside legitimacy.
    fn terminal(&mut self, i: u32) -> Result<(), Stop>;
    /// Configuration `j`, on this walk's stack, is stepped to again: a
    /// cycle of `len` steps.
    fn cycle(&mut self, j: u32, len: usize) -> Result<(), Stop>;
    /// The length of the shortest cycle met so far, if the walk keeps
    /// walking past cycles: only shorter ones are then looked for.
    fn shortest_cycle_met(&self) -> Option<usize> {
        None
    }
    /// Configuration `j` is on another walk's stack: what it holds once
    /// that walk is done with it.
    fn wait(&mut self, j: u32) -> Result<Seen, Stop>;
    /// Configuration `i` is done: the most steps and moves from it, or
    /// `None` when no run from it counts.
    fn finish(&mut self, i: u32, counts: Option<(u32, u32)>) -> Result<(), Stop>;
    /// Another [`super::super::PROGRESS_EVERY`] configurations are done.
    fn progress(&mut self) -> Result<(), Stop>;
}

/// A configuration on the walk's stack.
struct Frame {
    node: u32,
    /// Its steps: from here on the walk's stack of steps, up to the next
    /// frame's.
    edges_from: usize,
    next: usize,
    /// The moves of the step that led here from the frame below.
    moves_in: u32,
    /// The most steps and moves to legitimacy found so far from here.
    steps: u32,
    moves: u32,
    /// Whether a step from here was found to lead to legitimacy without
    /// a runtime error (else no run from here counts).
    reached: bool,
}

impl Frame {
    /// A step found to lead to legitimacy in `steps` steps and `moves`
    /// moves, counting itself (see [`Walker::through`]).
    fn reach(&mut self, (steps, moves): (u32, u32)) {
        self.steps = self.steps.max(steps);
        self.moves = self.moves.max(moves);
        self.reached = true;
    }
}

/// The walk's stacks, reused from root to root.
pub(super) struct Walker {
    /// Whether the count is of moves (a step counts its movers) rather
    /// than steps.
    weighted: bool,
    stack: Vec<Frame>,
    /// The steps of every frame on the stack, one after the other.
    edges: Vec<Succ>,
    out: Vec<Succ>,
    finished: u64,
}

impl Walker {
    pub(super) fn new(weighted: bool) -> Self {
        Walker {
            weighted,
            stack: Vec::new(),
            edges: Vec::new(),
            out: Vec::new(),
            finished: 0,
        }
    }

    /// What a step of `w` movers adds to the count.
    fn unit(&self, w: u32) -> u32 {
        if self.weighted {
            w
        } else {
            1
        }
    }

    /// The most steps and moves to legitimacy through a step of `m`
    /// movers, from those of the configuration it leads to.
    fn through(&self, (steps, moves): (u32, u32), m: u32) -> (u32, u32) {
        (steps.saturating_add(self.unit(m)), moves.saturating_add(m))
    }

    /// Walks from `root` (read from `from`) every configuration it
    /// reaches that is still unseen; false when `root` itself was seen.
    pub(super) fn walk(
        &mut self,
        w: &mut impl Walk,
        root: u32,
        from: Option<(u32, u64)>,
    ) -> Result<bool, Stop> {
        if !matches!(w.claim(root), Seen::Claimed) {
            return Ok(false);
        }
        self.open(w, (root, from), 0)?;
        while let Some(top) = self.stack.last_mut() {
            let at = top.edges_from + top.next;
            if at >= self.edges.len() {
                self.close(w)?;
                continue;
            }
            let Succ {
                to: j,
                moves: m,
                movers,
            } = self.edges[at];
            top.next += 1;
            let node = top.node;
            // A legitimate configuration is done from the start, with none
            // to count: one read less per step than asking apart.
            let seen = match w.claim(j) {
                Seen::Open => {
                    // Only a cycle shorter than the shortest met matters:
                    // looking no deeper than that down the stack keeps a
                    // walk through many cycles (a randomised ring's) from
                    // scanning its whole path at each.
                    let depth = self.stack.len();
                    let window = w
                        .shortest_cycle_met()
                        .map_or(depth, |len| len.saturating_sub(1).min(depth));
                    let top = &self.stack[depth - window..];
                    match top.iter().rposition(|f| f.node == j) {
                        // Back on the walk's own path: a cycle outside legitimacy.
                        Some(k) => {
                            w.cycle(j, window - k)?;
                            continue;
                        }
                        // Deeper on the walk's own path: a longer cycle.
                        None if window < depth => continue,
                        None => w.wait(j)?,
                    }
                }
                seen => seen,
            };
            match seen {
                Seen::Claimed => self.open(w, (j, Some((node, movers))), m)?,
                Seen::Done(counts) => {
                    let via = self.through(counts, m);
                    self.top().reach(via);
                }
                Seen::Open | Seen::NoRun => {}
            }
        }
        Ok(true)
    }

    fn top(&mut self) -> &mut Frame {
        self.stack.last_mut().expect("a frame is open")
    }

    /// Puts configuration `i` (claimed) on the stack, its steps on the
    /// stack of steps. Steps to configurations settled already (most of
    /// them) are counted at once: their counts no longer change, so the
    /// result is the same as at their turn, and their reads go out
    /// together instead of one per turn of the walk.
    fn open(
        &mut self,
        w: &mut impl Walk,
        (i, from): (u32, Option<(u32, u64)>),
        moves_in: u32,
    ) -> Result<(), Stop> {
        if w.successors(i, from, &mut self.out)? {
            w.terminal(i)?;
        }
        let mut frame = Frame {
            node: i,
            edges_from: self.edges.len(),
            next: 0,
            moves_in,
            steps: 0,
            moves: 0,
            reached: false,
        };
        for &e in &self.out {
            match w.settled(e.to) {
                Some(Seen::Done(counts)) => frame.reach(self.through(counts, e.moves)),
                Some(_) => {}
                None => self.edges.push(e),
            }
        }
        self.stack.push(frame);
        Ok(())
    }

    /// Takes the top frame off, its steps all followed.
    fn close(&mut self, w: &mut impl Walk) -> Result<(), Stop> {
        let done = self.stack.pop().expect("a frame is open");
        self.edges.truncate(done.edges_from);
        self.finished += 1;
        if self.finished.is_multiple_of(super::super::PROGRESS_EVERY) {
            w.progress()?;
        }
        // Where every step faults (or an invariant fails, from a start),
        // no run counts; a deadlock is reported instead of any worst case.
        let counted = done.reached.then_some((done.steps, done.moves));
        w.finish(done.node, counted)?;
        let via = self.through((done.steps, done.moves), done.moves_in);
        if let (Some(below), true) = (self.stack.last_mut(), done.reached) {
            below.reach(via);
        }
        Ok(())
    }
}

/// The walk of one search over every configuration outside legitimacy:
/// counts that widen as they grow, the first deadlock met and the
/// shortest cycle met.
pub(super) struct OneSearch<'s, 'e, 'a> {
    pub(super) search: &'s mut Search<'e, 'a>,
    pub(super) steps: Counts,
    /// The most moves, when kept apart from the steps.
    pub(super) moves: Option<Counts>,
    pub(super) deadlock: Option<u32>,
    /// A configuration on a cycle, and the cycle's length.
    pub(super) cycle: Option<(u32, usize)>,
    pub(super) finished: u64,
    pub(super) what: String,
}

impl Walk for OneSearch<'_, '_, '_> {
    fn is_legit(&self, i: u32) -> bool {
        self.search.ex.is_legit(i)
    }

    fn settled(&self, i: u32) -> Option<Seen> {
        match self.steps.get(i) {
            UNSEEN | OPEN => None,
            NO_RUN => Some(Seen::NoRun),
            done => Some(Seen::Done((
                done,
                self.moves.as_ref().map_or(done, |m| m.get(i)),
            ))),
        }
    }

    fn claim(&mut self, i: u32) -> Seen {
        match self.steps.get(i) {
            UNSEEN => {
                self.steps.set(i, OPEN);
                Seen::Claimed
            }
            OPEN => Seen::Open,
            NO_RUN => Seen::NoRun,
            done => Seen::Done((done, self.moves.as_ref().map_or(done, |m| m.get(i)))),
        }
    }

    fn successors(
        &mut self,
        i: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<bool, Stop> {
        let terminal = self.search.successors_from(i, from, out)?;
        self.search.transitions += out.len() as u64;
        Ok(terminal)
    }

    fn terminal(&mut self, i: u32) -> Result<(), Stop> {
        if !self.search.ex.stops_at(i) && self.deadlock.is_none() {
            self.deadlock = Some(i);
        }
        Ok(())
    }

    fn shortest_cycle_met(&self) -> Option<usize> {
        self.cycle.map(|(_, len)| len)
    }

    fn cycle(&mut self, j: u32, len: usize) -> Result<(), Stop> {
        if self.cycle.is_none_or(|(_, l)| len < l) {
            self.cycle = Some((j, len));
        }
        Ok(())
    }

    fn wait(&mut self, _: u32) -> Result<Seen, Stop> {
        Err(Stop::Refused(Refusal::Unsupported(
            "a configuration on no stack was found open (an inconsistency in the explorer)".into(),
        )))
    }

    fn finish(&mut self, i: u32, counts: Option<(u32, u32)>) -> Result<(), Stop> {
        let (steps, moves) = counts.unwrap_or((NO_RUN, NO_RUN));
        self.steps.set(i, steps);
        if let Some(m) = &mut self.moves {
            m.set(i, moves);
        }
        Ok(())
    }

    fn progress(&mut self) -> Result<(), Stop> {
        self.finished += super::super::PROGRESS_EVERY;
        let ex = self.search.ex;
        ex.tell(
            &self.what,
            self.finished,
            u64::from(ex.count) - ex.legit_count,
        )?;
        Ok(())
    }
}
