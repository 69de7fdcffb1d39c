//! Source spans: the one span type every phase stores, and its single
//! conversion to miette's offset-and-length form.

/// A byte range `start..end` in a source text.
///
/// Spans compare equal to each other regardless of position, so that AST
/// tests do not depend on where a construct sits in the text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Span {}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// The bytes `piece` takes in `text`, where `piece` is a slice of `text`
/// (a line or a word split out of it): how the readers of schedule and
/// edge-list files point at what they found wrong.
pub fn bytes_of(text: &str, piece: &str) -> (usize, usize) {
    let start = piece.as_ptr() as usize - text.as_ptr() as usize;
    debug_assert!(start + piece.len() <= text.len(), "not a slice of the text");
    (start, start + piece.len())
}

/// `span` widened to the brackets its text opens or closes without the
/// other half: an expression's span leaves out the brackets around its
/// first or last operand, so `(s + 1) mod 3` starts inside them, at `s`,
/// and a snippet of it would read `s + 1) mod 3`.
pub fn with_brackets(source: &str, span: Span) -> Span {
    // A span of another text is left as it is.
    let Some(inside) = source.get(span.start..span.end) else {
        return span;
    };
    // Closing brackets with no opening one before them in the span, and
    // opening ones left open at its end.
    let (mut depth, mut unopened) = (0usize, 0usize);
    for c in inside.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => unopened += 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    let mut start = span.start;
    for _ in 0..unopened {
        match source[..start].trim_end().strip_suffix('(') {
            Some(before) => start = before.len(),
            None => break,
        }
    }
    let mut end = span.end;
    for _ in 0..depth {
        let rest = &source[end..];
        match rest.trim_start().strip_prefix(')') {
            Some(after) => end = source.len() - after.len(),
            None => break,
        }
    }
    Span::new(start, end)
}

impl From<pest::Span<'_>> for Span {
    /// Up to the last character that is not whitespace: a pest rule ending
    /// in an optional or repeated part also takes the whitespace it skipped
    /// looking for one more.
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.start() + s.as_str().trim_end().len())
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.end.saturating_sub(s.start)).into()
    }
}

#[cfg(test)]
mod tests {
    use super::{with_brackets, Span};

    fn widened(source: &str, piece: &str) -> String {
        let start = source.find(piece).expect("a piece of the source");
        let span = with_brackets(source, Span::new(start, start + piece.len()));
        source[span.start..span.end].to_string()
    }

    #[test]
    fn brackets_left_out_of_a_span_are_taken_back() {
        let guard = "a :: (s + 1) mod 3 == right.s -> s := 0";
        assert_eq!(
            widened(guard, "s + 1) mod 3 == right.s"),
            "(s + 1) mod 3 == right.s"
        );
        let sum = "x == ( (a + b) * (c + d ) )";
        assert_eq!(widened(sum, "a + b) * (c + d"), "(a + b) * (c + d )");
        assert_eq!(widened(sum, "a + b"), "a + b");
        // A bracket that is not next to the span is not taken.
        assert_eq!(widened("f(x, y) == 1", "y) == 1"), "y) == 1");
        // Nor is a span of another text widened.
        let elsewhere = Span::new(3, 40);
        assert_eq!(with_brackets("(a)", elsewhere).end, 40);
    }
}
