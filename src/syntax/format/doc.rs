//! The layout engine: a document of texts and possible line breaks, laid
//! out in a width the way Wadler's pretty printer does (a group on one
//! line if it fits, else each of its breaks a new line).

/// Marks a trailing comment in the laid-out text, for the pass that aligns them.
pub(super) const TRAILING: char = '\u{1}';

/// A document: texts and places where a line may break.
#[derive(Clone, Debug)]
pub(super) enum Doc {
    Text(String),
    /// A space, or a new line where its group breaks.
    Line,
    /// A new line unless the line is still empty, in which case its
    /// indentation is this one's (its groups cannot stay on one line).
    Fresh,
    /// An empty line before what follows, unless there is one already.
    Blank,
    Concat(Vec<Doc>),
    /// On one line if it fits.
    Group(Box<Doc>),
    /// New lines inside are indented this much more.
    Nest(usize, Box<Doc>),
    /// New lines inside start at the column where it starts.
    Align(Box<Doc>),
}

pub(super) fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}

pub(super) fn group(d: Doc) -> Doc {
    Doc::Group(Box::new(d))
}

pub(super) fn nest(k: usize, d: Doc) -> Doc {
    Doc::Nest(k, Box::new(d))
}

pub(super) fn align(d: Doc) -> Doc {
    Doc::Align(Box::new(d))
}

/// Lays `doc` out in `width` columns.
pub(super) fn render(doc: &Doc, width: usize) -> String {
    let mut out = String::new();
    let mut col = 0usize;
    // Indentation owed to the line begun, written before its first text so
    // that blank lines carry no spaces; and the new lines written since
    // the last text.
    let mut owed: Option<usize> = None;
    let mut newlines = 0usize;
    let mut stack: Vec<(usize, bool, &Doc)> = vec![(0, false, doc)];
    while let Some((indent, flat, d)) = stack.pop() {
        let newline = |out: &mut String, owed: &mut Option<usize>, newlines: &mut usize| {
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('\n');
            *owed = Some(indent);
            *newlines += 1;
        };
        match d {
            // Spaces at the start of a line are the indentation's.
            Doc::Text(s) if owed.is_some() && s.trim().is_empty() => {}
            Doc::Text(s) => {
                if let Some(i) = owed.take() {
                    out.push_str(&" ".repeat(i));
                    col = i;
                }
                out.push_str(s);
                col += s.chars().filter(|&c| c != TRAILING).count();
                newlines = 0;
            }
            Doc::Line if flat => {
                out.push(' ');
                col += 1;
            }
            // A break never makes an empty line.
            Doc::Line | Doc::Fresh if newlines > 0 || out.is_empty() => {
                owed = owed.map(|_| indent);
                col = indent;
            }
            Doc::Line | Doc::Fresh => {
                newline(&mut out, &mut owed, &mut newlines);
                col = indent;
            }
            Doc::Blank => {
                while newlines < 2 && !out.is_empty() {
                    newline(&mut out, &mut owed, &mut newlines);
                }
                col = indent;
            }
            Doc::Concat(parts) => stack.extend(parts.iter().rev().map(|p| (indent, flat, p))),
            Doc::Nest(k, inner) => stack.push((indent + k, flat, inner)),
            Doc::Align(inner) => stack.push((col.max(owed.unwrap_or(0)), flat, inner)),
            Doc::Group(inner) => {
                let fits = flat || fits(width.saturating_sub(col), inner, &stack);
                stack.push((indent, fits, inner));
            }
        }
    }
    while out.ends_with(' ') || out.ends_with('\n') {
        out.pop();
    }
    out.push('\n');
    out
}

/// Whether `doc` on one line, and what follows it up to the next break,
/// take at most `room` columns.
fn fits(room: usize, doc: &Doc, rest: &[(usize, bool, &Doc)]) -> bool {
    let mut room = room as isize;
    let mut todo: Vec<(bool, &Doc)> = vec![(true, doc)];
    let mut after = rest.iter().rev();
    loop {
        let Some((flat, d)) = todo.pop() else {
            match after.next() {
                Some(&(_, flat, d)) => {
                    todo.push((flat, d));
                    continue;
                }
                None => return true,
            }
        };
        match d {
            // A trailing comment may run past the width.
            Doc::Text(s) if s.starts_with(TRAILING) => {}
            Doc::Text(s) => room -= s.chars().count() as isize,
            Doc::Line if flat => room -= 1,
            // A comment's line end: the group cannot be one line.
            Doc::Fresh | Doc::Blank if flat => return false,
            Doc::Line | Doc::Fresh | Doc::Blank => return room >= 0,
            Doc::Concat(parts) => todo.extend(parts.iter().rev().map(|p| (flat, p))),
            Doc::Nest(_, inner) | Doc::Align(inner) => todo.push((flat, inner)),
            Doc::Group(inner) => todo.push((flat, inner)),
        }
        if room < 0 {
            return false;
        }
    }
}

/// Pads the trailing comments of consecutive lines to one column.
pub(super) fn align_trailing(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].contains(TRAILING) {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && lines[j].contains(TRAILING) {
            j += 1;
        }
        let code = |l: &str| {
            l.split(TRAILING)
                .next()
                .unwrap_or("")
                .trim_end()
                .to_string()
        };
        let column = lines[i..j]
            .iter()
            .map(|l| code(l).chars().count())
            .max()
            .unwrap_or(0)
            + 2;
        for l in &lines[i..j] {
            let (c, comment) = l.split_once(TRAILING).expect("a trailing comment");
            let c = c.trim_end();
            out.push_str(c);
            out.push_str(&" ".repeat(column - c.chars().count()));
            out.push_str(comment);
            out.push('\n');
        }
        i = j;
    }
    out
}
