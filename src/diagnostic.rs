//! The diagnostic type shared by every phase: a message, labelled spans, a
//! help line and a stable code, rendered by miette. Spans only: the front end
//! attaches the source text once, when it renders.

use crate::span::Span;
use miette::{Diagnostic, LabeledSpan};
use std::fmt;

/// One user-facing error (or note) with its position in some source text.
#[derive(Debug, Clone)]
pub struct Problem {
    /// Stable code, e.g. `guarded::check::unknown_name`.
    pub code: &'static str,
    /// The one-line message.
    pub message: String,
    /// Labelled spans; the first is the primary one.
    pub labels: Vec<(Span, String)>,
    /// What to do about it.
    pub help: Option<String>,
    /// A warning: the program is accepted, but may not mean what it says.
    pub warning: bool,
    /// Edits that would do what the help says (an editor's quick fixes).
    pub fixes: Vec<Fix>,
}

/// An edit of the source that does what a problem's help says: `span`
/// replaced by `replacement` (empty to delete).
#[derive(Debug, Clone)]
pub struct Fix {
    /// What the edit does, as an editor lists it (``Replace `=` with `==` ``).
    pub title: String,
    /// The text replaced.
    pub span: Span,
    /// What replaces it.
    pub replacement: String,
}

impl Problem {
    /// A problem with a code and message and nothing else yet.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
            warning: false,
            fixes: Vec::new(),
        }
    }
    /// Makes it a warning.
    pub fn warning(mut self) -> Self {
        self.warning = true;
        self
    }
    /// Adds a labelled span.
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }
    /// Adds a labelled span when there is one.
    pub fn label_opt(self, span: Option<Span>, text: impl Into<String>) -> Self {
        match span {
            Some(span) => self.label(span, text),
            None => self,
        }
    }
    /// Sets the help line.
    pub fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }
    /// Adds an edit that does what the help says.
    pub fn fix(
        mut self,
        title: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            span,
            replacement: replacement.into(),
        });
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.warning.then_some(miette::Severity::Warning)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.labels.iter().enumerate().map(
            |(i, (s, t))| {
                let label = (!t.is_empty()).then(|| t.clone());
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, *s)
                } else {
                    LabeledSpan::new_with_span(label, *s)
                }
            },
        )))
    }
}

/// Renders problems against a named source text, without colour and at a
/// fixed width when `plain` (tests, pipes, `NO_COLOR`), fancier otherwise.
pub fn render(problems: &[Problem], name: &str, source: &str, plain: bool) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme, NamedSource};
    let theme = if plain {
        GraphicalTheme::unicode_nocolor()
    } else {
        GraphicalTheme::unicode()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    // One copy of the source for every report that quotes it (it may be a
    // large file), made when the first one does.
    let shared = std::cell::OnceCell::new();
    for p in problems.iter().take(MOST_RENDERED) {
        let report = match without_snippet(p, name, source) {
            Some(bare) => miette::Report::new(bare),
            None => miette::Report::new(p.clone()).with_source_code(NamedSource::new(
                name,
                std::sync::Arc::clone(
                    shared.get_or_init(|| std::sync::Arc::new(source.to_string())),
                ),
            )),
        };
        // Rendering into a String cannot fail.
        let _ = handler.render_report(&mut out, report.as_ref());
    }
    if problems.len() > MOST_RENDERED {
        out.push_str(&format!(
            "... and {} more problems in `{name}`, not shown (the first {MOST_RENDERED} are)\n",
            problems.len() - MOST_RENDERED
        ));
    }
    out
}

/// The most problems one input's report shows: each locates its lines in
/// the whole source, so thousands of them in a large file would take
/// minutes, and no one reads past the first screens.
pub const MOST_RENDERED: usize = 20;

/// The longest source line a diagnostic quotes: a longer one would flood
/// the terminal (and miette cannot draw past 65,535 columns).
const LONGEST_QUOTED_LINE: usize = 1_000;

/// The bounds of the line holding byte `at` of `source`.
fn line_around(source: &str, at: usize) -> (usize, usize) {
    let at = at.min(source.len());
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = source[at..].find('\n').map_or(source.len(), |i| at + i);
    (start, end)
}

/// `p` with its labels as `NAME:LINE:COLUMN` lines instead of a quoted
/// snippet, when a line it would quote (a labelled line or its neighbours)
/// is longer than [`LONGEST_QUOTED_LINE`]; `None` otherwise.
fn without_snippet(p: &Problem, name: &str, source: &str) -> Option<Problem> {
    let long = |(start, end): (usize, usize)| end - start > LONGEST_QUOTED_LINE;
    let quoted_long = p.labels.iter().any(|(span, _)| {
        let (start, end) = line_around(source, span.start);
        long((start, end))
            || (start > 0 && long(line_around(source, start - 1)))
            || (end < source.len() && long(line_around(source, end + 1)))
    });
    if !quoted_long {
        return None;
    }
    let mut message = p.message.clone();
    for (span, label) in &p.labels {
        let at = span.start.min(source.len());
        let (start, end) = line_around(source, at);
        let line = source[..start].matches('\n').count() + 1;
        let column = source[start..at].chars().count() + 1;
        let width = source[start..end].chars().count();
        message.push_str(&format!(
            "\n    at {name}:{line}:{column}: {label} (a line of {width} characters, not quoted)"
        ));
    }
    Some(Problem {
        code: p.code,
        message,
        labels: Vec::new(),
        help: p.help.clone(),
        warning: p.warning,
        fixes: Vec::new(),
    })
}

/// The closest candidate to `name`, if any is close enough to be a typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
        // Ties go to the first candidate.
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The edit distance between two names (Damerau-Levenshtein, adjacent
/// swaps counted once).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// `1 step`, `2 steps`, `3 processes`: a count and its noun, plural where
/// the count is not one.
pub fn counted(n: u64, noun: &str) -> String {
    let before_y = noun.strip_suffix('y').and_then(|stem| stem.chars().last());
    let consonant_y = before_y.is_some_and(|c| !"aeiou".contains(c));
    match n {
        1 => format!("1 {noun}"),
        n if noun.ends_with('s') => format!("{n} {noun}es"),
        n if consonant_y => format!("{n} {}ies", &noun[..noun.len() - 1]),
        n => format!("{n} {noun}s"),
    }
}
