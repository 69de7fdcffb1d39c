//! `guarded check`: a program checked, on an instance where it names one.

use super::*;
use std::ops::ControlFlow;

/// `guarded check`: parses, checks and instantiates the program, then
/// evaluates every guard in its start (declared values, or random ones
/// with the seed), so that what `run` would reject at step 0 is rejected
/// here; warns about `left`/`right` reads in roles with a process that
/// lacks that neighbour.
pub(super) fn check(a: &CheckArgs) -> i32 {
    let loaded = match a.instance.topology {
        Some(_) => load(&a.instance),
        // Parsed and checked once: instantiated on the topology it
        // declares, if it declares one.
        None => match check_without_instance(&a.instance) {
            ControlFlow::Break(code) => return code,
            ControlFlow::Continue((source, checked)) => {
                instantiate_checked(&a.instance, source, checked)
            }
        },
    };
    let l = match loaded {
        Ok(l) => l,
        Err(code) => return code,
    };
    let count = crate::report::counted;
    let prog = &l.inst.prog;
    let actions: usize = prog.roles.iter().map(|r| r.actions.len()).sum();
    let summary = format!(
        "{}: ok ({}, {}, {}; instantiated on {} with {})",
        a.instance.program,
        count(prog.vars.len() as u64, "variable"),
        count(prog.roles.len() as u64, "role"),
        count(actions as u64, "action"),
        l.inst.topo.name,
        count(l.inst.topo.n() as u64, "process")
    );
    warn_about_missing_sides(&l.inst, &a.instance.program, &l.source);
    let overlapping = l.inst.overlapping_actions();
    if !overlapping.is_empty() {
        eprint!(
            "{}",
            crate::diagnostic::render(&overlapping, &a.instance.program, &l.source, plain())
        );
    }
    let start = StartArgs {
        daemon: None,
        init: InitArgs {
            init: None,
            sets: Vec::new(),
            choice: ChoiceArg::First,
        },
    };
    // The program loaded above, not read again.
    match start_loaded(l, None, &a.instance, &start) {
        Ok(_) => {
            println!("{summary}");
            EXIT_OK
        }
        Err(code) => code,
    }
}

/// `guarded check` of a program given no topology: where it declares
/// none, the checks that need no instance (syntax, names, types,
/// locality) and a summary that says which wait for one, and the exit
/// code; where it declares one, the program read and checked, for its
/// instance to be checked as usual.
fn check_without_instance(args: &InstanceArgs) -> ControlFlow<i32, (String, crate::load::Checked)> {
    let source = match crate::load::read_program(&args.program) {
        Ok(s) => s,
        Err(e) => return ControlFlow::Break(report_load_error(&e, &args.program, "")),
    };
    let checked = match crate::load::check(&source) {
        Ok(c) => c,
        Err(e) => return ControlFlow::Break(report_load_error(&e, &args.program, &source)),
    };
    if checked.default_topology().is_some() {
        return ControlFlow::Continue((source, checked));
    }
    warnings::warn_about_precedence_in(&args.program, &source);
    let count = crate::report::counted;
    let (vars, roles, actions) = checked.sizes();
    println!(
        "{}: ok ({}, {}, {}; checked without an instance: the program declares no topology, \
         so what needs one (domains and values with n, the start's guards, actions enabled \
         together) is checked with --topology, e.g. --topology ring:8)",
        args.program,
        count(vars as u64, "variable"),
        count(roles as u64, "role"),
        count(actions as u64, "action"),
    );
    ControlFlow::Break(EXIT_OK)
}
