//! `guarded run`: runs a program under a daemon to a limit, printing the
//! trace as it goes and the summary at the end; draws the run on request
//! (`--dot`, `--html`).

use super::{
    export, output, plain, start, usage_error, Format, InstanceArgs, LimitArgs, StartArgs, Started,
    Until, EXIT_INVARIANT, EXIT_OK, EXIT_RUNTIME, EXIT_UNEXPECTED,
};
use crate::runtime::engine::Simulation;
use crate::runtime::run::{Observer, Stop};
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};

#[derive(Args, Debug)]
pub(super) struct RunArgs {
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    start: StartArgs,
    #[command(flatten)]
    limits: LimitArgs,
    /// Print every step.
    #[arg(long)]
    trace: bool,
    /// Trace format (implies --trace).
    #[arg(long, value_enum)]
    trace_format: Option<Format>,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Leave the final configuration out of the summary.
    #[arg(long)]
    no_final: bool,
    /// Exit with status 6 when the run does not end as expected: legitimate
    /// (the predicate holds at the end) or silent (no process enabled).
    #[arg(long, value_enum, value_name = "STATE")]
    expect: Option<Expect>,
    /// Report speed (steps and moves per second of the run loop) and memory per process.
    #[arg(long)]
    stats: bool,
    /// Draw the configuration at the end of the run (or at --dot-step) as a
    /// Graphviz DOT file: values, enabled processes, the last movers, arrows
    /// for node-valued variables. It reads back as `--topology dot:FILE`.
    #[arg(long, value_name = "FILE")]
    dot: Option<String>,
    /// The step --dot draws [default: the last].
    #[arg(long, value_name = "K", requires = "dot")]
    dot_step: Option<u64>,
    /// Write the run as one self-contained HTML page that plays it on the
    /// topology (open it from disk in any browser).
    #[arg(long, value_name = "FILE")]
    html: Option<String>,
    /// The most steps --html records (the summary still covers the whole run).
    #[arg(long, value_name = "N", requires = "html", default_value_t = crate::export::html::DEFAULT_STEPS)]
    html_steps: u64,
}

/// What `--expect` asks of the end of a run.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Expect {
    /// The legitimacy predicate holds at the end.
    Legitimate,
    /// No process is enabled at the end.
    Silent,
}

/// Prints each step as the run goes, with `--trace`; draws the
/// configuration of `--dot-step`.
struct TraceObserver<'a, W: Write> {
    tracer: Option<output::Tracer>,
    out: &'a mut W,
    /// The step to draw, and its picture once drawn.
    picture: Option<(u64, Option<String>)>,
    /// `--html`'s recording.
    recorder: Option<crate::export::html::Recorder>,
    program: &'a str,
    seed: u64,
    /// The progress line on a terminal's standard error.
    progress: Option<Progress>,
    /// Moves per (role, compiled action), messages sent and delivered.
    counts: Counts,
}

/// Messages sent and delivered, counted after each step (moves per
/// action the simulation counts itself).
#[derive(Default)]
struct Counts {
    /// Whether the program passes messages (else there are none to count).
    messages: bool,
    sent: u64,
    delivered: u64,
}

impl Counts {
    fn new(sim: &Simulation) -> Self {
        Counts {
            messages: sim.code.capacity.is_some(),
            ..Counts::default()
        }
    }

    fn count(&mut self, sim: &Simulation) {
        if self.messages {
            let last = sim.last();
            self.sent += last.sent.len() as u64;
            self.delivered += last.received.iter().filter(|r| r.is_some()).count() as u64;
        }
    }

    /// Per label (roles merged), in the order actions are tried (priority,
    /// then program order).
    fn tally(&self, sim: &Simulation) -> output::Tally {
        let mut moves: Vec<(String, u64)> = Vec::new();
        for (role, moved) in sim.code.roles.iter().zip(sim.moves_per_action()) {
            for (action, &moved) in role.actions.iter().zip(moved) {
                match moves.iter_mut().find(|m| m.0 == action.label) {
                    Some(m) => m.1 += moved,
                    None => moves.push((action.label.clone(), moved)),
                }
            }
        }
        output::Tally {
            moves,
            sent: self.sent,
            delivered: self.delivered,
        }
    }
}

/// A progress line for long runs: shown on standard error when it is a
/// terminal and the run has gone on for a second, updated every few
/// thousand steps (the run loop stays as fast).
struct Progress {
    started: std::time::Instant,
    bar: Option<indicatif::ProgressBar>,
    countdown: u32,
}

/// Steps between two looks at the clock.
const PROGRESS_EVERY: u32 = 4096;

impl Progress {
    /// A progress line, when standard error is a terminal.
    fn on_terminal() -> Option<Self> {
        std::io::stderr().is_terminal().then(|| Progress {
            started: std::time::Instant::now(),
            bar: None,
            countdown: PROGRESS_EVERY,
        })
    }

    fn tick(&mut self, sim: &Simulation) {
        self.countdown -= 1;
        if self.countdown > 0 {
            return;
        }
        self.countdown = PROGRESS_EVERY;
        if self.bar.is_none() && self.started.elapsed().as_secs_f64() < 1.0 {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            {
                bar.set_style(style);
            }
            bar
        });
        let now = sim.now();
        let rate = now.step as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "step {} · moves {} · rounds {} · {} enabled · {rate:.0} steps/s",
            now.step,
            now.moves,
            now.round,
            sim.enabled_count()
        ));
        bar.tick();
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl<W: Write> TraceObserver<'_, W> {
    /// Draws `sim` if it is at the step asked for.
    fn draw(&mut self, sim: &Simulation) {
        if let Some(r) = &mut self.recorder {
            r.record(sim);
        }
        if let Some((at, picture @ None)) = &mut self.picture {
            if sim.now().step == *at {
                let caption = export::caption(sim, self.program, self.seed);
                *picture = Some(export::dot_of(sim, caption));
            }
        }
    }
}

impl<W: Write> Observer for TraceObserver<'_, W> {
    fn watches_steps(&self) -> bool {
        self.tracer.is_some()
            || self.recorder.is_some()
            || self.picture.is_some()
            || self.progress.is_some()
            || self.counts.messages
    }

    fn after_step(&mut self, sim: &Simulation) -> bool {
        if let Some(t) = &mut self.tracer {
            let _ = t.step(self.out, sim);
        }
        if self.recorder.is_some() || self.picture.is_some() {
            self.draw(sim);
        }
        self.counts.count(sim);
        if let Some(p) = &mut self.progress {
            p.tick(sim);
        }
        true
    }
}

/// Writes `--dot`'s picture: the one of `--dot-step`, or the end's (with a
/// warning when the run ended before that step).
fn write_dot(a: &RunArgs, sim: &Simulation, drawn: Option<String>) -> Result<(), i32> {
    let Some(path) = &a.dot else { return Ok(()) };
    let text = drawn.unwrap_or_else(|| {
        if let Some(k) = a.dot_step {
            eprintln!(
                "warning: --dot-step {k}: the run ended at step {}; drawing that step",
                sim.now().step
            );
        }
        export::dot_of(
            sim,
            export::caption(sim, &a.instance.program, a.instance.seed),
        )
    });
    export::write_output(Some(path), &text)
}

pub(super) fn run(a: &RunArgs) -> i32 {
    let Started {
        mut sim,
        source,
        init_name,
        ..
    } = match start(&a.instance, &a.start) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let program = a.instance.program.clone();
    if a.html.is_some() && sim.n() > crate::export::html::MAX_PROCESSES {
        return usage_error(format!(
            "--html draws at most {} processes; this instance has {}",
            crate::export::html::MAX_PROCESSES,
            sim.n()
        ));
    }
    let wants_legitimacy =
        a.limits.until == Until::Legitimate || a.expect == Some(Expect::Legitimate);
    if wants_legitimacy && sim.legitimate().is_none() {
        return usage_error(format!(
            "`{program}` declares no `legitimate:` predicate, so neither --until legitimate nor --expect legitimate can be decided"
        ));
    }
    let trace = a
        .trace_format
        .or(if a.trace { Some(Format::Text) } else { None });
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut observer = TraceObserver {
        tracer: trace.map(|f| output::Tracer::new(f == Format::Json)),
        out: &mut out,
        picture: a.dot_step.map(|k| (k, None)),
        recorder: a
            .html
            .as_ref()
            .map(|_| crate::export::html::Recorder::new(a.html_steps)),
        program: &program,
        seed: a.instance.seed,
        progress: Progress::on_terminal(),
        counts: Counts::new(&sim),
    };
    if let Some(t) = &mut observer.tracer {
        let _ = t.initial(observer.out, &sim);
    }
    observer.draw(&sim);
    let limits = a.limits.limits();
    let started_at = std::time::Instant::now();
    let start_point = sim.now();
    let stop = crate::runtime::run::run(&mut sim, &limits, &mut observer);
    if let Some(t) = &mut observer.tracer {
        let _ = t.finish(observer.out);
    }
    if let Some(p) = &observer.progress {
        p.finish();
    }
    let drawn = observer.picture.take().and_then(|p| p.1);
    let tally = observer.counts.tally(&sim);
    let recorder = observer.recorder.take();
    let (failure, exit) = failure(&stop, &sim, &program, &source);
    let missed = match a.expect {
        Some(Expect::Legitimate) if sim.legitimate() != Some(true) => Some("legitimate"),
        Some(Expect::Silent) if !sim.is_silent() => Some("silent"),
        _ => None,
    };
    let exit = match write_dot(a, &sim, drawn) {
        Err(code) if exit == EXIT_OK => code,
        _ => exit,
    };
    let exit = match missed {
        Some(state) if exit == EXIT_OK => {
            eprintln!(
                "error: --expect {state}: the run ended after step {} and is not {state}",
                sim.now().step
            );
            EXIT_UNEXPECTED
        }
        _ => exit,
    };
    let info = output::RunInfo {
        program: &program,
        daemon: sim.daemon.name(),
        seed: a.instance.seed,
        init: &init_name,
        stop: &stop,
        show_final: !a.no_final,
        stats: a.stats.then(|| output::Stats {
            seconds: started_at.elapsed().as_secs_f64(),
            steps: sim.now().step - start_point.step,
            moves: sim.now().moves - start_point.moves,
            bytes: sim.memory_bytes(),
            column_steps: sim.column_steps(),
            narrowed_steps: sim.narrowed_steps(),
        }),
        tally: Some(&tally),
    };
    let _ = out.flush();
    if let Some(msg) = &failure {
        eprint!("{msg}");
    }
    // A failed run still reports what it knew.
    let summary = output::Summary::of(&sim, &info);
    let exit = match write_html(a, &sim, recorder, &summary, &source) {
        Err(code) if exit == EXIT_OK => code,
        _ => exit,
    };
    let _ = if a.format == Format::Json {
        write!(out, "{}", summary.to_json(&sim))
    } else {
        summary.write_text(&mut out, &sim)
    };
    let _ = out.flush();
    exit
}

/// Writes `--html`'s page: the recorded steps, the summary and the program.
fn write_html(
    a: &RunArgs,
    sim: &Simulation,
    recorder: Option<crate::export::html::Recorder>,
    summary: &output::Summary,
    source: &str,
) -> Result<(), i32> {
    let (Some(path), Some(recorder)) = (&a.html, recorder) else {
        return Ok(());
    };
    let mut text = Vec::new();
    let _ = summary.write_text(&mut text, sim);
    let page = crate::export::html::page(
        recorder,
        sim,
        crate::export::html::PageText {
            title: format!("{} on {}", a.instance.program, sim.topo.name),
            program: &a.instance.program,
            source,
            summary: String::from_utf8_lossy(&text).into_owned(),
        },
    );
    export::write_output(Some(path), &page)
}

/// How the run failed, as a diagnostic, and the exit code.
fn failure(stop: &Stop, sim: &Simulation, program: &str, source: &str) -> (Option<String>, i32) {
    match stop {
        Stop::Invariant(i) => (
            Some(output::invariant_violation(
                sim,
                *i,
                program,
                source,
                plain(),
            )),
            EXIT_INVARIANT,
        ),
        Stop::InvariantFault(e) | Stop::Error(e) => (
            Some(output::runtime_error(
                e,
                program,
                source,
                plain(),
                Some(sim),
            )),
            EXIT_RUNTIME,
        ),
        _ => (None, EXIT_OK),
    }
}
