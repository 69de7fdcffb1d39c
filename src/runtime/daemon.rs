//! Daemons: who chooses the movers of a step. One table of names feeds the
//! parser, `--help`, the REPL's help and completion; each daemon can draw
//! one move set at random (what runs do) or list every
//! move set it allows ([`Daemon::move_sets`], what exhaustive exploration
//! needs).

use crate::compile::Compiled;
use crate::runtime::bits::Bits;
pub use crate::runtime::schedule::{
    check_moves, parse_schedule, read_schedule, NamedMove, ScheduleError, ScheduledStep,
};
use crate::topology::Topology;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Why a daemon could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DaemonError {
    /// An unknown name, or a schedule file that cannot be read.
    Usage(String),
    /// A schedule file (`path`, holding `text`) whose text is wrong.
    Schedule {
        /// The file as `--daemon schedule:PATH` names it.
        path: String,
        /// Its text, for the diagnostic.
        text: String,
        /// What is wrong, and where.
        error: ScheduleError,
    },
}

impl DaemonError {
    /// The error in a line, a schedule's with its file and line.
    pub fn message(self) -> String {
        match self {
            DaemonError::Usage(m) => m,
            DaemonError::Schedule { path, error, .. } => {
                format!("{path}:{}: {}", error.line, error.message)
            }
        }
    }
}

/// Who chooses the movers of each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Daemon {
    /// One enabled process, uniformly at random.
    Central,
    /// Every enabled process.
    Synchronous,
    /// A random non-empty subset of the enabled processes.
    Distributed,
    /// A random non-empty set of enabled processes, no two of them neighbours.
    LocallyCentral,
    /// An explicit list of process sets, one per step.
    Schedule(Vec<ScheduledStep>),
    /// Time in ticks, for a program whose channels declare a `delay`: at
    /// each tick every process handles its due timers and every message
    /// that has arrived ([`crate::runtime::tick`]); what varies from run
    /// to run is how long each message takes.
    Ticks,
}

/// A daemon's name as the command line and the REPL spell it, other
/// spellings accepted, and what it does.
pub struct DaemonName {
    /// The name (`schedule` takes `:FILE`).
    pub name: &'static str,
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    /// One line on what it does.
    pub about: &'static str,
}

/// Every daemon, in the order help lists them.
pub const DAEMONS: &[DaemonName] = &[
    DaemonName {
        name: "central",
        aliases: &[],
        about: "one enabled process, uniformly at random",
    },
    DaemonName {
        name: "synchronous",
        aliases: &["sync"],
        about: "every enabled process",
    },
    DaemonName {
        name: "distributed",
        aliases: &[],
        about: "a random non-empty subset of the enabled processes",
    },
    DaemonName {
        name: "locally-central",
        aliases: &[],
        about: "a random non-empty set of enabled processes, no two of them neighbours",
    },
    DaemonName {
        name: "ticks",
        aliases: &[],
        about: "time in ticks (programs whose channels declare a `delay`): every process, at every tick, handles its due timers and arrived messages",
    },
    DaemonName {
        name: "schedule",
        aliases: &[],
        about: "schedule:FILE, one step a line: the processes that move (`3` or `3:ACTION`)",
    },
];

/// The daemons as a list a user reads: `central, synchronous, ... or schedule:FILE`.
pub fn daemon_list() -> String {
    let names: Vec<String> = DAEMONS
        .iter()
        .map(|d| match d.name {
            "schedule" => "schedule:FILE".to_string(),
            n => n.to_string(),
        })
        .collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl Daemon {
    /// The daemon's name as the command line spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Daemon::Central => "central",
            Daemon::Synchronous => "synchronous",
            Daemon::Distributed => "distributed",
            Daemon::LocallyCentral => "locally-central",
            Daemon::Schedule(_) => "schedule",
            Daemon::Ticks => "ticks",
        }
    }

    /// Parses a daemon as `--daemon` and the REPL's `daemon` take it;
    /// `read` reads a schedule file.
    pub fn parse(s: &str, read: &dyn Fn(&str) -> Result<String, String>) -> Result<Daemon, String> {
        Daemon::parse_telling(s, read).map_err(DaemonError::message)
    }

    /// As [`Daemon::parse`], telling a wrong name or unreadable file from a
    /// schedule whose text is wrong.
    pub fn parse_telling(
        s: &str,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Daemon, DaemonError> {
        if let Some(path) = s.strip_prefix("schedule:") {
            let text = read(path).map_err(|e| DaemonError::Usage(format!("schedule: {e}")))?;
            return match read_schedule(&text) {
                Ok(steps) => Ok(Daemon::Schedule(steps)),
                Err(error) => Err(DaemonError::Schedule {
                    path: path.to_string(),
                    text,
                    error,
                }),
            };
        }
        let known = DAEMONS
            .iter()
            .find(|d| d.name != "schedule" && (d.name == s || d.aliases.contains(&s)));
        match known.map(|d| d.name) {
            Some("central") => Ok(Daemon::Central),
            Some("synchronous") => Ok(Daemon::Synchronous),
            Some("distributed") => Ok(Daemon::Distributed),
            Some("locally-central") => Ok(Daemon::LocallyCentral),
            Some("ticks") => Ok(Daemon::Ticks),
            _ => {
                let hint = crate::diagnostic::suggest(s, DAEMONS.iter().map(|d| d.name))
                    .map_or(String::new(), |h| format!(" (did you mean `{h}`?)"));
                Err(DaemonError::Usage(format!(
                    "unknown daemon `{s}`{hint}; use {}",
                    daemon_list()
                )))
            }
        }
    }

    /// Refuses a daemon that does not fit how the program keeps time: a
    /// program that runs in ticks (`ticks`) has no daemon but `ticks` (at
    /// every tick every process moves), one that runs in rounds any but it.
    pub fn check_time(&self, ticks: bool) -> Result<(), String> {
        match (ticks, self) {
            (true, Daemon::Ticks | Daemon::Schedule(_)) => Ok(()),
            (false, Daemon::Ticks) => Err("the daemon `ticks` is for programs that run in ticks, whose channels declare a `delay lo..hi`; this one runs in rounds".into()),
            (true, d) => Err(format!("the program runs in ticks (its channels declare a `delay`): at every tick every process handles its due timers and arrived messages, so there is no daemon to choose; leave out --daemon `{}` (or give `ticks`)", d.name())),
            (false, _) => Ok(()),
        }
    }

    /// Refuses a schedule that names a process the instance of `code` on
    /// `n` processes does not have, or an action its process's role does
    /// not have (see [`check_moves`]).
    pub fn check_schedule(&self, code: &Compiled, n: usize) -> Result<(), ScheduleError> {
        let Daemon::Schedule(steps) = self else {
            return Ok(());
        };
        let actions_of = |p: u32| {
            let role = &code.roles[code.role_of.of(p as usize)];
            role.actions.iter().map(|a| a.label.as_str()).collect()
        };
        check_moves(steps, n, &actions_of)
    }

    /// Draws the movers of one step from `enabled` (non-empty) into
    /// `movers`, from the run's generator. `marks` is all clear and left
    /// so. Not for schedules, whose movers are read, not drawn.
    pub(crate) fn select(
        &self,
        enabled: &[u32],
        topo: &Topology,
        rng: &mut ChaCha8Rng,
        marks: &mut Bits,
        movers: &mut Vec<u32>,
    ) {
        movers.clear();
        match self {
            Daemon::Central => movers.push(enabled[rng.gen_range(0..enabled.len())]),
            Daemon::Synchronous => movers.extend_from_slice(enabled),
            Daemon::Distributed => {
                movers.extend(enabled.iter().copied().filter(|_| rng.gen::<bool>()));
                if movers.is_empty() {
                    movers.push(enabled[rng.gen_range(0..enabled.len())]);
                }
            }
            Daemon::LocallyCentral => {
                let start = rng.gen_range(0..enabled.len());
                for k in 0..enabled.len() {
                    let p = enabled[(start + k) % enabled.len()] as usize;
                    let free = !marks.get(p);
                    if free && (movers.is_empty() || rng.gen::<bool>()) {
                        movers.push(p as u32);
                        for &q in neighbourhood(topo, p) {
                            marks.set(q as usize);
                        }
                    }
                }
                for &p in movers.iter() {
                    for &q in neighbourhood(topo, p as usize) {
                        marks.take(q as usize);
                    }
                }
            }
            Daemon::Schedule(_) => unreachable!("a schedule's movers are read, not drawn"),
            Daemon::Ticks => unreachable!("a tick moves every process it has work for"),
        }
    }

    /// The movers of one step drawn from `enabled` (non-empty) by `rng`,
    /// as a run under this daemon draws them. Not for schedules or ticks.
    pub fn draw_movers(&self, enabled: &[u32], topo: &Topology, rng: &mut ChaCha8Rng) -> Vec<u32> {
        let mut movers = Vec::new();
        self.select(enabled, topo, rng, &mut Bits::new(topo.n()), &mut movers);
        movers
    }

    /// Whether `set` is one of [`Daemon::move_sets`] of `enabled`, without
    /// listing them; if not, why not. A schedule allows any non-empty set
    /// of enabled processes (its own line is for runs to read).
    pub fn allows(&self, set: &[u32], enabled: &[u32], topo: &Topology) -> Result<(), String> {
        if set.is_empty() {
            return Err("a step moves at least one process".into());
        }
        for (i, p) in set.iter().enumerate() {
            if !enabled.contains(p) {
                return Err(format!("process {p} is not enabled"));
            }
            if set[..i].contains(p) {
                return Err(format!("process {p} is named twice"));
            }
        }
        match self {
            Daemon::Central if set.len() > 1 => {
                Err("the central daemon moves one process a step".into())
            }
            Daemon::Synchronous if set.len() < enabled.len() => {
                Err("the synchronous daemon moves every enabled process at once".into())
            }
            Daemon::LocallyCentral => {
                for (i, &p) in set.iter().enumerate() {
                    let near = |q: &u32| neighbourhood(topo, p as usize).any(|r| r == q);
                    if let Some(q) = set[..i].iter().find(|q| near(q)) {
                        return Err(format!(
                            "processes {q} and {p} are neighbours: the locally-central daemon never moves two neighbours together"
                        ));
                    }
                }
                Ok(())
            }
            Daemon::Ticks => Err("a tick moves every process it has work for".into()),
            _ => Ok(()),
        }
    }

    /// Every move set the daemon allows when `enabled` (in increasing
    /// order) are the enabled processes, each in increasing order: central,
    /// each enabled process alone; synchronous, all of them; distributed,
    /// every non-empty subset; locally-central, every non-empty subset no
    /// two of whose members are neighbours. A schedule allows the set of
    /// line `at` (0-based) when all its processes are enabled, else none.
    /// Nothing when no process is enabled.
    pub fn move_sets(&self, enabled: &[u32], topo: &Topology, at: usize) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        self.each_move_set(enabled, topo, at, |set| out.push(set.to_vec()));
        out
    }

    /// Calls `each` with every move set of [`Daemon::move_sets`], in its
    /// order, building none.
    pub fn each_move_set(
        &self,
        enabled: &[u32],
        topo: &Topology,
        at: usize,
        mut each: impl FnMut(&[u32]),
    ) {
        if enabled.is_empty() {
            return;
        }
        match self {
            Daemon::Central => enabled.iter().for_each(|p| each(std::slice::from_ref(p))),
            Daemon::Synchronous => each(enabled),
            Daemon::Distributed | Daemon::LocallyCentral => {
                let independent = matches!(self, Daemon::LocallyCentral);
                subsets(enabled, topo, independent, &mut Vec::new(), &mut each);
            }
            Daemon::Schedule(lines) => match lines.get(at) {
                Some(line) if line.procs.iter().all(|p| enabled.contains(p)) => {
                    // Moves a line names are the engine's to resolve.
                    let mut set = line.procs.clone();
                    set.sort_unstable();
                    set.dedup();
                    each(&set);
                }
                _ => {}
            },
            Daemon::Ticks => unreachable!("a tick's moves are the tick's, not a set's"),
        }
    }
}

impl Daemon {
    /// Calls `each` with every step the daemon allows where each enabled
    /// process may move in several ways: `owners` lists, for every move
    /// of every enabled process, its process (in increasing order, a
    /// process's moves together), and a step is a list of places in
    /// `owners`, at most one per process, its processes a move set of
    /// [`Daemon::each_move_set`]. In lexicographic order of the places, so
    /// where each process has one move the steps come in the order of the
    /// move sets. Not for schedules.
    pub fn each_choice_set(&self, owners: &[u32], topo: &Topology, mut each: impl FnMut(&[usize])) {
        if owners.is_empty() {
            return;
        }
        let mut chosen = Vec::new();
        match self {
            Daemon::Central => (0..owners.len()).for_each(|k| each(&[k])),
            Daemon::Synchronous => every_one_of_each(owners, 0, &mut chosen, &mut each),
            Daemon::Distributed | Daemon::LocallyCentral => {
                let independent = matches!(self, Daemon::LocallyCentral);
                choice_subsets(owners, topo, independent, &mut each);
            }
            Daemon::Schedule(_) | Daemon::Ticks => {
                unreachable!("a schedule's or a tick's steps are not listed by move sets")
            }
        }
    }
}

/// The most steps from one configuration that exhaustive exploration
/// lists (with the distributed and locally-central daemons, every subset
/// of the enabled processes is a step: 2^20 is 20 of them): past it, the
/// explorer refuses rather than list them.
pub const MAX_STEPS_LISTED: u64 = 1 << 20;

impl Daemon {
    /// How many steps [`Daemon::each_choice_set`] lists for `owners`, or
    /// `None` when more than `limit`: counted, not listed, and within
    /// about `limit` operations however many there are.
    pub fn count_choice_sets(&self, owners: &[u32], topo: &Topology, limit: u64) -> Option<u64> {
        // Per process with moves: how many it has.
        let mut per_process: Vec<(u32, u64)> = Vec::new();
        for &p in owners {
            match per_process.last_mut() {
                Some((q, c)) if *q == p => *c += 1,
                _ => per_process.push((p, 1)),
            }
        }
        let product = |plus: u64| {
            per_process
                .iter()
                .try_fold(1u64, |acc, &(_, c)| acc.checked_mul(c + plus))
        };
        let count = match self {
            Daemon::Central => Some(owners.len() as u64),
            Daemon::Synchronous if owners.is_empty() => Some(0),
            Daemon::Synchronous => product(0),
            Daemon::Distributed => product(1).map(|c| c - 1),
            Daemon::LocallyCentral => {
                let mut count = 0;
                let within = (&mut count, limit);
                let mut blocked = vec![0; topo.n()];
                count_independent(&per_process, topo, (0, 1), &mut blocked, within).then_some(count)
            }
            Daemon::Schedule(_) | Daemon::Ticks => Some(1),
        };
        count.filter(|&c| c <= limit)
    }
}

/// Adds to `count` the steps of the locally-central daemon that extend a
/// chosen set (worth `weight` steps: the product of its members' move
/// counts) by processes of `per_process` from place `from` on, `blocked`
/// counting per process the chosen ones it neighbours; false as soon as
/// `count` passes `limit`.
fn count_independent(
    per_process: &[(u32, u64)],
    topo: &Topology,
    (from, weight): (usize, u64),
    blocked: &mut [u32],
    (count, limit): (&mut u64, u64),
) -> bool {
    for k in from..per_process.len() {
        let (p, moves) = per_process[k];
        if blocked[p as usize] > 0 {
            continue;
        }
        let Some(w) = weight.checked_mul(moves) else {
            return false;
        };
        *count = count.saturating_add(w);
        if *count > limit {
            return false;
        }
        for &r in neighbourhood(topo, p as usize) {
            blocked[r as usize] += 1;
        }
        let within =
            count_independent(per_process, topo, (k + 1, w), blocked, (&mut *count, limit));
        for &r in neighbourhood(topo, p as usize) {
            blocked[r as usize] -= 1;
        }
        if !within {
            return false;
        }
    }
    true
}

/// Calls `each` with every extension of `chosen` by one place of each
/// process from place `from` of `owners` on, in lexicographic order.
fn every_one_of_each(
    owners: &[u32],
    from: usize,
    chosen: &mut Vec<usize>,
    each: &mut impl FnMut(&[usize]),
) {
    if from == owners.len() {
        each(chosen);
        return;
    }
    let p = owners[from];
    let end = from + owners[from..].iter().take_while(|&&q| q == p).count();
    for k in from..end {
        chosen.push(k);
        every_one_of_each(owners, end, chosen, each);
        chosen.pop();
    }
}

/// The places of `owners` (in increasing order of process) by process:
/// each process with moves and the range of its places.
fn by_process(owners: &[u32]) -> Vec<(u32, std::ops::Range<usize>)> {
    let mut out: Vec<(u32, std::ops::Range<usize>)> = Vec::new();
    for (k, &p) in owners.iter().enumerate() {
        match out.last_mut() {
            Some((q, places)) if *q == p => places.end = k + 1,
            _ => out.push((p, k..k + 1)),
        }
    }
    out
}

/// Calls `each` with every non-empty set of places of `owners` with at
/// most one place per process (with `independent`, and no two of them
/// neighbours), in lexicographic order of places.
fn choice_subsets(
    owners: &[u32],
    topo: &Topology,
    independent: bool,
    each: &mut impl FnMut(&[usize]),
) {
    let groups = by_process(owners);
    // Per process, how many chosen ones it neighbours: a process is
    // skipped in O(1), whatever its degree (a complete graph's sets are
    // single processes, each found without scanning the others' places).
    let mut blocked = if independent {
        vec![0u32; topo.n()]
    } else {
        Vec::new()
    };
    let mut chosen = Vec::new();
    extend_choice(&groups, 0, topo, &mut blocked, &mut chosen, each);
}

/// [`choice_subsets`]' extensions of `chosen` by processes from group
/// `from` on; `blocked` (empty unless independent) counts, per process,
/// the chosen processes it neighbours.
fn extend_choice(
    groups: &[(u32, std::ops::Range<usize>)],
    from: usize,
    topo: &Topology,
    blocked: &mut Vec<u32>,
    chosen: &mut Vec<usize>,
    each: &mut impl FnMut(&[usize]),
) {
    for g in from..groups.len() {
        let (p, places) = &groups[g];
        if blocked.get(*p as usize).is_some_and(|&b| b > 0) {
            continue;
        }
        if !blocked.is_empty() {
            for &r in neighbourhood(topo, *p as usize) {
                blocked[r as usize] += 1;
            }
        }
        for k in places.clone() {
            chosen.push(k);
            each(chosen);
            extend_choice(groups, g + 1, topo, blocked, chosen, each);
            chosen.pop();
        }
        if !blocked.is_empty() {
            for &r in neighbourhood(topo, *p as usize) {
                blocked[r as usize] -= 1;
            }
        }
    }
}

/// The processes that count as `p`'s neighbours for the locally-central
/// daemon: those it reads and those that read it.
#[inline(always)]
fn neighbourhood(topo: &Topology, p: usize) -> impl Iterator<Item = &u32> {
    topo.nbrs(p).iter().chain(topo.readers(p))
}

/// Calls `each` with every non-empty extension of `chosen` by elements
/// of `rest`, in lexicographic order; with `independent`, only sets with
/// no two neighbours.
fn subsets(
    rest: &[u32],
    topo: &Topology,
    independent: bool,
    chosen: &mut Vec<u32>,
    each: &mut impl FnMut(&[u32]),
) {
    for (i, &p) in rest.iter().enumerate() {
        if independent
            && chosen
                .iter()
                .any(|&q| neighbourhood(topo, p as usize).any(|&r| r == q))
        {
            continue;
        }
        chosen.push(p);
        each(chosen);
        subsets(&rest[i + 1..], topo, independent, chosen, each);
        chosen.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize) -> Topology {
        let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
        crate::topology::build(&format!("ring:{n}"), &mut rng, &|_| Err(String::new())).unwrap()
    }

    #[test]
    fn a_daemon_allows_exactly_its_move_sets() {
        let topo = ring(5);
        let enabled = [0, 1, 3, 4];
        let daemons = [
            Daemon::Central,
            Daemon::Synchronous,
            Daemon::Distributed,
            Daemon::LocallyCentral,
        ];
        for d in &daemons {
            let sets = d.move_sets(&enabled, &topo, 0);
            // Every subset of the processes, as a bit mask over 0..5.
            for mask in 0u32..32 {
                let set: Vec<u32> = (0..5).filter(|p| mask >> p & 1 == 1).collect();
                assert_eq!(
                    d.allows(&set, &enabled, &topo).is_ok(),
                    sets.contains(&set),
                    "{} {set:?}",
                    d.name()
                );
            }
        }
        let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
        for d in &daemons {
            for _ in 0..50 {
                let mut drawn = d.draw_movers(&enabled, &topo, &mut rng);
                drawn.sort_unstable();
                assert!(d.allows(&drawn, &enabled, &topo).is_ok(), "{drawn:?}");
            }
        }
    }

    #[test]
    fn move_sets_of_each_daemon() {
        let t = ring(5);
        let en = [0, 1, 2, 3];
        assert_eq!(Daemon::Central.move_sets(&en, &t, 0).len(), 4);
        assert_eq!(
            Daemon::Synchronous.move_sets(&en, &t, 0),
            vec![vec![0, 1, 2, 3]]
        );
        assert_eq!(Daemon::Distributed.move_sets(&en, &t, 0).len(), 15);
        // On a ring of 5 (0 and 4 are neighbours, 0 and 3 are not), the
        // non-empty subsets of {0,1,2,3} with no two neighbours:
        let lc = Daemon::LocallyCentral.move_sets(&en, &t, 0);
        assert_eq!(
            lc,
            vec![
                vec![0],
                vec![0, 2],
                vec![0, 3],
                vec![1],
                vec![1, 3],
                vec![2],
                vec![3]
            ]
        );
        assert!(Daemon::Central.move_sets(&[], &t, 0).is_empty());
    }

    /// The distributed and locally-central sets are every set of places
    /// with at most one per process (locally-central: no two neighbours),
    /// in lexicographic order of places, as a filter over every subset
    /// finds them.
    #[test]
    fn choice_sets_are_every_admissible_subset_in_order() {
        let owners = [0, 0, 1, 3, 3, 3, 4, 6];
        for t in [ring(7), {
            let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
            crate::topology::build("complete:7", &mut rng, &|_| Err(String::new())).unwrap()
        }] {
            for d in [Daemon::Distributed, Daemon::LocallyCentral] {
                let mut listed = Vec::new();
                d.each_choice_set(&owners, &t, |set| listed.push(set.to_vec()));
                let mut every: Vec<Vec<usize>> = (1u32..1 << owners.len())
                    .map(|bits| (0..owners.len()).filter(|k| bits >> k & 1 == 1).collect())
                    .filter(|set: &Vec<usize>| {
                        set.iter().enumerate().all(|(i, &a)| {
                            set[i + 1..].iter().all(|&b| {
                                let (p, q) = (owners[a] as usize, owners[b]);
                                p != q as usize
                                    && (d == Daemon::Distributed
                                        || !neighbourhood(&t, p).any(|&r| r == q))
                            })
                        })
                    })
                    .collect();
                every.sort();
                assert_eq!(listed, every, "{} on {}", d.name(), t.name);
            }
        }
    }

    /// Counting the steps gives what listing them gives, and a bound is
    /// met without listing 2^64 sets.
    #[test]
    fn choice_sets_are_counted_as_listed() {
        let t = ring(7);
        let owners = [0, 0, 1, 3, 3, 3, 4, 6];
        for d in [
            Daemon::Central,
            Daemon::Synchronous,
            Daemon::Distributed,
            Daemon::LocallyCentral,
        ] {
            let mut listed = 0;
            d.each_choice_set(&owners, &t, |_| listed += 1);
            assert_eq!(
                d.count_choice_sets(&owners, &t, 1000),
                Some(listed),
                "{}",
                d.name()
            );
            assert_eq!(
                d.count_choice_sets(&owners, &t, listed - 1),
                None,
                "{}",
                d.name()
            );
        }
        // 64 enabled processes: counted without listing 2^64 sets.
        let big = ring(64);
        let all: Vec<u32> = (0..64).collect();
        assert_eq!(
            Daemon::Distributed.count_choice_sets(&all, &big, MAX_STEPS_LISTED),
            None
        );
        assert_eq!(
            Daemon::LocallyCentral.count_choice_sets(&all, &big, MAX_STEPS_LISTED),
            None
        );
        assert_eq!(
            Daemon::Synchronous.count_choice_sets(&all, &big, MAX_STEPS_LISTED),
            Some(1)
        );
    }

    /// With one move each, the choice sets are the move sets; with
    /// several, each move set once per combination of its movers' moves.
    #[test]
    fn choice_sets_extend_move_sets() {
        let t = ring(5);
        let en = [0u32, 1, 2, 3];
        for d in [
            Daemon::Central,
            Daemon::Synchronous,
            Daemon::Distributed,
            Daemon::LocallyCentral,
        ] {
            let mut sets = Vec::new();
            d.each_choice_set(&en, &t, |c| {
                sets.push(c.iter().map(|&k| en[k]).collect::<Vec<_>>())
            });
            assert_eq!(sets, d.move_sets(&en, &t, 0), "{}", d.name());
        }
        // Process 0 with two moves (places 0 and 1), 1 with one (place 2).
        let owners = [0u32, 0, 1];
        let listed = |d: Daemon| {
            let mut out = Vec::new();
            d.each_choice_set(&owners, &t, |c| out.push(c.to_vec()));
            out
        };
        assert_eq!(listed(Daemon::Central), vec![vec![0], vec![1], vec![2]]);
        assert_eq!(listed(Daemon::Synchronous), vec![vec![0, 2], vec![1, 2]]);
        assert_eq!(
            listed(Daemon::Distributed),
            vec![vec![0], vec![0, 2], vec![1], vec![1, 2], vec![2]]
        );
        // 0 and 1 are neighbours: never together.
        assert_eq!(
            listed(Daemon::LocallyCentral),
            vec![vec![0], vec![1], vec![2]]
        );
    }

    #[test]
    fn names_parse_and_suggest() {
        let no_file = |_: &str| Err("no".to_string());
        for d in DAEMONS.iter().filter(|d| d.name != "schedule") {
            assert_eq!(Daemon::parse(d.name, &no_file).unwrap().name(), d.name);
        }
        assert_eq!(Daemon::parse("sync", &no_file), Ok(Daemon::Synchronous));
        let e = Daemon::parse("centrall", &no_file).unwrap_err();
        assert!(e.contains("did you mean `central`"), "{e}");
    }
}
