//! The configuration file format, read and written: one
//! `PROCESS.VAR = VALUE` a line (`*` for every process, `#` for comments),
//! arrays whole (`3.F = [0, 2, 1]`) or by element (`3.F[1] = 2`),
//! per-neighbour values by neighbour (`3.sent[5] = 1`), and channel lines
//! (`channel 3->5: find(2) observer(1)`). Files, `--set` overrides, DOT
//! attributes and the REPL's `save`/`load` all use it; the writing is in
//! `written.rs`.

use super::*;
use crate::diagnostic::counted;

/// One parsed `PROCESS.VAR = VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Assignment {
    /// The process, or `None` for every process.
    pub process: Option<usize>,
    /// The variable.
    pub var: usize,
    /// The first slot written.
    pub slot: usize,
    /// The values, from `slot` on (several for a whole array).
    pub values: Vec<i64>,
    /// Where it was written, for diagnostics.
    pub span: Span,
}

/// Parses a value of type `ty` as a user writes it.
pub(crate) fn parse_value(prog: &ir::Program, ty: Ty, text: &str) -> Result<i64, String> {
    let text = text.trim();
    match ty {
        Ty::Bool => match text {
            "true" => Ok(1),
            "false" => Ok(0),
            _ => Err(format!(
                "`{text}` is not a boolean (write `true` or `false`)"
            )),
        },
        Ty::Int => text
            .parse()
            .map_err(|_| format!("`{text}` is not an integer")),
        Ty::Node => text
            .parse()
            .map_err(|_| format!("`{text}` is not a process index")),
        Ty::Enum(e) => prog.enums[e]
            .values
            .iter()
            .position(|v| v == text)
            .map(|k| k as i64)
            .ok_or_else(|| format!("`{text}` is not one of {}", prog.enums[e].values.join(", "))),
    }
}

/// Parses assignment lines, with spans into `text`.
pub(crate) fn parse_assignments(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    text: &str,
) -> Result<Vec<Assignment>, Vec<Problem>> {
    parse_lines(text, false, |line, span| {
        parse_line(prog, code, topo, line, span)
    })
}

/// Runs `parse` on each non-empty, non-comment line of `text` that is (when
/// `channels`) or is not a channel line, with its span; all problems at once.
fn parse_lines<T>(
    text: &str,
    channels: bool,
    parse: impl Fn(&str, Span) -> Result<T, Problem>,
) -> Result<Vec<T>, Vec<Problem>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.split('#').next().unwrap_or("");
        let trimmed = body.trim();
        if trimmed.is_empty() || is_channel_line(trimmed) != channels {
            continue;
        }
        let lead = body.len() - body.trim_start().len();
        let span = Span::new(start + lead, start + lead + trimmed.len());
        match parse(trimmed, span) {
            Ok(a) => out.push(a),
            Err(p) => problems.push(p),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn parse_line(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    line: &str,
    span: Span,
) -> Result<Assignment, Problem> {
    let bad = |msg: String, help: &str| {
        Problem::new("guarded::config::bad_assignment", msg)
            .label(span, "in this assignment")
            .help(help.to_string())
    };
    let (lhs, value) = line.split_once('=').ok_or_else(|| {
        bad(
            format!("expected `PROCESS.VAR = VALUE`, found `{line}`"),
            "for example `3.x = 2`, or `*.x = 0` for every process",
        )
    })?;
    let (process, k, element) = parse_target(prog, topo, lhs, &bad)?;
    let var = prog.vars[k].name.as_str();
    let v = &prog.vars[k];
    let one = |text: &str| -> Result<i64, Problem> {
        if v.ty == Ty::Node && text.trim() == "self" {
            return match process {
                Some(p) => Ok(p as i64),
                None => Err(bad(
                    "`self` needs one process, not `*`".into(),
                    "write the process index",
                )),
            };
        }
        parse_value(prog, v.ty, text)
            .map_err(|m| bad(m, "the value must belong to the variable's type"))
    };
    let (slot, values) = match (code.lens[k], element) {
        (None, Some(_)) => {
            return Err(bad(
                format!("`{var}` is not an array"),
                &format!("write `{var} = VALUE`"),
            ))
        }
        (None, None) => (code.offsets[k], vec![one(value)?]),
        (Some(len), Some(i)) if i >= len && !code.per_nbr[k] => {
            return Err(bad(
                format!("`{var}` has {len} elements; there is no element {i}"),
                &format!("indices run from 0 to {}", len - 1),
            ))
        }
        (Some(_), Some(q)) if code.per_nbr[k] => {
            let Some(p) = process else {
                return Err(bad(
                    format!("`{var}` has one value per neighbour; name one process, not `*`"),
                    &format!("write `3.{var}[5] = ...` for process 3's value for its neighbour 5"),
                ));
            };
            let Some(pos) = topo.nbr_pos(p, q) else {
                return Err(bad(
                    format!("process {q} is not a neighbour of process {p}"),
                    &format!(
                        "`{var}[q]` is the value for neighbour q; the neighbours of {p} are {:?}",
                        topo.nbrs(p)
                    ),
                ));
            };
            (code.offsets[k] + pos, vec![one(value)?])
        }
        (Some(_), None) if code.per_nbr[k] => {
            return Err(bad(
                format!("`{var}` has one value per neighbour; set them one at a time"),
                &format!("write `PROCESS.{var}[NEIGHBOUR] = VALUE`"),
            ))
        }
        (Some(_), Some(i)) => (code.offsets[k] + i, vec![one(value)?]),
        (Some(len), None) => {
            let list = value
                .trim()
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or_else(|| {
                    bad(
                        format!("`{var}` is an array of {len}; write its values in brackets"),
                        &format!(
                            "for example `{var} = [{}]`, or one element: `{var}[0] = ...`",
                            vec!["0"; len].join(", ")
                        ),
                    )
                })?;
            let values = list
                .split(',')
                .filter(|t| !t.trim().is_empty())
                .map(one)
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() != len {
                return Err(bad(
                    format!("`{var}` has {len} elements, {} given", values.len()),
                    "give one value per element",
                ));
            }
            (code.offsets[k], values)
        }
    };
    Ok(Assignment {
        process,
        var: k,
        slot,
        values,
        span,
    })
}

/// The left side of an assignment, `3.x`, `*.F[2]` or `3.sent[5]`: the
/// process (`None` for `*`), the variable and the element.
fn parse_target(
    prog: &ir::Program,
    topo: &Topology,
    lhs: &str,
    bad: &dyn Fn(String, &str) -> Problem,
) -> Result<(Option<usize>, usize, Option<usize>), Problem> {
    let (who, var) = lhs.trim().split_once('.').ok_or_else(|| {
        bad(
            format!("`{}` does not name a process and a variable", lhs.trim()),
            "write `PROCESS.VAR`, e.g. `3.x`",
        )
    })?;
    let process = match who.trim() {
        "*" => None,
        w => {
            let p: usize = w.parse().map_err(|_| {
                bad(
                    format!("`{w}` is not a process index"),
                    "processes are numbered 0 to n-1; `*` means all",
                )
            })?;
            if p >= topo.n() {
                return Err(bad(
                    format!(
                        "process {p} does not exist; the topology has {} processes",
                        topo.n()
                    ),
                    "processes are numbered 0 to n-1",
                ));
            }
            Some(p)
        }
    };
    let var = var.trim();
    // `F[2]` names one element of an array.
    let (var, element) = match var.split_once('[') {
        Some((name, rest)) => {
            let i = rest
                .strip_suffix(']')
                .and_then(|i| i.trim().parse::<usize>().ok())
                .ok_or_else(|| {
                    bad(
                        format!("`{var}` is not a variable or an array element"),
                        "write `F[2]` for element 2 of array `F`",
                    )
                })?;
            (name.trim(), Some(i))
        }
        None => (var, None),
    };
    let Some(k) = prog.vars.iter().position(|v| v.name == var) else {
        let names: Vec<&str> = prog.vars.iter().map(|v| v.name.as_str()).collect();
        let help = match crate::diagnostic::suggest(var, names.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the variables are {}", names.join(", ")),
        };
        return Err(bad(format!("the program has no variable `{var}`"), &help));
    };
    Ok((process, k, element))
}

/// Whether a line sets a channel: `3->5 = find(2) observer(1)`.
fn is_channel_line(line: &str) -> bool {
    line.split('=').next().is_some_and(|lhs| lhs.contains("->"))
}

/// The contents a line gives one channel: sender, receiver, messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChannelLine {
    /// The sender.
    pub from: usize,
    /// The receiver.
    pub to: usize,
    /// The messages, head first: type, fields, and (in ticks) how many
    /// more ticks each takes to arrive.
    pub msgs: Vec<(u16, [i64; MAX_FIELDS], u16)>,
}

/// Parses the channel lines of a configuration text (`A->B = m(1) m2`,
/// head first; nothing after `=` empties the channel), checking types,
/// domains and the capacity.
pub(crate) fn parse_channels(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    text: &str,
) -> Result<Vec<ChannelLine>, Vec<Problem>> {
    parse_lines(text, true, |line, span| {
        parse_channel_line(prog, code, topo, line, span)
    })
}

fn parse_channel_line(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    line: &str,
    span: Span,
) -> Result<ChannelLine, Problem> {
    let bad = |msg: String, help: &str| {
        Problem::new("guarded::config::bad_channel", msg)
            .label(span, "in this line")
            .help(help.to_string())
    };
    let Some(capacity) = code.capacity else {
        return Err(bad(
            "the program passes no messages".into(),
            "channel lines `A->B = ...` need `message` declarations",
        ));
    };
    let (lhs, rhs) = line.split_once('=').unwrap_or((line, ""));
    let (a, b) = lhs.split_once("->").unwrap_or((lhs, ""));
    let proc_of = |w: &str| -> Result<usize, Problem> {
        w.trim()
            .parse::<usize>()
            .ok()
            .filter(|&p| p < topo.n())
            .ok_or_else(|| {
                bad(
                    format!("`{}` is not a process", w.trim()),
                    "processes are numbered 0 to n-1",
                )
            })
    };
    let (from, to) = (proc_of(a)?, proc_of(b)?);
    if topo.arc(from, to).is_none() {
        return Err(bad(
            format!("there is no channel from {from} to {to}: {to} is not a neighbour of {from}"),
            "channels join a process to its neighbours",
        ));
    }
    let mut msgs = Vec::new();
    let mut rest = rhs.trim();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c == '(' || c == '+' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        let Some(kind) = prog.messages.iter().position(|m| m.name == name) else {
            let names: Vec<&str> = prog.messages.iter().map(|m| m.name.as_str()).collect();
            return Err(bad(
                format!("`{name}` is not a message type"),
                &format!("the message types are {}", names.join(", ")),
            ));
        };
        rest = rest[name_end..].trim_start();
        let mut values = Vec::new();
        if let Some(after) = rest.strip_prefix('(') {
            let close = after
                .find(')')
                .ok_or_else(|| bad(format!("`{name}(` is not closed"), "write `name(1, 2)`"))?;
            values = after[..close]
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .collect();
            rest = after[close + 1..].trim_start();
        }
        let fields = &prog.messages[kind].fields;
        if values.len() != fields.len() {
            return Err(bad(
                format!(
                    "`{name}` has {}, {} given",
                    counted(fields.len() as u64, "field"),
                    values.len()
                ),
                "give one value per field",
            ));
        }
        let mut m = [0i64; MAX_FIELDS];
        for ((slot, text), ((fname, ty, _), d)) in m
            .iter_mut()
            .zip(&values)
            .zip(fields.iter().zip(&code.message_domains[kind]))
        {
            let v = parse_value(prog, *ty, text)
                .map_err(|e| bad(e, "the value must belong to the field's type"))?;
            if !d.contains(v, from, topo) {
                return Err(bad(
                    format!("{text} is outside the domain of field `{fname}`"),
                    &format!("`{fname}` ranges over {}", d.describe()),
                ));
            }
            *slot = v;
        }
        let (due, after) = due_suffix(code, rest, name).map_err(|(m, h)| bad(m, &h))?;
        rest = after;
        if msgs.last().is_some_and(|&(_, _, ahead)| due < ahead) {
            return Err(bad(
                format!("`{name}+{due}` would arrive before the message ahead of it"),
                "channels are FIFO: give the messages of a channel, head first, in the order they arrive (`+N` never decreasing)",
            ));
        }
        msgs.push((kind as u16, m, due));
    }
    if msgs.len() > capacity {
        return Err(bad(
            format!("{} messages, but a channel holds {capacity}", msgs.len()),
            "give fewer messages",
        ));
    }
    Ok(ChannelLine { from, to, msgs })
}

/// The `+N` after a message (how many more ticks it takes to arrive, in a
/// program that runs in ticks) and the text after it; 0 when there is none.
fn due_suffix<'t>(
    code: &Compiled,
    rest: &'t str,
    name: &str,
) -> Result<(u16, &'t str), (String, String)> {
    let Some(after) = rest.strip_prefix('+') else {
        return Ok((0, rest));
    };
    let end = after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len());
    let most = code.delay.map_or(0, |(_, hi)| hi - 1);
    let due = after[..end].parse::<u16>().ok().filter(|&d| d <= most);
    let Some(due) = due else {
        let help = match code.delay {
            Some((_, hi)) => format!("`{name}+N` is a message N more ticks on its way, 0 <= N < {hi} (the longest delay)"),
            None => "`+N` (a message on its way) is for programs that run in ticks, whose channels declare a `delay`".into(),
        };
        return Err((
            format!("`{name}+{}` is not a message on its way", &after[..end]),
            help,
        ));
    };
    Ok((due, after[end..].trim_start()))
}

/// Replaces the contents of the channels the lines name.
pub(crate) fn apply_channels(chans: &mut Channels, topo: &Topology, lines: &[ChannelLine]) {
    for l in lines {
        if let Some(a) = topo.arc(l.from, l.to) {
            let stamp = |&(k, f, due)| {
                let mut m = chans.stamp(k, f);
                m.due = due;
                m
            };
            let q: VecDeque<_> = l.msgs.iter().map(stamp).collect();
            chans.queues[a] = q;
        }
    }
}

/// Applies assignments, checking every value against its domain.
pub(crate) fn apply(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &mut super::PartialState,
    list: &[Assignment],
) -> Result<(), Vec<Problem>> {
    let stride = code.stride;
    let mut problems = Vec::new();
    for a in list {
        let targets: Vec<usize> = match a.process {
            Some(p) => vec![p],
            None => (0..topo.n()).collect(),
        };
        'each: for p in targets {
            for (i, &value) in a.values.iter().enumerate() {
                let d = &code.domains[a.slot + i];
                if code.fixed_at(a.var, p).is_some_and(|x| x != value) {
                    // `*.up = ...`: the processes that own it.
                    if a.process.is_none() {
                        continue 'each;
                    }
                    let v = &prog.vars[a.var];
                    problems.push(
                        Problem::new(
                            "guarded::config::other_roles_variable",
                            format!("`{}` belongs to another role than process {p}'s", v.name),
                        )
                        .label(a.span, "this value")
                        .help(format!(
                            "process {p} keeps the declared value of `{}`; set it at the processes of its role",
                            v.name
                        )),
                    );
                    break 'each;
                }
                if !d.contains(value, p, topo) {
                    let v = &prog.vars[a.var];
                    problems.push(
                        Problem::new(
                            "guarded::config::out_of_domain",
                            format!(
                                "{} is outside the domain of `{}` at process {p}",
                                prog.show_value(v.ty, value),
                                v.name
                            ),
                        )
                        .label(a.span, "this value")
                        .help(format!(
                            "`{}` ranges over {}",
                            v.name,
                            d.describe()
                        )),
                    );
                    break 'each;
                }
                state.put(p * stride + a.slot + i, value);
                // The other end of an edge variable gets the same value.
                if prog.vars[a.var].kind == crate::check::ir::VarKind::Edge {
                    let k = a.slot + i - code.offsets[a.var];
                    if let Some(&q) = topo.nbrs(p).get(k) {
                        if let Some(j) = topo.nbr_pos(q as usize, p) {
                            state.put(q as usize * stride + code.offsets[a.var] + j, value);
                        }
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
