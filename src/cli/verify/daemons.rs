//! Which daemons `guarded verify` explores: those `--daemon` names, or
//! `ticks` alone for a program that runs in ticks.

use super::{usage_error, VerifyArgs};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;

/// The daemons verified when `--daemon all` (the default).
const ALL: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

/// The daemons to explore `inst` under: those `--daemon` named, or for a
/// program that runs in ticks, `ticks` alone (where `--daemon` was left at
/// `all` or named it). What ticks do not support is refused by name.
pub(super) fn daemons_for_time(
    a: &VerifyArgs,
    inst: &Instance,
    named: Vec<Daemon>,
) -> Result<Vec<Daemon>, i32> {
    if !inst.runs_in_ticks() {
        return match named.contains(&Daemon::Ticks) {
            true => Err(usage_error(
                Daemon::Ticks.check_time(false).expect_err("refused"),
            )),
            false => Ok(named),
        };
    }
    if a.daemon != "all" && named != [Daemon::Ticks] {
        let other = named
            .iter()
            .find(|d| **d != Daemon::Ticks)
            .unwrap_or(&Daemon::Central);
        return Err(usage_error(other.check_time(true).expect_err("refused")));
    }
    let refuse = |what: &str| {
        Err(usage_error(format!("{what} is not available for a program that runs in ticks (its channels declare a `delay`)")))
    };
    if a.symmetry {
        return refuse("--symmetry");
    }
    Ok(vec![Daemon::Ticks])
}

/// The daemons `--daemon` names: one, a comma-separated list (each once,
/// in the order given), or `all`.
pub(super) fn daemons(names: &str) -> Result<Vec<Daemon>, i32> {
    if names == "all" {
        return Ok(ALL.to_vec());
    }
    let mut out: Vec<Daemon> = Vec::new();
    for name in names.split(',').map(str::trim) {
        if name == "ticks" {
            if !out.contains(&Daemon::Ticks) {
                out.push(Daemon::Ticks);
            }
            continue;
        }
        if name.starts_with("schedule") {
            return Err(usage_error(
                "verify explores every run a daemon allows; a schedule is one run: replay it with `guarded run`".into(),
            ));
        }
        let found = ALL
            .iter()
            .find(|d| d.name() == name || (name == "sync" && **d == Daemon::Synchronous));
        match found {
            Some(d) if !out.contains(d) => out.push(d.clone()),
            Some(_) => {}
            None => {
                let names = ALL.iter().map(|d| d.name()).chain(["all"]);
                let hint = crate::diagnostic::suggest(name, names)
                    .map_or(String::new(), |h| format!(" (did you mean `{h}`?)"));
                return Err(usage_error(format!(
                    "unknown daemon `{name}`{hint}; use central, locally-central, distributed, synchronous, a comma-separated list of them, or all"
                )));
            }
        }
    }
    Ok(out)
}
