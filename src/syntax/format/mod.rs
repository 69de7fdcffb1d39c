//! `guarded fmt`: one canonical layout for programs, built from the parse
//! tree (so only what parses is formatted) as a document of texts and
//! possible line breaks, then laid out in [`WIDTH`] columns the way
//! Wadler's pretty printer does: a group goes on one line if it fits, else
//! each of its breaks becomes a new line.
//!
//! The layout: one item a line at the top level and in role blocks (with
//! their blank lines, at most one); an action on one line when it fits,
//! else its guard broken before its top-level `and`/`or`, aligned under
//! the guard, and `-> statements` on the next line; blocks on one line or
//! one statement a line; spaces around binary operators except inside
//! brackets and ranges (`F[i+1]`, `0..K-1`). Comments stay where they
//! were: on their own line, or after code (trailing comments of
//! consecutive lines aligned). Only layout changes: the tokens are the
//! program's, in its order.

mod doc;
mod pieces;
#[cfg(test)]
mod tests;

use super::parse::is_infix;
use super::parse::{parse_tree, Rule};
use crate::diagnostic::Problem;
use doc::{align, align_trailing, group, nest, render, text, Doc, TRAILING};
use pest::iterators::Pair;
use pieces::{space, Comment, Piece};

/// The width lines are laid out in.
pub const WIDTH: usize = 100;

/// `source` in the canonical layout; or why it does not parse.
pub fn format_program(source: &str) -> Result<String, Problem> {
    let tree = parse_tree(source)?;
    let b = Builder { src: source };
    let doc = b.program(tree);
    let text = render(&doc, WIDTH);
    Ok(align_trailing(&text))
}

pub(super) struct Builder<'s> {
    src: &'s str,
}

impl<'s> Builder<'s> {
    /// A comment as the layout writes it: on a line of its own (after an
    /// empty line if it had one), or after the code before it; a line
    /// comment ends its line.
    fn comment_doc(c: &Comment, out: &mut Vec<Doc>) {
        let block = c.text.starts_with("/*");
        if c.own_line {
            if c.blank_before {
                out.push(Doc::Blank);
            }
            out.push(Doc::Fresh);
            out.push(text(c.text.clone()));
        } else if block {
            out.push(text(format!(" {}", c.text)));
        } else {
            out.push(text(format!("{TRAILING}{}", c.text)));
        }
        if !block || c.own_line {
            out.push(Doc::Fresh);
        }
    }

    /// The whole program: its items a line each.
    fn program(&self, tree: Pair<'s, Rule>) -> Doc {
        Doc::Concat(self.lines(self.pieces(&tree), |p| p.as_rule() == Rule::EOI))
    }

    /// Pieces laid out one a line (the top level, a role's members),
    /// keeping at most one empty line between them, each line ended;
    /// `skip` children are left out.
    fn lines(&self, pieces: Vec<Piece<'s>>, skip: impl Fn(&Pair<Rule>) -> bool) -> Vec<Doc> {
        let mut out = Vec::new();
        let mut first = true;
        for piece in pieces {
            match piece {
                Piece::Comment(mut c) => {
                    // No empty line opens a block.
                    c.blank_before &= !first;
                    first = false;
                    // A comment after an item stays on its line.
                    if !c.own_line && matches!(out.last(), Some(Doc::Fresh)) {
                        out.pop();
                    }
                    Self::comment_doc(&c, &mut out);
                }
                Piece::Child(p) if skip(&p) => {}
                Piece::Child(p) => {
                    if self.blank_before(&p) && !first {
                        out.push(Doc::Blank);
                    }
                    first = false;
                    out.push(Doc::Fresh);
                    out.push(self.doc(p));
                    out.push(Doc::Fresh);
                }
                Piece::Token(t) => out.push(text(t)),
            }
        }
        out
    }

    /// The document of any pair.
    fn doc(&self, pair: Pair<'s, Rule>) -> Doc {
        match pair.as_rule() {
            Rule::role => self.role(pair),
            Rule::action => self.action(pair),
            Rule::expr | Rule::sum => self.expression(pair, false, true),
            Rule::receive => self.receive(pair),
            Rule::quantifier | Rule::set_lit => self.binder(pair),
            Rule::stmts => group(align(self.statements(pair))),
            Rule::block => self.block(pair, false),
            Rule::def_decl => self.joined(pair, true),
            Rule::index
            | Rule::range_domain
            | Rule::range_coll
            | Rule::random_range
            | Rule::delay_range
            | Rule::draw
            | Rule::edge_target
            | Rule::target
            | Rule::array_domain => self.tight(pair),
            _ if pair.clone().into_inner().next().is_none() => text(pair.as_str()),
            _ => self.joined(pair, false),
        }
    }

    /// Children and punctuation with the spacing of [`space`].
    fn joined(&self, pair: Pair<'s, Rule>, def: bool) -> Doc {
        self.spaced(pair, |b, c| {
            (def && c.as_rule() == Rule::block).then(|| b.block(c.clone(), true))
        })
    }

    /// A pair inside brackets or a range: its arithmetic without spaces.
    fn tight(&self, pair: Pair<'s, Rule>) -> Doc {
        self.spaced(pair, |b, c| {
            matches!(c.as_rule(), Rule::expr | Rule::sum)
                .then(|| b.expression(c.clone(), true, true))
        })
    }

    /// Children and punctuation with the spacing of [`space`], each child
    /// as `special` makes it where it does, else as any pair.
    fn spaced(
        &self,
        pair: Pair<'s, Rule>,
        special: impl Fn(&Self, &Pair<'s, Rule>) -> Option<Doc>,
    ) -> Doc {
        let rule = pair.as_rule();
        let pieces = self.pieces(&pair);
        let mut out = Vec::new();
        let mut prev: Option<&Piece> = None;
        for piece in &pieces {
            if let Piece::Comment(c) = piece {
                Self::comment_doc(c, &mut out);
                continue;
            }
            if let Some(p) = prev {
                out.push(text(space(rule, p, piece)));
            }
            out.push(match piece {
                Piece::Child(c) => special(self, c).unwrap_or_else(|| self.doc(c.clone())),
                Piece::Token(t) => text(*t),
                Piece::Comment(_) => unreachable!("handled above"),
            });
            prev = Some(piece);
        }
        Doc::Concat(out)
    }

    /// An expression: its operators spaced (but arithmetic ones where
    /// `tight`), breakable before its `and`, `or` and `=>` (a group of its
    /// own where `grouped`, else breaking with the enclosing group).
    fn expression(&self, pair: Pair<'s, Rule>, tight: bool, grouped: bool) -> Doc {
        let mut out = Vec::new();
        let mut breakable = false;
        let mut after_prefix = true;
        for piece in self.pieces(&pair) {
            match piece {
                Piece::Comment(c) => Self::comment_doc(&c, &mut out),
                Piece::Token(t) => out.push(text(t)),
                Piece::Child(c) => match c.as_rule() {
                    Rule::not_op | Rule::neg_op => {
                        if !after_prefix {
                            out.push(text(" "));
                        }
                        out.push(text(c.as_str()));
                        if c.as_str() == "not" {
                            out.push(text(" "));
                        }
                        after_prefix = true;
                    }
                    Rule::and_op | Rule::or_op | Rule::implies_op => {
                        breakable = true;
                        out.push(Doc::Line);
                        out.push(text(c.as_str()));
                        after_prefix = false;
                    }
                    Rule::add_op | Rule::sub_op | Rule::mul_op | Rule::div_op
                        if tight && c.as_str() != "%" =>
                    {
                        out.push(text(c.as_str()));
                        after_prefix = true;
                    }
                    r if is_infix(r) => {
                        out.push(text(format!(" {}", c.as_str())));
                        after_prefix = false;
                    }
                    _ => {
                        if !after_prefix {
                            out.push(text(" "));
                        }
                        out.push(self.doc(c));
                        after_prefix = false;
                    }
                },
            }
        }
        if breakable && grouped {
            group(align(Doc::Concat(out)))
        } else {
            Doc::Concat(out)
        }
    }

    /// `forall(p in S : body)`, `{q in S : body}`: on one line if it fits,
    /// else the body on the next line, indented.
    fn binder(&self, pair: Pair<'s, Rule>) -> Doc {
        let rule = pair.as_rule();
        let mut out = Vec::new();
        let mut prev: Option<Piece> = None;
        let mut body = false;
        for piece in self.pieces(&pair) {
            if let Piece::Comment(c) = &piece {
                Self::comment_doc(c, &mut out);
                continue;
            }
            if piece.is(":") {
                out.push(text(" :"));
                body = true;
                prev = Some(piece);
                continue;
            }
            let d = match &piece {
                Piece::Child(c) => self.doc(c.clone()),
                Piece::Token(t) => text(*t),
                Piece::Comment(_) => unreachable!("handled above"),
            };
            if body && matches!(piece, Piece::Child(_)) {
                out.push(nest(4, Doc::Concat(vec![Doc::Line, d])));
                body = false;
            } else {
                if let Some(p) = &prev {
                    out.push(text(space(rule, p, &piece)));
                }
                out.push(d);
            }
            prev = Some(piece);
        }
        group(Doc::Concat(out))
    }

    /// `receive m(x) from q and guard`: the guard's `and`s break as the
    /// action's guard does, aligned under `receive`.
    fn receive(&self, pair: Pair<'s, Rule>) -> Doc {
        self.spaced(pair, |b, c| {
            (c.as_rule() == Rule::expr).then(|| b.expression(c.clone(), false, false))
        })
    }

    /// A role: its head, then its members a line each, indented.
    fn role(&self, pair: Pair<'s, Rule>) -> Doc {
        let pieces = self.pieces(&pair);
        let open = pieces
            .iter()
            .position(|p| p.is("{"))
            .expect("a role has a body");
        let mut head = Vec::new();
        let mut prev: Option<&Piece> = None;
        for piece in &pieces[..open] {
            match piece {
                Piece::Comment(c) => Self::comment_doc(c, &mut head),
                _ => {
                    if prev.is_some() {
                        head.push(text(" "));
                    }
                    head.push(match piece {
                        Piece::Child(c) => self.doc(c.clone()),
                        Piece::Token(t) => text(*t),
                        Piece::Comment(_) => unreachable!("handled above"),
                    });
                    prev = Some(piece);
                }
            }
        }
        head.push(text(" {"));
        let mut body: Vec<Piece> = pieces.into_iter().skip(open + 1).collect();
        // A comment after the brace stays there.
        if let Some(Piece::Comment(c)) = body.first() {
            if !c.own_line {
                Self::comment_doc(c, &mut head);
                body.remove(0);
            }
        }
        let members = self.lines(body, |p| p.as_rule() == Rule::rbrace);
        Doc::Concat(vec![
            Doc::Concat(head),
            nest(4, Doc::Concat(vec![Doc::Fresh, Doc::Concat(members)])),
            Doc::Fresh,
            text("}"),
        ])
    }

    /// An action: on one line if it fits; else `-> statements` on the next
    /// line, and the guard broken where it must be.
    fn action(&self, pair: Pair<'s, Rule>) -> Doc {
        let mut head = Vec::new();
        let mut guard = Vec::new();
        let mut statements = Vec::new();
        // 0: the head, 1: the guard, 2: the statements.
        let mut part = 0;
        let mut prev: Option<Piece> = None;
        for piece in self.pieces(&pair) {
            let out = match part {
                0 => &mut head,
                1 => &mut guard,
                _ => &mut statements,
            };
            match &piece {
                Piece::Comment(c) => {
                    Self::comment_doc(c, out);
                    continue;
                }
                Piece::Token("::") => {
                    part = 1;
                    prev = None;
                    continue;
                }
                Piece::Child(c) if c.as_rule() == Rule::arrow => {
                    part = 2;
                    prev = None;
                    continue;
                }
                Piece::Child(c) if c.as_rule() == Rule::stmts => {
                    out.push(self.statements(c.clone()))
                }
                Piece::Child(c) => {
                    if let Some(p) = &prev {
                        out.push(text(space(Rule::action, p, &piece)));
                    }
                    out.push(self.doc(c.clone()));
                }
                Piece::Token(t) => {
                    if let Some(p) = &prev {
                        out.push(text(space(Rule::action, p, &piece)));
                    }
                    out.push(text(*t));
                }
            }
            prev = Some(piece);
        }
        group(Doc::Concat(vec![
            Doc::Concat(head),
            text(" :: "),
            align(group(Doc::Concat(guard))),
            nest(
                4,
                Doc::Concat(vec![
                    Doc::Line,
                    text("-> "),
                    align(group(Doc::Concat(statements))),
                ]),
            ),
        ]))
    }

    /// Statements separated by `;` and breaks of the enclosing group.
    fn statements(&self, pair: Pair<'s, Rule>) -> Doc {
        let mut out = Vec::new();
        // A break owed after a `;`, given up where a comment ends the line.
        let mut owed = false;
        for piece in self.pieces(&pair) {
            if let Piece::Comment(c) = &piece {
                if owed && c.own_line {
                    out.push(Doc::Line);
                }
                owed = false;
                Self::comment_doc(c, &mut out);
                continue;
            }
            if std::mem::take(&mut owed) {
                out.push(Doc::Line);
            }
            match piece {
                Piece::Token(";") => {
                    out.push(text(";"));
                    owed = true;
                }
                Piece::Token(t) => out.push(text(t)),
                Piece::Child(c) => out.push(self.doc(c)),
                Piece::Comment(_) => unreachable!("handled above"),
            }
        }
        Doc::Concat(out)
    }

    /// `{ statements }` on one line if it fits (never for a `def`'s body),
    /// else one statement a line, indented.
    fn block(&self, pair: Pair<'s, Rule>, always_broken: bool) -> Doc {
        let mut inner = Vec::new();
        for piece in self.pieces(&pair) {
            match piece {
                Piece::Comment(c) => Self::comment_doc(&c, &mut inner),
                Piece::Token("{") | Piece::Token("}") => {}
                Piece::Token(t) => inner.push(text(t)),
                Piece::Child(c) => inner.push(self.statements(c)),
            }
        }
        if inner.is_empty() {
            return text("{}");
        }
        let open = if always_broken { Doc::Fresh } else { Doc::Line };
        let close = if always_broken { Doc::Fresh } else { Doc::Line };
        group(Doc::Concat(vec![
            text("{"),
            nest(4, Doc::Concat(vec![open, Doc::Concat(inner)])),
            close,
            text("}"),
        ]))
    }
}
