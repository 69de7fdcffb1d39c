//! The parser: the pest grammar, the Pratt parser for operator precedence
//! (built once), and the entry points. Lowering pairs into the AST is in
//! `lower.rs`, turning pest's errors into diagnostics in `errors.rs`.

use super::ast::*;
use super::errors::syntax_error;
use super::lower::{lower_expr, lower_program};
use crate::diagnostic::Problem;
use crate::span::Span;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::LazyLock;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/guarded.pest"]
pub(super) struct GuardedParser;

pub(super) static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    // Lowest precedence first.
    PrattParser::new()
        .op(Op::infix(Rule::implies_op, Assoc::Right))
        .op(Op::infix(Rule::or_op, Assoc::Left))
        .op(Op::infix(Rule::and_op, Assoc::Left))
        .op(Op::prefix(Rule::not_op))
        .op(Op::infix(Rule::eq_op, Assoc::Left)
            | Op::infix(Rule::ne_op, Assoc::Left)
            | Op::infix(Rule::lt_op, Assoc::Left)
            | Op::infix(Rule::le_op, Assoc::Left)
            | Op::infix(Rule::gt_op, Assoc::Left)
            | Op::infix(Rule::ge_op, Assoc::Left))
        .op(Op::infix(Rule::add_op, Assoc::Left) | Op::infix(Rule::sub_op, Assoc::Left))
        .op(Op::infix(Rule::mul_op, Assoc::Left)
            | Op::infix(Rule::div_op, Assoc::Left)
            | Op::infix(Rule::mod_op, Assoc::Left))
        .op(Op::prefix(Rule::neg_op))
});

/// The deepest nesting of brackets (`(`, `[`, `{`) a text may have.
pub const MAX_NESTING: usize = 256;

/// The most operators one expression may chain (`a + b + ...`), prefix
/// operators one operand may have (`not not ...`), postfix reads one may
/// have (`.parent.parent...`, `[i][j]...`), and branches one `if ... else if`
/// may have. Lowering and checking recurse along such chains.
pub const MAX_CHAIN: usize = 1_000;

/// The most rule calls one parse may make: the grammar parses each prefix
/// once, so this is far beyond any program's need, and stops any
/// backtracking the grammar may still hide.
const MAX_PARSER_CALLS: usize = 200_000_000;

/// Parses `source` as `rule`, within the limits above.
fn parse_bounded(rule: Rule, source: &str) -> Result<Pair<'_, Rule>, Problem> {
    static LIMIT: std::sync::Once = std::sync::Once::new();
    LIMIT.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(MAX_PARSER_CALLS)));
    nesting(source)?;
    let mut pairs = GuardedParser::parse(rule, source).map_err(|e| {
        // Pest names only the rules tried furthest; the literals it tried
        // (`::`, `:`, `]`) are recorded only on request, so the failed
        // parse is run again with them (one global switch, and an error
        // path: a race with another parse costs detail, not correctness).
        pest::set_error_detail(true);
        let detailed = GuardedParser::parse(rule, source).err();
        pest::set_error_detail(false);
        // The attempts' types are not exported: their tokens as text
        // (`::`, and `a..z` for a range of characters).
        let attempts = detailed.and_then(|d| d.parse_attempts()).map(|a| {
            let tokens = a
                .expected_tokens()
                .iter()
                .map(ToString::to_string)
                .collect();
            (a.max_position, tokens)
        });
        syntax_error(e, attempts, source)
    })?;
    let top = pairs.next().expect("a rule that matched yields one pair");
    chains(&top)?;
    Ok(top)
}

/// Refuses brackets nested deeper than [`MAX_NESTING`], pointing at the
/// first bracket past it (outside comments).
fn nesting(source: &str) -> Result<(), Problem> {
    let mut depth = 0usize;
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '/' if chars.peek().is_some_and(|&(_, d)| d == '/') => {
                while chars.next_if(|&(_, d)| d != '\n').is_some() {}
            }
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Problem::new(
                        "guarded::syntax::too_deep",
                        format!("brackets nested more than {MAX_NESTING} deep"),
                    )
                    .label(Span::new(at, at + 1), "this one is too deep")
                    .help("split the expression, e.g. into definitions"));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Whether `r` is a binary operator.
pub(super) fn is_infix(r: Rule) -> bool {
    use Rule::*;
    matches!(
        r,
        implies_op
            | or_op
            | and_op
            | eq_op
            | ne_op
            | le_op
            | ge_op
            | lt_op
            | gt_op
            | add_op
            | sub_op
            | mul_op
            | div_op
            | mod_op
    )
}

/// Refuses chains longer than [`MAX_CHAIN`] anywhere in `top`'s tree, which
/// it walks without recursion.
fn chains(top: &Pair<Rule>) -> Result<(), Problem> {
    let too_long = |p: &Pair<Rule>, what: &str| {
        Problem::new(
            "guarded::syntax::too_long",
            format!("more than {MAX_CHAIN} {what} in a row"),
        )
        .label(p.as_span().into(), "this is too long")
        .help("split it, e.g. into definitions or a quantifier over a range")
    };
    // The `if` statements that are another's `else` branch: their chain is counted from its head.
    let mut branches = rustc_hash::FxHashSet::default();
    for p in top.clone().into_inner().flatten() {
        match p.as_rule() {
            Rule::expr | Rule::sum => {
                let (mut infix, mut prefix) = (0, 0);
                let mut negated = false;
                for c in p.clone().into_inner() {
                    if c.as_rule() == Rule::primary {
                        literal_fits(&c, negated)?;
                    }
                    negated = c.as_rule() == Rule::neg_op;
                    match c.as_rule() {
                        r if is_infix(r) => (infix, prefix) = (infix + 1, 0),
                        Rule::not_op | Rule::neg_op => prefix += 1,
                        _ => prefix = 0,
                    }
                    if infix > MAX_CHAIN {
                        return Err(too_long(&p, "operators"));
                    }
                    if prefix > MAX_CHAIN {
                        return Err(too_long(&p, "prefix operators"));
                    }
                }
            }
            Rule::primary if p.clone().into_inner().count() > MAX_CHAIN + 1 => {
                return Err(too_long(&p, "field reads and indices"));
            }
            Rule::if_stmt if !branches.contains(&p.as_span().start()) => {
                let mut length = 0;
                let mut at = p.clone();
                while let Some(next) = at
                    .clone()
                    .into_inner()
                    .last()
                    .filter(|c| c.as_rule() == Rule::if_stmt)
                {
                    branches.insert(next.as_span().start());
                    length += 1;
                    if length > MAX_CHAIN {
                        return Err(too_long(&p, "`else if` branches"));
                    }
                    at = next;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Refuses an integer literal beyond the 64-bit range: `9223372036854775807`
/// is the largest, and `-9223372036854775808` (negated, `negated`) the
/// smallest, which lowering folds into one constant.
fn literal_fits(primary: &Pair<Rule>, negated: bool) -> Result<(), Problem> {
    let mut parts = primary.clone().into_inner();
    let Some(lit) = parts.next().filter(|a| a.as_rule() == Rule::int_lit) else {
        return Ok(());
    };
    let text = lit.as_str().trim_start_matches('0');
    let fits = text.len() < 19
        || text.parse::<i64>().is_ok()
        || (negated && text == "9223372036854775808" && parts.next().is_none());
    if fits {
        return Ok(());
    }
    Err(Problem::new(
        "guarded::syntax::literal_range",
        "integer literal out of range",
    )
    .label(lit.as_span().into(), "does not fit in 64 bits")
    .help("integers are 64-bit: from -9223372036854775808 to 9223372036854775807"))
}

/// The parse tree of a whole program, for the formatter.
pub(super) fn parse_tree(source: &str) -> Result<Pair<'_, Rule>, Problem> {
    parse_bounded(Rule::program, source)
}

/// Parses a whole program, or says where and why it is not one.
pub fn parse_program(source: &str) -> Result<Program, Problem> {
    Ok(lower_program(parse_bounded(Rule::program, source)?))
}

/// Parses one expression (the REPL and `--set` use this).
pub fn parse_expression(source: &str) -> Result<Expr, Problem> {
    let top = parse_bounded(Rule::expr, source).map_err(|p| {
        let found = |word: &str| p.labels.iter().any(|(_, l)| *l == format!("found `{word}`"));
        // `p.nbrs`: the error stands at `nbrs`, just after a dot.
        let after_dot = p
            .labels
            .first()
            .is_some_and(|(span, _)| source[..span.start.min(source.len())].ends_with('.'));
        if p.code != "guarded::syntax::unexpected" {
            p
        } else if found("nbrs") && after_dot {
            // The hint the program's parser gives (syntax/hints.rs).
            p
        } else if found("nbrs") || found("procs") {
            p.help("`nbrs(p)` and `procs` are collections: `eval nbrs(2)` lists the members, and an expression quantifies over them, `count(q in nbrs(2))`")
        } else {
            p.help("write one expression, e.g. `count(p in procs : enabled(p)) == 1`")
        }
    })?;
    // Where the parse ended: an expression's own span leaves out the
    // parentheses around it.
    let end = top.as_span().end();
    let e = lower_expr(top);
    /// Operators an expression may stop at, half typed (`x ==`).
    const OPERATORS: &[&str] = &[
        "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "mod", "and", "or", "=>", "&&",
        "||",
    ];
    let trailing = source[end..].trim();
    let rest = source[end..].len() - source[end..].trim_start().len();
    if trailing.is_empty() {
        Ok(e)
    } else if OPERATORS.contains(&trailing) {
        let at = end + rest;
        Err(Problem::new(
            "guarded::syntax::trailing",
            format!("`{trailing}` has nothing after it"),
        )
        .label(
            Span::new(at, at + trailing.len()),
            "an operand is missing after this",
        )
        .help("an operator takes a value on each side: `x == 1`, `x + 1`, `a and b`"))
    } else {
        // `argmin(q in (3).nbrs : ...)` parses as far as `argmin`, a name:
        // the slip is the field, further on.
        let field = source
            .match_indices("nbrs")
            .find_map(|(at, _)| super::hints::nbrs_as_field(source[..at].trim_end()));
        Err(Problem::new(
            "guarded::syntax::trailing",
            "unexpected text after the expression",
        )
        .label(
            Span::new(end + rest, source.len()),
            "not part of the expression",
        )
        .help(field.unwrap_or_else(|| "write one expression".into())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Expr {
        parse_expression(s).unwrap()
    }
    fn n(s: &str) -> Expr {
        Expr::Name(Ident {
            name: s.into(),
            span: Span::default(),
        })
    }
    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r), Span::default())
    }

    /// Every span of an expression of every form moves: the REPL tells the
    /// expression's labels from its definitions' by where they lie.
    #[test]
    fn every_span_of_an_expression_is_shifted() {
        let text = "forall(p in procs : p.x[1] + -f(p, 2) >= 0 or exists(q in nbrs(p) : true)) \
            and count(i in 0..3) == max(k in {q in procs : edge(q, p).w == 1} : k.y) \
            and (if acyclic(a -> b : a.t == b) then (1, 2) else (3, 4)) < (5, random(0..1)) \
            and not random(bool) and msgs(0, 1) == 0";
        let mut shifted = e(text);
        let by = 1 << 20;
        shifted.shift_spans(by);
        let (before, after) = (format!("{:?}", e(text)), format!("{shifted:?}"));
        let starts = |s: &str| -> Vec<usize> {
            s.split("start: ")
                .skip(1)
                .map(|t| t[..t.find(',').unwrap()].parse().unwrap())
                .collect()
        };
        let (was, now) = (starts(&before), starts(&after));
        assert!(was.len() > 60, "{}", was.len());
        assert_eq!(now, was.iter().map(|s| s + by).collect::<Vec<_>>());
    }

    #[test]
    fn precedence_of_arithmetic_and_comparison() {
        let one = Expr::Int(1, Span::default());
        assert_eq!(
            e("x + 1 mod K == y"),
            bin(
                BinOp::Eq,
                bin(BinOp::Add, n("x"), bin(BinOp::Mod, one, n("K"))),
                n("y")
            )
        );
    }

    #[test]
    fn not_binds_looser_than_comparison_and_tighter_than_and() {
        assert_eq!(
            e("not a == b and c"),
            bin(
                BinOp::And,
                Expr::Unary(
                    UnOp::Not,
                    Box::new(bin(BinOp::Eq, n("a"), n("b"))),
                    Span::default()
                ),
                n("c")
            )
        );
    }

    #[test]
    fn field_reads_and_quantifiers() {
        let q = e("count(q in nbrs : q.x == left.x)");
        match q {
            Expr::Quant(QuantKind::Count, v, Collection::Nbrs(None), body, _) => {
                assert_eq!(v.name, "q");
                assert!(matches!(*body, Expr::Binary(BinOp::Eq, _, _, _)));
            }
            other => panic!("not a quantifier: {other:?}"),
        }
    }

    #[test]
    fn keywords_are_not_prefixes_of_names() {
        assert_eq!(e("index"), n("index"));
        assert_eq!(e("notify"), n("notify"));
        assert_eq!(e("order"), n("order"));
    }

    #[test]
    fn program_with_roles_actions_and_priorities() {
        let p = parse_program(
            "param K = n\nvar x: 0..K-1 = 0 // counter\n\
             process where index == 0 { a priority 1 :: x == left.x -> x := (x + 1) mod K }\n\
             process where index != 0 { b :: x != left.x -> x := left.x; }\n\
             legitimate: count(p in procs: enabled(p)) == 1",
        )
        .unwrap();
        assert_eq!(p.params.len(), 1);
        assert_eq!(p.vars.len(), 1);
        assert_eq!(p.roles.len(), 2);
        assert!(p.roles[0].actions[0].priority.is_some());
        assert_eq!(p.roles[1].actions[0].label.name, "b");
        assert_eq!(p.legitimate.len(), 1);
    }

    #[test]
    fn multiple_assignment_and_if() {
        let p = parse_program(
            "var a: bool\nvar b: bool\nprocess { s :: true -> a, b := b, a; if a { b := true } else { skip } }",
        )
        .unwrap();
        match &p.roles[0].actions[0].body {
            Stmt::Seq(s, _) => {
                assert!(matches!(&s[0], Stmt::Assign(t, v, _) if t.len() == 2 && v.len() == 2));
                assert!(matches!(&s[1], Stmt::If(_, _, Some(_), _)));
            }
            other => panic!("{other:?}"),
        }
    }

    /// Where the parser got further than the rules pest names, the error
    /// stands there and names the literals it wanted, not a rule that
    /// could have replaced the word before (`procs` for `nbrs`).
    #[test]
    fn syntax_errors_stand_where_a_literal_was_missing() {
        let cases = [
            // (source, what stands at the error, message, help)
            (
                "var x: 0..1 = 0\nprocess { a for q in nbrs priority 1 :: x == 0 -> x := 1 }",
                "priority",
                "expected `(` or `::`",
                "the priority comes before the collection",
            ),
            (
                "message m(v 0..1)\nchannel capacity 2\nprocess { a :: true -> skip }",
                "0",
                "expected `:`",
                "see docs/language.md",
            ),
            (
                "var x: array[nbrs of 0..1\nprocess { a :: true -> skip }",
                "of",
                "expected `]`",
                "see docs/language.md",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: forall(q in nbrs q.x == 0) -> x := 1 }",
                "q",
                "`:`",
                "see docs/language.md",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: exists q in nbrs : q.x == 0 -> x := 1 }",
                "q",
                "expected `(`",
                "a quantifier takes parentheses: `exists(",
            ),
            (
                "var x: 0..1 = 0\nprocess {\n    count :: x == 0 -> x := 1\n}",
                "count",
                "expected",
                "`count` is a keyword",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: nbrs.x == 0 -> x := 1 }",
                "nbrs",
                "expected",
                "`nbrs` is a collection, not a process",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: x == 0 -> if x == 0 then x := 1 }",
                "then",
                "expected",
                "a statement `if` takes braces",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: true -> skip }\ninvariant safe forall(p in procs : p.x == 1)",
                "forall",
                "expected `:`",
                "ends with `:` before the predicate",
            ),
            (
                "enum S { a, b }\nvar s: S = a\nprocess { go :: s == a -> s := b }",
                "{",
                "expected `=`",
                "enum Colour = {red, green}",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: x == 0 => x := 1 }",
                ":",
                "expected `->`",
                "a guard ends with `->`",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: true -> skip }\nproperty p: eventually forall(p in procs : p.x == 1)",
                "forall",
                "expected",
                "`always eventually P`",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: x == 0 -> x := max(x, 1\n}",
                "}",
                "expected `)`",
                "see docs/language.md",
            ),
            (
                "var x: 0..1 = 0\nprocess { a :: (x == 0 -> x := 1 }",
                ">",
                "expected",
                "the guard's `(` is not closed before `->`",
            ),
        ];
        for (src, at, message, help) in cases {
            let err = parse_program(src).unwrap_err();
            let (span, _) = &err.labels[0];
            assert_eq!(&src[span.start..span.end], at, "{src}: {}", err.message);
            assert!(err.message.contains(message), "{src}: {}", err.message);
            let said = err.help.as_deref().unwrap_or("");
            assert!(said.contains(help), "{src}: {said}");
        }
        // An unclosed comment: the end of the input, and where it opens.
        let err =
            parse_program("/* header\nvar x: 0..3\nprocess { a :: true -> skip }").unwrap_err();
        assert!(err.message.contains("expected `*/`"), "{}", err.message);
        assert_eq!(err.labels[1].0.start, 0, "{:?}", err.labels);
    }

    #[test]
    fn syntax_errors_name_what_was_expected_not_rules() {
        let err = parse_program("var x: 0..3\nprocess { a :: x == -> x := 1 }").unwrap_err();
        assert!(err.message.contains("expected"), "{}", err.message);
        assert!(!err.message.contains("primary"), "{}", err.message);
        let src = "var x: 0..3\nprocess { a :: x == 1 -> x := 1";
        let err = parse_program(src).unwrap_err();
        // At end of input the label sits on the last character, not past it.
        assert_eq!(
            (err.labels[0].0.start, err.labels[0].0.end),
            (src.len() - 1, src.len())
        );
    }
}
