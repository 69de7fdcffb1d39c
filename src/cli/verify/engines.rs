//! `--engine`: which engine explores an instance, and the exploration by
//! the symbolic one.

use super::*;

/// `--engine` of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum EngineArg {
    Explicit,
    Symbolic,
    Auto,
}

/// From how many configurations `--engine auto` takes the symbolic
/// engine: below it the explicit one is as fast or faster, and counts
/// rounds too.
const AUTO_SYMBOLIC_FROM: u128 = 10_000_000;

/// Which engine explores `inst` from `origin`, as `--engine` asks; a
/// refusal where the symbolic engine is asked for and cannot.
pub(super) fn engine(a: &VerifyArgs, inst: &Instance, origin: &Origin) -> Result<Engine, Refusal> {
    let cannot = if !matches!(origin, Origin::Every) {
        Some("it explores every configuration (`--from all`), not what starts reach".to_string())
    } else if a.symmetry {
        Some("it does not explore by orbits (--symmetry)".into())
    } else if a.fairness == Fairness::Weak {
        Some("it does not ask about weak fairness".into())
    } else {
        crate::verify::symbolic_unsupported(inst)
    };
    match (a.engine, cannot) {
        (EngineArg::Explicit, _) => Ok(Engine::Explicit),
        (EngineArg::Symbolic, Some(why)) => Err(Refusal::Unsupported(format!(
            "the symbolic engine cannot take this: {why}; use --engine explicit"
        ))),
        (EngineArg::Symbolic, None) => Ok(Engine::Symbolic),
        (EngineArg::Auto, Some(_)) => Ok(Engine::Explicit),
        (EngineArg::Auto, None) if inst.space().count() >= AUTO_SYMBOLIC_FROM => {
            Ok(Engine::Symbolic)
        }
        (EngineArg::Auto, None) => Ok(Engine::Explicit),
    }
}

/// [`explore`] with the symbolic engine: every configuration as decision
/// diagrams, asked about under each daemon.
pub(super) fn explore_symbolically(
    a: &VerifyArgs,
    inst: &Instance,
    daemons: &[Daemon],
    progress: &dyn Fn(&str, u64, u64) -> bool,
    witness: Option<&Path>,
    mut found: Found,
) -> Result<Found, (Found, Stop)> {
    let made = Symbolic::new(
        inst,
        a.choice.into(),
        crate::memory::limit(),
        Some(progress),
    );
    let mut sym = match made {
        Ok(sym) => sym,
        Err(r) => return Err((found, Stop::Refused(r))),
    };
    sym.count_synchronous_moves(!a.no_rounds);
    found.configurations = Some(u64::try_from(sym.configurations()).unwrap_or(u64::MAX));
    for daemon in daemons {
        found = keep(inst, sym.verify(daemon), witness, found)?;
    }
    Ok(found)
}
