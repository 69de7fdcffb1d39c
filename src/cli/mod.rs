//! The command-line front end: `guarded check` and `repl` (here), `run`
//! (in `run.rs`), `explore` (in `explore.rs`, serving `crate::explore`),
//! `verify` (in `verify/`), `sweep` (in `sweep.rs`) and `export` (in
//! `export.rs`). Parses flags with clap, drives the pipeline,
//! renders diagnostics, prints traces and the summary.
//!
//! Exit codes: 0 success; 1 the program, a configuration or schedule file
//! is wrong; 2 the command line is wrong; 3 a runtime error in the program
//! (out-of-domain assignment, division by zero, bad schedule line);
//! 4 an invariant was violated; 5 `verify` found a property that does not
//! hold; 6 `run --expect`: the run did not end as expected.

use crate::report as output;

mod check;
mod explore;
mod export;
mod flag_tips;
mod fmt;
mod run;
mod sweep;
mod test;
mod verify;
mod warnings;
use warnings::{
    warn_about_disconnection, warn_about_dot_values, warn_about_missing_sides,
    warn_about_precedence,
};

use crate::load::{Instance, LoadError, Setup};
use crate::runtime::daemon::{Daemon, DaemonError};
use crate::runtime::engine::{Choice, Simulation};
use crate::runtime::run::Limits;
use crate::syntax;
use crate::topology::Ids;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;

pub use crate::report::exit::{EXIT_INPUT, EXIT_INVARIANT, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE};

/// `run --expect`: the run did not end as expected.
pub const EXIT_UNEXPECTED: i32 = 6;

const EXIT_CODES: &str = "Exit codes: 0 success; 1 the program or an input file is wrong \
(not text, a syntax or type error, a bad line); 2 the command line is wrong (a bad flag, or a \
file it names that cannot be read or is too large); 3 runtime error in the program; 4 an \
invariant was violated; 5 verify: a property does not hold; 6 run --expect: the run did not end \
as expected.";

#[derive(Parser, Debug)]
#[command(name = "guarded", version, about = "Run distributed algorithms written as guarded commands", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a program on a topology under a daemon and report the measures.
    #[command(after_help = EXIT_CODES)]
    Run(run::RunArgs),
    /// Step through a run interactively: fire processes, inject faults, go back.
    #[command(
        after_help = "Type `help` at the prompt for the commands. Standard input that is not a terminal is read line by line, without prompts."
    )]
    Repl(ReplArgs),
    /// Parse and check a program, instantiate it on its topology and evaluate its guards at
    /// the start, without running it (a program that declares no topology, given no
    /// --topology, is checked without an instance, and the summary says so).
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Explore every configuration of a small instance under each daemon: invariants,
    /// closure and convergence of `legitimate:`, the exact worst case or a shortest
    /// counterexample.
    #[command(after_help = EXIT_CODES)]
    Verify(verify::VerifyArgs),
    /// The expected time to legitimacy where runs draw (the daemon's movers, the values of
    /// `random(...)`): whether it is reached with probability 1, and the expected steps,
    /// moves and rounds from the worst start, the declared one, and on average.
    #[command(after_help = EXIT_CODES)]
    Expect(verify::ExpectArgs),
    /// Run a program many times over sizes, topologies, daemons, parameter
    /// values and seeds, in parallel: one CSV row per run, a summary of the
    /// measures to stabilization per size, and a plot of their growth.
    Sweep(sweep::SweepArgs),
    /// Explore an instance in the browser: choose each move among those the daemon allows,
    /// go back and branch, evaluate expressions, edit the program, verify it and walk its
    /// counterexamples.
    #[command(after_help = EXIT_CODES)]
    Explore(explore::ExploreArgs),
    /// Lay programs out canonically (in place, or standard input to output); `--check`
    /// shows what would change and fails if anything would.
    #[command(after_help = EXIT_CODES)]
    Fmt(fmt::FmtArgs),
    /// A language server (LSP) on standard input and output, for editors: diagnostics as
    /// you type, hover, definitions, references, completion, symbols and formatting.
    Lsp,
    /// Write an instance for another tool: `dot` (Graphviz) or `promela` (SPIN).
    Export(export::ExportArgs),
    /// Golden-output tests of your programs: run each `.test` file's `guarded` command
    /// again and compare its exit status and output byte for byte with those kept in it
    /// (`--bless` keeps them).
    #[command(
        after_help = "A `.test` file: `#` comments, then one line `$ guarded COMMAND ARGS...` (run in the file's folder, quotes as a shell takes them), then optionally `--- stdin` and the lines the command reads (a REPL script); `--bless` adds the rest (`--- exit N`, `--- stdout`, `--- stderr`).\n\nExit codes: 0 every test passed; 1 a test failed or its file is wrong; 2 the command line is wrong or no test was found."
    )]
    Test(test::TestArgs),
}

/// How the program is instantiated: shared by `run` and `check`.
#[derive(Args, Debug, Clone)]
struct InstanceArgs {
    /// The program (a `.gc` file).
    program: String,
    #[arg(short, long, value_name = "SPEC", help = topology_help())]
    topology: Option<String>,
    /// Process ids: index, random (a permutation of 0..n-1), random:LO..HI, or a list 6,7,4,...
    #[arg(long, default_value = "index", value_parser = parse_ids)]
    ids: Ids,
    /// Override a parameter: NAME=VALUE, the value an integer or a formula of n
    /// (`K=n`, `K=2*n-1`; repeatable).
    #[arg(short, long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, ParamValue)>,
    /// Seed of the one random generator (topology, ids, initial values, daemon).
    #[arg(short, long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    memory: MemoryArgs,
}

/// The memory budget: shared by every command that builds an instance.
#[derive(Args, Debug, Clone)]
struct MemoryArgs {
    /// The most the instance may take (topology, configuration, messages in
    /// transit), estimated before building it: bytes, or 512M, 8G, ...
    /// [default: 8G, or what `ulimit -v`, the cgroup or the system leaves
    /// this process, whichever is smaller]
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    memory_limit: Option<u64>,
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    instance: InstanceArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Until {
    /// Stop when no process is enabled (or at a limit).
    Silent,
    /// Stop as soon as the legitimacy predicate holds.
    Legitimate,
}

/// How a run starts: shared by `run` and `repl`.
#[derive(Args, Debug)]
struct StartArgs {
    #[arg(short, long, value_name = "DAEMON", help = daemon_help())]
    daemon: Option<String>,
    #[command(flatten)]
    init: InitArgs,
}

/// The initial configuration and the choice among enabled actions: shared
/// by `run`, `repl` and `sweep`.
#[derive(Args, Debug)]
struct InitArgs {
    /// Initial configuration: declared, random, or a file of `PROCESS.VAR = VALUE` lines
    /// [default: declared when every variable has a declared value, random otherwise]
    #[arg(short, long, value_name = "MODE|FILE")]
    init: Option<String>,
    /// Set one initial value: PROCESS.VAR=VALUE (`*` for every process; repeatable).
    #[arg(long = "set", value_name = "P.VAR=VALUE")]
    sets: Vec<String>,
    /// Among several enabled actions of one process, run the first or a random one.
    #[arg(long, value_enum, default_value_t = ChoiceArg::First)]
    choice: ChoiceArg,
}

/// When a run stops by itself: shared by `run` and `sweep`.
#[derive(Args, Debug)]
struct LimitArgs {
    /// Stop after this many steps.
    #[arg(long, default_value_t = 100_000)]
    max_steps: u64,
    /// Stop after this many moves.
    #[arg(long)]
    max_moves: Option<u64>,
    /// When to stop early.
    #[arg(long, value_enum, default_value_t = Until::Silent)]
    until: Until,
}

impl LimitArgs {
    /// The limits, invariants checked.
    fn limits(&self) -> Limits {
        Limits {
            steps: self.max_steps,
            moves: self.max_moves,
            until_legitimate: self.until == Until::Legitimate,
            invariants: true,
        }
    }
}

#[derive(Args, Debug)]
struct ReplArgs {
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Without a terminal, print each command (as `> command`) before its output.
    #[arg(long)]
    echo: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum ChoiceArg {
    First,
    Random,
}

impl From<ChoiceArg> for Choice {
    fn from(c: ChoiceArg) -> Choice {
        match c {
            ChoiceArg::First => Choice::First,
            ChoiceArg::Random => Choice::Random,
        }
    }
}

fn parse_ids(s: &str) -> Result<Ids, String> {
    s.parse()
}

/// A parameter's value on the command line: an integer, or a formula of
/// `n` evaluated on each instance's topology.
#[derive(Clone, Debug)]
enum ParamValue {
    Int(i64),
    Formula(crate::formula::Formula),
}

fn parse_param(s: &str) -> Result<(String, ParamValue), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a parameter name"));
    }
    let value = value.trim();
    let value = match value.parse() {
        Ok(v) => ParamValue::Int(v),
        Err(_) => ParamValue::Formula(
            crate::formula::Formula::parse(value)
                .map_err(|e| format!("`{value}` is neither an integer nor a formula of n: {e}"))?,
        ),
    };
    Ok((name.to_string(), value))
}

/// `--topology`'s help, from the families' table.
fn topology_help() -> String {
    let each: Vec<&str> = crate::topology::FAMILIES.iter().map(|f| f.1).collect();
    format!("Topology: {} [default: the program's]", each.join(", "))
}

/// `--daemon`'s help, from the daemons' table.
fn daemon_help() -> String {
    let each: Vec<String> = crate::runtime::daemon::DAEMONS
        .iter()
        .map(|d| format!("{} ({})", d.name, d.about))
        .collect();
    format!(
        "Daemon [default: central, or ticks for a program that runs in ticks]: {}",
        each.join("; ")
    )
}

/// A schedule file's name and text, kept for diagnostics that point into it.
type ScheduleFile = Option<(String, String)>;

/// Parses `--daemon`, keeping the schedule file it read, if any; the exit
/// code when it is wrong: a wrong schedule file is a wrong input file,
/// anything else a wrong command line.
fn parse_daemon(s: &str) -> Result<(Daemon, ScheduleFile), i32> {
    let kept = std::cell::RefCell::new(None);
    let read = |path: &str| {
        let text = crate::load::read_file(path)?;
        *kept.borrow_mut() = Some((path.to_string(), text.clone()));
        Ok(text)
    };
    match Daemon::parse_telling(s, &read) {
        Ok(daemon) => Ok((daemon, kept.into_inner())),
        Err(DaemonError::Usage(m)) => Err(usage_error(m)),
        Err(DaemonError::Schedule { path, text, error }) => Err(schedule_error(
            &path,
            &text,
            &error,
            ("guarded::schedule::line", "in this step"),
        )),
    }
}

/// Shows what is wrong in schedule file `path` (holding `text`), pointing at
/// it; the exit code of a wrong input file.
fn schedule_error(
    path: &str,
    text: &str,
    error: &crate::runtime::daemon::ScheduleError,
    (code, label): (&'static str, &str),
) -> i32 {
    let (start, end) = error.span;
    let problem = crate::diagnostic::Problem::new(code, error.message.clone())
        .label(crate::span::Span::new(start, end), label)
        .help(error.help);
    eprint!(
        "{}",
        crate::diagnostic::render(&[problem], path, text, plain())
    );
    EXIT_INPUT
}

/// Refuses, pointing into its file, a schedule naming a process or an
/// action `instance` lacks.
fn check_schedule(instance: &Instance, daemon: &Daemon, file: &ScheduleFile) -> Result<(), i32> {
    match (instance.check_schedule(daemon), file) {
        (Err(error), Some((path, text))) => Err(schedule_error(
            path,
            text,
            &error,
            ("guarded::schedule::move", "this move"),
        )),
        // A schedule from elsewhere than a file: `simulate` refuses it.
        _ => Ok(()),
    }
}

/// Whether diagnostics should be plain (no colour).
fn plain() -> bool {
    std::env::var_os("NO_COLOR").is_some() || !std::io::stderr().is_terminal()
}

fn usage_error(message: String) -> i32 {
    // A file the command line names that was read but is not text is a
    // wrong input, as a wrong line in it would be.
    if crate::load::refuses_as_not_text(&message) {
        eprintln!("error: {message}");
        return EXIT_INPUT;
    }
    eprintln!("error: {message}\n\nFor more information, try '--help'.");
    EXIT_USAGE
}

/// What a front end has once a program is loaded: the instance and its source.
struct Loaded {
    inst: Instance,
    source: String,
}

fn setup_of(args: &InstanceArgs) -> Setup {
    let (mut params, mut param_formulas) = (Vec::new(), Vec::new());
    for (name, value) in &args.params {
        match value {
            ParamValue::Int(v) => params.push((name.clone(), *v)),
            ParamValue::Formula(f) => param_formulas.push((name.clone(), f.clone())),
        }
    }
    Setup {
        topology: args.topology.clone(),
        params,
        param_formulas,
        ids: args.ids.clone(),
        seed: args.seed,
        ..Setup::default()
    }
}

/// Prints a load error as the front end shows it; returns the exit code.
fn report_load_error(e: &LoadError, program: &str, source: &str) -> i32 {
    match e {
        LoadError::Usage(m) => usage_error(m.clone()),
        LoadError::NoTopology => usage_error(format!(
            "`{program}` declares no default topology; give one with --topology, e.g. --topology ring:8"
        )),
        LoadError::Input { .. } => {
            eprint!("{}", e.render(program, source, plain()));
            EXIT_INPUT
        }
        LoadError::Runtime(_) => {
            eprint!("{}", e.render(program, source, plain()));
            EXIT_RUNTIME
        }
    }
}

fn load(args: &InstanceArgs) -> Result<Loaded, i32> {
    let source = crate::load::read_program(&args.program)
        .map_err(|e| report_load_error(&e, &args.program, ""))?;
    let checked =
        crate::load::check(&source).map_err(|e| report_load_error(&e, &args.program, &source))?;
    instantiate_checked(args, source, checked)
}

/// [`load`] of a program read (`source`) and checked already.
fn instantiate_checked(
    args: &InstanceArgs,
    source: String,
    checked: crate::load::Checked,
) -> Result<Loaded, i32> {
    // The budget bounds the instance; reading and checking need none.
    crate::memory::set_limit(args.memory.memory_limit);
    match checked.instantiate(&setup_of(args), &crate::load::read_file) {
        Ok(inst) => {
            warn_about_precedence(&inst.ast, &args.program, &source);
            warn_about_disconnection(&inst);
            Ok(Loaded { inst, source })
        }
        Err(e) => Err(report_load_error(&e, &args.program, &source)),
    }
}

/// The stack of every thread that checks, compiles or runs a program. The
/// checker, the compiler and evaluation recurse on expressions; the parser
/// and checker bound the nesting, and this leaves those bounds a wide
/// margin. Only the pages used are ever committed.
pub const STACK_SIZE: usize = 512 << 20;

/// Runs the command line; returns the exit code.
pub fn main() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(mut e) => {
            flag_tips::mend(&mut e, &args);
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(a) => check::check(&a),
        Command::Run(a) => run::run(&a),
        Command::Verify(a) => verify::verify(&a),
        Command::Expect(a) => verify::expect(&a),
        Command::Sweep(a) => sweep::sweep(&a),
        Command::Export(a) => export::export(&a),
        Command::Explore(a) => explore::explore(&a),
        Command::Fmt(a) => fmt::fmt(&a),
        Command::Test(a) => test::test(&a),
        Command::Lsp => match crate::lsp::serve() {
            Ok(()) => EXIT_OK,
            Err(message) => {
                eprintln!("error: {message}");
                EXIT_INPUT
            }
        },
        Command::Repl(a) => match start(&a.instance, &a.start) {
            Ok(s) => {
                let color =
                    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
                let session = crate::repl::Session::new(
                    s.sim,
                    s.ast,
                    a.instance.program.clone(),
                    s.source,
                    color,
                );
                crate::repl::line::drive(session, a.echo)
            }
            Err(code) => code,
        },
    }
}

/// A simulation at step 0, with what the front ends print about it.
pub(crate) struct Started {
    pub(crate) sim: Simulation,
    /// The program's AST, which the REPL checks typed expressions against.
    pub(crate) ast: syntax::ast::Program,
    pub(crate) source: String,
    pub(crate) init_name: String,
}

fn start(inst: &InstanceArgs, st: &StartArgs) -> Result<Started, i32> {
    // A bad daemon is told before the program is read.
    let daemon = st.daemon.as_deref().map(parse_daemon).transpose()?;
    start_loaded(load(inst)?, daemon, inst, st)
}

/// [`start`] of a program loaded already, under `daemon` (parsed from
/// `st.daemon`) where one was given.
fn start_loaded(
    loaded: Loaded,
    daemon: Option<(Daemon, ScheduleFile)>,
    inst: &InstanceArgs,
    st: &StartArgs,
) -> Result<Started, i32> {
    let Loaded {
        inst: mut instance,
        source,
    } = loaded;
    let daemon = match daemon {
        Some((daemon, file)) => {
            check_schedule(&instance, &daemon, &file)?;
            Some(daemon)
        }
        None => None,
    };
    let mode = crate::load::init_mode(
        st.init.init.as_deref(),
        instance.default_init(),
        &crate::load::read_file,
    )
    .map_err(usage_error)?;
    warn_about_dot_values(&instance, &mode);
    let start = instance
        .initial(&mode, &st.init.sets)
        .map_err(|e| report_load_error(&e, &inst.program, &source))?;
    // `--set` may have fixed what the mode chose: the summary says so.
    let init_name = match st.init.sets.as_slice() {
        [] => crate::load::init_name(&mode),
        sets => format!(
            "{}, then --set {}",
            crate::load::init_name(&mode),
            sets.join(" ")
        ),
    };
    let choice = st.init.choice.into();
    let default_daemon = instance.default_daemon();
    let ast = (*instance.ast).clone();
    let sim = instance
        .simulate(start, daemon.unwrap_or(default_daemon), choice)
        .map_err(|e| report_load_error(&e, &inst.program, &source))?;
    Ok(Started {
        sim,
        ast,
        source,
        init_name,
    })
}
