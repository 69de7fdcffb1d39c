//! `guarded export dot` and `export promela`, and the pictures `guarded
//! run` draws on request (`--dot FILE`, `--dot-step K`).

use super::{load, plain, start, usage_error, InstanceArgs, StartArgs, EXIT_INPUT, EXIT_OK};
use crate::diagnostic::{render, Problem};
use crate::export::dot::{configuration, Scene};
use crate::export::promela::{model, PromelaDaemon, Start};
use crate::runtime::engine::Simulation;
use clap::{Args, Subcommand, ValueEnum};

#[derive(Subcommand, Debug)]
pub(super) enum ExportCommand {
    /// The topology of an instance with its initial configuration, as a
    /// Graphviz DOT file (it reads back as `--topology dot:FILE`).
    Dot(DotArgs),
    /// The instance as a Promela model for SPIN: the daemon's steps, the
    /// invariants as assertions, `legitimate:` as the LTL property
    /// `<>[] legitimate`.
    Promela(PromelaArgs),
}

#[derive(Args, Debug)]
pub(super) struct PromelaArgs {
    #[command(flatten)]
    instance: InstanceArgs,
    /// The daemon the model follows.
    #[arg(short, long, value_enum, default_value_t = DaemonArg::Central)]
    daemon: DaemonArg,
    /// Where to start: `all` (any configuration, the default when the program
    /// declares `legitimate:`), `random` (any configuration within the
    /// declared `random` ranges), `declared` (the default otherwise) or an
    /// init file.
    #[arg(long, value_name = "all|random|declared|FILE")]
    from: Option<String>,
    /// Where to write it [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    output: Option<String>,
    /// Which moves a process makes: `every` (any enabled action, any member
    /// of its binder, as `verify` explores them) or `first` (its first
    /// enabled action, as `guarded run` takes it).
    #[arg(long, value_enum, default_value_t = ChoiceArg::Every)]
    choice: ChoiceArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ChoiceArg {
    #[value(alias = "all")]
    Every,
    First,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DaemonArg {
    Central,
    Synchronous,
    Distributed,
    LocallyCentral,
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
        ExportCommand::Promela(p) => promela(p),
    }
}

/// `guarded export promela`.
fn promela(a: &PromelaArgs) -> i32 {
    let mut loaded = match load(&a.instance) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let start = match super::verify::start_from(a.from.as_deref(), &a.instance.program, &mut loaded)
    {
        Ok(super::verify::Origin::At(c)) => Start::At(c),
        Ok(super::verify::Origin::Every) => Start::All,
        Ok(super::verify::Origin::Arbitrary) => Start::Arbitrary,
        Err(code) => return code,
    };
    let (daemon, name) = match a.daemon {
        DaemonArg::Central => (PromelaDaemon::Central, "central"),
        DaemonArg::Synchronous => (PromelaDaemon::Synchronous, "synchronous"),
        DaemonArg::Distributed => (PromelaDaemon::Distributed, "distributed"),
        DaemonArg::LocallyCentral => (PromelaDaemon::LocallyCentral, "locally-central"),
    };
    let inst = &loaded.inst;
    let every = a.choice == ChoiceArg::Every;
    let moves = match (inst.code.may_choose(), every) {
        (false, _) => "",
        (true, true) => ", every move of each process",
        (true, false) => ", each process's first enabled action alone (--choice first)",
    };
    let caption = format!(
        "{} on {} ({}), {name} daemon{moves}, from {}",
        a.instance.program,
        inst.topo.name,
        crate::report::counted(inst.topo.n() as u64, "process"),
        match &start {
            Start::All => "every configuration",
            Start::Arbitrary => "every configuration in the declared `random` ranges",
            Start::At(_) => a.from.as_deref().unwrap_or("declared"),
        }
    );
    let daemon = (daemon, every);
    match model(&inst.prog, &inst.code, &inst.topo, daemon, &start, &caption) {
        Ok(text) => match write_output(a.output.as_deref(), &text) {
            Ok(()) => EXIT_OK,
            Err(code) => code,
        },
        Err(u) => {
            let problem = Problem::new(
                "guarded::export::promela",
                format!("cannot translate {} into Promela", u.message),
            )
            .label_opt(u.span, "here")
            .help(
                u.help
                    .unwrap_or("`guarded verify` explores this instance without translating it"),
            );
            eprint!(
                "{}",
                render(&[problem], &a.instance.program, &loaded.source, plain())
            );
            EXIT_INPUT
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
        Some(p) => {
            std::fs::write(p, text).map_err(|e| usage_error(format!("cannot write `{p}`: {e}")))
        }
    }
}
