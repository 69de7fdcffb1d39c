//! Warnings a command prints about the program it loaded: a `mod` that
//! binds tighter than it may have been meant to, DOT values the start will
//! not use, `left`/`right` reads where a process lacks that neighbour, a
//! topology in several parts.

use super::plain;
use crate::load::Instance;
use crate::syntax;

/// Warns, once in a command however many instances it loads (a family of
/// sizes), about each `a + b mod c` written without brackets: `check` is not
/// the only command a user types, and a run that leaves the domain because of
/// it otherwise names only the statement.
pub(super) fn warn_about_precedence(ast: &syntax::ast::Program, program: &str, source: &str) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let warnings = syntax::precedence_warnings(ast, source);
    if warnings.is_empty() || WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    eprint!(
        "{}",
        crate::diagnostic::render(&warnings, program, source, plain())
    );
}

/// Warns as [`warn_about_precedence`] where a command reads the program
/// itself (a sweep, the explorer): a source that does not parse says nothing
/// here, as the command reports it.
pub(super) fn warn_about_precedence_in(program: &str, source: &str) {
    if let Ok(ast) = syntax::parse_program(source) {
        warn_about_precedence(&ast, program, source);
    }
}

/// Warns about values a DOT topology gives that the start will not use: all
/// of them when the start is random, and attributes that name no variable
/// (nor anything Graphviz knows).
pub(super) fn warn_about_dot_values(instance: &Instance, mode: &crate::runtime::init::InitMode) {
    let topo = instance.topology();
    let names_variable = |key: &str| {
        let name = crate::topology::dot::attribute_variable(key).1;
        instance.prog.vars.iter().any(|v| v.name == name)
    };
    let values = topo.attrs.iter().filter(|a| names_variable(&a.1)).count();
    if values > 0 && *mode == crate::runtime::init::InitMode::Random {
        eprintln!(
            "warning: the start is random, so the {values} values `{}` gives are not used (start from them with --init declared)",
            topo.name
        );
    }
    let mut unknown: Vec<&str> = topo
        .attrs
        .iter()
        .map(|a| a.1.as_str())
        .filter(|k| {
            // Edge attributes come as `NAME[Q]`.
            let base = k.split('[').next().unwrap_or(k);
            !names_variable(k) && !crate::export::dot::is_graphviz_attribute(base)
        })
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    if !unknown.is_empty() {
        eprintln!(
            "warning: `{}` has attributes that name no variable of the program: {}",
            topo.name,
            unknown.join(", ")
        );
    }
}

/// Warns, for each role that reads `left` or `right`, about its processes
/// without that neighbour (the ends of a chain): a read that happens there
/// stops the run. A diagnostic pointing at the first such read, as the
/// checker's own warnings are.
pub(super) fn warn_about_missing_sides(inst: &Instance, program: &str, source: &str) {
    let topo = inst.topology();
    let mut warnings = Vec::new();
    for (r, role) in inst.prog.roles.iter().enumerate() {
        for (span, has, sides, word) in [
            (role.reads_left, topo.has_left, topo.lefts(), "left"),
            (role.reads_right, topo.has_right, topo.rights(), "right"),
        ] {
            let Some(span) = span else { continue };
            if !has {
                continue;
            }
            let lacking: Vec<String> = (0..topo.n())
                .filter(|&p| inst.code.role_of.of(p) == r && sides[p] == crate::topology::NONE)
                .map(|p| p.to_string())
                .collect();
            let who = match lacking.as_slice() {
                [] => continue,
                [one] => format!("process {one} has"),
                many => format!("processes {} have", many.join(", ")),
            };
            warnings.push(
                crate::diagnostic::Problem::new(
                    "guarded::check::missing_side",
                    format!(
                        "{who} no `{word}` neighbour on {}, and its role reads `{word}`",
                        topo.name
                    ),
                )
                .label(span, format!("`{word}` is read here"))
                .help(format!(
                    "a read that happens there stops the run: guard it, give the end{} a role of \
                     its own (`process where index == ...`), or run on a ring",
                    if lacking.len() == 1 { "" } else { "s" }
                ))
                .warning(),
            );
        }
    }
    if !warnings.is_empty() {
        eprint!(
            "{}",
            crate::diagnostic::render(&warnings, program, source, plain())
        );
    }
}

/// Warns about a topology that falls apart (a graph from a file or DOT
/// whose edges leave processes unreached): the papers' algorithms assume
/// a connected network, and a process without neighbours stops a run at
/// its first `min` or `argmin` over them, far from the cause.
pub(super) fn warn_about_disconnection(inst: &Instance) {
    let topo = inst.topology();
    let n = topo.n();
    // The families build connected graphs: only a file may fall apart, and
    // the tables below would cost a large ring's start-up for nothing.
    if n < 2 || crate::topology::named_file(&topo.name).is_none() {
        return;
    }
    // Union-find over the arcs, either way (weakly connected components),
    // and which processes an arc touches.
    let mut parent: Vec<usize> = (0..n).collect();
    let mut joined = vec![false; n];
    fn root(parent: &mut [usize], mut p: usize) -> usize {
        while parent[p] != p {
            parent[p] = parent[parent[p]];
            p = parent[p];
        }
        p
    }
    for p in 0..n {
        for &q in topo.nbrs(p) {
            let (a, b) = (root(&mut parent, p), root(&mut parent, q as usize));
            parent[a.max(b)] = a.min(b);
            joined[p] = true;
            joined[q as usize] = true;
        }
    }
    let components = (0..n).filter(|&p| root(&mut parent, p) == p).count();
    // Once a command, which may load its instance twice (`check`).
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if components == 1 || WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let isolated: Vec<String> = (0..n)
        .filter(|&p| !joined[p])
        .map(|p| p.to_string())
        .collect();
    let alone = match isolated.as_slice() {
        [] => String::new(),
        [one] => format!("; process {one} has no neighbour"),
        many => format!("; processes {} have no neighbour", many.join(", ")),
    };
    // An edge list numbers the processes 0 to its largest: a gap in the
    // numbers is a process of its own.
    let numbering = if topo.name.starts_with("file:") && !isolated.is_empty() {
        format!(
            " (an edge list's processes are 0 to its largest number, {})",
            n - 1
        )
    } else {
        String::new()
    };
    eprintln!(
        "warning: `{}` is not connected: {components} parts{alone}{numbering}",
        topo.name
    );
}
