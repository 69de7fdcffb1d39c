//! `guarded export dot`, and the pictures `guarded run` draws on request
//! (`--dot FILE`, `--dot-step K`).

use super::{start, usage_error, InstanceArgs, StartArgs, EXIT_OK, EXIT_USAGE};
use crate::export::dot::{configuration, Scene};
use crate::runtime::engine::Simulation;
use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub(super) enum ExportCommand {
    /// The topology of an instance with its initial configuration, as a
    /// Graphviz DOT file (it reads back as `--topology dot:FILE`).
    Dot(DotArgs),
}

#[derive(Args, Debug)]
pub(super) struct ExportArgs {
    #[command(subcommand)]
    what: ExportCommand,
}

#[derive(Args, Debug)]
pub(super) struct DotArgs {
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Where to write it [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    output: Option<String>,
}

/// Runs `guarded export`.
pub(super) fn export(a: &ExportArgs) -> i32 {
    match &a.what {
        ExportCommand::Dot(d) => {
            let s = match start(&d.instance, &d.start) {
                Ok(s) => s,
                Err(code) => return code,
            };
            let caption = caption(&s.sim, &d.instance.program, d.instance.seed);
            match write_output(d.output.as_deref(), &dot_of(&s.sim, caption)) {
                Ok(()) => EXIT_OK,
                Err(code) => code,
            }
        }
    }
}

/// What a picture of `sim` now shows, in a line.
pub(super) fn caption(sim: &Simulation, program: &str, seed: u64) -> String {
    let now = sim.now();
    format!(
        "{program} on {}, step {} (moves {}, round {}), {} daemon, seed {seed}",
        sim.topo.name,
        now.step,
        now.moves,
        now.round,
        sim.daemon.name()
    )
}

/// The configuration of `sim` now as DOT, its enabled processes and last
/// movers marked.
pub(super) fn dot_of(sim: &Simulation, caption: String) -> String {
    let config = sim.config();
    let mut enabled = sim.enabled().to_vec();
    enabled.sort_unstable();
    let movers = if sim.now().step == 0 {
        Vec::new()
    } else {
        sim.last().movers().to_vec()
    };
    configuration(&Scene {
        prog: &sim.prog,
        code: &sim.code,
        topo: &sim.topo,
        config: &config,
        enabled: &enabled,
        movers: &movers,
        caption,
    })
}

/// Writes `text` to `path`, or to standard output without one.
pub(super) fn write_output(path: Option<&str>, text: &str) -> Result<(), i32> {
    match path {
        None | Some("-") => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            Ok(())
        }
        Some(p) => std::fs::write(p, text).map_err(|e| {
            usage_error(format!("cannot write `{p}`: {e}"));
            EXIT_USAGE
        }),
    }
}
