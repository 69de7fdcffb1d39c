//! Graphviz DOT out: a configuration drawn on its topology, and a run of
//! `verify` as a chain of configurations.
//!
//! A configuration's file is also a topology: `--topology dot:FILE` reads
//! it back with the same ids and, unless the start is random, the same
//! values (node attributes named like variables, `"VAR[Q]"` for a
//! per-neighbour value, edge attributes for edge variables). Everything else
//! in it (labels, colours, positions, arrows) is for Graphviz only.

use super::layout::layout;
use crate::check::ir::{self, Ty, VarKind};
use crate::compile::Compiled;
use crate::state::Config;
use crate::topology::Topology;
use std::fmt::Write;

/// One configuration of an instance, and what to mark in it.
pub struct Scene<'a> {
    /// The checked program.
    pub prog: &'a ir::Program,
    /// Its compiled form on `topo`.
    pub code: &'a Compiled,
    /// The topology.
    pub topo: &'a Topology,
    /// The configuration.
    pub config: &'a Config,
    /// The enabled processes (filled yellow).
    pub enabled: &'a [u32],
    /// The processes that just moved (a thick red border).
    pub movers: &'a [u32],
    /// What the picture shows, e.g. `programs/x.gc on ring:5, step 12`.
    pub caption: String,
}

/// Fill of an enabled process, border of a mover: the HTML viewer's colours.
const ENABLED_FILL: &str = "#ffe08a";
const MOVER_BORDER: &str = "#d62728";
/// Inches between neighbouring places of the layout, per process.
const SPREAD: f64 = 1.1;

/// Graphviz attributes a variable may be named like; such a variable's
/// values are written under `gc:NAME`, which reads back as NAME, so that
/// Graphviz does not take them for styling.
const GRAPHVIZ_NAMES: &[&str] = &[
    "area",
    "arrowhead",
    "arrowsize",
    "arrowtail",
    "class",
    "color",
    "colorscheme",
    "comment",
    "constraint",
    "decorate",
    "dir",
    "distortion",
    "fillcolor",
    "fixedsize",
    "fontcolor",
    "fontname",
    "fontsize",
    "gradientangle",
    "group",
    "headlabel",
    "height",
    "href",
    "id",
    "image",
    "label",
    "labelangle",
    "labelfontcolor",
    "layer",
    "len",
    "margin",
    "minlen",
    "orientation",
    "penwidth",
    "peripheries",
    "pin",
    "pos",
    "rank",
    "samehead",
    "sametail",
    "shape",
    "sides",
    "skew",
    "sortv",
    "style",
    "taillabel",
    "target",
    "tooltip",
    "url",
    "weight",
    "width",
    "xlabel",
    "z",
];

/// Whether `name` is a Graphviz attribute (one of those this tool writes,
/// or that a topology file commonly carries).
pub fn is_graphviz_attribute(name: &str) -> bool {
    GRAPHVIZ_NAMES.contains(&name.to_ascii_lowercase().as_str())
}

/// The attribute a variable's values are written under.
fn attr_name(var: &str) -> String {
    if GRAPHVIZ_NAMES.contains(&var.to_ascii_lowercase().as_str()) {
        format!("gc:{var}")
    } else {
        var.to_string()
    }
}

/// Inches per unit of the layout: enough that the closest two processes'
/// boxes (of the widest and tallest label) do not overlap.
fn scale(places: &[super::layout::Point], labels: &[Vec<String>]) -> f64 {
    let chars = labels
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1);
    let lines = labels.iter().map(Vec::len).max().unwrap_or(1);
    // Helvetica 10 points: about 0.075 inch a character, 0.16 a line.
    let (w, h) = (0.3 + 0.075 * chars as f64, 0.2 + 0.16 * lines as f64);
    let mut closest = f64::MAX;
    // Enough pairs to find the closest of any picture a person can read.
    let shown = places.len().min(2000);
    for p in 0..shown {
        for q in p + 1..shown {
            let (dx, dy) = (
                (places[p].0 - places[q].0).abs(),
                (places[p].1 - places[q].1).abs(),
            );
            // Boxes clear each other along whichever axis separates them more.
            closest = closest.min((dx / w).max(dy / h));
        }
    }
    if closest == f64::MAX || closest <= 0.0 {
        return SPREAD;
    }
    (SPREAD / closest).max(SPREAD)
}

/// A DOT string literal: a line break as Graphviz's `\n`, a quote and a
/// backslash escaped (a name ending in `\` would otherwise escape the
/// closing quote), other control characters as spaces.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The attributes (name, value) giving process `p`'s own values: scalars
/// and arrays under the variable's name, per-neighbour values as `VAR[Q]`.
/// Edge variables go on the edges.
fn value_attrs(s: &Scene, p: usize) -> Vec<(String, String)> {
    let row = s.config.row(p, s.code.stride);
    let mut out = Vec::new();
    for (k, v) in s.prog.vars.iter().enumerate() {
        if v.kind == VarKind::Edge {
            continue;
        }
        if s.code.per_nbr[k] {
            for (j, &q) in s.topo.nbrs(p).iter().enumerate() {
                let x = row[s.code.offsets[k] + j];
                out.push((
                    format!("{}[{q}]", attr_name(&v.name)),
                    s.prog.show_value(v.ty, x),
                ));
            }
        } else {
            out.push((attr_name(&v.name), s.code.show_var(s.prog, &[], k, row)));
        }
    }
    out
}

/// Where arrows go: `(from, to, variable)` for every node-valued variable
/// of a process naming a neighbour (`parent`), and every node-valued edge
/// variable naming one end, unless a boolean edge variable of that edge is
/// false (a flag saying whether the arrow is there, as arbitration's
/// `directed`).
pub fn arrows(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    config: &Config,
) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for p in 0..topo.n() {
        let row = config.row(p, code.stride);
        for (k, v) in prog.vars.iter().enumerate() {
            if v.ty != Ty::Node || (code.lens[k].is_some() && !code.per_nbr[k]) {
                continue;
            }
            if v.kind == VarKind::Edge {
                for (j, &q) in topo.nbrs(p).iter().enumerate() {
                    let q = q as usize;
                    let flags_hold = prog.vars.iter().enumerate().all(|(b, w)| {
                        w.kind != VarKind::Edge || w.ty != Ty::Bool || row[code.offsets[b] + j] != 0
                    });
                    let head = row[code.offsets[k] + j] as usize;
                    // Each edge once, from its smaller end.
                    if p < q && flags_hold && (head == p || head == q) {
                        let tail = if head == q { p } else { q };
                        out.push((tail, head, v.name.clone()));
                    }
                }
            } else if !code.per_nbr[k] {
                let q = row[code.offsets[k]] as usize;
                if q != p && q < topo.n() && topo.adjacent(p, q) {
                    out.push((p, q, v.name.clone()));
                }
            }
        }
    }
    out
}

/// The configuration on its topology, as a DOT file.
pub fn configuration(s: &Scene) -> String {
    let (prog, code, topo) = (s.prog, s.code, s.topo);
    let n = topo.n();
    let undirected = topo.is_undirected();
    let mut out = String::new();
    let caption: String = s
        .caption
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let _ = writeln!(out, "// {caption}");
    let _ = writeln!(
        out,
        "// Draw it: neato -Tsvg FILE > FILE.svg (or neato -n2)   Read it back: --topology dot:FILE"
    );
    let _ = writeln!(
        out,
        "{} {} {{",
        if undirected { "graph" } else { "digraph" },
        quoted(&topo.name)
    );
    let _ = writeln!(
        out,
        "  graph [layout=neato, inputscale=72, label={}, labelloc=t, fontname=Helvetica];",
        quoted(&format!(
            "{}\nyellow: enabled   red border: moved",
            s.caption
        ))
    );
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=Helvetica, fontsize=10];\n  edge [fontname=Helvetica, fontsize=9];"
    );
    let places = layout(topo);
    let labels: Vec<Vec<String>> = (0..n)
        .map(|p| {
            let row = s.config.row(p, code.stride);
            let id = if topo.id(p) != p as i64 {
                format!(" (id {})", topo.id(p))
            } else {
                String::new()
            };
            // Edge variables are drawn on their edges.
            let own = code
                .value_texts(prog, topo, p, row)
                .into_iter()
                .zip(&prog.vars)
                .filter(|(_, v)| v.kind != VarKind::Edge)
                .map(|(t, _)| t);
            std::iter::once(format!("{p}{id}")).chain(own).collect()
        })
        .collect();
    let scale = scale(&places, &labels);
    for (p, &(x, y)) in places.iter().enumerate() {
        let mut attrs: Vec<(String, String)> = Vec::new();
        if topo.id(p) != p as i64 {
            attrs.push(("id".into(), topo.id(p).to_string()));
        }
        attrs.extend(value_attrs(s, p));
        let style: Vec<(&str, String)> = vec![
            ("label", labels[p].join("\n")),
            // In points, as `neato -n2` reads them (`inputscale=72` tells
            // plain `neato` so too).
            (
                "pos",
                format!("{:.1},{:.1}!", x * scale * 72.0, -y * scale * 72.0),
            ),
        ];
        let mut style = style;
        if s.enabled.contains(&(p as u32)) {
            style.push(("fillcolor", ENABLED_FILL.into()));
        }
        if s.movers.contains(&(p as u32)) {
            style.push(("color", MOVER_BORDER.into()));
            style.push(("penwidth", "3".into()));
        }
        attrs.extend(style.into_iter().map(|(k, v)| (k.to_string(), v)));
        let list: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{}={}", quoted(k), quoted(v)))
            .collect();
        let _ = writeln!(out, "  {p} [{}];", list.join(", "));
    }
    write_edges(s, undirected, &mut out);
    out.push_str("}\n");
    out
}

/// The edges, with edge variables' values, arrows and messages in transit.
fn write_edges(s: &Scene, undirected: bool, out: &mut String) {
    let (prog, code, topo) = (s.prog, s.code, s.topo);
    // Each arrow's variable, by its ends (looked up once per edge).
    let arrows: std::collections::HashMap<(usize, usize), String> =
        arrows(prog, code, topo, s.config)
            .into_iter()
            .map(|(a, b, v)| ((a, b), v))
            .collect();
    for p in 0..topo.n() {
        let row = s.config.row(p, code.stride);
        for (j, &q) in topo.nbrs(p).iter().enumerate() {
            let q = q as usize;
            // An undirected edge once, from its smaller end; an arc `q -> p`
            // (p reads q) for every neighbour of a digraph.
            if undirected && q < p {
                continue;
            }
            let mut attrs: Vec<(String, String)> = Vec::new();
            for (k, v) in prog.vars.iter().enumerate() {
                if v.kind == VarKind::Edge {
                    let x = row[code.offsets[k] + j];
                    attrs.push((attr_name(&v.name), prog.show_value(v.ty, x)));
                }
            }
            let forward = arrows.get(&(p, q));
            let back = arrows.get(&(q, p));
            let mut style: Vec<(&str, String)> = Vec::new();
            if undirected && (forward.is_some() || back.is_some()) {
                let dir = match (forward, back) {
                    (Some(_), Some(_)) => "both",
                    (Some(_), None) => "forward",
                    _ => "back",
                };
                style.push(("dir", dir.into()));
                style.push(("penwidth", "2".into()));
                let vars: Vec<&str> = forward.iter().chain(&back).map(|v| v.as_str()).collect();
                style.push(("tooltip", vars.join(", ")));
            }
            let mut transit = Vec::new();
            for (from, to) in [(p, q), (q, p)] {
                if undirected || from == q {
                    if let Some(c) = s
                        .config
                        .chans
                        .between(topo, from, to)
                        .filter(|c| !c.is_empty())
                    {
                        let ms: Vec<String> = c
                            .iter()
                            .map(|m| crate::runtime::init::msg_text(prog, m))
                            .collect();
                        transit.push(format!("{from}→{to}: {}", ms.join(" ")));
                    }
                }
            }
            // An arrow shows node-valued edge variables and the flags
            // that switch it on; the others are written on the edge.
            let arrow_vars = prog
                .vars
                .iter()
                .any(|v| v.kind == VarKind::Edge && v.ty == Ty::Node);
            let shown: Vec<String> = prog
                .vars
                .iter()
                .enumerate()
                .filter(|(_, v)| {
                    v.kind == VarKind::Edge && !(arrow_vars && matches!(v.ty, Ty::Node | Ty::Bool))
                })
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        v.name,
                        prog.show_value(v.ty, row[code.offsets[k] + j])
                    )
                })
                .collect();
            let label: Vec<String> = shown.into_iter().chain(transit).collect();
            if !label.is_empty() {
                style.push(("label", label.join("\n")));
            }
            attrs.extend(style.into_iter().map(|(k, v)| (k.to_string(), v)));
            let list: Vec<String> = attrs
                .iter()
                .map(|(k, v)| format!("{}={}", quoted(k), quoted(v)))
                .collect();
            let (a, b, op) = if undirected {
                (p, q, "--")
            } else {
                (q, p, "->")
            };
            let attrs = if list.is_empty() {
                String::new()
            } else {
                format!(" [{}]", list.join(", "))
            };
            let _ = writeln!(out, "  {a} {op} {b}{attrs};");
        }
    }
}

/// A run as a chain of configurations: each node one configuration (its
/// processes' values), each arc one step labelled with its moves (`steps`:
/// each step's, as the schedule writes them). A configuration met again
/// is the same node, so a lasso's cycle closes.
pub fn run_chain(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    configs: &[Config],
    steps: &[String],
    caption: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// {}", caption.replace('\n', " "));
    let _ = writeln!(out, "// Draw it: dot -Tsvg FILE > FILE.svg");
    let _ = writeln!(out, "digraph run {{");
    let _ = writeln!(
        out,
        "  graph [label={}, labelloc=t, fontname=Helvetica];",
        quoted(caption)
    );
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=Courier, fontsize=10];\n  edge [fontname=Helvetica, fontsize=10];"
    );
    let mut distinct: Vec<&Config> = Vec::new();
    let mut node_of = Vec::with_capacity(configs.len());
    for c in configs {
        let k = match distinct.iter().position(|d| *d == c) {
            Some(k) => k,
            None => {
                distinct.push(c);
                let lines: Vec<String> = (0..topo.n())
                    .map(|p| {
                        format!(
                            "{p}: {}",
                            code.value_texts(prog, topo, p, c.row(p, code.stride))
                                .join(" ")
                        )
                    })
                    .collect();
                let first = if distinct.len() == 1 { "start\\l" } else { "" };
                let text = lines.join("\\l") + "\\l";
                let label = format!("\"{first}{}\"", text.replace('"', "\\\""));
                let _ = writeln!(out, "  c{} [label={label}];", distinct.len() - 1);
                distinct.len() - 1
            }
        };
        node_of.push(k);
    }
    for (i, moves) in steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "  c{} -> c{} [label={}];",
            node_of[i],
            node_of[i + 1],
            quoted(&format!("step {}: {moves}", i + 1))
        );
    }
    out.push_str("}\n");
    out
}
