//! What `guarded verify` prints: a block of text per daemon, or one JSON
//! object, with configurations and runs in one line each.

use super::one_line::fault_text;
use super::*;
use crate::runtime::daemon::Daemon;
use crate::verify::Fairness;

/// What the verdicts below are about: every run, or the first-action
/// refinement; nothing where the two are one and nothing is drawn.
pub(super) fn choices_line(inst: &Instance, choices: Choices) -> Option<&'static str> {
    choices_line_for(inst.code.may_choose(), inst.code.has_random, choices)
}

/// [`choices_line`] where a process may choose (`may_choose`) and a
/// statement draws (`draws`).
pub(super) fn choices_line_for(
    may_choose: bool,
    draws: bool,
    choices: Choices,
) -> Option<&'static str> {
    Some(match (may_choose, choices) {
        (true, Choices::Every) => "moves: every enabled action of each mover, each binder member its guard holds for, each value drawn: every run of the program",
        (true, Choices::First) => "moves: each mover's first enabled action alone, for its binder's first member (--choice first): the verdicts are about that refinement, not every run",
        (false, _) if draws => "moves: every value each draw can take: every run of the program",
        (false, _) => return None,
    })
}

/// An instance's parameters as `K=5 M=11` (empty where it has none).
pub(super) fn params_text(params: &[(String, i64)]) -> String {
    let each: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    each.join(" ")
}

/// A topology's name as a folder's, for the witnesses of a family:
/// `ring:3` is `ring-3`.
pub(super) fn folder_name(topology: &str) -> String {
    topology
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A CSV field: quoted where it holds a comma, a quote or a space.
pub(super) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', ' ']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The first lines: the instance, what is explored (the configurations,
/// and by orbits how many and under how many symmetries, where asked),
/// which moves.
pub(super) fn header(
    inst: &Instance,
    program: &str,
    (configurations, symmetries): (Option<u64>, Option<usize>),
    choices: Choices,
    origin: &super::Origin,
) -> String {
    let params = match params_text(&inst.code.params) {
        none if none.is_empty() => none,
        some => format!(", {some}"),
    };
    let explored = match (configurations, symmetries) {
        // Past 2^64 (the symbolic engine): the count itself.
        (Some(u64::MAX), None) => {
            format!("{} configurations", super::saturated(inst.space().count()))
        }
        (Some(c), None) => count(c, "configuration"),
        (Some(c), Some(1)) => format!(
            "{} (--symmetry: none but the identity)",
            count(c, "configuration")
        ),
        (Some(c), Some(k)) => format!(
            "{}, {} under {} (--symmetry)",
            count(inst.space().count() as u64, "configuration"),
            count(c, "orbit"),
            count(k as u64, "symmetry")
        ),
        (None, symmetries) => {
            let from = match origin {
                super::Origin::Arbitrary => arbitrary_starts(inst),
                _ => "its start".into(),
            };
            let identity = match symmetries {
                Some(1) => " (--symmetry: none but the identity)",
                _ => "",
            };
            format!("the configurations reachable from {from}{identity}")
        }
    };
    let mut out = format!(
        "{program} on {} ({}{params}): {explored}\n",
        inst.topo.name,
        count(inst.topo.n() as u64, "process"),
    );
    if inst.runs_in_ticks() {
        // Nothing is chosen within a tick: the delays are what varies.
        out += "time: in ticks, every delay of every message (each process's moves within a tick in program order): every run of the program\n";
    } else if let Some(line) = choices_line(inst, choices) {
        out += line;
        out.push('\n');
    }
    out
}

/// One daemon's result block.
pub(super) fn block(
    inst: &Instance,
    v: &Verdict,
    written: &[(String, PathBuf)],
    reached: bool,
) -> String {
    let mut s = String::new();
    let count = match (reached, v.symmetries) {
        (true, 1) => format!("{} reached, ", count(v.configurations, "configuration")),
        (true, k) => format!(
            "{} reached (--symmetry: {}), ",
            self::count(v.configurations, "orbit"),
            self::count(k as u64, "symmetry")
        ),
        (false, _) => String::new(),
    };
    let legitimate = if inst.prog.legitimate.is_some() {
        format!("{} legitimate, ", v.legitimate)
    } else {
        String::new()
    };
    let transitions = match v.transitions {
        Some(t) => format!("{t} transitions"),
        None => "transitions not counted".into(),
    };
    let engine = match v.engine {
        Engine::Explicit => "",
        Engine::Symbolic => " (symbolic engine)",
    };
    let _ = writeln!(
        s,
        "\ndaemon {}{engine}: {count}{legitimate}{transitions}",
        v.daemon.name(),
    );
    let mut line = |k: &str, text: String| {
        let _ = writeln!(s, "  {k:<12} {text}");
    };
    line(
        "invariants",
        match &v.invariant {
            None if inst.code.invariants.is_empty() => "none declared".into(),
            None => "hold in every configuration".into(),
            Some((name, run)) => format!("`{name}` does not hold {}", at_end(inst, v, run)),
        },
    );
    for p in &v.properties {
        line(
            "property",
            format!("`{}` {}", p.name, property_text(inst, v, p)),
        );
    }
    if v.properties.is_empty() {
        let by = match (v.engine, &v.daemon) {
            (Engine::Explicit, Daemon::Ticks) => "in ticks (under a daemon it is)",
            (Engine::Explicit, _) if v.symmetries > 1 => {
                "by orbits, which it does not follow (it names processes): drop --symmetry to check it"
            }
            (Engine::Explicit | Engine::Symbolic, _) => "(--no-properties)",
        };
        for p in &inst.code.properties {
            line("property", format!("`{}` not checked {by}", p.name));
        }
    }
    if inst.prog.legitimate.is_some() {
        line(
            "closure",
            match &v.closure {
                None => "holds: no step leaves legitimacy".into(),
                Some(run) => format!("fails: {}", run_text(inst, v, run)),
            },
        );
    }
    if reached || v.fault.is_some() {
        line(
            "faults",
            match &v.fault {
                None => "none: no step raises a runtime error".into(),
                Some((e, run)) => format!(
                    "fails: {}, at the last step of {}",
                    fault_text(e),
                    run_text(inst, v, run)
                ),
            },
        );
    }
    for (k, text) in convergence_lines(inst, v, reached) {
        line(k, text);
    }
    if let Some((peak, limit)) = v.nodes {
        line(
            "diagrams",
            format!(
                "at most {} alive (the limit, from the memory budget: {limit})",
                self::count(peak as u64, "node"),
            ),
        );
    }
    for (what, path) in written {
        line(
            "witness",
            match inst.runs_in_ticks() {
                // A tick's picture is not drawn: its delays are the run.
                true => format!("{what}: {}.init, .sched", path.display()),
                false => format!("{what}: {}.init, .sched, .dot", path.display()),
            },
        );
    }
    s
}

/// Each step of `run` as a line of its moves, joined by `sep`, as a
/// schedule writes them: each with its action (and binder member and
/// values drawn) where a process may choose or some role has several
/// actions, else the process alone.
pub(super) fn step_texts(inst: &Instance, v: &Verdict, run: &Run, sep: &str) -> Vec<String> {
    let code = &inst.code;
    // Which of several guarded actions moved is what a reader of a
    // counterexample asks first (`{0:reset}`, not `{0}`). Every mover is
    // named once one is: `{0,1:level}` reads as both taking `level`
    // where 0's role has one action.
    let named = v.may_choose || code.roles.iter().any(|role| role.actions.len() > 1);
    run.steps
        .iter()
        .map(|step| {
            let moves: Vec<String> = step.iter().map(|m| m.text(code, named)).collect();
            moves.join(sep)
        })
        .collect()
}

pub(super) use crate::report::counted as count;

/// The worst rounds after the worst steps and moves (`rounds`, where
/// counted), or why they were not counted.
fn rounds_counted(v: &Verdict, rounds: Option<u64>, moves_counted: bool) -> String {
    match rounds {
        Some(r) => format!(", {}", count(r, "round")),
        None if v.engine == Engine::Symbolic && moves_counted => {
            " (rounds not counted by the symbolic engine: --engine explicit counts them)".into()
        }
        None if !v.rounds_asked => String::new(),
        None => format!(
            " (rounds not counted: more than 64 processes, or the search's states past 64 bits each or {} MiB in all)",
            crate::verify::MAX_ROUND_BYTES >> 20
        ),
    }
}

/// Where the cycle of `run` (from step `cycle_from`) draws: it is
/// possibilistic, and may have probability 0, which is `expect`'s question.
fn drawn_cycle_note(run: &Run, cycle_from: usize) -> Option<String> {
    let drawn = run.steps[cycle_from..]
        .iter()
        .flatten()
        .any(|m| m.draws.as_ref().is_some_and(|d| !d.is_empty()));
    drawn.then(|| "the cycle draws the same values each time round it, which a run may do with probability 0: `guarded expect` says whether legitimacy is reached with probability 1 (the daemon's movers drawn too)".into())
}

/// The lines on convergence, or on deadlock without a legitimacy predicate;
/// `reached`: from a start, where a broken invariant ends a run.
fn convergence_lines(inst: &Instance, v: &Verdict, reached: bool) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut line = |k: &'static str, text: String| out.push((k, text));
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => {
            let runs = if refined(v) { "run of first actions" } else { "run" };
            let stopped = match (v.fault.is_some(), reached && v.invariant.is_some()) {
                (true, true) => Some("raises no runtime error and breaks no invariant"),
                (true, false) => Some("raises no runtime error"),
                (false, true) => Some("breaks no invariant"),
                (false, false) => None,
            };
            if no_run_counts(inst, steps) {
                line(
                    "convergence",
                    format!("holds vacuously: no {runs} from a start outside legitimacy reaches legitimacy before it stops at a broken invariant or a runtime error"),
                );
                return out;
            }
            line(
                "convergence",
                match (stopped, refined(v)) {
                    (Some(how), _) => format!("holds for every {runs} that {how}"),
                    (None, false) => "holds: every run reaches legitimacy".into(),
                    (None, true) => "holds: every run of first actions reaches legitimacy (other runs may not)".into(),
                },
            );
            let counted = rounds_counted(v, rounds.as_ref().map(|(r, _)| *r), moves.is_some());
            if v.daemon == Daemon::Ticks {
                // Every tick is a round: the rounds would repeat the ticks.
                let ticks = count(steps.steps.len() as u64, "tick");
                line("worst case", format!("{ticks}{}", moves_counted(v, moves)));
                line("most ticks", run_text(inst, v, steps));
                if let Some(moves) = moves {
                    line("most moves", run_text(inst, v, moves));
                }
                match &v.for_good {
                    Some(Some(run)) => line(
                        "for good",
                        format!(
                            "legitimacy holds for good (every run from there stays legitimate) within {} at worst, {}",
                            count(run.steps.len() as u64, "tick"),
                            run_text(inst, v, run)
                        ),
                    ),
                    Some(None) => line(
                        "for good",
                        "no bound: a cycle of legitimate configurations may still leave legitimacy after any number of ticks".into(),
                    ),
                    None => {}
                }
                return out;
            }
            line(
                "worst case",
                format!(
                    "{}{}{counted}",
                    count(steps.steps.len() as u64, "step"),
                    moves_counted(v, moves)
                ),
            );
            line("most steps", run_text(inst, v, steps));
            if let Some(moves) = moves {
                line("most moves", run_text(inst, v, moves));
            }
            if let Some((_, run)) = rounds {
                line("most rounds", run_text(inst, v, run));
            }
        }
        Convergence::Deadlock(run) => line(
            "convergence",
            format!(
                "fails: no process is enabled, and legitimacy does not hold, {}",
                at_end(inst, v, run)
            ),
        ),
        Convergence::HoldsUnderFairness { run, cycle_from } => line(
            "convergence",
            format!(
                "holds under {} fairness, with no bound on the steps: an unfair {} (a process enabled {} never moves), {}",
                v.fairness.name(),
                cycle_words(run, *cycle_from),
                if v.fairness == Fairness::Strong { "on it" } else { "throughout" },
                run_text(inst, v, run)
            ),
        ),
        Convergence::Cycle { run, cycle_from } => {
            line(
                "convergence",
                format!(
                    "fails: a {}{} outside legitimacy, {}",
                    fair_words(v.fairness),
                    cycle_words(run, *cycle_from),
                    run_text(inst, v, run)
                ),
            );
            if let Some(note) = drawn_cycle_note(run, *cycle_from) {
                line("note", note);
            }
        }
        Convergence::NotDeclared { deadlock } => line(
            "deadlock",
            match deadlock {
                None => "none: some process is enabled in every configuration".into(),
                Some(run) => format!("fails: no process is enabled {}", at_end(inst, v, run)),
            },
        ),
    }
    out
}

/// Whether the worst case `steps` found is no run at all: from a start
/// outside legitimacy, every run stops (at a broken invariant, which ends a
/// run from a start, or at a runtime error) before legitimacy.
pub(super) fn no_run_counts(inst: &Instance, steps: &Run) -> bool {
    let legitimate = inst.step_relation().legitimate(&steps.start);
    steps.steps.is_empty() && matches!(legitimate, Ok(Some(false)))
}

/// Whether the verdict is about the first-action refinement of a program
/// whose processes may choose.
fn refined(v: &Verdict) -> bool {
    v.may_choose && v.choices == Choices::First
}

/// What a property came to, with the run that shows it.
fn property_text(inst: &Instance, v: &Verdict, p: &crate::verify::PropertyVerdict) -> String {
    if let Some(why) = &p.not_checked {
        return format!("not checked: {why}");
    }
    let process = p
        .process
        .map_or(String::new(), |q| format!(" for process {q}"));
    match (p.holds, p.form, &p.run) {
        (true, "sometimes", Some((run, _))) => {
            format!("holds: an example, {}", example(inst, v, run))
        }
        (true, "sometimes", None) => "holds: for every process, some run reaches it".into(),
        (true, "stable", _) => "holds: no step leaves it".into(),
        (true, "always", _) => "holds in every configuration explored".into(),
        (false, "always", Some((run, _))) => {
            format!("fails{process}: it does not hold {}", at_end(inst, v, run))
        }
        (true, "always eventually", _) => format!(
            "holds: every {}run reaches a configuration where it holds, again and again",
            fair_words(p.fairness)
        ),
        (true, _, _) => format!("holds: every {}run through a configuration where its first predicate holds reaches one where its second does", fair_words(p.fairness)),
        (false, "sometimes", _) => format!("fails{process}: no configuration explored satisfies it"),
        (false, "stable", Some((run, _))) => {
            format!("fails{process}: a step leaves it, {}", run_text(inst, v, run))
        }
        (false, "always eventually", Some((run, Some(from)))) => format!(
            "fails{process}: it never holds again on a {}{}, {}",
            fair_words(p.fairness),
            cycle_words(run, *from),
            run_text(inst, v, run)
        ),
        (false, _, Some((run, Some(from)))) => format!(
            "fails{process}: a {}{} that never reaches its second predicate, {}",
            fair_words(p.fairness),
            cycle_words(run, *from),
            run_text(inst, v, run)
        ),
        (false, form, Some((run, None))) => format!(
            "fails{process}: a run ends (no step can be taken, or an invariant fails) {}, {}",
            match form {
                "always eventually" => "where it does not hold",
                _ => "without reaching its second predicate",
            },
            run_text(inst, v, run)
        ),
        (false, _, None) => format!("fails{process}"),
    }
}

/// `weakly fair ` or `strongly fair ` before a run or cycle, under
/// fairness.
fn fair_words(fairness: Fairness) -> String {
    match fairness {
        Fairness::Unfair => String::new(),
        f => format!("{} fair ", f.adverb()),
    }
}

/// An example run: where it ends, and how it gets there.
fn example(inst: &Instance, v: &Verdict, run: &Run) -> String {
    if run.steps.is_empty() {
        format!("in {}", config_text(inst, &run.start))
    } else {
        format!(
            "{}: {}",
            count(run.steps.len() as u64, "step"),
            run_text(inst, v, run)
        )
    }
}

/// `cycle of N steps`, and `after K steps` when the run first goes to it.
fn cycle_words(run: &Run, cycle_from: usize) -> String {
    let len = count((run.steps.len() - cycle_from) as u64, "step");
    match cycle_from {
        0 => format!("cycle of {len}"),
        k => format!("cycle of {len} after {}", count(k as u64, "step")),
    }
}

/// Where a run ends, for a property that fails there: `in CONFIG` when it
/// takes no step, else `after the run from CONFIG, moving ...`.
pub(super) fn at_end(inst: &Instance, v: &Verdict, run: &Run) -> String {
    if run.steps.is_empty() {
        format!("in {}", config_text(inst, &run.start))
    } else {
        format!("after the run {}", run_text(inst, v, run))
    }
}

/// A run in one line: its start and each step's moves, a step taken
/// several times in a row written once with how many (`{0,1,2} ×18`).
pub(super) fn run_text(inst: &Instance, v: &Verdict, run: &Run) -> String {
    let mut repeated: Vec<(String, usize)> = Vec::new();
    for (k, mut moves) in step_texts(inst, v, run, ",").into_iter().enumerate() {
        // In ticks, the delays of the messages sent in the tick.
        if let Some(delays) = run.delays.get(k).filter(|d| !d.is_empty()) {
            let each: Vec<String> = delays.iter().map(u16::to_string).collect();
            moves += &format!(" delays {}", each.join(","));
        }
        match repeated.last_mut() {
            Some((last, times)) if *last == moves => *times += 1,
            _ => repeated.push((moves, 1)),
        }
    }
    let mut steps: Vec<String> = repeated
        .iter()
        .take(SHOWN_STEPS)
        .map(|(moves, times)| match times {
            1 => format!("{{{moves}}}"),
            n => format!("{{{moves}}} ×{n}"),
        })
        .collect();
    if repeated.len() > SHOWN_STEPS {
        steps.push(format!("... ({} steps in all)", run.steps.len()));
    }
    if steps.is_empty() {
        format!("from {}", config_text(inst, &run.start))
    } else {
        format!(
            "from {}, moving {}",
            config_text(inst, &run.start),
            steps.join(" ")
        )
    }
}

/// ", N moves" of a worst case, or what the engine left uncounted.
fn moves_counted(v: &Verdict, moves: &Option<Run>) -> String {
    match (moves, &v.daemon) {
        (Some(run), _) => format!(", {}", count(run.moves(), "move")),
        (None, Daemon::Synchronous) => " (moves left out with --no-rounds, or where a move faults, and rounds not counted by the symbolic engine: --engine explicit counts them)".into(),
        (None, _) => " (moves and rounds not counted by the symbolic engine under this daemon: --engine explicit counts them)".into(),
    }
}

/// The arbitrary starts (`--from random`) as the header names them: how
/// many, and what they hold (the channels' too where there are).
fn arbitrary_starts(inst: &Instance) -> String {
    let starts = crate::verify::Starts::arbitrary(inst).map_or(0, |s| s.count());
    let channels = match inst.code.capacity {
        Some(_) if inst.code.random_fill == (0, 0) => "; channels empty".to_string(),
        Some(_) => {
            let (lo, hi) = inst.code.random_fill;
            let held = match lo == hi {
                true => count(lo as u64, "message"),
                false => format!("{lo} to {hi} messages"),
            };
            format!(
                "; each channel {held} of every type and field, older than the next channel's, as --init random fills them"
            )
        }
        None => String::new(),
    };
    format!(
        "{} (every value in the declared `random` ranges, the domains elsewhere{channels}; --from random)",
        count(u64::try_from(starts).unwrap_or(u64::MAX), "arbitrary start")
    )
}
