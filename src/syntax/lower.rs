//! Lowering pest pairs into the AST by hand, one function per grammar
//! rule, with the span of each node.

use super::ast::*;
use super::parse::{Rule, PRATT};
use crate::span::Span;
use pest::iterators::{Pair, Pairs};
use std::cell::RefCell;

mod stmt;
use stmt::{lower_stmt, lower_stmts};

thread_local! {
    /// While a program is lowered, each `a + b mod c` (or `-`) written
    /// without brackets: the sum's span, the `mod`'s and its left
    /// operand's. The lowering functions take no context, so they leave
    /// them here.
    static UNBRACKETED_MODS: RefCell<Option<Vec<[Span; 3]>>> = const { RefCell::new(None) };
}

pub(super) fn ident(p: Pair<Rule>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: p.as_span().into(),
    }
}

/// `program = { SOI ~ item* ~ EOI }`
pub(super) fn lower_program(p: Pair<Rule>) -> Program {
    UNBRACKETED_MODS.with(|m| *m.borrow_mut() = Some(Vec::new()));
    let mut prog = lower_items(p);
    prog.unbracketed_mods = UNBRACKETED_MODS
        .with(|m| m.borrow_mut().take())
        .unwrap_or_default();
    prog
}

fn lower_items(p: Pair<Rule>) -> Program {
    let mut prog = Program::default();
    for item in p.into_inner() {
        let span: Span = item.as_span().into();
        match item.as_rule() {
            Rule::param_decl => {
                let mut it = item.into_inner().skip(1);
                let name = ident(it.next().unwrap());
                let default = lower_expr(it.next().unwrap());
                prog.params.push(Param { name, default });
            }
            Rule::topology_decl => {
                let spec = item.into_inner().nth(1).unwrap();
                prog.topologies
                    .push((spec.as_str().to_string(), spec.as_span().into()));
            }
            Rule::enum_decl => {
                let mut it = item.into_inner().skip(1);
                let name = ident(it.next().unwrap());
                let values = it.next().unwrap().into_inner().map(ident).collect();
                prog.enums.push(EnumDecl { name, values });
            }
            Rule::var_decl => prog.vars.push(lower_var(item, span)),
            Rule::def_decl => prog.defs.push(lower_def(item, span)),
            Rule::message_decl => {
                let mut it = item.into_inner().skip(1);
                let name = ident(it.next().unwrap());
                let fields = it
                    .map(|f| {
                        let mut parts = f.into_inner();
                        let name = ident(parts.next().unwrap());
                        (name, lower_domain(parts.next().unwrap()))
                    })
                    .collect();
                prog.messages.push(MessageDecl { name, fields });
            }
            Rule::channel_decl => {
                let mut it = item.into_inner().skip(2);
                let capacity = lower_expr(it.next().unwrap());
                let (mut random, mut delay) = (None, None);
                for r in it {
                    let rule = r.as_rule();
                    let mut parts = r.into_inner().skip(1);
                    let range = (
                        lower_expr(parts.next().unwrap()),
                        lower_expr(parts.next().unwrap()),
                    );
                    match rule {
                        Rule::delay_range => delay = Some(range),
                        _ => random = Some(range),
                    }
                }
                prog.capacity.push(ChannelDecl {
                    capacity,
                    random,
                    delay,
                });
            }
            Rule::role => {
                let (role, vars) = lower_role(item);
                let r = prog.roles.len();
                prog.vars
                    .extend(vars.into_iter().map(|v| VarDecl { role: Some(r), ..v }));
                prog.roles.push(role);
            }
            Rule::legitimate_decl => {
                prog.legitimate
                    .push(lower_expr(item.into_inner().nth(1).unwrap()));
            }
            Rule::invariant_decl => {
                let mut it = item.into_inner().skip(1);
                let name = ident(it.next().unwrap());
                prog.invariants.push((name, lower_expr(it.next().unwrap())));
            }
            Rule::property_decl => prog.properties.push(super::temporal::lower_property(item)),
            Rule::report_decl => {
                let mut it = item.into_inner().skip(1);
                let name = ident(it.next().unwrap());
                prog.reports.push((name, lower_expr(it.next().unwrap())));
            }
            Rule::EOI => {}
            r => unreachable!("item rule {r:?}"),
        }
    }
    prog
}

/// `var_decl = { var_kind ~ ident ~ ":" ~ domain ~ random_range? ~ ("=" ~ expr)? }`
fn lower_var(p: Pair<Rule>, span: Span) -> VarDecl {
    let mut it = p.into_inner();
    let kind = {
        let k: Vec<Rule> = it
            .next()
            .unwrap()
            .into_inner()
            .map(|c| c.as_rule())
            .collect();
        match k.first() {
            Some(Rule::kw_edge) => VarKind::Edge,
            Some(Rule::kw_timer) => VarKind::Timer,
            _ => VarKind::Plain,
        }
    };
    let name = ident(it.next().unwrap());
    let domain_pair = it.next().unwrap();
    let mut end = last_token_end(domain_pair.as_span());
    let domain = lower_domain(domain_pair);
    // `random lo..hi` and `= value`, in either order.
    let (mut random, mut init) = (None, None);
    for part in it {
        // An expression's pair can reach over trailing comments; its
        // lowered span does not.
        if part.as_rule() == Rule::random_range {
            end = end.max(last_token_end(part.as_span()));
            let mut parts = part.into_inner().skip(1);
            random = Some((
                lower_expr(parts.next().unwrap()),
                lower_expr(parts.next().unwrap()),
            ));
        } else {
            let e = lower_expr(part);
            end = end.max(e.span().end);
            init = Some(e);
        }
    }
    // The rule's own span can reach over trailing comments; cut it at the last token.
    let span = Span::new(span.start, end);
    VarDecl {
        kind,
        name,
        domain,
        init,
        random,
        span,
        role: None,
    }
}

/// Where the last token of `span` ends: a rule's span reaches over the
/// whitespace and comments after it when its last part is a repetition or
/// an option (`0..K-1` tries for more of the sum), and a diagnostic
/// pointing at it would then run on to the next line.
fn last_token_end(span: pest::Span) -> usize {
    let text = span.as_str();
    let bytes = text.as_bytes();
    let (mut at, mut end) = (0, 0);
    while at < bytes.len() {
        if bytes[at..].starts_with(b"//") {
            at += text[at..].find('\n').unwrap_or(text.len() - at);
        } else if bytes[at..].starts_with(b"/*") {
            at += text[at + 2..].find("*/").map_or(text.len() - at, |k| k + 4);
        } else {
            if !bytes[at].is_ascii_whitespace() {
                end = at + 1;
            }
            at += 1;
        }
    }
    span.start() + end
}

/// `def_decl = { kw_def ~ ident ~ def_params? ~ (def_expr | block) }`
fn lower_def(p: Pair<Rule>, span: Span) -> Def {
    let mut it = p.into_inner().skip(1).peekable();
    let name = ident(it.next().unwrap());
    let params = if it.peek().map(|c| c.as_rule()) == Some(Rule::def_params) {
        it.next().unwrap().into_inner().map(ident).collect()
    } else {
        Vec::new()
    };
    let body = it.next().unwrap();
    let body = match body.as_rule() {
        Rule::def_expr => DefBody::Expr(lower_expr(body.into_inner().next().unwrap())),
        _ => DefBody::Stmt(lower_stmt(body)),
    };
    let end = match &body {
        DefBody::Expr(e) => e.span().end,
        DefBody::Stmt(s) => s.span().end.max(span.start),
    };
    Def {
        name,
        params,
        body,
        span: Span::new(span.start, end.max(span.start)),
    }
}

/// `domain = { bool_domain | node_domain | enum_body | range_domain | named_domain }`
fn lower_domain(p: Pair<Rule>) -> Domain {
    let d = p.into_inner().next().unwrap();
    let span: Span = d.as_span().into();
    match d.as_rule() {
        Rule::bool_domain => Domain::Bool(span),
        Rule::node_domain => Domain::Node(span),
        Rule::enum_body => Domain::Enum(d.into_inner().map(ident).collect(), span),
        Rule::range_domain => {
            let mut it = d.into_inner();
            let lo = lower_expr(it.next().unwrap());
            let hi = lower_expr(it.next().unwrap());
            Domain::Range(Box::new(lo), Box::new(hi))
        }
        Rule::named_domain => Domain::Named(ident(d.into_inner().next().unwrap())),
        Rule::array_domain => {
            let mut it = d.into_inner().skip(1);
            let len = it.next().unwrap();
            let len = match len.as_rule() {
                Rule::kw_nbrs => None,
                _ => Some(Box::new(lower_expr(len))),
            };
            let elem = lower_domain(it.nth(1).unwrap());
            Domain::Array(len, Box::new(elem), span)
        }
        r => unreachable!("domain rule {r:?}"),
    }
}

/// `role = { kw_process ~ (kw_where ~ expr)? ~ "{" ~ (var_decl | action)* ~ "}" }`:
/// the role, and the variables declared in it.
fn lower_role(p: Pair<Rule>) -> (Role, Vec<VarDecl>) {
    let mut selector = None;
    let mut actions = Vec::new();
    let mut vars = Vec::new();
    let mut head: Span = p.as_span().into();
    for c in p.into_inner() {
        match c.as_rule() {
            Rule::kw_process => head = c.as_span().into(),
            Rule::kw_where => {}
            Rule::expr => {
                let e = lower_expr(c);
                head = head.join(e.span());
                selector = Some(e);
            }
            Rule::action => actions.push(lower_action(c)),
            Rule::var_decl => {
                let span = c.as_span().into();
                vars.push(lower_var(c, span));
            }
            Rule::rbrace => {}
            r => unreachable!("role rule {r:?}"),
        }
    }
    (
        Role {
            selector,
            actions,
            head,
        },
        vars,
    )
}

/// `action = { ident ~ priority? ~ "::" ~ expr ~ "->" ~ stmts }`
fn lower_action(p: Pair<Rule>) -> Action {
    let span: Span = p.as_span().into();
    let mut it = p.into_inner().peekable();
    let label = ident(it.next().unwrap());
    let priority = if it.peek().map(|c| c.as_rule()) == Some(Rule::priority) {
        Some(lower_expr(it.next().unwrap().into_inner().nth(1).unwrap()))
    } else {
        None
    };
    let binder = if it.peek().map(|c| c.as_rule()) == Some(Rule::action_for) {
        let mut parts = it.next().unwrap().into_inner().skip(1);
        let var = ident(parts.next().unwrap());
        let coll = lower_collection(parts.nth(1).unwrap());
        Some((var, coll))
    } else {
        None
    };
    let g = it.next().unwrap();
    let (receive, guard) = if g.as_rule() == Rule::receive {
        let gspan: Span = g.as_span().into();
        let mut parts = g.into_inner().skip(1);
        let message = ident(parts.next().unwrap());
        let mut fields = Vec::new();
        let mut from = None;
        let mut guard = None;
        for c in parts {
            match c.as_rule() {
                Rule::ident if from.is_none() => fields.push(ident(c)),
                Rule::kw_from | Rule::kw_and => {}
                Rule::expr => guard = Some(lower_expr(c)),
                _ => {}
            }
        }
        // The last name before `and` (or the end) is the sender.
        if let Some(last) = fields.pop() {
            from = Some(last);
        }
        let from = from.expect("the grammar requires `from NAME`");
        (
            Some(Receive {
                message,
                fields,
                from,
            }),
            guard.unwrap_or(Expr::Bool(true, gspan)),
        )
    } else {
        (None, lower_expr(g))
    };
    let _arrow = it.next();
    let body = lower_stmts(it.next().unwrap());
    Action {
        label,
        priority,
        binder,
        receive,
        guard,
        body,
        span,
    }
}

/// `expr = { prefix* ~ primary ~ (infix ~ prefix* ~ primary)* }` (and `sum`)
pub(super) fn lower_expr(p: Pair<Rule>) -> Expr {
    lower_operators(p.into_inner())
}

fn lower_operators(pairs: Pairs<Rule>) -> Expr {
    let input = pairs.get_input();
    // The literal 2^63 itself (all digits), which only a minus makes an integer.
    let bare_min = |s: Span| input[s.start..s.end].bytes().all(|b| b.is_ascii_digit());
    PRATT
        .map_primary(lower_primary)
        .map_prefix(move |op, e| {
            let span = Span::from(op.as_span()).join(e.span());
            match (op.as_rule(), e) {
                (Rule::not_op, e) => Expr::Unary(UnOp::Not, Box::new(e), span),
                // `-9223372036854775808`: the smallest integer, in one piece.
                (_, Expr::Int(i64::MIN, s)) if bare_min(s) => Expr::Int(i64::MIN, span),
                (_, e) => Expr::Unary(UnOp::Neg, Box::new(e), span),
            }
        })
        .map_infix(|l, op, r| {
            let span = l.span().join(r.span());
            let op = match op.as_rule() {
                Rule::implies_op => BinOp::Implies,
                Rule::or_op => BinOp::Or,
                Rule::and_op => BinOp::And,
                Rule::eq_op => BinOp::Eq,
                Rule::ne_op => BinOp::Ne,
                Rule::lt_op => BinOp::Lt,
                Rule::le_op => BinOp::Le,
                Rule::gt_op => BinOp::Gt,
                Rule::ge_op => BinOp::Ge,
                Rule::add_op => BinOp::Add,
                Rule::sub_op => BinOp::Sub,
                Rule::mul_op => BinOp::Mul,
                Rule::div_op => BinOp::Div,
                Rule::mod_op => BinOp::Mod,
                r => unreachable!("infix rule {r:?}"),
            };
            // A term before reduced too (`a mod K + b mod K`) says the
            // terms were meant one by one.
            let term_before = match &l {
                Expr::Binary(BinOp::Add | BinOp::Sub, _, term, _) => term,
                l => l,
            };
            let left_reduced = matches!(term_before, Expr::Binary(BinOp::Mod, ..));
            if let (BinOp::Add | BinOp::Sub, Expr::Binary(BinOp::Mod, a, _, at)) = (op, &r) {
                if !left_reduced && !input[..at.start].trim_end().ends_with('(') {
                    UNBRACKETED_MODS.with(|m| {
                        if let Some(found) = m.borrow_mut().as_mut() {
                            found.push([span, *at, a.span()]);
                        }
                    });
                }
            }
            Expr::Binary(op, Box::new(l), Box::new(r), span)
        })
        .parse(pairs)
}

/// `primary = { atom ~ (field | index)* }`
fn lower_primary(p: Pair<Rule>) -> Expr {
    let mut it = p.into_inner();
    let mut e = lower_atom(it.next().unwrap());
    for post in it {
        let end: Span = post.as_span().into();
        let span = e.span().join(end);
        let inner = post.clone().into_inner().next().unwrap();
        e = match post.as_rule() {
            Rule::field => Expr::Field(Box::new(e), ident(inner), span),
            _ => Expr::Index(Box::new(e), Box::new(lower_expr(inner)), span),
        };
    }
    e
}

/// `collection = { kw_procs | kw_nbrs ~ ("(" ~ expr ~ ")")? | range_coll }`
fn lower_collection(p: Pair<Rule>) -> Collection {
    let mut parts = p.into_inner();
    let first = parts.next().unwrap();
    match first.as_rule() {
        Rule::kw_nbrs => Collection::Nbrs(parts.next().map(|e| Box::new(lower_expr(e)))),
        Rule::kw_procs => Collection::Procs,
        _ => {
            let mut it = first.into_inner();
            let lo = lower_expr(it.next().unwrap());
            match it.next() {
                Some(hi) => Collection::Range(Box::new(lo), Box::new(lower_expr(hi))),
                None => Collection::Set(Box::new(lo)),
            }
        }
    }
}

/// `atom = _{ int_lit | true_lit | false_lit | quantifier | call | paren | name }`
fn lower_atom(p: Pair<Rule>) -> Expr {
    let span: Span = p.as_span().into();
    match p.as_rule() {
        // The parser let through only literals that fit, and 2^63 right
        // after a minus sign: that one is read as i64::MIN, and the minus
        // folded into it (see `lower_operators`).
        Rule::int_lit => Expr::Int(p.as_str().parse().unwrap_or(i64::MIN), span),
        Rule::true_lit => Expr::Bool(true, span),
        Rule::false_lit => Expr::Bool(false, span),
        Rule::paren => {
            let mut parts: Vec<Expr> = p.into_inner().map(lower_expr).collect();
            match parts.len() {
                1 => parts.pop().unwrap(),
                _ => Expr::Tuple(parts, span),
            }
        }
        Rule::cond => {
            let mut it = p.into_inner().filter(|c| c.as_rule() == Rule::expr);
            let mut next = || Box::new(lower_expr(it.next().unwrap()));
            let (c, a, b) = (next(), next(), next());
            Expr::Cond(c, a, b, span)
        }
        Rule::edge_ref => Expr::Edge(p.into_inner().skip(1).map(lower_expr).collect(), span),
        Rule::draw => {
            let from = p.into_inner().find(|c| c.as_rule() == Rule::collection);
            Expr::Random(from.map(|c| Box::new(lower_collection(c))), span)
        }
        Rule::acyclic => {
            let mut it = p.into_inner().skip(1);
            let from = ident(it.next().unwrap());
            let to = ident(it.next().unwrap());
            let pred = lower_expr(it.next().unwrap());
            Expr::Acyclic(from, to, Box::new(pred), span)
        }
        Rule::set_lit => {
            let mut it = p.into_inner();
            let var = ident(it.next().unwrap());
            let _in = it.next();
            let coll = lower_collection(it.next().unwrap());
            let pred = lower_expr(it.next().unwrap());
            Expr::Set(var, coll, Box::new(pred), span)
        }
        Rule::name => Expr::Name(ident(p.into_inner().next().unwrap())),
        Rule::call => {
            let mut it = p.into_inner();
            let name = ident(it.next().unwrap());
            Expr::Call(name, it.map(lower_expr).collect(), span)
        }
        Rule::quantifier => {
            let mut it = p.into_inner();
            let kind = match it.next().unwrap().into_inner().next().unwrap().as_rule() {
                Rule::kw_forall => QuantKind::Forall,
                Rule::kw_exists => QuantKind::Exists,
                Rule::kw_count => QuantKind::Count,
                Rule::w_sum => QuantKind::Sum,
                Rule::w_min => QuantKind::Min,
                Rule::w_max => QuantKind::Max,
                Rule::w_argmin => QuantKind::ArgMin,
                _ => QuantKind::ArgMax,
            };
            let var = ident(it.next().unwrap());
            let _in = it.next();
            let coll = lower_collection(it.next().unwrap());
            // `count(q in S)` counts every member.
            let body = it.next().map_or(Expr::Bool(true, span), lower_expr);
            Expr::Quant(kind, var, coll, Box::new(body), span)
        }
        r => unreachable!("atom rule {r:?}"),
    }
}
