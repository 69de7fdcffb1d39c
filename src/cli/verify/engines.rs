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
/// refusal where the symbolic engine is asked for and cannot. `auto`
/// goes by the configurations it knows it explores: every one, or from
/// the arbitrary starts those starts (what they reach is not known before
/// it is explored); from one start, the explicit engine.
pub(super) fn engine(a: &VerifyArgs, inst: &Instance, origin: &Origin) -> Result<Engine, Refusal> {
    let cannot = if a.symmetry {
        Some("it does not explore by orbits (--symmetry)".to_string())
    } else if a.fairness == FairnessArg::Strong {
        Some("it decides weak fairness only (--fairness strong)".to_string())
    } else {
        crate::verify::symbolic_unsupported(inst, origin.is_from_starts())
    };
    match (a.engine, cannot) {
        (EngineArg::Explicit, _) => Ok(Engine::Explicit),
        (EngineArg::Symbolic, Some(why)) => Err(Refusal::Unsupported(format!(
            "the symbolic engine cannot take this: {why}; use --engine explicit"
        ))),
        (EngineArg::Symbolic, None) => Ok(Engine::Symbolic),
        (EngineArg::Auto, Some(_)) => Ok(Engine::Explicit),
        (EngineArg::Auto, None) => {
            let known = match origin {
                Origin::Every => inst.space().count(),
                Origin::Arbitrary => inst.arbitrary_space().count(),
                Origin::At(_) => 1,
            };
            Ok(match known >= AUTO_SYMBOLIC_FROM {
                true => Engine::Symbolic,
                false => Engine::Explicit,
            })
        }
    }
}

/// [`explore`] with the symbolic engine: every configuration as decision
/// diagrams, asked about under each daemon (from every configuration, or
/// from what the starts `origin` names reach under it).
pub(super) fn explore_symbolically(
    a: &VerifyArgs,
    inst: &Instance,
    origin: &Origin,
    daemons: &[Daemon],
    progress: Progress,
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
    sym.check_properties(!a.no_properties);
    let starts = match origin {
        Origin::Every => {
            found.configurations = Some(u64::try_from(sym.configurations()).unwrap_or(u64::MAX));
            None
        }
        // The decision diagrams take no messages: the rows alone.
        Origin::Arbitrary => Some(Starts::Every(inst.arbitrary_space())),
        Origin::At(cfg) => Some(Starts::One(cfg.clone())),
    };
    for daemon in daemons {
        let verdict = sym.verify_from(daemon, starts.as_ref(), a.fairness.into());
        found = keep(inst, verdict, witness, found)?;
    }
    Ok(found)
}
