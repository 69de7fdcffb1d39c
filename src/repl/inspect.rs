//! The commands that look: `show`, `enabled`, `eval`, `measures`, and the
//! watches and breakpoints (`watch`, `break` and their removal).

use super::*;
use crate::diagnostic::Problem;
use crate::report::pad;
use crate::span::Span;
use std::ops::Range;

/// A text as typed with names standing for predicates written out.
pub(super) struct Rewritten {
    text: String,
    rewrites: Rewrites,
}

/// Where the pieces of a rewritten text come from: each piece's range in
/// the text as typed, then in the rewritten one, in order.
#[derive(Clone, Debug, Default)]
pub(super) struct Rewrites(Vec<(Range<usize>, Range<usize>)>);

impl Rewrites {
    /// A text wrapped in `prefix` and `suffix` bytes, of `len` bytes as typed.
    pub(super) fn wrapped(prefix: usize, len: usize, suffix: usize) -> Rewrites {
        Rewrites(vec![
            (0..0, 0..prefix),
            (len..len, prefix + len..prefix + len + suffix),
        ])
    }

    /// A span of the rewritten text in the text as typed: within a piece
    /// rewritten, the whole piece as typed.
    pub(super) fn back(&self, span: Span) -> Span {
        let start = self.offset_back(span.start, false);
        Span::new(start, self.offset_back(span.end, true).max(start))
    }

    fn offset_back(&self, at: usize, is_end: bool) -> usize {
        let mut shift = 0isize;
        for (typed, rewritten) in &self.0 {
            if at <= rewritten.start {
                break;
            }
            if at < rewritten.end {
                return if is_end { typed.end } else { typed.start };
            }
            shift += rewritten.len() as isize - typed.len() as isize;
        }
        (at as isize - shift).max(0) as usize
    }
}

impl Session {
    /// `text` checked and compiled as one value over the configuration,
    /// with the local slots it needs.
    pub(super) fn compile_expr(&self, text: &str) -> Result<(GlobalFn, usize), String> {
        let (checked, locals, rewrites) =
            self.checked_with_names(text, check::check_global_expr)?;
        let code = compile::compile_global(&self.sim.prog, &self.sim.code, &checked)
            .map_err(|ps| self.render_typed(ps, text, &|s| rewrites.back(s)))?;
        Ok((code, locals))
    }

    /// `text` checked by `check`, where a `report` name stands for the
    /// report where the expression means nothing with it as written
    /// (arbitration's report `eating` is also a state: `p.s == eating`
    /// keeps the state). Returns the checked expression, its locals, and
    /// how to take its spans back to `text` (for problems found later).
    pub(super) fn checked_with_names<T>(
        &self,
        text: &str,
        check: impl Fn(&ast::Program, &ast::Expr) -> Result<(T, usize), Vec<Problem>>,
    ) -> Result<(T, usize, Rewrites), String> {
        if text.is_empty() {
            return Err("an expression is needed".into());
        }
        let as_written = self.with_named_predicates(text, false)?;
        self.check_expr(text, &as_written, &check).or_else(|first| {
            let with_reports = self.with_named_predicates(text, true)?;
            match with_reports.text == as_written.text {
                true => Err(first),
                false => self
                    .check_expr(text, &with_reports, &check)
                    .map_err(|_| first),
            }
        })
    }

    /// `rewritten` (`typed` with names standing for predicates) parsed and
    /// checked as an expression over a configuration, its problems shown
    /// in `typed`. Its spans are moved past the program's (see
    /// [`Session::render_typed`]).
    fn check_expr<T>(
        &self,
        typed: &str,
        rewritten: &Rewritten,
        check: impl Fn(&ast::Program, &ast::Expr) -> Result<(T, usize), Vec<Problem>>,
    ) -> Result<(T, usize, Rewrites), String> {
        let back = |s| rewritten.rewrites.back(s);
        let mut e = syntax::parse_expression(&rewritten.text).map_err(|mut p| {
            p.labels.iter_mut().for_each(|(s, _)| *s = back(*s));
            render(&[p], "<input>", typed, !self.color)
        })?;
        e.shift_spans(self.typed_base());
        match check(&self.ast, &e) {
            Ok((checked, locals)) => Ok((checked, locals, rewritten.rewrites.clone())),
            Err(ps) => Err(self.render_typed(ps, typed, &back)),
        }
    }

    /// Where the spans of an expression typed at the prompt start when it
    /// is checked: past every span of the program, whose definitions it may
    /// use (their bodies keep the program's spans).
    fn typed_base(&self) -> usize {
        self.source.len() + 1
    }

    /// Problems with an expression typed at the prompt (checked with its
    /// spans moved by [`Session::typed_base`]), rendered against it: a
    /// label in one of the program's definitions it uses is named in the
    /// help by file, line and column, and where no label is left in the
    /// expression, the whole expression is labelled.
    /// `back` takes a span of the text checked (once moved back from past
    /// the program's) to `text` as typed, where names stood for predicates.
    pub(super) fn render_typed(
        &self,
        problems: Vec<Problem>,
        text: &str,
        back: &dyn Fn(Span) -> Span,
    ) -> String {
        let base = self.typed_base();
        let whole = Span::new(0, text.trim_end().len());
        let problems: Vec<Problem> = problems
            .into_iter()
            .map(|mut p| {
                let (mine, theirs): (Vec<_>, Vec<_>) =
                    p.labels.drain(..).partition(|(s, _)| s.start >= base);
                p.labels = mine
                    .into_iter()
                    .map(|(s, t)| (back(Span::new(s.start - base, s.end - base)), t))
                    .collect();
                if theirs.is_empty() {
                    return p;
                }
                let notes: Vec<String> = theirs
                    .iter()
                    .map(|(s, t)| {
                        let (line, column) = line_and_column(&self.source, s.start);
                        let what = if t.is_empty() { "here" } else { t };
                        format!("{what}: {}:{line}:{column}", self.program)
                    })
                    .collect();
                if p.labels.is_empty() {
                    p.labels.push((whole, "in a definition this uses".into()));
                }
                let help = p.help.take().map(|h| format!("{h}\n")).unwrap_or_default();
                p.help = Some(format!("{help}in the program: {}", notes.join("; ")));
                p
            })
            .collect();
        render(&problems, "<input>", text, !self.color)
    }

    /// `text` with the word `legitimate` standing for the program's
    /// legitimacy predicate and each `report` name for its expression (in
    /// parentheses, as written), with `reports`: names the program gives
    /// predicates and measures, which are not variables. A name after `.`
    /// is a field.
    fn with_named_predicates(&self, text: &str, reports: bool) -> Result<Rewritten, String> {
        let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let written = |e: &syntax::ast::Expr| {
            let span = e.span();
            let span = crate::span::with_brackets(&self.source, span);
            format!("({})", &self.source[span.start..span.end])
        };
        let mut out = String::new();
        let mut rewrites = Rewrites::default();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if !(c.is_ascii_alphabetic() || c == '_') {
                out.push(c);
                continue;
            }
            let mut end = at + c.len_utf8();
            while let Some(&(k, d)) = chars.peek() {
                if !is_ident(d) {
                    break;
                }
                end = k + d.len_utf8();
                chars.next();
            }
            let word = &text[at..end];
            let field = text[..at].trim_end().ends_with('.');
            let report = match reports {
                true => self.ast.reports.iter().find(|(name, _)| name.name == word),
                false => None,
            };
            let start = out.len();
            match (field, word, report) {
                (false, "legitimate", _) => {
                    if self.ast.legitimate.is_empty() {
                        return Err("the program declares no `legitimate:` predicate".into());
                    }
                    let parts: Vec<String> = self.ast.legitimate.iter().map(written).collect();
                    out.push_str(&format!("({})", parts.join(" and ")));
                }
                (false, _, Some((_, e))) => out.push_str(&written(e)),
                _ => {
                    out.push_str(word);
                    continue;
                }
            }
            rewrites.0.push((at..end, start..out.len()));
        }
        Ok(Rewritten {
            text: out,
            rewrites,
        })
    }

    pub(super) fn eval(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let value = self.evaluate(arg)?;
        let _ = writeln!(out, "{value}");
        Ok(())
    }

    pub(super) fn row(&self, p: usize) -> String {
        let stride = self.sim.stride();
        crate::report::row_text(&self.sim, p, &self.sim.state[p * stride..(p + 1) * stride])
    }

    pub(super) fn mark(&self, p: usize, text: String) -> String {
        let enabled = self.sim.chosen_action(p).is_some();
        match (enabled, self.color) {
            (true, true) => format!("\x1b[1;32m{text}*\x1b[0m"),
            (true, false) => format!("{text}*"),
            (false, _) => text,
        }
    }

    /// The configuration as a table: a column per variable (and ids when
    /// they are not the indices), a row per process.
    fn table(&self, ids: bool, out: &mut String) {
        let n = self.sim.n();
        let stride = self.sim.stride();
        // A table: a column a variable, a row a process.
        let prog = &self.sim.prog;
        let cells: Vec<Vec<String>> = (0..n)
            .map(|p| {
                let row = &self.sim.state[p * stride..(p + 1) * stride];
                (0..prog.vars.len())
                    .map(|v| self.sim.code.show_var(prog, self.sim.topo.nbrs(p), v, row))
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = prog
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| {
                cells
                    .iter()
                    .map(|r| r[i].len())
                    .chain([v.name.len()])
                    .max()
                    .unwrap_or(1)
            })
            .collect();
        let pw = n.saturating_sub(1).to_string().len().max(1);
        let mut head = format!("{:>pw$}", "");
        // Ids, when they are not the indices: a column of their own.
        let id_width = if ids {
            let w = self
                .sim
                .topo
                .ids()
                .iter()
                .map(|i| i.to_string().len())
                .max()
                .unwrap_or(1)
                .max(2);
            let _ = write!(head, "  {:>w$}", "id");
            w
        } else {
            0
        };
        for (v, w) in prog.vars.iter().zip(&widths) {
            let _ = write!(head, "  {}", pad(&v.name, *w, false));
        }
        let _ = writeln!(out, "{head}");
        for (p, row) in cells.iter().enumerate() {
            let mut line = format!("{p:>pw$}");
            if ids {
                let _ = write!(line, "  {:>id_width$}", self.sim.topo.id(p));
            }
            for (c, w) in row.iter().zip(&widths) {
                let _ = write!(line, "  {}", pad(c, *w, false));
            }
            let _ = writeln!(out, "{}", self.mark(p, line));
        }
    }

    pub(super) fn show(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let n = self.sim.n();
        let stride = self.sim.stride();
        if arg.is_empty() {
            // Rings and chains with one variable fit on one line.
            let ids = crate::report::ids_differ(&self.sim);
            if self.sim.topo.has_left && stride == 1 && n <= 64 && !ids {
                let v = &self.sim.prog.vars[0];
                let cells: Vec<String> = (0..n)
                    .map(|p| {
                        self.mark(
                            p,
                            format!(
                                "{p}:{}",
                                self.sim.code.show_var(
                                    &self.sim.prog,
                                    self.sim.topo.nbrs(p),
                                    0,
                                    &self.sim.state[p..p + 1]
                                )
                            ),
                        )
                    })
                    .collect();
                let _ = writeln!(out, "{}: {}", v.name, cells.join(" "));
            } else {
                self.table(ids, out);
            }
            out.push_str(&crate::report::channels_text(&self.sim));
            if (0..self.sim.n()).any(|p| self.sim.chosen_action(p).is_some()) {
                out.push_str("(* enabled)\n");
            }
            return Ok(());
        }
        if let Some((who, var)) = arg.split_once('.') {
            let p = self.process(who.trim())?;
            let v = self.var(var.trim())?;
            let _ = writeln!(
                out,
                "{p}.{} = {}",
                self.sim.prog.vars[v].name,
                self.sim.code.show_var(
                    &self.sim.prog,
                    self.sim.topo.nbrs(p),
                    v,
                    &self.sim.state[p * stride..(p + 1) * stride]
                )
            );
            return Ok(());
        }
        if arg.chars().all(|c| c.is_ascii_digit()) {
            let p = self.process(arg)?;
            let mut line = format!("{p}: {}", self.row(p));
            if let Some(a) = self.sim.chosen_action(p) {
                let _ = write!(line, "   (enabled: {})", a.label);
            }
            let nbrs: Vec<String> = self.sim.topo.nbrs(p).iter().map(u32::to_string).collect();
            let _ = write!(
                line,
                "   neighbours: {}",
                if nbrs.is_empty() {
                    "none".into()
                } else {
                    nbrs.join(" ")
                }
            );
            let _ = writeln!(out, "{line}");
            return Ok(());
        }
        let v = self.var(arg)?;
        let cells: Vec<String> = (0..n)
            .map(|p| {
                format!(
                    "{p}:{}",
                    self.sim.code.show_var(
                        &self.sim.prog,
                        self.sim.topo.nbrs(p),
                        v,
                        &self.sim.state[p * stride..(p + 1) * stride]
                    )
                )
            })
            .collect();
        let _ = writeln!(out, "{}: {}", self.sim.prog.vars[v].name, cells.join(" "));
        Ok(())
    }

    pub(super) fn var(&self, name: &str) -> Result<usize, String> {
        self.sim
            .prog
            .vars
            .iter()
            .position(|v| v.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.sim.prog.vars.iter().map(|v| v.name.as_str()).collect();
                match crate::diagnostic::suggest(name, names.iter().copied()) {
                    Some(s) => format!("no variable `{name}` (did you mean `{s}`?)"),
                    None => format!(
                        "no variable `{name}`; the variables are {}",
                        names.join(", ")
                    ),
                }
            })
    }

    pub(super) fn enabled(&mut self, out: &mut String) -> Result<(), String> {
        let mut ps = self.sim.enabled().to_vec();
        ps.sort_unstable();
        if ps.is_empty() {
            out.push_str("no process is enabled (silent)\n");
        }
        for p in ps {
            let p = p as usize;
            let acts = self
                .sim
                .enabled_actions(p)
                .map_err(|e| self.runtime_error(&e))?;
            let role = self.sim.code.role_of.of(p);
            let labels: Vec<&str> = acts
                .iter()
                .map(|&a| self.sim.code.roles[role].actions[a as usize].label.as_str())
                .collect();
            let _ = writeln!(out, "{p}: {}", labels.join(", "));
        }
        Ok(())
    }

    pub(super) fn measures(&self, out: &mut String) {
        let now = self.sim.now();
        let _ = writeln!(
            out,
            "steps {}, moves {}, rounds {} ({} complete)",
            now.step,
            now.moves,
            now.round,
            self.sim.rounds_completed()
        );
        let _ = writeln!(out, "legitimate: {}", self.legit_word());
        match self.sim.stabilized_at() {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "stabilized at step {}, move {}, round {}",
                    p.step, p.moves, p.round
                );
            }
            None => out.push_str("not stabilized\n"),
        }
        let _ = writeln!(
            out,
            "enabled: {}, silent: {}",
            self.sim.enabled_count(),
            if self.sim.is_silent() { "yes" } else { "no" }
        );
    }

    /// `watch EXPR` and `break COND`, or their lists without one.
    pub(super) fn watch(
        &mut self,
        arg: &str,
        out: &mut String,
        is_break: bool,
    ) -> Result<(), String> {
        if arg.is_empty() {
            let texts: Vec<&str> = match is_break {
                true => self.breaks.iter().map(|b| b.text.as_str()).collect(),
                false => self.watches.iter().map(|w| w.text.as_str()).collect(),
            };
            if texts.is_empty() {
                let _ = writeln!(
                    out,
                    "no {}",
                    if is_break { "breakpoints" } else { "watches" }
                );
            }
            for (i, text) in texts.iter().enumerate() {
                let _ = writeln!(out, "{}: {text}", i + 1);
            }
            return Ok(());
        }
        if is_break {
            let needs = "a breakpoint needs a condition (a bool expression)";
            let condition = self.condition_for(arg, needs)?;
            self.breaks.push(condition);
            let _ = writeln!(out, "breakpoint {}: {arg}", self.breaks.len());
        } else {
            let (code, locals) = self.compile_shown(arg)?;
            let text = arg.to_string();
            self.watches.push(Watch { text, code, locals });
            let _ = writeln!(out, "watch {}: {arg}", self.watches.len());
            print_watches(&self.sim, &self.watches, out);
        }
        Ok(())
    }

    pub(super) fn unwatch(
        &mut self,
        arg: &str,
        out: &mut String,
        is_break: bool,
    ) -> Result<(), String> {
        let left = match is_break {
            true => remove_numbered(&mut self.breaks, arg, "breakpoint")?,
            false => remove_numbered(&mut self.watches, arg, "watch")?,
        };
        let _ = writeln!(out, "{left} left");
        Ok(())
    }
}

/// Removes entry `arg` (numbered from 1) of `list`, or all of them where
/// `arg` is empty; returns how many are left.
fn remove_numbered<T>(list: &mut Vec<T>, arg: &str, what: &str) -> Result<usize, String> {
    if arg.is_empty() {
        list.clear();
    } else {
        let k: usize = arg
            .parse()
            .map_err(|_| format!("`{arg}` is not a number"))?;
        if k == 0 || k > list.len() {
            return Err(format!("there is no {what} {k}"));
        }
        list.remove(k - 1);
    }
    Ok(list.len())
}

/// The line and column (both from 1, the column in characters) of a byte
/// offset in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::{Rewrites, Span};

    #[test]
    fn spans_of_a_rewritten_text_go_back_to_the_text_as_typed() {
        // `legitimate or x` with `legitimate` (0..10) written out as 20 bytes.
        let rewrites = Rewrites(vec![(0..10, 0..20)]);
        // After the piece: moved back by the 10 bytes it grew.
        assert_eq!(rewrites.back(Span::new(24, 25)), Span::new(14, 15));
        // Within it: the whole word as typed.
        assert_eq!(rewrites.back(Span::new(3, 7)), Span::new(0, 10));
        // Across its end: from the word to where the span ends.
        assert_eq!(rewrites.back(Span::new(5, 25)), Span::new(0, 15));
        // A text wrapped in 11 bytes before and 8 after: inside, moved back
        // by 11; the wrapping itself, the ends of the text.
        let wrapped = Rewrites::wrapped(11, 4, 8);
        assert_eq!(wrapped.back(Span::new(11, 15)), Span::new(0, 4));
        assert_eq!(wrapped.back(Span::new(0, 5)), Span::new(0, 0));
        assert_eq!(wrapped.back(Span::new(16, 20)), Span::new(4, 4));
    }
}
