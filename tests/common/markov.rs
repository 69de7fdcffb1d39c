//! Markov chains written out by hand in the tests and solved by plain
//! Gaussian elimination: an independent computation of expected times,
//! sharing nothing with `guarded expect`'s solver.

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
pub fn gauss(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap();
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            if f != 0.0 {
                let pivot_row = a[col].clone();
                for (x, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    x
}

/// Expected steps to `legit` of a Markov chain over `states` states,
/// `next(s)` the successors of `s` with their probabilities: the system
/// E(s) = 1 + sum p E(t) outside `legit`, E(s) = 0 in it.
pub fn chain(
    states: usize,
    legit: impl Fn(usize) -> bool,
    next: impl Fn(usize) -> Vec<(usize, f64)>,
) -> Vec<f64> {
    let mut a = vec![vec![0.0; states]; states];
    let mut b = vec![0.0; states];
    for s in 0..states {
        a[s][s] = 1.0;
        if legit(s) {
            continue;
        }
        b[s] = 1.0;
        for (t, p) in next(s) {
            a[s][t] -= p;
        }
    }
    gauss(a, b)
}

/// The state number of a configuration of one boolean a process: bit i is
/// process i's.
pub fn as_bits(rows: &[i64]) -> usize {
    rows.iter()
        .enumerate()
        .map(|(i, &b)| (b as usize) << i)
        .sum()
}

/// Whether `v`, found by value iteration, is `exact` as `guarded expect`
/// certifies it: within the certified precision, relative to it
/// (absolutely below 1).
pub fn certified_close(v: f64, exact: f64) -> bool {
    (v - exact).abs() <= guarded::verify::expected::CERTIFIED_WITHIN * exact.abs().max(1.0)
}

/// Each configuration's value (`values`, in `configs`' order) against the
/// chain's (`by_hand`, by [`as_bits`]), as [`certified_close`].
pub fn assert_agrees(
    configs: &[guarded::state::Config],
    values: &[f64],
    by_hand: &[f64],
    what: &str,
) {
    for (cfg, v) in configs.iter().zip(values) {
        let want = by_hand[as_bits(&cfg.rows)];
        assert!(
            certified_close(*v, want),
            "{what}, {:?}: {v} against {want}",
            cfg.rows
        );
    }
}
