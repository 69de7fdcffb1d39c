//! What a syntax error was probably meant to be: a help line for the
//! slips people make (a label left out, `=` for `:=`, a quantifier without
//! parentheses, a priority after the collection, ...), and another place
//! worth pointing at, from the text around the error.

use super::ast::Program;
use crate::diagnostic::{Fix, Problem};
use crate::span::Span;

/// A help line, another place to point at with its label, and the edits
/// that do what the help says, where it names one exactly. The edits come
/// from the same test as the help line, so the two never disagree.
pub(super) struct Hint {
    /// The help line.
    pub help: String,
    /// Another place, with what to say there.
    pub also: Option<(Span, String)>,
    /// The edits an editor may offer as quick fixes.
    pub fixes: Vec<Fix>,
}

impl Hint {
    /// Another place to point at.
    fn also(mut self, span: Span, label: impl Into<String>) -> Self {
        self.also = Some((span, label.into()));
        self
    }

    /// An edit that does what the help says.
    fn fix(mut self, title: impl Into<String>, span: Span, replacement: &str) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            span,
            replacement: replacement.into(),
        });
        self
    }
}

/// A help line alone.
fn hint(text: impl Into<String>) -> Hint {
    Hint {
        help: text.into(),
        also: None,
        fixes: Vec::new(),
    }
}

/// A help line alone, as a hint function answers.
fn help(text: impl Into<String>) -> Option<Hint> {
    Some(hint(text))
}

/// The words a misspelling is matched against, for "did you mean": the
/// grammar's words that begin declarations, statements and quantifiers
/// (not the short joining words and operators, `in`, `to`, `or`, which a
/// misspelt name is as near to).
pub(super) const SPELLED: &[&str] = &[
    "param",
    "topology",
    "enum",
    "var",
    "edge",
    "timer",
    "def",
    "message",
    "channel",
    "process",
    "where",
    "priority",
    "legitimate",
    "invariant",
    "property",
    "sometimes",
    "stable",
    "always",
    "eventually",
    "leads_to",
    "report",
    "receive",
    "send",
    "forall",
    "exists",
    "count",
    "skip",
    "else",
    "array",
    "bool",
    "node",
];

/// Where a syntax error stands and the text around it.
#[derive(Clone, Copy)]
struct Site<'a> {
    /// The word or character found there.
    found: &'a str,
    /// Where it stands.
    span: Span,
    /// What the parser wanted, as the error says it (`expected ...`).
    expected: &'a str,
    /// The source before the error, without trailing whitespace.
    before: &'a str,
    /// The source after what was found, without leading whitespace.
    after: &'a str,
    /// The last word before the error.
    word_before: &'a str,
    /// The rest of the error's line.
    line_rest: &'a str,
    /// Whether only blanks stand before it on its line.
    line_start: bool,
}

impl<'a> Site<'a> {
    /// The site of a syntax error at `start` of `source`.
    fn new(source: &'a str, start: usize, found: &'a str, expected: &'a str) -> Self {
        let before = source[..start].trim_end();
        Site {
            found,
            span: Span::new(start, start + found.len()),
            expected,
            before,
            after: source.get(start + found.len()..).unwrap_or("").trim_start(),
            word_before: before
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or(""),
            line_rest: source[start..].lines().next().unwrap_or(""),
            line_start: source[..start]
                .rsplit('\n')
                .next()
                .unwrap_or("")
                .trim()
                .is_empty(),
        }
    }
}

/// What a syntax error at `start` (where `found` stands, and `expected`
/// describes what the parser wanted) was probably meant to be: the first
/// hint whose test holds, with its fixes.
pub(super) fn likely_meant(
    source: &str,
    start: usize,
    found: &str,
    expected: &str,
) -> Option<Hint> {
    let site = Site::new(source, start, found, expected);
    [
        missing_semicolon,
        action_head,
        collections_and_conditionals,
        declarations,
        guards,
        properties_and_labels,
        operators,
        statements_and_comments,
        misspelt,
    ]
    .iter()
    .find_map(|hint| hint(&site))
}

/// An action's head: the label left out, the priority after the collection.
fn action_head(at: &Site) -> Option<Hint> {
    let Site {
        found, expected, ..
    } = *at;
    // A label the parser is waiting to finish: the label was left out.
    if expected.contains("`for` or `priority`") {
        return help("an action starts with a label: `label :: guard -> statement`");
    }
    // `label for q in nbrs priority 1 ::`: the two in the other order.
    if found == "priority" && expected.contains("`::`") {
        return help("the priority comes before the collection: `label priority N for q in nbrs :: guard -> statement`");
    }
    None
}

/// Where `before` (the text before `nbrs`) ends with a process and a dot
/// (`(3).`, `p.`): that `nbrs(3)` is how its neighbours are written.
pub(super) fn nbrs_as_field(before: &str) -> Option<String> {
    let owner = before.strip_suffix('.')?;
    let p = owner
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == ')'))
        .next()
        .filter(|w| !w.is_empty())
        .unwrap_or("p");
    let p = p.trim_start_matches('(').trim_end_matches(')');
    Some(format!(
        "the neighbours of a process are `nbrs({p})`, not a field of it"
    ))
}

/// `nbrs.x` for a neighbour's value, `if c then s` as a statement.
fn collections_and_conditionals(at: &Site) -> Option<Hint> {
    let Site {
        found,
        before,
        after,
        ..
    } = *at;
    // `nbrs.x == 0`: a collection read as a process.
    if (found == "nbrs" || found == "procs") && after.starts_with('.') {
        return help(format!("`{found}` is a collection, not a process: say which, `forall(q in {found} : q.x == 0)` or `exists(q in {found} : ...)`"));
    }
    // `p.nbrs`: the neighbours of a process read as a field.
    if found == "nbrs" {
        if let Some(said) = nbrs_as_field(before) {
            return help(said);
        }
    }
    // `if c then s` as a statement.
    if found == "then" && before.rfind("->") > before.rfind("::") {
        return help("a statement `if` takes braces: `if c { x := 1 } else { ... }` (`if c then a else b` is an expression)");
    }
    None
}

/// A declaration's punctuation: `legitimate P`, `enum S { a }`.
fn declarations(at: &Site) -> Option<Hint> {
    let Site {
        found,
        expected,
        before,
        ..
    } = *at;
    // `legitimate P`, `invariant name P`: the colon left out.
    if expected == "expected `:`" {
        let declares = ["legitimate", "invariant", "property", "report"]
            .iter()
            .any(|w| {
                before
                    .lines()
                    .last()
                    .is_some_and(|l| l.trim_start().starts_with(w))
            });
        if declares {
            return help("a predicate's declaration ends with `:` before the predicate: `legitimate: forall(p in procs : ...)`");
        }
    }
    // `process { def d = ...; ... }`: a top-level declaration inside a
    // role, where only the role's own variables and its actions go.
    const TOP_LEVEL: [&str; 9] = [
        "def",
        "param",
        "topology",
        "enum",
        "message",
        "channel",
        "legitimate",
        "invariant",
        "property",
    ];
    if TOP_LEVEL.contains(&found) && expected.contains("`var`, `edge var` or `timer`") {
        return help(format!(
            "`{found}` is declared at the top level, outside `process` blocks; a role holds only \
             its own `var`s and its actions"
        ));
    }
    // `enum S { a, b }`: the `=` left out.
    if found == "{"
        && before
            .trim_start()
            .lines()
            .last()
            .is_some_and(|l| l.trim_start().starts_with("enum "))
    {
        return help("an enumeration is declared `enum Colour = {red, green}`");
    }
    // `var if: 0..3`: a reserved word where a name is declared.
    if expected == "expected a name" && super::words::RESERVED.contains(&found) {
        return help(format!(
            "`{found}` is a keyword, which no name may be: call it something else, such as `{found}_`"
        ));
    }
    None
}

/// A guard that does not end where it should: `=>`, an open bracket.
fn guards(at: &Site) -> Option<Hint> {
    let Site { found, before, .. } = *at;
    // `guard => statement`: `=>` is implication, so the statement's `:=`
    // came where the arrow was due.
    if let Some(label) = before.rfind("::") {
        let guard = &before[label..];
        if guard.contains("=>") && !guard.contains("->") && (found == ":" || found == ":=") {
            return help("a guard ends with `->` before the statement (`=>` is implication)");
        }
    }
    // `a :: (x == 0 -> ...`: a bracket left open takes `->` for `-` and `>`.
    if found == ">" && before.ends_with('-') {
        if let Some(label) = before.rfind("::") {
            let mut open = Vec::new();
            for (i, c) in before[label..].char_indices() {
                match c {
                    '(' | '[' => open.push((label + i, c)),
                    ')' | ']' => {
                        open.pop();
                    }
                    _ => {}
                }
            }
            if let Some(&(at, c)) = open.last() {
                return Some(
                    hint(format!("the guard's `{c}` is not closed before `->`"))
                        .also(Span::new(at, at + 1), "opened here"),
                );
            }
        }
    }
    None
}

/// `eventually P` alone; a keyword as a label.
fn properties_and_labels(at: &Site) -> Option<Hint> {
    let Site {
        found,
        expected,
        before,
        after,
        word_before,
        ..
    } = *at;
    // `eventually P` alone.
    if expected.contains("`leads_to`") && word_before == "eventually" {
        return help(
            "`eventually` comes in `always eventually P` (P again and again in every run); \
             `P leads_to Q` says Q follows P",
        );
    }
    // A keyword as an action's label (`count :: ...`).
    let starts_line = before.is_empty() || before.ends_with('{') || before.ends_with('}');
    if starts_line
        && super::words::RESERVED.contains(&found)
        && ["::", "priority", "for "]
            .iter()
            .any(|w| after.starts_with(w))
    {
        return help(format!(
            "`{found}` is a keyword: an action's label must be another name, such as `{found}_`"
        ));
    }
    None
}

/// `=` for `==` or `:=`; a quantifier without parentheses.
fn operators(at: &Site) -> Option<Hint> {
    let Site {
        found,
        expected,
        before,
        after,
        word_before,
        ..
    } = *at;
    // `x = y`: an equality, or an assignment.
    if found == "=" {
        let meant = equals_meant(before);
        return Some(
            hint(format!(
                "did you mean `{meant}`? (`=` is no operator: `==` compares, `:=` assigns)"
            ))
            .fix(format!("Replace `=` with `{meant}`"), at.span, meant),
        );
    }
    // `x++`, `x += 1`: C's updates, where a statement wanted `:=`.
    if let Some(update) = c_update(found, after) {
        // The target as written: what follows the statement's start.
        let target = before
            .rsplit(['>', ';', '{', '\n'])
            .next()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or("x");
        return help(match update {
            CUpdate::Step(op) => {
                format!("there is no `{op}{op}`: write `{target} := {target} {op} 1`")
            }
            CUpdate::Compound(op) => {
                format!("there is no `{op}=`: write `{target} := {target} {op} ...` (`:=` assigns)")
            }
        });
    }
    // `exists q in nbrs : P` without parentheses: the error stands at the
    // quantifier, or just after it where `(` was expected.
    const QUANTIFIERS: [&str; 8] = [
        "exists", "forall", "count", "sum", "min", "max", "argmin", "argmax",
    ];
    let quantifier = if QUANTIFIERS.contains(&found) && !after.starts_with('(') {
        Some(found)
    } else if QUANTIFIERS.contains(&word_before) && expected == "expected `(`" {
        Some(word_before)
    } else {
        None
    };
    if let Some(q) = quantifier {
        return help(format!(
            "a quantifier takes parentheses: `{q}(q in nbrs : predicate)`"
        ));
    }
    None
}

/// What `=` after `before` was meant to be: after an action's `->` an
/// assignment, elsewhere a comparison.
fn equals_meant(before: &str) -> &'static str {
    let in_statement = matches!(
        (before.rfind("->"), before.rfind("::")),
        (Some(arrow), Some(label)) if arrow > label
    );
    if in_statement {
        ":="
    } else {
        "=="
    }
}

/// A C update where a statement wanted `:=`: `++`/`--` or `op=`.
enum CUpdate {
    Step(char),
    Compound(char),
}

/// Whether `found`, followed by `after`, starts C's `x++` or `x += e`.
fn c_update(found: &str, after: &str) -> Option<CUpdate> {
    let op = match found {
        "+" | "-" | "*" | "/" | "%" => found.chars().next()?,
        _ => return None,
    };
    match after.chars().next() {
        Some(c) if c == op && "+-".contains(op) => Some(CUpdate::Step(op)),
        Some('=') if !after.starts_with("==") => Some(CUpdate::Compound(op)),
        _ => None,
    }
}

/// An open comment, `receive` late, a write to a neighbour, a `;` between actions.
fn statements_and_comments(at: &Site) -> Option<Hint> {
    let Site {
        found,
        expected,
        before,
        line_rest,
        ..
    } = *at;
    // A `/*` comment that runs to the end of the input.
    if expected == "expected `*/`" {
        let opened = before.rfind("/*").unwrap_or(0);
        return Some(
            hint("a `/*` comment ends at `*/`; this one runs to the end of the input")
                .also(Span::new(opened, opened + 2), "the comment opens here"),
        );
    }
    // `# ...` or `% ...`: another language's comment.
    if (found == "#" || found == "%") && at.line_start {
        return Some(
            hint("comments are `// ...` to the end of the line, or `/* ... */`").fix(
                "Write the comment with `//`",
                at.span,
                "//",
            ),
        );
    }
    // `receive` after the start of a guard.
    if found == "receive" {
        return help("`receive` comes first in a guard: `label :: receive m(v) from q and condition -> statement`");
    }
    // `left.x := ...`: a write to another process's variable.
    if found == "." && line_rest.contains(":=") && expected.contains("`:=`") {
        return help("you can only assign your own variables (a process writes only its own state; neighbours read it)");
    }
    // `a :: ... ;` then `b :: ...`: the `;` made `b` a statement.
    if found == ":" || found == "::" {
        if let Some(at) = semicolon_before_label(before) {
            let semicolon = Span::new(at, at + 1);
            return Some(
                hint("`;` separates statements inside an action; an action ends without one")
                    .also(semicolon, "remove this `;`")
                    .fix("Remove the `;` that ends the action", semicolon, ""),
            );
        }
    }
    None
}

/// Where a `;` ends the statement before the label that `before` ends
/// with (`a :: ... ;` then `b ::`), if one does.
fn semicolon_before_label(before: &str) -> Option<usize> {
    let label_start = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    label_start.trim_end().strip_suffix(';').map(str::len)
}

/// `got := 1` and, on the next line, `for r in nbrs { ... }` or `y := 2`:
/// two statements with no `;` between them.
fn missing_semicolon(at: &Site) -> Option<Hint> {
    let at = statement_without_separator(at)?;
    let gap = Span::new(at, at);
    Some(
        hint("statements in an action are separated by `;`, also from one line to the next")
            .also(gap, "add `;` here")
            .fix("Add `;` between the statements", gap, ";"),
    )
}

/// Where a `;` is missing, if a statement starts at the error (or at the
/// word before it, which the parser took for the next action's label)
/// right after one that ended, inside an action's statement.
fn statement_without_separator(at: &Site) -> Option<usize> {
    let Site {
        found,
        before,
        after,
        word_before,
        line_rest,
        ..
    } = *at;
    let is_word =
        |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let assigns = |w: &str, after: &str| {
        is_word(w)
            && (after.starts_with(":=")
                || after.starts_with(',')
                || (after.starts_with('[') && line_rest.contains(":=")))
    };
    // `y, x := ...` or `y := ...` read as the label of an action.
    let label_taken = matches!(found, ":=" | ":" | "," | "[") && is_word(word_before);
    let (head, starts) = match label_taken {
        true => (
            before.strip_suffix(word_before)?.trim_end(),
            assigns(word_before, &format!("{found}{after}")),
        ),
        false => (
            before,
            matches!(found, "for" | "if" | "send" | "skip") || assigns(found, after),
        ),
    };
    // Inside the last action's statement: past its arrow, and not past
    // the brace that closes its role.
    let action = head.rfind("::").map_or("", |k| &head[k..]);
    let depth = action.matches('{').count() as i64 - action.matches('}').count() as i64;
    let in_statement = action.contains("->") && depth >= 0;
    let ended = head.ends_with(|c: char| c.is_ascii_alphanumeric() || "_)]}".contains(c));
    (starts && in_statement && ended).then_some(head.len())
}

/// A misspelt keyword.
fn misspelt(at: &Site) -> Option<Hint> {
    let word = misspelling(at.found)?;
    Some(hint(format!("did you mean `{word}`?")).fix(
        format!("Replace `{}` with `{word}`", at.found),
        at.span,
        word,
    ))
}

/// The keyword `found` is a misspelling of, if it is one.
fn misspelling(found: &str) -> Option<&'static str> {
    let is_word = !found.is_empty() && found.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let word = crate::diagnostic::suggest(found, SPELLED.iter().copied()).filter(|_| is_word)?;
    (word != found).then_some(word)
}

/// Warnings about sums whose `mod` binds tighter than it may have been
/// meant to: `x := x + 1 mod K` is `x + (1 mod K)`, which leaves the domain
/// where `(x + 1) mod K` wraps round (Dijkstra's ring as first typed).
pub fn precedence_warnings(prog: &Program, source: &str) -> Vec<Problem> {
    let text = |start: usize, end: usize| source.get(start..end).unwrap_or("");
    prog.unbracketed_mods
        .iter()
        .map(|&[sum, modulo, operand]| {
            let sum = crate::span::with_brackets(source, sum);
            let left = text(sum.start, modulo.start).trim_end();
            let right = text(modulo.start, modulo.end);
            let op = &left[left.len().saturating_sub(1)..];
            Problem::new(
                "guarded::check::mod_precedence",
                format!("`mod` binds tighter than `{op}`"),
            )
            .label(sum, format!("read as `{left} ({right})`"))
            .help(format!(
                "to wrap the {} round, write `({left} {}){}`; to keep this meaning, `{left} ({right})`",
                if op == "-" { "difference" } else { "sum" },
                text(operand.start, operand.end),
                text(operand.end, modulo.end),
            ))
            .fix(
                format!("Wrap the {} round: `({left} {}){}`", if op == "-" { "difference" } else { "sum" }, text(operand.start, operand.end), text(operand.end, modulo.end)),
                sum,
                format!("({left} {}){}", text(operand.start, operand.end), text(operand.end, modulo.end)),
            )
            .fix(
                format!("Keep this meaning: `{left} ({right})`"),
                sum,
                format!("{left} ({right})"),
            )
            .warning()
        })
        .collect()
}
