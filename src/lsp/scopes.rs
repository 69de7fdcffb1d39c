//! Which declaration each name in a document stands for, by the
//! checker's scoping: a bound name (a quantifier's, a set's, a `for`
//! loop's, an action's binder, a received message's fields and sender, a
//! definition's parameters, the process a property is said of) hides
//! what the program declares, from the innermost binder out; other names
//! are the program's declarations, whatever their place. So `q` in two
//! quantifiers is two names, and a variable's references are its reads
//! and writes (`x`, `q.x`, `x := ...`), not every word spelt like it.
//! Built from the syntax tree alone: it answers while the program does
//! not yet check. One difference: a definition's free names are taken
//! here for the program's declarations, where the checker reads them at
//! each use, so a binder of the same name around a use captures them
//! (`def low = q == 0` in `exists(q in nbrs : low)`); [`Names`] records
//! both sides, so that a rename never makes the two readings part.

use crate::span::Span;
use crate::syntax::ast::{Collection, DefBody, Domain, Expr, Ident, Program, Receive, Stmt};
use std::collections::{HashMap, HashSet};

/// One declared or bound name, and where it is used.
pub struct Symbol {
    /// The name.
    pub name: String,
    /// Where it is declared or bound.
    pub decl: Span,
    /// Where it is used (reads, writes, sends, definitions' uses).
    pub uses: Vec<Span>,
    /// For a bound name, what binds it (hover says so); `None` for the
    /// program's declarations.
    pub bound_by: Option<&'static str>,
    /// For a bound name, the text it is visible in (completion offers it
    /// there).
    pub scope: Option<Span>,
    /// Whether it is an action's label (labels are apart from other
    /// names, and roles may repeat one).
    pub label: bool,
}

impl Symbol {
    /// The declaration and every use, in the order written.
    pub fn places(&self) -> Vec<Span> {
        let mut all: Vec<Span> = std::iter::once(self.decl)
            .chain(self.uses.iter().copied())
            .collect();
        // Spans compare equal whatever their places (syntax trees compare
        // so): compare the places.
        all.sort_by_key(|s| s.start);
        all.dedup_by_key(|s| s.start);
        all
    }
}

/// Every name of a document resolved.
pub struct Names {
    /// The declarations and labels (in the order written), then the
    /// bound names (in the order met).
    pub symbols: Vec<Symbol>,
    /// The names definitions' bodies read without binding them.
    pub free_in_definitions: HashSet<String>,
    /// Every name some binder binds.
    pub bound_names: HashSet<String>,
}

impl Names {
    /// Resolves every name of `program`.
    pub fn of(program: &Program) -> Names {
        let mut r = Resolver::default();
        r.declare_globals(program);
        r.program(program);
        Names {
            symbols: r.symbols,
            free_in_definitions: r.free_in_definitions,
            bound_names: r.bound_names,
        }
    }

    /// The name declared or used at byte `at`: the one it is in, else
    /// the one it ends (the caret just after a name is on it).
    pub fn at(&self, at: usize) -> Option<&Symbol> {
        let find = |on: &dyn Fn(&Span) -> bool| {
            self.symbols
                .iter()
                .find(|s| on(&s.decl) || s.uses.iter().any(on))
        };
        find(&|s| s.start <= at && at < s.end).or_else(|| find(&|s| s.end == at))
    }
}

#[derive(Default)]
struct Resolver {
    symbols: Vec<Symbol>,
    /// The program's declarations by name (the first, where the checker
    /// refuses a second).
    globals: HashMap<String, usize>,
    /// The names bound where the walk is, innermost last.
    bound: Vec<(String, usize)>,
    /// Whether the walk is in a definition's body.
    in_definition: bool,
    free_in_definitions: HashSet<String>,
    bound_names: HashSet<String>,
}

impl Resolver {
    fn symbol(&mut self, id: &Ident, bound_by: Option<&'static str>) -> usize {
        self.symbols.push(Symbol {
            name: id.name.clone(),
            decl: id.span,
            uses: Vec::new(),
            bound_by,
            scope: None,
            label: false,
        });
        self.symbols.len() - 1
    }

    fn global(&mut self, id: &Ident) {
        let k = self.symbol(id, None);
        self.globals.entry(id.name.clone()).or_insert(k);
    }

    fn declare_globals(&mut self, p: &Program) {
        for x in &p.params {
            self.global(&x.name);
        }
        for e in &p.enums {
            self.global(&e.name);
            e.values.iter().for_each(|v| self.global(v));
        }
        for v in &p.vars {
            self.global(&v.name);
            v.domain.enum_values().iter().for_each(|v| self.global(v));
        }
        p.defs.iter().for_each(|d| self.global(&d.name));
        p.messages.iter().for_each(|m| self.global(&m.name));
        for role in &p.roles {
            // A label names its own action only (roles may repeat one).
            for a in &role.actions {
                let k = self.symbol(&a.label, None);
                self.symbols[k].label = true;
            }
        }
        for (name, _) in p.invariants.iter().chain(&p.reports) {
            self.global(name);
        }
        p.properties.iter().for_each(|x| self.global(&x.name));
    }

    fn program(&mut self, p: &Program) {
        p.params.iter().for_each(|x| self.expr(&x.default));
        for v in &p.vars {
            self.domain(&v.domain);
            v.init.iter().for_each(|e| self.expr(e));
            if let Some((lo, hi)) = &v.random {
                self.expr(lo);
                self.expr(hi);
            }
        }
        for m in &p.messages {
            m.fields.iter().for_each(|(_, d)| self.domain(d));
        }
        for c in &p.capacity {
            self.expr(&c.capacity);
            for (lo, hi) in c.random.iter().chain(&c.delay) {
                self.expr(lo);
                self.expr(hi);
            }
        }
        for d in &p.defs {
            let mark = self.bind_all(&d.params, "a parameter of the definition", d.span);
            self.in_definition = true;
            match &d.body {
                DefBody::Expr(e) => self.expr(e),
                DefBody::Stmt(s) => self.stmt(s),
            }
            self.in_definition = false;
            self.bound.truncate(mark);
        }
        for role in &p.roles {
            role.selector.iter().for_each(|e| self.expr(e));
            for a in &role.actions {
                a.priority.iter().for_each(|e| self.expr(e));
                let mark = self.bound.len();
                if let Some((q, c)) = &a.binder {
                    self.collection(c);
                    self.bind(
                        q,
                        "the action's binder (`for q in ...`): any member",
                        a.span,
                    );
                }
                if let Some(r) = &a.receive {
                    self.receive(r, a.span);
                }
                self.expr(&a.guard);
                self.stmt(&a.body);
                self.bound.truncate(mark);
            }
        }
        let predicates = p.invariants.iter().chain(&p.reports).map(|(_, e)| e);
        p.legitimate
            .iter()
            .chain(predicates)
            .for_each(|e| self.expr(e));
        for x in &p.properties {
            let mark = self.bound.len();
            if let Some(each) = &x.each {
                self.bind(
                    each,
                    "the process the property is said of, each in turn",
                    x.span,
                );
            }
            x.form.predicates().into_iter().for_each(|e| self.expr(e));
            self.bound.truncate(mark);
        }
    }

    fn bind(&mut self, id: &Ident, by: &'static str, scope: Span) {
        let k = self.symbol(id, Some(by));
        self.bound_names.insert(id.name.clone());
        self.symbols[k].scope = Some(scope);
        self.bound.push((id.name.clone(), k));
    }

    /// Binds each of `ids`; the mark to truncate the bound names to.
    fn bind_all(&mut self, ids: &[Ident], by: &'static str, scope: Span) -> usize {
        let mark = self.bound.len();
        ids.iter().for_each(|id| self.bind(id, by, scope));
        mark
    }

    fn receive(&mut self, r: &Receive, scope: Span) {
        self.use_global(&r.message);
        self.bind_all(&r.fields, "a field of the received message", scope);
        self.bind(&r.from, "the sender of the received message", scope);
    }

    /// A use of `id`: the innermost bound name so called, else the
    /// declaration; nothing for the language's own names.
    fn use_name(&mut self, id: &Ident) {
        match self.bound.iter().rev().find(|(n, _)| *n == id.name) {
            Some(&(_, k)) => self.symbols[k].uses.push(id.span),
            None => {
                if self.in_definition {
                    self.free_in_definitions.insert(id.name.clone());
                }
                self.use_global(id)
            }
        }
    }

    fn use_global(&mut self, id: &Ident) {
        if let Some(&k) = self.globals.get(&id.name) {
            self.symbols[k].uses.push(id.span);
        }
    }

    fn domain(&mut self, d: &Domain) {
        match d {
            Domain::Range(lo, hi) => {
                self.expr(lo);
                self.expr(hi);
            }
            Domain::Named(id) => self.use_global(id),
            Domain::Array(len, inner, _) => {
                len.iter().for_each(|e| self.expr(e));
                self.domain(inner);
            }
            Domain::Bool(_) | Domain::Node(_) | Domain::Enum(..) => {}
        }
    }

    fn collection(&mut self, c: &Collection) {
        match c {
            Collection::Nbrs(of) => of.iter().for_each(|e| self.expr(e)),
            Collection::Procs => {}
            Collection::Range(lo, hi) => {
                self.expr(lo);
                self.expr(hi);
            }
            Collection::Set(e) => self.expr(e),
        }
    }

    /// `collection`, then `body` with `id` bound.
    fn binding(&mut self, id: &Ident, c: &Collection, by: &'static str, body: &Expr) {
        self.collection(c);
        let mark = self.bound.len();
        self.bind(id, by, body.span());
        self.expr(body);
        self.bound.truncate(mark);
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Int(..) | Expr::Bool(..) => {}
            Expr::Name(id) => self.use_name(id),
            // A field is a variable, or a one-parameter definition
            // (`q.key` is `key(q)`).
            Expr::Field(base, field, _) => {
                self.expr(base);
                self.use_global(field);
            }
            Expr::Call(f, args, _) => {
                self.use_name(f);
                args.iter().for_each(|a| self.expr(a));
            }
            Expr::Unary(_, a, _) => self.expr(a),
            Expr::Binary(_, a, b, _) | Expr::Index(a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Quant(_, id, c, body, _) => self.binding(id, c, "a quantifier's variable", body),
            Expr::Set(id, c, body, _) => self.binding(id, c, "a set's member", body),
            Expr::Tuple(items, _) | Expr::Edge(items, _) => {
                items.iter().for_each(|a| self.expr(a));
            }
            Expr::Acyclic(p, q, body, _) => {
                let mark = self.bound.len();
                self.bind(p, "the tail of an arc (`acyclic`)", body.span());
                self.bind(q, "the head of an arc (`acyclic`)", body.span());
                self.expr(body);
                self.bound.truncate(mark);
            }
            Expr::Cond(c, a, b, _) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            Expr::Random(from, _) => {
                if let Some(c) = from {
                    self.collection(c);
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Skip(_) => {}
            Stmt::Assign(targets, values, _) => {
                for t in targets {
                    self.use_global(&t.name);
                    t.index.iter().for_each(|e| self.expr(e));
                }
                values.iter().for_each(|e| self.expr(e));
            }
            Stmt::For(id, c, body, whole) => {
                self.collection(c);
                let mark = self.bound.len();
                self.bind(id, "a `for` loop's variable", *whole);
                self.stmt(body);
                self.bound.truncate(mark);
            }
            Stmt::Send(m, args, to, _) => {
                self.use_global(m);
                args.iter().for_each(|a| self.expr(a));
                self.expr(to);
            }
            Stmt::Call(f, args, _) => {
                self.use_global(f);
                args.iter().for_each(|a| self.expr(a));
            }
            Stmt::Seq(items, _) => items.iter().for_each(|s| self.stmt(s)),
            Stmt::If(c, then, otherwise, _) => {
                self.expr(c);
                self.stmt(then);
                otherwise.iter().for_each(|s| self.stmt(s));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Names {
        Names::of(&crate::syntax::parse_program(text).unwrap())
    }

    /// The text of each place of the name at the `k`-th `needle`.
    /// The `k`-th `needle`, `skip` bytes on.
    fn places(text: &str, needle: &str, k: usize, skip: usize) -> Vec<usize> {
        let at = text.match_indices(needle).nth(k).unwrap().0 + skip;
        let n = names(text);
        let s = n.at(at).unwrap();
        s.places().iter().map(|p| p.start).collect()
    }

    #[test]
    fn a_bound_name_hides_a_variable_of_the_same_name() {
        let text =
            "var p: 0..3 = 0\nprocess {\n    a :: forall(p in nbrs : p.p == 0) -> p := 1\n}\n\
                    legitimate: forall(p in procs : p.p == 0)\n";
        // The variable: its declaration, the two fields and the write.
        let var = places(text, "p", 0, 0);
        assert_eq!(var.len(), 4, "{var:?}");
        // The quantifier's `p`: where it is bound and its one use.
        let bound = places(text, "(p in nbrs", 0, 1);
        assert_eq!(bound.len(), 2);
        assert!(var.iter().all(|v| !bound.contains(v)));
    }

    #[test]
    fn parameters_fields_and_receives_resolve() {
        let text = "message find(o: 0..3)\nchannel capacity 2\ndef key(P) = (P.x, P.id)\n\
                    var x: 0..3 = 0\nprocess {\n    f :: receive find(o) from q and q.key < key(self) -> x := o; send find(x) to q\n}\n";
        // `key` declared, used as a field and called.
        assert_eq!(places(text, "key", 0, 0).len(), 3);
        // The definition's `P`: bound and used twice.
        assert_eq!(places(text, "P", 0, 0).len(), 3);
        // The received field `o` (not the message field's name).
        assert_eq!(places(text, "(o)", 0, 1).len(), 2);
        // The message: declared, received and sent.
        assert_eq!(places(text, "find", 0, 0).len(), 3);
        // The sender `q`.
        assert_eq!(places(text, "from q", 0, 5).len(), 3);
    }
}
