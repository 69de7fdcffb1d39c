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
