//! Daemons: who chooses the movers of a step. One table of names feeds the
//! parser, `--help`, the REPL's help and completion; each daemon can draw
//! one move set at random (what runs do) or list every
//! move set it allows ([`Daemon::move_sets`], what exhaustive exploration
//! needs).

use crate::runtime::bits::Bits;
use crate::topology::Topology;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One line of a schedule: the processes that move at that step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledStep {
    /// 1-based line in the schedule file.
    pub line: usize,
    /// The processes.
    pub procs: Vec<u32>,
}

/// Why a daemon could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DaemonError {
    /// An unknown name, or a schedule file that cannot be read.
    Usage(String),
    /// A schedule file whose text is wrong.
    Schedule(String),
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
        name: "schedule",
        aliases: &[],
        about: "schedule:FILE, one step a line: the processes that move",
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
        }
    }

    /// Parses a daemon as `--daemon` and the REPL's `daemon` take it;
    /// `read` reads a schedule file.
    pub fn parse(s: &str, read: &dyn Fn(&str) -> Result<String, String>) -> Result<Daemon, String> {
        Daemon::parse_telling(s, read).map_err(|e| match e {
            DaemonError::Usage(m) | DaemonError::Schedule(m) => m,
        })
    }

    /// As [`Daemon::parse`], telling a wrong name or unreadable file from a
    /// schedule whose text is wrong.
    pub fn parse_telling(
        s: &str,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Daemon, DaemonError> {
        if let Some(path) = s.strip_prefix("schedule:") {
            let text = read(path).map_err(|e| DaemonError::Usage(format!("schedule: {e}")))?;
            return parse_schedule(path, &text)
                .map(Daemon::Schedule)
                .map_err(DaemonError::Schedule);
        }
        let known = DAEMONS
            .iter()
            .find(|d| d.name != "schedule" && (d.name == s || d.aliases.contains(&s)));
        match known.map(|d| d.name) {
            Some("central") => Ok(Daemon::Central),
            Some("synchronous") => Ok(Daemon::Synchronous),
            Some("distributed") => Ok(Daemon::Distributed),
            Some("locally-central") => Ok(Daemon::LocallyCentral),
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

    /// Refuses a schedule that names a process an instance of `n` processes
    /// does not have, naming its line.
    pub fn check_processes(&self, n: usize) -> Result<(), String> {
        let Daemon::Schedule(steps) = self else {
            return Ok(());
        };
        for step in steps {
            if let Some(p) = step.procs.iter().find(|&&p| p as usize >= n) {
                return Err(format!(
                    "schedule line {}: process {p} does not exist (the processes are 0..{})",
                    step.line,
                    n.saturating_sub(1)
                ));
            }
        }
        Ok(())
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
                    let mut set = line.procs.clone();
                    set.sort_unstable();
                    set.dedup();
                    each(&set);
                }
                _ => {}
            },
        }
    }
}

/// The processes that count as `p`'s neighbours for the locally-central
/// daemon: those it reads and those that read it.
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

/// Reads a schedule: one step a line, process indices separated by spaces
/// or commas (braces allowed), `#` comments.
pub fn parse_schedule(name: &str, text: &str) -> Result<Vec<ScheduledStep>, String> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let procs: Result<Vec<u32>, _> = line
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<u32>())
            .collect();
        match procs {
            Ok(p) if !p.is_empty() => out.push(ScheduledStep {
                line: k + 1,
                procs: p,
            }),
            _ => {
                return Err(format!(
                    "{name}:{}: expected process indices, found `{line}`",
                    k + 1
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize) -> Topology {
        let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
        crate::topology::build(&format!("ring:{n}"), &mut rng, &|_| Err(String::new())).unwrap()
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
