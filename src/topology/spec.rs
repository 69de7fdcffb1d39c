//! Topology specs as the command line writes them (`ring:8`,
//! `grid:3x4`, `dot:g.dot`): what they name, what they may cost, and the
//! topology each builds.

use super::*;

/// Bytes a topology takes per process and per arc while it is built (the
/// graph, then the frozen neighbour lists), as an estimate.
const BYTES_PER_PROCESS: u128 = 64;
const BYTES_PER_ARC: u128 = 16;

/// What a topology of `processes` and `arcs` takes while it is built, as
/// estimated before building it.
pub(super) fn topology_bytes(processes: u128, arcs: u128) -> u128 {
    processes * BYTES_PER_PROCESS + arcs * BYTES_PER_ARC
}

/// Refuses a family's size whose topology would exceed the memory budget,
/// before building it; sizes it cannot read are left to the builder.
fn budget(family: &str, arg: &str) -> Result<(), String> {
    let num = |s: &str| s.trim().parse::<u128>().ok();
    let (n, arcs) = match family {
        "ring" | "uring" | "chain" | "star" | "tree" => match num(arg) {
            Some(n) => (n, 2 * n),
            None => return Ok(()),
        },
        "grid" | "torus" => match arg
            .split_once('x')
            .and_then(|(r, c)| Some(num(r)? * num(c)?))
        {
            Some(n) => (n, 4 * n),
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    crate::memory::check(
        topology_bytes(n, arcs),
        &format!("the topology `{family}:{arg}`"),
    )
}

/// Refuses `random:N[:P]` whose edges, as many as expected, would exceed
/// the memory budget, before drawing them (`random:1000000:0.5` would
/// have 2.5 * 10^11).
fn random_fits(n: usize, p: Option<f64>, arg: &str) -> Result<(), String> {
    let p = p.unwrap_or_else(|| families::default_edge_probability(n));
    let pairs = n as f64 * (n as f64 - 1.0) / 2.0;
    // The spanning tree's edges, and the others drawn.
    let edges = n.saturating_sub(1) as f64 + p * pairs;
    let arcs = (2.0 * edges).min(u128::MAX as f64 / 64.0) as u128;
    // Each edge drawn is kept as a pair (16 bytes, 8 an arc) too until
    // it is an edge.
    crate::memory::check(
        topology_bytes(n as u128, arcs) + arcs * 8,
        &format!("the topology `random:{arg}` (about {edges:.0} edges)"),
    )
}

/// The largest topology accepted, to keep a typo from exhausting memory.
pub const MAX_PROCESSES: usize = 50_000_000;

/// The file a topology spec reads (`file:PATH`, `dot:PATH`), if any:
/// what [`build`] asks its reader for.
pub fn named_file(spec: &str) -> Option<&str> {
    match spec.split_once(':') {
        Some(("file" | "dot", path)) => Some(path),
        _ => None,
    }
}

/// Builds a topology from a spec such as `ring:8`, `grid:3x4`, `tree:20`,
/// `random:30`, `random:30:0.1`, `file:edges.txt` or `dot:graph.dot`.
/// `read` loads a file's text. Errors are phrased for the command line.
pub fn build(
    spec: &str,
    rng: &mut ChaCha8Rng,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Topology, BuildError> {
    let (family, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let count = |s: &str, what: &str| -> Result<usize, String> {
        let v: usize = s
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a {what} (in topology `{spec}`)"))?;
        if v == 0 || v > MAX_PROCESSES {
            return Err(format!(
                "{what} must be between 1 and {MAX_PROCESSES}, not {v}"
            ));
        }
        Ok(v)
    };
    let dims = |s: &str| -> Result<(usize, usize), String> {
        let (r, c) = s
            .split_once('x')
            .ok_or_else(|| format!("`{family}` needs ROWSxCOLS, e.g. `{family}:3x4`"))?;
        let (r, c) = (count(r, "row count")?, count(c, "column count")?);
        if r.saturating_mul(c) > MAX_PROCESSES {
            return Err(format!("{r}x{c} is more than {MAX_PROCESSES} processes"));
        }
        Ok((r, c))
    };
    if arg.is_empty() && !matches!(family, "file" | "dot" | "petersen") {
        return Err(format!("topology `{spec}` needs a size, e.g. `{family}:8`").into());
    }
    let name = spec.to_string();
    budget(family, arg)?;
    let topo = match family {
        "ring" | "uring" => {
            let n = count(arg, "process count")?;
            if n < 2 {
                return Err(format!("a {family} needs at least 2 processes").into());
            }
            families::ring(name, n, family == "ring")
        }
        "chain" => families::chain(name, count(arg, "process count")?),
        "petersen" if arg.is_empty() => families::petersen(name),
        "petersen" => {
            return Err(format!(
                "`petersen` takes no size (it has 10 processes): write `petersen`, not `{spec}`"
            )
            .into())
        }
        "star" => families::star(name, count(arg, "process count")?),
        "complete" => {
            let n = count(arg, "process count")?;
            if n > 3_000 {
                return Err(
                    format!("complete:{n} has too many edges; use at most 3000 processes").into(),
                );
            }
            families::complete(name, n)
        }
        "grid" | "torus" => {
            let (r, c) = dims(arg)?;
            families::grid(name, r, c, family == "torus")
        }
        "hypercube" => {
            let d: usize = arg.parse().ok().filter(|d| *d <= 20).ok_or_else(|| {
                format!("`hypercube` needs a dimension from 0 to 20, not `{arg}`")
            })?;
            families::hypercube(name, d)
        }
        "tree" => families::tree(name, count(arg, "process count")?, rng),
        "random" => {
            let (n, p) = match arg.split_once(':') {
                Some((n, p)) => {
                    let p: f64 = p
                        .parse()
                        .ok()
                        .filter(|p: &f64| (0.0..=1.0).contains(p))
                        .ok_or_else(|| {
                            format!("edge probability must be between 0 and 1, not `{p}`")
                        })?;
                    (count(n, "process count")?, Some(p))
                }
                None => (count(arg, "process count")?, None),
            };
            random_fits(n, p, arg)?;
            families::random(name, n, p, rng)
        }
        "file" => {
            let text = read(arg)?;
            let mut t = edge_list(arg, &text)?;
            orient_if_ring(&mut t);
            t
        }
        "dot" => {
            let text = read(arg)?;
            let mut t = dot::parse(arg, &text)?;
            orient_if_ring(&mut t);
            t
        }
        other => {
            let hint = crate::diagnostic::suggest(other, FAMILIES.iter().map(|f| f.0))
                .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
            let known: Vec<&str> = FAMILIES.iter().map(|f| f.1).collect();
            return Err(format!(
                "unknown topology `{other}`{hint}; known: {}",
                known.join(", ")
            )
            .into());
        }
    };
    Ok(topo)
}

/// The built-in families: name, and how a spec writes it.
pub const FAMILIES: &[(&str, &str)] = &[
    ("ring", "ring:N"),
    ("uring", "uring:N"),
    ("chain", "chain:N"),
    ("star", "star:N"),
    ("complete", "complete:N"),
    ("grid", "grid:RxC"),
    ("torus", "torus:RxC"),
    ("hypercube", "hypercube:D"),
    ("petersen", "petersen"),
    ("tree", "tree:N"),
    ("random", "random:N[:P]"),
    ("file", "file:PATH"),
    ("dot", "dot:PATH"),
];
