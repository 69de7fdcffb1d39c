//! What the language server knows of one document: its diagnostics (the
//! checker's, as the command line prints them), its declarations, and
//! the answers built from them: symbols, hover, definitions, references
//! and completions.

use super::language::{is_keyword, keywords, BUILTINS, FIELDS};
use super::scopes::Names;
use super::text::{occurrences, range, word_at};
use crate::diagnostic::Problem;
use crate::span::Span;
use crate::syntax::ast;
use serde_json::{json, Value};

/// A name the program declares.
struct Decl {
    name: String,
    /// What it is, as hover says it (`variable`, `parameter`, ...).
    kind: &'static str,
    /// The protocol's symbol kind.
    symbol: u32,
    /// The name where it is declared.
    at: Span,
    /// The whole declaration.
    whole: Span,
    /// For an action, its role's place among the roles.
    role: Option<usize>,
}

/// One document, parsed and checked.
pub struct Analysis {
    text: String,
    problems: Vec<Problem>,
    decls: Vec<Decl>,
    roles: Vec<Span>,
    /// The parameters' values on the topology the program declares.
    values: Option<(String, Vec<(String, i64)>)>,
    /// What each name stands for, where the program parses.
    names: Option<Names>,
}

impl Analysis {
    /// Parses and checks `text`; where it checks and names a topology,
    /// instantiates it there for the warnings that need an instance.
    pub fn of(text: String) -> Analysis {
        let mut problems = Vec::new();
        let mut decls = Vec::new();
        let mut roles = Vec::new();
        let mut values = None;
        let mut names = None;
        match crate::syntax::parse_program(&text) {
            Err(p) => problems.push(p),
            Ok(ast) => {
                names = Some(Names::of(&ast));
                declarations(&ast, &text, &mut decls);
                roles = ast.roles.iter().map(role_span).collect();
                problems.extend(crate::syntax::precedence_warnings(&ast, &text));
                match crate::check::check(&ast) {
                    Err(ps) => problems.extend(ps),
                    Ok(_) => {
                        if let Some((warnings, v)) = on_declared_topology(&text) {
                            problems.extend(warnings);
                            values = Some(v);
                        }
                    }
                }
            }
        }
        Analysis {
            text,
            problems,
            decls,
            roles,
            values,
            names,
        }
    }

    /// The document's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The protocol's diagnostics: each problem at its first label, its
    /// message and help line as the command line prints them.
    pub fn diagnostics(&self) -> Value {
        Value::Array(self.problems.iter().map(|p| self.diagnostic(p)).collect())
    }

    /// One problem as the protocol's diagnostic.
    fn diagnostic(&self, p: &Problem) -> Value {
        let at = primary(p);
        let mut message = p.message.clone();
        for (span, label) in p.labels.iter().skip(1) {
            let line = self.text[..span.start.min(self.text.len())]
                .matches('\n')
                .count()
                + 1;
            message += &format!("\n{label} (line {line})");
        }
        if let Some(help) = &p.help {
            message += &format!("\nhelp: {help}");
        }
        json!({
            "range": range(&self.text, at.start, at.end),
            "severity": if p.warning { 2 } else { 1 },
            "code": p.code,
            "source": "guarded",
            "message": message,
        })
    }

    /// The quick fixes of the problems that touch bytes `start..end`: the
    /// edits that do what their help lines say, for the document `uri`.
    pub fn code_actions(&self, uri: &str, start: usize, end: usize) -> Value {
        let mut actions = Vec::new();
        for p in &self.problems {
            let at = primary(p);
            if at.start > end || at.end < start {
                continue;
            }
            for (k, fix) in p.fixes.iter().enumerate() {
                let edit = json!({
                    "range": range(&self.text, fix.span.start, fix.span.end),
                    "newText": fix.replacement,
                });
                actions.push(json!({
                    "title": fix.title,
                    "kind": "quickfix",
                    "isPreferred": k == 0,
                    "diagnostics": [self.diagnostic(p)],
                    "edit": { "changes": { uri: [edit] } },
                }));
            }
        }
        Value::Array(actions)
    }

    /// The declaration of the name at `at`, if the program declares it
    /// (by name alone where the program does not parse).
    fn declaration(&self, at: usize) -> Option<&Decl> {
        match &self.names {
            Some(names) => {
                let symbol = names.at(at).filter(|s| s.bound_by.is_none())?;
                self.decls.iter().find(|d| d.at.start == symbol.decl.start)
            }
            None => {
                let (_, word) = word_at(&self.text, at)?;
                self.decls.iter().find(|d| d.name == word)
            }
        }
    }

    /// Where the name at `at` is declared or bound.
    pub fn definition(&self, at: usize) -> Option<Value> {
        let span = match self.names.as_ref().and_then(|n| n.at(at)) {
            Some(symbol) => symbol.decl,
            None => self.declaration(at)?.at,
        };
        Some(range(&self.text, span.start, span.end))
    }

    /// Every place the name at `at` stands for what it stands for there
    /// (its declaration too with `declaration`); where the program does
    /// not parse, every word spelt like it outside comments.
    pub fn references(&self, at: usize, declaration: bool) -> Vec<Value> {
        let spans: Vec<(usize, usize)> = match &self.names {
            Some(names) => names.at(at).map_or(Vec::new(), |symbol| {
                symbol
                    .places()
                    .into_iter()
                    .filter(|s| declaration || s.start != symbol.decl.start)
                    .map(|s| (s.start, s.end))
                    .collect()
            }),
            None => word_at(&self.text, at).map_or(Vec::new(), |(_, w)| occurrences(&self.text, w)),
        };
        spans
            .into_iter()
            .map(|(s, e)| range(&self.text, s, e))
            .collect()
    }

    /// The name at `at` and the range to rename, if it can be renamed.
    pub fn prepare_rename(&self, at: usize) -> Option<Value> {
        let symbol = self.names.as_ref()?.at(at)?;
        let place = symbol
            .places()
            .into_iter()
            .find(|s| s.start <= at && at <= s.end)?;
        Some(json!({
            "range": range(&self.text, place.start, place.end),
            "placeholder": symbol.name,
        }))
    }

    /// The edits renaming the name at `at` to `new_name` everywhere it
    /// stands for the same thing; else why not.
    pub fn rename(&self, at: usize, new_name: &str) -> Result<Value, String> {
        let Some(names) = &self.names else {
            return Err("the program does not parse: rename once it does".into());
        };
        let checked = !self.problems.iter().any(|p| !p.warning);
        let places = super::rename::places(&self.text, names, at, new_name, checked)?;
        Ok(places
            .into_iter()
            .map(|s| json!({ "range": range(&self.text, s.start, s.end), "newText": new_name }))
            .collect())
    }

    /// What hovering over the name at `at` shows: its declaration and
    /// kind, or a builtin's documentation.
    pub fn hover(&self, at: usize) -> Option<Value> {
        let (start, word) = word_at(&self.text, at)?;
        let markdown = if let Some(d) = self.declaration(at) {
            let written = self.text[d.whole.start..d.whole.end].trim();
            let mut shown = format!("```guarded\n{written}\n```\n{}", d.kind);
            if let Some((topology, values)) = &self.values {
                if let Some((_, v)) = values.iter().find(|(n, _)| *n == d.name) {
                    shown += &format!(": {v} on `{topology}`, the program's topology");
                }
            }
            shown
        } else if let Some((symbol, by)) = self.bound_at(at) {
            let line = self.text[..symbol.decl.start].matches('\n').count() + 1;
            format!("`{}`: {by}, bound on line {line}", symbol.name)
        } else if let Some((name, doc)) = BUILTINS.iter().find(|b| b.0 == word) {
            format!("`{name}`: {doc}")
        } else if is_keyword(word) {
            format!("`{word}`: a keyword (docs/language.md)")
        } else {
            return None;
        };
        Some(json!({
            "contents": { "kind": "markdown", "value": markdown },
            "range": range(&self.text, start, start + word.len()),
        }))
    }

    /// The bound name at `at`, and what binds it.
    fn bound_at(&self, at: usize) -> Option<(&super::scopes::Symbol, &'static str)> {
        let symbol = self.names.as_ref()?.at(at)?;
        Some((symbol, symbol.bound_by?))
    }

    /// Completions at `at`: after `q.` the fields of a process; elsewhere
    /// the names in the program, the bound names visible there, the
    /// builtins and the keywords.
    pub fn completions(&self, at: usize) -> Value {
        let start = word_at(&self.text, at).map_or(at, |(s, _)| s);
        let after_dot = self.text[..start].ends_with('.');
        let mut items = Vec::new();
        let mut add = |label: &str, kind: u32, detail: &str| {
            if !items.iter().any(|i: &Value| i["label"] == label) {
                items.push(json!({ "label": label, "kind": kind, "detail": detail }));
            }
        };
        if !after_dot {
            // The bound names visible here, innermost first (a
            // bound name hides a declared one).
            let bound = self.names.iter().flat_map(|n| n.symbols.iter().rev());
            for s in bound {
                if s.scope.is_some_and(|sc| sc.start <= at && at <= sc.end) {
                    add(&s.name, 6, s.bound_by.unwrap_or_default());
                }
            }
        }
        for d in &self.decls {
            if !after_dot || d.kind.starts_with("variable") {
                add(&d.name, completion_kind(d.symbol), d.kind);
            }
        }
        if after_dot {
            for f in FIELDS {
                add(f, 5, "a field of every process");
            }
        } else {
            for (name, doc) in BUILTINS {
                add(name, 3, doc);
            }
            for k in keywords() {
                add(k, 14, "keyword");
            }
        }
        json!({ "isIncomplete": false, "items": items })
    }

    /// The document's symbols: parameters, variables, definitions,
    /// enumerations, messages, roles with their actions, predicates.
    pub fn symbols(&self) -> Value {
        let symbol = |d: &Decl, children: Vec<Value>| {
            json!({
                "name": d.name,
                "detail": d.kind,
                "kind": d.symbol,
                "range": range(&self.text, d.whole.start, d.whole.end),
                "selectionRange": range(&self.text, d.at.start, d.at.end),
                "children": children,
            })
        };
        let mut out: Vec<Value> = self
            .decls
            .iter()
            .filter(|d| d.role.is_none() && d.symbol != 22)
            .map(|d| symbol(d, Vec::new()))
            .collect();
        for (r, span) in self.roles.iter().enumerate() {
            let actions: Vec<Value> = self
                .decls
                .iter()
                .filter(|d| d.role == Some(r))
                .map(|d| symbol(d, Vec::new()))
                .collect();
            let head = self.text[span.start..span.end]
                .lines()
                .next()
                .unwrap_or("process");
            let head = head.trim_end_matches('{').trim();
            out.push(json!({
                "name": head,
                "kind": 5,
                "range": range(&self.text, span.start, span.end),
                "selectionRange": range(&self.text, span.start, span.start + "process".len()),
                "children": actions,
            }));
        }
        out.sort_by_key(|s| {
            (
                s["range"]["start"]["line"].as_u64(),
                s["range"]["start"]["character"].as_u64(),
            )
        });
        Value::Array(out)
    }

    /// The whole document in the canonical layout, as one edit; nothing
    /// where it is already so or does not parse.
    pub fn formatting(&self) -> Value {
        match crate::syntax::format_program(&self.text) {
            Ok(t) if t != self.text => json!([{
                "range": range(&self.text, 0, self.text.len()),
                "newText": t,
            }]),
            _ => json!([]),
        }
    }
}

/// Where a problem is shown: its first label.
fn primary(p: &Problem) -> Span {
    p.labels.first().map_or(Span::new(0, 0), |l| l.0)
}

/// The completion kind of a symbol kind.
fn completion_kind(symbol: u32) -> u32 {
    match symbol {
        13 => 6,  // variable
        14 => 21, // constant
        12 => 3,  // function
        10 => 13, // enum
        22 => 20, // enum member
        23 => 22, // struct
        6 => 2,   // method
        _ => 1,
    }
}

/// From the start of `at`'s line to the end of the line where `end` is.
fn lines_of(text: &str, at: usize, end: usize) -> Span {
    let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
    let end = text[end..].find('\n').map_or(text.len(), |k| end + k);
    Span::new(start, end)
}

/// A role from its head to its last action.
fn role_span(r: &ast::Role) -> Span {
    let end = r.actions.last().map_or(r.head.end, |a| a.span.end);
    Span::new(r.head.start, end.max(r.head.end))
}

/// Every name `ast` declares, in the order written.
fn declarations(ast: &ast::Program, text: &str, out: &mut Vec<Decl>) {
    let mut add = |name: &ast::Ident, kind: &'static str, symbol: u32, whole: Span, role| {
        out.push(Decl {
            name: name.name.clone(),
            kind,
            symbol,
            at: name.span,
            whole,
            role,
        });
    };
    let line = |s: Span| lines_of(text, s.start, s.end);
    for p in &ast.params {
        add(&p.name, "parameter", 14, line(p.name.span), None);
    }
    for v in &ast.vars {
        let kind = match (v.kind, v.role) {
            (ast::VarKind::Edge, _) => "variable (one per edge)",
            (ast::VarKind::Timer, _) => "variable (a timer)",
            (_, Some(_)) => "variable (of one role's processes)",
            _ => "variable (one per process)",
        };
        add(&v.name, kind, 13, v.span, None);
        for value in v.domain.enum_values() {
            add(value, "enumeration value", 22, v.span, None);
        }
    }
    for e in &ast.enums {
        add(&e.name, "enumeration", 10, line(e.name.span), None);
        for value in &e.values {
            add(value, "enumeration value", 22, line(e.name.span), None);
        }
    }
    for d in &ast.defs {
        add(
            &d.name,
            "definition (expanded where used)",
            12,
            d.span,
            None,
        );
    }
    for m in &ast.messages {
        add(&m.name, "message", 23, line(m.name.span), None);
    }
    for (r, role) in ast.roles.iter().enumerate() {
        for a in &role.actions {
            add(
                &a.label,
                "action",
                6,
                lines_of(text, a.span.start, a.span.end),
                Some(r),
            );
        }
    }
    for (name, e) in &ast.invariants {
        add(
            name,
            "invariant",
            7,
            lines_of(text, name.span.start, e.span().end),
            None,
        );
    }
    for p in &ast.properties {
        add(
            &p.name,
            "property of runs",
            7,
            lines_of(text, p.span.start, p.span.end),
            None,
        );
    }
    for (name, e) in &ast.reports {
        add(
            name,
            "report",
            7,
            lines_of(text, name.span.start, e.span().end),
            None,
        );
    }
}

/// What needs an instance, on the topology the program declares: the
/// warnings (actions that may be enabled together), and the topology with
/// the parameters' values there. Nothing without a topology, or where one
/// cannot be built (a file topology: the server reads no file).
type OnTopology = (Vec<Problem>, (String, Vec<(String, i64)>));

fn on_declared_topology(text: &str) -> Option<OnTopology> {
    let refuse = |path: &str| -> Result<String, String> {
        Err(format!("`{path}`: the language server reads no file"))
    };
    let setup = crate::load::Setup::default();
    let inst = crate::load::load(text, &setup, &refuse).ok()?;
    let topology = inst.prog.topology.as_ref().map(|t| t.0.clone())?;
    Some((
        inst.overlapping_actions(),
        (topology, inst.code.params.clone()),
    ))
}

#[cfg(test)]
mod tests {
    use super::Analysis;

    /// Every program the golden tests hold to be wrong (syntax, types,
    /// locality, instances) answers every request at every place, its
    /// quick fixes included, and each fix's edit lies in the text.
    #[test]
    fn every_place_of_every_wrong_program_answers() {
        for (path, text) in super::super::gc_files("tests/golden/bad") {
            // Some are wrong only on the topology their test gives.
            let a = Analysis::of(text.clone());
            for fix in a.problems.iter().flat_map(|p| &p.fixes) {
                assert!(
                    text.get(fix.span.start..fix.span.end).is_some(),
                    "{}",
                    path.display()
                );
            }
            let actions = a.code_actions("file:///x.gc", 0, text.len());
            assert!(actions.as_array().is_some());
            for (at, _) in text.char_indices() {
                a.hover(at);
                a.completions(at);
                a.references(at, true);
                a.definition(at);
                a.prepare_rename(at);
                let _ = a.rename(at, "fresh_name");
            }
        }
    }

    /// Every request at every place of every bundled program answers
    /// (and a place's name is found where it is declared).
    #[test]
    fn every_place_of_every_program_answers() {
        for (path, text) in super::super::gc_files("programs") {
            let a = Analysis::of(text.clone());
            // Warnings there may be (actions enabled together); no error.
            let errors = a
                .diagnostics()
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["severity"] == 1)
                .count();
            assert_eq!(errors, 0, "{}", path.display());
            assert!(a.symbols().as_array().is_some_and(|s| !s.is_empty()));
            for (at, _) in text.char_indices() {
                a.hover(at);
                a.completions(at);
                a.references(at, true);
                a.prepare_rename(at);
                if let Some(range) = a.definition(at) {
                    // The definition is a name, the one asked about.
                    let start = super::super::text::offset(&text, &range["start"]);
                    let asked = super::super::text::word_at(&text, at).unwrap().1;
                    assert!(text[start..].starts_with(asked), "{asked}");
                }
            }
        }
    }

    /// Every name of every bundled program stands for a declaration or a
    /// binder, or is the language's own (a topology's kind, a message's
    /// field as declared: neither is a name a program uses).
    #[test]
    fn every_name_of_every_program_resolves() {
        use super::super::language::{is_keyword, BUILTINS, FIELDS};
        use super::super::text::{is_word, word_at};
        for (path, text) in super::super::gc_files("programs") {
            let ast = crate::syntax::parse_program(&text).unwrap();
            let names = super::Names::of(&ast);
            let mut own: Vec<String> = ["ring", "uring", "chain", "tree"].map(String::from).into();
            for m in &ast.messages {
                own.extend(m.fields.iter().map(|f| f.0.name.clone()));
            }
            let mut at = 0;
            while at < text.len() {
                if text[at..].starts_with("//") {
                    at += text[at..].find('\n').unwrap_or(text.len() - at);
                    continue;
                }
                let Some((start, word)) = word_at(&text, at).filter(|&(s, _)| s == at) else {
                    at += text[at..].chars().next().map_or(1, char::len_utf8);
                    continue;
                };
                let known = is_keyword(word)
                    || FIELDS.contains(&word)
                    || BUILTINS.iter().any(|b| b.0 == word)
                    || own.iter().any(|o| o == word)
                    || word.starts_with(|c: char| c.is_ascii_digit());
                let resolved = names.at(start).is_some_and(|s| s.name == word);
                assert!(known || resolved, "{}: `{word}` at {start}", path.display());
                at = start + word.len().max(1);
                while at < text.len() && is_word(text.as_bytes()[at] as char) {
                    at += 1;
                }
            }
        }
    }

    /// A fix does what the help line says and nothing else: where the
    /// help is about something other than spelling (`procs.x`, which is a
    /// word at distance 2 from `process`), no respelling is offered.
    #[test]
    fn quick_fixes_agree_with_the_help_line() {
        let head = "topology ring:3\nvar x: 0..3 = 0\nprocess {\n    a :: x == 0 -> x := 1\n}\n";
        for tail in ["legitimate: procs.x == 1\n", "legitimate: nbrs.x == 1\n"] {
            let a = Analysis::of(format!("{head}{tail}"));
            let problem = a.problems.first().expect("a syntax error");
            assert!(
                problem
                    .help
                    .as_deref()
                    .unwrap_or("")
                    .contains("is a collection"),
                "{tail:?}: {:?}",
                problem.help
            );
            assert!(problem.fixes.is_empty(), "{tail:?}: {:?}", problem.fixes);
        }
    }

    /// Each slip with a quick fix: the first fix applied, the program
    /// parses and checks, with no warning left.
    #[test]
    fn quick_fixes_mend_the_slips_they_are_offered_for() {
        let head = "topology ring:3\nvar x: 0..3 = 0\nvar b: bool = false\n";
        let slips = [
            (
                "process {\n    a :: x = 0 -> x := 1\n}\n",
                "Replace `=` with `==`",
            ),
            (
                "process {\n    a :: x == 0 -> x = 1\n}\n",
                "Replace `=` with `:=`",
            ),
            (
                "# a note\nprocess {\n    a :: x == 0 -> x := 1\n}\n",
                "Write the comment with `//`",
            ),
            (
                "process {\n    a :: x == 0 -> x := 1;\n    c :: x == 1 -> x := 2\n}\n",
                "Remove the `;` that ends the action",
            ),
            (
                "process {\n    a :: x == 0 -> x := 1\n        b := true\n}\n",
                "Add `;` between the statements",
            ),
            (
                "proces {\n    a :: x == 0 -> x := 1\n}\n",
                "Replace `proces` with `process`",
            ),
            (
                "process {\n    a :: x == 0 -> x := 1; b := 0\n}\n",
                "Write `false`",
            ),
            (
                "process {\n    a :: x == 0 -> x := x + 1 mod 3\n}\n",
                "Wrap the sum round: `(x + 1) mod 3`",
            ),
        ];
        for (body, title) in slips {
            let text = format!("{head}{body}");
            let a = Analysis::of(text.clone());
            let fix = a
                .problems
                .iter()
                .flat_map(|p| &p.fixes)
                .next()
                .unwrap_or_else(|| panic!("no fix for {body:?}: {:?}", a.problems));
            assert_eq!(fix.title, title, "{body:?}");
            let mended = format!(
                "{}{}{}",
                &text[..fix.span.start],
                fix.replacement,
                &text[fix.span.end..]
            );
            let after = Analysis::of(mended.clone());
            assert!(after.problems.is_empty(), "{mended}: {:?}", after.problems);
        }
    }
}
