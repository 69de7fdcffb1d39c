//! Schedules: the daemon that reads its steps from a file, one line a
//! step, each naming the processes that move and, optionally, the move
//! each makes (`3:copy`, `3:R1@5`, `0:flip<1,0>`).

/// One line of a schedule: the processes that move at that step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledStep {
    /// 1-based line in the schedule file.
    pub line: usize,
    /// The processes.
    pub procs: Vec<u32>,
    /// Per process (in the order of `procs`): the move the line names for
    /// it (`3:copy`), if any; else it moves as runs choose.
    pub named: Vec<Option<NamedMove>>,
    /// A line `tick D1 D2 ...` of a program that runs in ticks: the delay
    /// of each message sent in the tick, in the order sent (no processes).
    pub delays: Option<Vec<u16>>,
    /// Per process: the bytes of its token in the schedule's text (`3:copy`),
    /// for diagnostics; empty for steps made elsewhere than from a text.
    pub spans: Vec<(usize, usize)>,
}

/// A move a schedule names for a process: `3:label`, `3:label@5` (for
/// binder member 5), `3:label<1,0>` (the values its draws take).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedMove {
    /// The action's label.
    pub label: String,
    /// The binder member it runs for.
    pub member: Option<i64>,
    /// The values its draws take, in order.
    pub draws: Option<Vec<i64>>,
}

impl NamedMove {
    /// Reads a move as a schedule's token writes it after `P:` (`label`,
    /// `label@5`, `label<1,0>`, `label@5<1,0>`).
    pub fn parse(text: &str) -> Option<NamedMove> {
        let (text, draws) = match text.split_once('<') {
            Some((head, tail)) => {
                let values = tail.strip_suffix('>')?;
                let draws: Option<Vec<i64>> = values
                    .split(',')
                    .filter(|v| !v.is_empty())
                    .map(|v| match v {
                        "true" => Some(1),
                        "false" => Some(0),
                        v => v.parse().ok(),
                    })
                    .collect();
                (head, Some(draws?))
            }
            None => (text, None),
        };
        let (label, member) = match text.split_once('@') {
            Some((label, member)) => (label, Some(member.parse().ok()?)),
            None => (text, None),
        };
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let starts = label
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        (starts && label.chars().all(word)).then(|| NamedMove {
            label: label.to_string(),
            member,
            draws,
        })
    }
}

/// A move as a schedule line names it: `3:label`, `3:label@5` (binder
/// member 5), `3:label<1,0>` (the values drawn; none written when empty).
pub fn move_text(process: u32, label: &str, member: Option<i64>, draws: Option<&[i64]>) -> String {
    let mut out = format!("{process}:{label}");
    if let Some(m) = member {
        out += &format!("@{m}");
    }
    if let Some(d) = draws.filter(|d| !d.is_empty()) {
        let values: Vec<String> = d.iter().map(i64::to_string).collect();
        out += &format!("<{}>", values.join(","));
    }
    out
}

/// Reads a schedule: one step a line, moves separated by spaces or commas
/// (braces allowed), `#` comments. A move is a process index, optionally
/// with the move it makes: `3:copy`, `3:R1@5` (binder member 5),
/// `3:flip<1>` (the values drawn). In a program that runs in ticks, a line
/// is a tick, `tick 2 1`: the delay of each message sent in it.
pub fn parse_schedule(name: &str, text: &str) -> Result<Vec<ScheduledStep>, String> {
    read_schedule(text).map_err(|e| format!("{name}:{}: {}", e.line, e.message))
}

/// What is wrong with a schedule's text, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError {
    /// 1-based line.
    pub line: usize,
    /// The bytes of the text at fault (a token, or the line).
    pub span: (usize, usize),
    /// What is wrong.
    pub message: String,
    /// How such a line is written.
    pub help: &'static str,
}

const MOVES_HELP: &str = "a step lists the processes that move, by index (`3 5`), each optionally with its move: `3:copy`, `3:R1@5` (binder member 5), `0:flip<1>` (the values drawn)";
const PROCESS_HELP: &str = "a schedule names processes by index, from 0";
const ACTION_HELP: &str =
    "a move names an action of its process's role by its label (`3:copy`); leave the label out to let the run choose";
const TICK_HELP: &str =
    "a tick is `tick` and the delays of the messages sent in it, whole numbers of ticks of at least 1: `tick 2 1`";

/// [`parse_schedule`], with where in `text` a wrong line goes wrong.
pub fn read_schedule(text: &str) -> Result<Vec<ScheduledStep>, ScheduleError> {
    // Every piece below is a slice of `text`.
    let fault = |line: usize, piece: &str, message: String, help| ScheduleError {
        line,
        span: crate::span::bytes_of(text, piece),
        message,
        help,
    };
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line
            .strip_prefix("tick")
            .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
        {
            let mut delays = Vec::new();
            for word in rest
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
            {
                match word.parse::<u16>().ok().filter(|&d| d >= 1) {
                    Some(d) => delays.push(d),
                    None => {
                        let message = format!(
                            "`{word}` is not a delay (a whole number of ticks, at least 1)"
                        );
                        return Err(fault(k + 1, word, message, TICK_HELP));
                    }
                }
            }
            out.push(ScheduledStep {
                line: k + 1,
                procs: Vec::new(),
                named: Vec::new(),
                delays: Some(delays),
                spans: Vec::new(),
            });
            continue;
        }
        let (mut procs, mut named, mut spans) = (Vec::new(), Vec::new(), Vec::new());
        for token in line
            .split(|c: char| c.is_whitespace() || c == '{' || c == '}')
            .flat_map(split_commas)
            .filter(|s| !s.is_empty())
        {
            let (p, m) = match token.split_once(':') {
                Some((p, m)) => (p, Some(m)),
                None => (token, None),
            };
            let Ok(p) = p.parse::<u32>() else {
                let message = format!("`{p}` is not a process index");
                return Err(fault(k + 1, token, message, MOVES_HELP));
            };
            let m = match m.map(|m| (m, NamedMove::parse(m))) {
                None => None,
                Some((_, Some(named))) => Some(named),
                Some(("", None)) => {
                    let message = format!("`{token}` names no move after its `:`");
                    return Err(fault(k + 1, token, message, MOVES_HELP));
                }
                Some((m, None)) => {
                    let message = format!("`{m}` is not a move (an action's label, then optionally `@MEMBER` and `<DRAWS>`)");
                    return Err(fault(k + 1, token, message, MOVES_HELP));
                }
            };
            procs.push(p);
            named.push(m);
            spans.push(crate::span::bytes_of(text, token));
        }
        if procs.is_empty() {
            let message = "no process moves in this step".to_string();
            return Err(fault(k + 1, line, message, MOVES_HELP));
        }
        out.push(ScheduledStep {
            line: k + 1,
            procs,
            named,
            delays: None,
            spans,
        });
    }
    Ok(out)
}

/// Refuses a schedule that names a process the instance lacks (it has
/// `n`), or an action its process's role lacks (`actions_of(p)` lists
/// that role's labels), pointing at the token: what can be known before
/// a run. Whether a named move is enabled is the run's to find.
pub fn check_moves<'a>(
    steps: &[ScheduledStep],
    n: usize,
    actions_of: &dyn Fn(u32) -> Vec<&'a str>,
) -> Result<(), ScheduleError> {
    for step in steps {
        for (k, &p) in step.procs.iter().enumerate() {
            let span = step.spans.get(k).copied().unwrap_or((0, 0));
            let fault = |message: String, help| ScheduleError {
                line: step.line,
                span,
                message,
                help,
            };
            if p as usize >= n {
                let message = format!(
                    "process {p} does not exist (the processes are 0..{})",
                    n.saturating_sub(1)
                );
                return Err(fault(message, PROCESS_HELP));
            }
            let Some(named) = step.named.get(k).and_then(Option::as_ref) else {
                continue;
            };
            let labels = actions_of(p);
            if !labels.contains(&named.label.as_str()) {
                return Err(fault(no_such_action(p, &named.label, &labels), ACTION_HELP));
            }
        }
    }
    Ok(())
}

/// Why a move naming `label` cannot be made by process `p`, whose role's
/// actions are `labels` (which lack it): before a run, or during one.
pub(crate) fn no_such_action(p: u32, label: &str, labels: &[&str]) -> String {
    let hint = crate::diagnostic::suggest(label, labels.iter().copied())
        .map_or(String::new(), |h| format!("; did you mean `{h}`?"));
    format!(
        "process {p} has no action `{label}` (its actions: {}){hint}",
        labels.join(", ")
    )
}

/// A schedule's word split at its commas, but not those inside `<...>`
/// (the values of a move's draws).
fn split_commas(word: &str) -> Vec<&str> {
    let (mut out, mut start, mut depth) = (Vec::new(), 0, 0i32);
    for (i, c) in word.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&word[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&word[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_name_moves() {
        let steps = parse_schedule("s", "0 2:copy\n{1:R1@3, 4:flip<1,0>}\n5:a<true>").unwrap();
        assert_eq!(steps[0].procs, vec![0, 2]);
        assert_eq!(steps[0].named[0], None);
        assert_eq!(steps[0].named[1].as_ref().unwrap().label, "copy");
        let r1 = steps[1].named[0].as_ref().unwrap();
        assert_eq!(
            (r1.label.as_str(), r1.member, &r1.draws),
            ("R1", Some(3), &None)
        );
        let flip = steps[1].named[1].as_ref().unwrap();
        assert_eq!(flip.draws, Some(vec![1, 0]));
        assert_eq!(steps[2].named[0].as_ref().unwrap().draws, Some(vec![1]));
        for bad in ["3:", "3:1x", "3:a@", "3:a<1", "x:a", "{}", "tick 0"] {
            assert!(parse_schedule("s", bad).is_err(), "{bad}");
        }
        // A wrong token is pointed at, on its line.
        let e = read_schedule("0 1\n# a comment\n2 x:copy 3\n").unwrap_err();
        assert_eq!((e.line, e.span), (3, (18, 24)));
        assert!(e.message.contains("`x`"), "{}", e.message);
    }

    #[test]
    fn moves_are_checked_against_the_instance() {
        let text = "0 1:copy\n2:cpy\n";
        let steps = read_schedule(text).unwrap();
        let actions = |p: u32| {
            if p == 0 {
                vec!["advance"]
            } else {
                vec!["copy"]
            }
        };
        let e = check_moves(&steps, 3, &actions).unwrap_err();
        assert_eq!((e.line, &text[e.span.0..e.span.1]), (2, "2:cpy"));
        assert!(e.message.contains("did you mean `copy`"), "{}", e.message);
        let e = check_moves(&steps, 2, &actions).unwrap_err();
        assert_eq!((e.line, &text[e.span.0..e.span.1]), (2, "2:cpy"));
        assert!(
            e.message.contains("process 2 does not exist"),
            "{}",
            e.message
        );
        let fixed = read_schedule("0 1:copy\n2:copy\n").unwrap();
        assert!(check_moves(&fixed, 3, &actions).is_ok());
    }
}
