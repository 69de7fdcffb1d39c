//! What a pair of the parse tree is made of, for the layout: its
//! children, and the punctuation and comments between them (which the
//! tree does not hold); and the space between two pieces.

use super::super::parse::Rule;
use super::Builder;
use pest::iterators::Pair;

/// A comment in the program, and where it stood.
#[derive(Clone, Debug)]
pub(super) struct Comment {
    pub(super) text: String,
    /// Nothing but blanks before it on its line.
    pub(super) own_line: bool,
    /// An empty line between it and what came before.
    pub(super) blank_before: bool,
}

/// What a pair is made of: its children, and the punctuation and comments
/// between them.
pub(super) enum Piece<'s> {
    Child(Pair<'s, Rule>),
    Token(&'s str),
    Comment(Comment),
}

impl Piece<'_> {
    /// The piece's first and last characters, for spacing.
    fn ends(&self) -> (char, char) {
        let s = match self {
            Piece::Child(p) => p.as_str(),
            Piece::Token(t) => t,
            Piece::Comment(_) => "//",
        };
        (
            s.chars().next().unwrap_or(' '),
            s.chars().last().unwrap_or(' '),
        )
    }

    pub(super) fn rule(&self) -> Option<Rule> {
        match self {
            Piece::Child(p) => Some(p.as_rule()),
            _ => None,
        }
    }

    pub(super) fn is(&self, token: &str) -> bool {
        matches!(self, Piece::Token(t) if *t == token)
    }
}

/// Punctuation the grammar writes as literals, longest first.
pub(super) const PUNCTUATION: &[&str] = &[
    "::", "->", ":=", "..", "==", "!=", "<=", ">=", "=>", "&&", "||", "(", ")", "[", "]", "{", "}",
    ",", ";", ":", "=", ".", "<", ">", "+", "-", "*", "/", "%", "!",
];

impl<'s> Builder<'s> {
    /// The pieces of `pair`, in order.
    pub(super) fn pieces(&self, pair: &Pair<'s, Rule>) -> Vec<Piece<'s>> {
        let mut out = Vec::new();
        let mut at = pair.as_span().start();
        for child in pair.clone().into_inner() {
            self.gap(at, child.as_span().start(), &mut out);
            at = self.content_end(&child);
            out.push(Piece::Child(child));
        }
        self.gap(at, self.content_end(pair), &mut out);
        out
    }

    /// Where `pair`'s last token ends. A pair's span may take in the
    /// blanks and comments after it (where the grammar tried to go on and
    /// could not); those belong to what follows.
    fn content_end(&self, pair: &Pair<'s, Rule>) -> usize {
        let span = pair.as_span();
        let Some(last) = pair.clone().into_inner().last() else {
            return span.end();
        };
        let mut end = self.content_end(&last);
        let mut tail = Vec::new();
        self.gap(end, span.end(), &mut tail);
        // The punctuation after the last child, up to its last token.
        let mut at = end;
        for piece in &tail {
            if let Piece::Token(t) = piece {
                let from = at + self.src[at..].find(t).expect("lexed from here");
                at = from + t.len();
                end = at;
            } else if let Piece::Comment(c) = piece {
                at += self.src[at..].find(&c.text).expect("lexed from here") + c.text.len();
            }
        }
        end
    }

    /// The punctuation and comments of `src[from..to]`.
    fn gap(&self, from: usize, to: usize, out: &mut Vec<Piece<'s>>) {
        let mut i = from;
        while i < to {
            let rest = &self.src[i..to];
            let c = rest.chars().next().expect("not empty");
            if c.is_whitespace() {
                i += c.len_utf8();
                continue;
            }
            let comment_end = if rest.starts_with("//") {
                Some(rest.find('\n').unwrap_or(rest.len()))
            } else if rest.starts_with("/*") {
                Some(rest.find("*/").map_or(rest.len(), |e| e + 2))
            } else {
                None
            };
            if let Some(len) = comment_end {
                out.push(Piece::Comment(self.comment(i, i + len)));
                i += len;
                continue;
            }
            let token = PUNCTUATION
                .iter()
                .find(|p| rest.starts_with(*p))
                .map_or(&rest[..c.len_utf8()], |p| &rest[..p.len()]);
            out.push(Piece::Token(token));
            i += token.len();
        }
    }

    fn comment(&self, start: usize, end: usize) -> Comment {
        let before = &self.src[..start];
        let line_start = before.rfind('\n').map_or(0, |k| k + 1);
        let own_line = before[line_start..].trim().is_empty();
        // The blank text before it, back to the last token or comment.
        let blank = before.len() - before.trim_end().len();
        let newlines = before[before.len() - blank..].matches('\n').count();
        Comment {
            text: self.src[start..end].trim_end().to_string(),
            own_line,
            blank_before: newlines >= 2,
        }
    }

    /// Whether an empty line stands before `pair` (after whatever came
    /// before it, comments included).
    pub(super) fn blank_before(&self, pair: &Pair<'s, Rule>) -> bool {
        let before = &self.src[..pair.as_span().start()];
        let blank = before.len() - before.trim_end().len();
        before[before.len() - blank..].matches('\n').count() >= 2
    }
}

/// The space between two pieces of a pair of rule `parent`.
pub(super) fn space(parent: Rule, prev: &Piece, next: &Piece) -> &'static str {
    let (_, last) = prev.ends();
    let (first, _) = next.ends();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if [",", ")", "]", ";", ".", ".."].iter().any(|t| next.is(t)) {
        return "";
    }
    if ["(", "[", ".", ".."].iter().any(|t| prev.is(t)) {
        return "";
    }
    if matches!(
        next.rule(),
        Some(Rule::index | Rule::field | Rule::def_params)
    ) {
        return "";
    }
    if prev.rule() == Some(Rule::neg_op) || (prev.rule() == Some(Rule::not_op) && last == '!') {
        return "";
    }
    // A call, a quantifier, a declaration's parameters: the name, then `(`.
    if next.is("(") || next.is("[") {
        return if word(last) { "" } else { " " };
    }
    if next.is(":") {
        return match parent {
            Rule::quantifier | Rule::set_lit | Rule::acyclic | Rule::each_process => " ",
            _ => "",
        };
    }
    // Inside an enumeration's or a set's braces.
    if matches!(parent, Rule::enum_body | Rule::set_lit) && (prev.is("{") || next.is("}")) {
        return "";
    }
    if first == ' ' {
        return "";
    }
    " "
}
