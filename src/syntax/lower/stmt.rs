//! Lowering statements: sequences, assignments, `if`, `for`, sends and
//! statement definitions' calls.

use super::*;

/// `stmts = { stmt ~ (";" ~ stmt)* ~ ";"? }`
pub(super) fn lower_stmts(p: Pair<Rule>) -> Stmt {
    let span: Span = p.as_span().into();
    let mut stmts: Vec<Stmt> = p.into_inner().map(lower_stmt).collect();
    if stmts.len() == 1 {
        stmts.pop().unwrap()
    } else {
        Stmt::Seq(stmts, span)
    }
}

/// `stmt = _{ if_stmt | for_stmt | skip_stmt | block | send_stmt | assign | call_stmt }`
pub(super) fn lower_stmt(p: Pair<Rule>) -> Stmt {
    let span: Span = p.as_span().into();
    match p.as_rule() {
        Rule::skip_stmt => Stmt::Skip(span),
        Rule::block => match p.into_inner().next() {
            Some(s) => lower_stmts(s),
            None => Stmt::Skip(span),
        },
        Rule::if_stmt => {
            let mut it = p.into_inner().skip(1);
            let cond = lower_expr(it.next().unwrap());
            let then = lower_stmt(it.next().unwrap());
            let els = it.nth(1).map(|e| Box::new(lower_stmt(e)));
            Stmt::If(Box::new(cond), Box::new(then), els, span)
        }
        Rule::assign => {
            let mut targets = Vec::new();
            let mut values = Vec::new();
            for c in p.into_inner() {
                match c.as_rule() {
                    Rule::target => {
                        let span: Span = c.as_span().into();
                        let mut it = c.into_inner();
                        let first = it.next().unwrap();
                        if first.as_rule() == Rule::edge_target {
                            let mut parts = first.into_inner().skip(1);
                            let q = lower_expr(parts.next().unwrap());
                            let name = ident(parts.next().unwrap());
                            targets.push(Target {
                                name,
                                index: Some(q),
                                edge: true,
                                span,
                            });
                        } else {
                            let name = ident(first);
                            let index = it.next().map(lower_expr);
                            targets.push(Target {
                                name,
                                index,
                                edge: false,
                                span,
                            });
                        }
                    }
                    Rule::assign_op => {}
                    _ => values.push(lower_expr(c)),
                }
            }
            Stmt::Assign(targets, values, span)
        }
        Rule::for_stmt => {
            let mut it = p.into_inner().skip(1);
            let var = ident(it.next().unwrap());
            let _in = it.next();
            let coll = lower_collection(it.next().unwrap());
            let body = lower_stmt(it.next().unwrap());
            Stmt::For(var, coll, Box::new(body), span)
        }
        Rule::send_stmt => {
            let mut it = p.into_inner().skip(1);
            let msg = ident(it.next().unwrap());
            let mut args = Vec::new();
            let mut to = None;
            for c in it {
                match c.as_rule() {
                    Rule::kw_to => {}
                    _ if to.is_none() => args.push(lower_expr(c)),
                    _ => {}
                }
            }
            // The last expression is the destination.
            if let Some(last) = args.pop() {
                to = Some(last);
            }
            Stmt::Send(
                msg,
                args,
                Box::new(to.expect("the grammar requires `to`")),
                span,
            )
        }
        Rule::call_stmt => {
            let mut it = p.into_inner();
            let name = ident(it.next().unwrap());
            Stmt::Call(name, it.map(lower_expr).collect(), span)
        }
        r => unreachable!("stmt rule {r:?}"),
    }
}
