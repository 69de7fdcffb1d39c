//! The parser: the pest grammar, the Pratt parser for operator precedence
//! (built once), and the entry points. Lowering pairs into the AST is in
//! `lower.rs`, turning pest's errors into diagnostics in `errors.rs`.

use super::ast::*;
use super::errors::syntax_error;
use super::lower::{lower_expr, lower_program};
use crate::diagnostic::Problem;
use crate::span::Span;
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

/// Parses a whole program, or says where and why it is not one.
pub fn parse_program(source: &str) -> Result<Program, Problem> {
    let mut pairs =
        GuardedParser::parse(Rule::program, source).map_err(|e| syntax_error(e, source))?;
    let program = pairs
        .next()
        .expect("the program rule always yields one pair");
    Ok(lower_program(program))
}

/// Parses one expression (the REPL and `--set` use this).
pub fn parse_expression(source: &str) -> Result<Expr, Problem> {
    let mut pairs = GuardedParser::parse(Rule::expr, source).map_err(|e| {
        syntax_error(e, source)
            .help("write one expression, e.g. `count(p in procs : enabled(p)) == 1`")
    })?;
    let e = lower_expr(pairs.next().expect("expr yields one pair"));
    let end = e.span().end;
    if source[end..].trim().is_empty() {
        Ok(e)
    } else {
        let rest = source[end..].len() - source[end..].trim_start().len();
        Err(Problem::new(
            "guarded::syntax::trailing",
            "unexpected text after the expression",
        )
        .label(
            Span::new(end + rest, source.len()),
            "not part of the expression",
        )
        .help("write one expression"))
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
