//! Where each process goes in a picture, as a person would draw the
//! topology: rings (and complete graphs, hypercubes) on a circle, chains on
//! a line, grids and tori as grids, trees in layers from the root, a star
//! around its centre, a DOT file at its `pos` when every node has one, and
//! any other graph by a force-directed layout. Coordinates are in `0..=1`,
//! `y` growing downwards; the same topology always gets the same picture.

use crate::topology::{Topology, NONE};
use std::collections::VecDeque;

/// A process's place: `(x, y)` in `0..=1`, `y` downwards.
pub type Point = (f64, f64);

/// Above this many processes the force-directed layout (quadratic per
/// iteration) gives way to a circle.
const MAX_FORCE_LAYOUT: usize = 1500;

/// The places of every process of `topo`.
pub fn layout(topo: &Topology) -> Vec<Point> {
    let n = topo.n();
    if n == 1 {
        return vec![(0.5, 0.5)];
    }
    let family = topo.name.split(':').next().unwrap_or("");
    let placed = match family {
        "chain" => Some((0..n).map(|i| (i as f64 / (n - 1) as f64, 0.5)).collect()),
        "grid" | "torus" => grid_size(&topo.name).map(|(_, c)| grid(n, c)),
        "tree" => Some(layers(topo)),
        "star" => Some(star(n)),
        "complete" | "hypercube" => Some(circle(&(0..n).collect::<Vec<_>>())),
        "petersen" if n == 10 => Some(petersen()),
        "dot" => given_positions(topo),
        _ => None,
    };
    placed
        .or_else(|| ring_order(topo).map(|order| circle(&order)))
        .unwrap_or_else(|| {
            if n > MAX_FORCE_LAYOUT {
                circle(&(0..n).collect::<Vec<_>>())
            } else {
                force(topo)
            }
        })
}

/// `R` and `C` of `grid:RxC` / `torus:RxC`.
fn grid_size(name: &str) -> Option<(usize, usize)> {
    let spec = name.split_once(':')?.1;
    let (r, c) = spec.split_once(['x', 'X'])?;
    Some((r.trim().parse().ok()?, c.trim().parse().ok()?))
}

fn grid(n: usize, c: usize) -> Vec<Point> {
    let rows = n.div_ceil(c.max(1));
    let span = (c.max(rows) - 1).max(1) as f64;
    (0..n)
        .map(|i| ((i % c) as f64 / span, (i / c) as f64 / span))
        .collect()
}

/// The processes in ring order from process 0 (following `left` backwards),
/// when `left` closes one cycle through all of them.
fn ring_order(topo: &Topology) -> Option<Vec<usize>> {
    let n = topo.n();
    if !topo.has_left || (0..n).any(|p| topo.left(p) == NONE) {
        return None;
    }
    // Following `left` from 0 walks the ring backwards; reverse it so that
    // indices grow clockwise.
    let mut order = vec![0usize];
    let mut cur = topo.left(0) as usize;
    while cur != 0 && order.len() <= n {
        order.push(cur);
        cur = topo.left(cur) as usize;
    }
    if order.len() != n {
        return None;
    }
    order[1..].reverse();
    Some(order)
}

/// `order` (every process once) clockwise on a circle, the first at the
/// top.
fn circle(order: &[usize]) -> Vec<Point> {
    let n = order.len();
    let mut at = vec![(0.5, 0.5); n];
    for (k, &p) in order.iter().enumerate() {
        at[p] = on_circle(k, n);
    }
    at
}

/// Place `k` of `count` clockwise on the circle, place 0 at the top.
fn on_circle(k: usize, count: usize) -> Point {
    let a = std::f64::consts::TAU * k as f64 / count as f64;
    (0.5 + 0.5 * a.sin(), 0.5 - 0.5 * a.cos())
}

/// The Petersen graph's standard drawing: the outer pentagon 0..4, and
/// inside it the pentagram 5..9, each inner process under its spoke.
fn petersen() -> Vec<Point> {
    let outer = circle(&[0, 1, 2, 3, 4]);
    let inner = outer
        .iter()
        .map(|&(x, y)| (0.5 + (x - 0.5) * 0.5, 0.5 + (y - 0.5) * 0.5));
    outer.iter().copied().chain(inner).collect()
}

/// Process 0 at the centre, the others around it.
fn star(n: usize) -> Vec<Point> {
    // The centre, process 0, in the middle; the others around it. (The
    // others were once placed as a circle of their own, whose places are
    // numbered from 0: process n - 1 fell past its end.)
    let leaves = (1..n).map(|p| on_circle(p - 1, n - 1));
    std::iter::once((0.5, 0.5)).chain(leaves).collect()
}

/// Layers by distance from process 0 (the root of `tree:N`); within a
/// layer, children in the order of their parents, so edges do not cross.
fn layers(topo: &Topology) -> Vec<Point> {
    let n = topo.n();
    let mut depth = vec![usize::MAX; n];
    let mut order = Vec::with_capacity(n);
    let mut queue = VecDeque::new();
    for root in 0..n {
        if depth[root] != usize::MAX {
            continue;
        }
        depth[root] = 0;
        queue.push_back(root);
        while let Some(p) = queue.pop_front() {
            order.push(p);
            for &q in topo.nbrs(p).iter().chain(topo.readers(p)) {
                let q = q as usize;
                if depth[q] == usize::MAX {
                    depth[q] = depth[p] + 1;
                    queue.push_back(q);
                }
            }
        }
    }
    let deepest = depth.iter().copied().max().unwrap_or(0);
    let mut per_layer: Vec<Vec<usize>> = vec![Vec::new(); deepest + 1];
    for &p in &order {
        per_layer[depth[p]].push(p);
    }
    let mut at = vec![(0.5, 0.5); n];
    for (d, layer) in per_layer.iter().enumerate() {
        for (k, &p) in layer.iter().enumerate() {
            at[p] = (
                (k as f64 + 0.5) / layer.len() as f64,
                d as f64 / deepest.max(1) as f64,
            );
        }
    }
    at
}

/// The `pos="x,y"` attributes of a DOT file, when every node has one
/// (Graphviz's `y` grows upwards; a trailing `!` is allowed).
fn given_positions(topo: &Topology) -> Option<Vec<Point>> {
    let mut at: Vec<Option<Point>> = vec![None; topo.n()];
    for (p, key, val) in &topo.attrs {
        if key == "pos" {
            let (x, y) = val.trim_end_matches('!').split_once(',')?;
            let (x, y): (f64, f64) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
            at[*p as usize] = Some((x, -y));
        }
    }
    let at: Vec<Point> = at.into_iter().collect::<Option<_>>()?;
    Some(normalized(at))
}

/// Scales points into `0..=1`, keeping their proportions.
fn normalized(at: Vec<Point>) -> Vec<Point> {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in &at {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let span = (x1 - x0).max(y1 - y0);
    if !(span > 0.0 && span.is_finite()) {
        return vec![(0.5, 0.5); at.len()];
    }
    at.into_iter()
        .map(|(x, y)| ((x - x0) / span, (y - y0) / span))
        .collect()
}

/// Fruchterman and Reingold's spring layout from a circle, a fixed number
/// of iterations with a cooling step (deterministic: no random start).
fn force(topo: &Topology) -> Vec<Point> {
    let n = topo.n();
    let mut at = circle(&(0..n).collect::<Vec<_>>());
    let k = (1.0 / n as f64).sqrt();
    let mut temperature = 0.1;
    let iterations = 300;
    let mut shift = vec![(0.0f64, 0.0f64); n];
    for _ in 0..iterations {
        shift.iter_mut().for_each(|s| *s = (0.0, 0.0));
        for p in 0..n {
            for q in p + 1..n {
                let (dx, dy) = (at[p].0 - at[q].0, at[p].1 - at[q].1);
                let d = (dx * dx + dy * dy).sqrt().max(1e-6);
                let f = k * k / d;
                let (fx, fy) = (dx / d * f, dy / d * f);
                shift[p].0 += fx;
                shift[p].1 += fy;
                shift[q].0 -= fx;
                shift[q].1 -= fy;
            }
        }
        for p in 0..n {
            for &q in topo.nbrs(p) {
                let q = q as usize;
                let (dx, dy) = (at[p].0 - at[q].0, at[p].1 - at[q].1);
                let d = (dx * dx + dy * dy).sqrt().max(1e-6);
                let f = d * d / k;
                shift[p].0 -= dx / d * f;
                shift[p].1 -= dy / d * f;
            }
        }
        for p in 0..n {
            let (dx, dy) = shift[p];
            let d = (dx * dx + dy * dy).sqrt().max(1e-9);
            let step = d.min(temperature);
            at[p].0 += dx / d * step;
            at[p].1 += dy / d * step;
        }
        temperature *= 0.985;
    }
    normalized(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn topo(spec: &str) -> Topology {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        crate::topology::build(spec, &mut rng, &|_| Err(String::new()))
            .unwrap_or_else(|e| panic!("{spec}: {e:?}"))
    }

    #[test]
    fn the_petersen_graph_is_a_pentagon_around_a_pentagram() {
        let at = layout(&topo("petersen"));
        let from_centre = |p: usize| (at[p].0 - 0.5).hypot(at[p].1 - 0.5);
        for i in 0..5 {
            assert!((from_centre(i) - 0.5).abs() < 1e-9);
            assert!((from_centre(i + 5) - 0.25).abs() < 1e-9);
            // Each inner process on its spoke.
            let (o, n) = (at[i], at[i + 5]);
            let cross = (o.0 - 0.5) * (n.1 - 0.5) - (o.1 - 0.5) * (n.0 - 0.5);
            assert!(cross.abs() < 1e-9);
        }
    }

    #[test]
    fn families_are_drawn_as_people_draw_them() {
        let ring = layout(&topo("ring:4"));
        assert!(
            (ring[0].0 - 0.5).abs() < 1e-9 && ring[0].1.abs() < 1e-9,
            "0 on top"
        );
        assert!(ring[1].0 > 0.99, "1 to the right: clockwise");
        let grid = layout(&topo("grid:2x3"));
        assert_eq!(grid[4], (0.5, 0.5));
        let chain = layout(&topo("chain:3"));
        assert_eq!(chain, vec![(0.0, 0.5), (0.5, 0.5), (1.0, 0.5)]);
        let tree = layout(&topo("tree:7"));
        assert_eq!(tree[0].1, 0.0);
        assert!(tree
            .iter()
            .all(|&(x, y)| (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y)));
    }

    /// Every family, at sizes from one process up, gets a place for each
    /// process inside the picture, no two at one place (a star once
    /// panicked: its last process fell past the circle of the others).
    #[test]
    fn every_family_places_every_process_apart() {
        let specs = [
            "ring:2",
            "ring:5",
            "uring:5",
            "chain:1",
            "chain:2",
            "chain:4",
            "star:1",
            "star:2",
            "star:3",
            "star:6",
            "complete:4",
            "grid:2x3",
            "torus:3x3",
            "hypercube:3",
            "petersen",
            "tree:1",
            "tree:6",
            "random:9",
        ];
        for spec in specs {
            let at = layout(&topo(spec));
            assert_eq!(at.len(), topo(spec).n(), "{spec}");
            for (p, &(x, y)) in at.iter().enumerate() {
                assert!(
                    (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y),
                    "{spec}: {p}"
                );
                for (q, &(u, v)) in at.iter().enumerate().skip(p + 1) {
                    assert!((x - u).hypot(y - v) > 0.01, "{spec}: {p} and {q} overlap");
                }
            }
        }
        let star = layout(&topo("star:5"));
        assert_eq!(star[0], (0.5, 0.5), "the centre in the middle");
        for leaf in &star[1..] {
            assert!(((leaf.0 - 0.5).hypot(leaf.1 - 0.5) - 0.5).abs() < 1e-9);
        }
    }

    #[test]
    fn force_layout_spreads_a_random_graph_deterministically() {
        let t = topo("random:12:0.3");
        let a = layout(&t);
        assert_eq!(a, layout(&t));
        for p in 0..12 {
            for q in p + 1..12 {
                let d = ((a[p].0 - a[q].0).powi(2) + (a[p].1 - a[q].1).powi(2)).sqrt();
                assert!(d > 0.01, "{p} and {q} overlap");
            }
        }
    }
}
