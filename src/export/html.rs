//! The HTML run viewer: one self-contained page (inline CSS, script and
//! SVG; nothing fetched) showing a recorded run on its topology, with
//! play, step, a slider, a chart over time and the program beside it.
//!
//! A [`Recorder`] follows the run as an observer and keeps, per step, what
//! changed: the rows of the processes whose values changed (as the trace
//! prints them), the movers, the enabled set, legitimacy, the arrows of
//! node-valued variables and the series the chart can show. [`page`] puts
//! the recording into the page template `viewer.html`.

use super::dot::arrows;
use super::layout::layout;
use crate::runtime::engine::Simulation;
use serde::Serialize;

/// The most processes the viewer draws.
pub const MAX_PROCESSES: usize = 5000;

/// Steps recorded by default (`--html-steps`).
pub const DEFAULT_STEPS: u64 = 1000;

/// One recorded step (step 0: the initial configuration).
#[derive(Serialize)]
struct Frame {
    step: u64,
    moves: u64,
    round: u64,
    movers: Vec<u32>,
    enabled: Vec<u32>,
    /// The processes whose values changed, and their values now.
    changed: Vec<(u32, Vec<String>)>,
    legit: Option<bool>,
    /// The arrows, when they changed (`None`: as at the step before).
    arrows: Option<Vec<(usize, usize)>>,
    /// The non-empty channels (sender, receiver, messages oldest first),
    /// when they changed.
    channels: Option<Vec<Channel>>,
    /// The chart's series: `enabled` and each numeric report.
    series: Vec<Option<f64>>,
}

/// A channel as the page draws it on its edge: sender, receiver and the
/// messages in transit, the next to be received first.
type Channel = (usize, u32, Vec<String>);

/// An instance as a page draws it: where each process goes, the edges,
/// and the variables' names.
#[derive(Serialize)]
pub struct Picture {
    n: usize,
    ids: Vec<i64>,
    /// Places in `0..=1`, `y` downwards.
    places: Vec<(f64, f64)>,
    /// Arcs `(from, to)`: each undirected edge once, from its smaller end.
    edges: Vec<(u32, u32)>,
    directed: bool,
    vars: Vec<String>,
    /// Which variables a node's label in the graph shows: not the
    /// per-neighbour and edge ones (the table shows every value).
    label_vars: Vec<bool>,
}

impl Picture {
    /// The picture of `sim`'s instance.
    pub fn of(sim: &Simulation) -> Picture {
        let topo = &sim.topo;
        let n = topo.n();
        let directed = !topo.is_undirected();
        let mut edges = Vec::new();
        for p in 0..n {
            for &q in topo.nbrs(p) {
                if directed {
                    edges.push((q, p as u32));
                } else if (q as usize) > p {
                    edges.push((p as u32, q));
                }
            }
        }
        Picture {
            n,
            ids: topo.ids().into_owned(),
            places: layout(topo),
            edges,
            directed,
            vars: sim.prog.vars.iter().map(|v| v.name.clone()).collect(),
            label_vars: (0..sim.prog.vars.len())
                .map(|k| !sim.code.per_nbr[k])
                .collect(),
        }
    }
}

/// A run as the page shows it.
#[derive(Serialize)]
struct Recording {
    title: String,
    #[serde(flatten)]
    picture: Picture,
    series_names: Vec<String>,
    frames: Vec<Frame>,
    /// Steps the run took, recorded or not.
    total_steps: u64,
    /// The most steps recorded.
    cap: u64,
    summary: String,
    source: String,
    program: String,
}

/// Follows a run, recording up to `cap` steps.
pub struct Recorder {
    cap: u64,
    rows: Vec<i64>,
    arrows: Vec<(usize, usize)>,
    channels: Vec<Channel>,
    frames: Vec<Frame>,
}

impl Recorder {
    /// A recorder of at most `cap` steps after the initial configuration.
    pub fn new(cap: u64) -> Self {
        Recorder {
            cap,
            rows: Vec::new(),
            arrows: Vec::new(),
            channels: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Records `sim` now: call it at the start and after every step.
    pub fn record(&mut self, sim: &Simulation) {
        if self.frames.len() as u64 > self.cap {
            return;
        }
        let (prog, code, topo) = (&*sim.prog, &*sim.code, &sim.topo);
        let config = sim.config();
        let stride = code.stride;
        let first = self.frames.is_empty();
        let changed: Vec<(u32, Vec<String>)> = (0..topo.n())
            .filter(|&p| {
                first
                    || self.rows[p * stride..(p + 1) * stride]
                        != config.rows[p * stride..(p + 1) * stride]
            })
            .map(|p| {
                (
                    p as u32,
                    code.value_texts(prog, topo, p, config.row(p, stride)),
                )
            })
            .collect();
        let now_arrows: Vec<(usize, usize)> = arrows(prog, code, topo, &config)
            .into_iter()
            .map(|(a, b, _)| (a, b))
            .collect();
        let channels = crate::report::nonempty_channels(sim);
        let now = sim.now();
        let mut enabled = sim.enabled().to_vec();
        enabled.sort_unstable();
        let mut series = vec![Some(enabled.len() as f64)];
        series.extend(
            sim.reports()
                .into_iter()
                .map(|(_, v)| v.ok().and_then(|t| number(&t))),
        );
        self.frames.push(Frame {
            step: now.step,
            moves: now.moves,
            round: now.round,
            movers: if now.step == 0 {
                Vec::new()
            } else {
                sim.last().movers().to_vec()
            },
            enabled,
            changed,
            legit: sim.legitimate(),
            arrows: (first || now_arrows != self.arrows).then(|| now_arrows.clone()),
            channels: (first || channels != self.channels).then(|| channels.clone()),
            series,
        });
        self.rows = config.rows;
        self.arrows = now_arrows;
        self.channels = channels;
    }
}

/// A report's value as a number for the chart: integers, and booleans as 0 and 1.
fn number(text: &str) -> Option<f64> {
    match text {
        "true" => Some(1.0),
        "false" => Some(0.0),
        t => t.parse::<i64>().ok().map(|v| v as f64),
    }
}

/// What the page says besides the run: its title, the program's path and
/// text, and the run's summary as `guarded run` prints it.
pub struct PageText<'a> {
    /// The heading.
    pub title: String,
    /// The program's path.
    pub program: &'a str,
    /// The program's text.
    pub source: &'a str,
    /// The summary.
    pub summary: String,
}

/// The page template; `/*RECORDING*/` stands for the recording.
const TEMPLATE: &str = include_str!("viewer.html");

/// The viewer page of the recorded run of `sim`.
pub fn page(rec: Recorder, sim: &Simulation, text: PageText) -> String {
    let recording = Recording {
        title: text.title,
        picture: Picture::of(sim),
        series_names: std::iter::once("enabled processes".to_string())
            .chain(sim.code.reports.iter().map(|(name, _)| name.clone()))
            .collect(),
        frames: rec.frames,
        total_steps: sim.now().step,
        cap: rec.cap,
        summary: text.summary,
        source: text.source.to_string(),
        program: text.program.to_string(),
    };
    let json = serde_json::to_string(&recording).expect("a recording is plain data");
    // Inside <script>, `</script`, `<!--` and `<script` change how the
    // page is read (script data states): no `<` is left, as JSON's `\u003c`
    // (JSON has `<` only inside strings); `>` and `&` alike, for good measure.
    let json = json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    TEMPLATE.replace("/*RECORDING*/null", &json)
}
