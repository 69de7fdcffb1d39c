//! Steps kept as a table, their strongly connected components, and under
//! strong fairness the parts of them a fair run can stay in for ever.
//!
//! A cycle is strongly fair when every process enabled somewhere on it
//! moves somewhere on it. In a strongly connected set S, a process enabled
//! somewhere in S that moves on no step inside S can be on no fair cycle
//! through a configuration where it is enabled; so those configurations
//! are dropped, the rest split into components again, and so on until
//! every process enabled in a component moves inside it. What is left
//! (the cores) holds a fair cycle through each of its configurations: a
//! tour of a core and of a step moving each such process is one, and every
//! fair cycle lies in a core (the usual refinement for Streett conditions).

/// Steps between numbered configurations: where each leads and its movers
/// as bits (12 bytes a step; 4 where the movers are not kept), the steps
/// of configuration i at `start[i]..start[i + 1]`.
pub(super) struct StepTable {
    start: Vec<usize>,
    to: Vec<u32>,
    /// Per step, its movers; empty where they are not kept.
    movers: Vec<u64>,
    keeps_movers: bool,
}

/// The movers of a step in a table that does not keep them: whoever.
pub(super) const ANY_MOVERS: u64 = u64::MAX;

impl StepTable {
    /// A table with no configurations yet, keeping each step's movers;
    /// [`StepTable::push`] adds each.
    pub(super) fn with_capacity(count: usize) -> Self {
        Self::keeping(count, true)
    }

    /// A table with no configurations yet, keeping each step's movers or
    /// not (then [`StepTable::from`] gives [`ANY_MOVERS`]: where fairness
    /// is not asked, only where steps lead matters).
    pub(super) fn keeping(count: usize, movers: bool) -> Self {
        let mut start = Vec::with_capacity(count + 1);
        start.push(0);
        StepTable {
            start,
            to: Vec::new(),
            movers: Vec::new(),
            keeps_movers: movers,
        }
    }

    /// Adds the next configuration's steps.
    pub(super) fn push(&mut self, steps: impl IntoIterator<Item = (u32, u64)>) {
        for (to, movers) in steps {
            self.to.push(to);
            if self.keeps_movers {
                self.movers.push(movers);
            }
        }
        self.start.push(self.to.len());
    }

    /// Room for `steps` more steps, taken once: appending parts then
    /// copies each into place (the pages not yet written are not yet
    /// memory) and frees it.
    pub(super) fn reserve(&mut self, steps: usize) {
        self.to.reserve_exact(steps);
        if self.keeps_movers {
            self.movers.reserve_exact(steps);
        }
    }

    /// Adds the configurations of `other` after these.
    pub(super) fn append(&mut self, other: StepTable) {
        let offset = self.to.len();
        self.start
            .extend(other.start[1..].iter().map(|&at| at + offset));
        self.to.extend(other.to);
        self.movers.extend(other.movers);
    }

    /// The bytes it takes.
    pub(super) fn bytes(&self) -> u64 {
        (self.start.capacity() * 8 + self.to.capacity() * 4 + self.movers.capacity() * 8) as u64
    }

    /// How many steps it holds.
    pub(super) fn steps(&self) -> usize {
        self.to.len()
    }

    /// How many configurations it holds.
    pub(super) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Where configuration `i`'s steps lead.
    pub(super) fn targets(&self, i: usize) -> &[u32] {
        &self.to[self.start[i]..self.start[i + 1]]
    }

    /// Configuration `i`'s steps: where each leads, and its movers
    /// ([`ANY_MOVERS`] where not kept).
    pub(super) fn from(&self, i: usize) -> impl Iterator<Item = (u32, u64)> + '_ {
        let range = self.start[i]..self.start[i + 1];
        let movers = match self.keeps_movers {
            true => &self.movers[range.clone()],
            false => &[][..],
        };
        let unknown = std::iter::repeat_n(ANY_MOVERS, range.len() - movers.len());
        self.to[range]
            .iter()
            .copied()
            .zip(movers.iter().copied().chain(unknown))
    }
}

/// No component: outside the configurations asked about.
pub(super) const NO_COMPONENT: usize = usize::MAX;

/// The strongly connected component of each configuration of `table`
/// among those `within` (the others each their own), by Tarjan's algorithm
/// without recursion.
pub(super) fn components(table: &StepTable, within: &[bool]) -> Vec<usize> {
    let n = table.len();
    const NONE: usize = usize::MAX;
    let (mut index, mut low, mut comp) = (vec![NONE; n], vec![0; n], vec![NONE; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next, mut count) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut calls: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = calls.last_mut() {
            if let Some(&w) = table.targets(v).get(*k) {
                *k += 1;
                let w = w as usize;
                if !within[v] || !within[w] {
                    continue;
                }
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    comp
}

/// Per component of `comp` (numbered below `count`): whether a step of
/// `table` stays inside it, and the movers of such steps together.
pub(super) fn inside_steps(
    table: &StepTable,
    within: &[bool],
    comp: &[usize],
    count: usize,
) -> (Vec<bool>, Vec<u64>) {
    let (mut cyclic, mut moved) = (vec![false; count], vec![0u64; count]);
    for i in (0..table.len()).filter(|&i| within[i]) {
        let c = comp[i];
        for (j, movers) in table.from(i) {
            if within[j as usize] && comp[j as usize] == c {
                cyclic[c] = true;
                moved[c] |= movers;
            }
        }
    }
    (cyclic, moved)
}

/// Under strong fairness: per configuration of `table` among those
/// `within`, the core it lies in (see the module's comment), or
/// [`NO_COMPONENT`] when no strongly fair cycle passes through it;
/// `enabled` holds each configuration's enabled processes as bits.
pub(super) fn strong_cores(table: &StepTable, within: &[bool], enabled: &[u64]) -> Vec<usize> {
    let n = table.len();
    let mut left = within.to_vec();
    loop {
        let comp = components(table, &left);
        let count = (0..n)
            .filter(|&i| left[i])
            .map(|i| comp[i] + 1)
            .max()
            .unwrap_or(0);
        let (cyclic, moved) = inside_steps(table, &left, &comp, count);
        let mut somewhere = vec![0u64; count];
        for i in (0..n).filter(|&i| left[i]) {
            somewhere[comp[i]] |= enabled[i];
        }
        let mut dropped = false;
        for i in 0..n {
            if !left[i] || !cyclic[comp[i]] {
                continue;
            }
            let starved = somewhere[comp[i]] & !moved[comp[i]];
            if enabled[i] & starved != 0 {
                left[i] = false;
                dropped = true;
            }
        }
        if !dropped {
            return (0..n)
                .map(|i| match left[i] && cyclic[comp[i]] {
                    true => comp[i],
                    false => NO_COMPONENT,
                })
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn table(steps: &[&[(u32, u64)]]) -> StepTable {
        let mut t = StepTable::with_capacity(steps.len());
        for s in steps {
            t.push(s.iter().copied());
        }
        t
    }

    /// 0 -> 1 -> 0 moving process 0 each time; process 1 enabled at 1
    /// only: the cycle is weakly fair (1 is not enabled throughout) but
    /// not strongly (1 is enabled on it and never moves).
    #[test]
    fn a_process_enabled_now_and_then_starves_no_core() {
        let t = table(&[&[(1, 0b01)], &[(0, 0b01)]]);
        let cores = strong_cores(&t, &[true, true], &[0b01, 0b11]);
        assert_eq!(cores, vec![NO_COMPONENT, NO_COMPONENT]);
        // With a step moving process 1 inside, the whole cycle is a core.
        let t = table(&[&[(1, 0b01)], &[(0, 0b01), (1, 0b10)]]);
        let cores = strong_cores(&t, &[true, true], &[0b01, 0b11]);
        assert!(cores[0] != NO_COMPONENT && cores[0] == cores[1]);
    }

    /// Dropping where a starved process is enabled leaves a smaller cycle
    /// that is fair: 0 <-> 1 (process 0), 1 <-> 2 (process 0), process 1
    /// enabled only at 2 and never moving: the core is {0, 1}.
    #[test]
    fn the_refinement_keeps_the_fair_part() {
        let t = table(&[&[(1, 1)], &[(0, 1), (2, 1)], &[(1, 1)]]);
        let cores = strong_cores(&t, &[true; 3], &[0b01, 0b01, 0b11]);
        assert!(cores[0] != NO_COMPONENT && cores[0] == cores[1]);
        assert_eq!(cores[2], NO_COMPONENT);
    }

    /// Whether the configurations of `set` (bits), with the steps between
    /// them, are strongly connected, hold a step, and move every process
    /// enabled in them: then a tour of them is a strongly fair cycle, and
    /// every strongly fair cycle's configurations are such a set.
    fn fair_set(t: &StepTable, enabled: &[u64], set: u32) -> bool {
        let members: Vec<usize> = (0..t.len()).filter(|&i| set >> i & 1 == 1).collect();
        let inside = |i: usize| t.from(i).filter(move |&(j, _)| set >> j & 1 == 1);
        let moved = members
            .iter()
            .flat_map(|&i| inside(i))
            .fold(0, |bits, (_, m)| bits | m);
        let some_step = members.iter().any(|&i| inside(i).next().is_some());
        let reaches = |from: usize| {
            let mut seen = 1u32 << from;
            let mut todo = vec![from];
            while let Some(i) = todo.pop() {
                for (j, _) in inside(i) {
                    if seen >> j & 1 == 0 {
                        seen |= 1 << j;
                        todo.push(j as usize);
                    }
                }
            }
            seen
        };
        let enabled_in = members.iter().fold(0, |bits, &i| bits | enabled[i]);
        some_step && members.iter().all(|&i| reaches(i) == set) && enabled_in & !moved == 0
    }

    proptest! {
        /// A configuration is in a core exactly when some strongly fair
        /// cycle passes through it (every set of configurations tried).
        #[test]
        fn cores_are_where_fair_cycles_pass(
            steps in prop::collection::vec(
                prop::collection::vec((0u32..7, 1u64..8), 0..4), 1..8),
            enabled in prop::collection::vec(0u64..8, 8),
        ) {
            let n = steps.len();
            let t = table(&steps.iter().map(|s| {
                s.iter().map(|&(j, m)| (j % n as u32, m)).collect::<Vec<_>>()
            }).collect::<Vec<_>>().iter().map(|v| v.as_slice()).collect::<Vec<_>>());
            let cores = strong_cores(&t, &vec![true; n], &enabled[..n]);
            for (i, &core) in cores.iter().enumerate() {
                let on_fair_cycle = (1u32..1 << n)
                    .filter(|set| set >> i & 1 == 1)
                    .any(|set| fair_set(&t, &enabled[..n], set));
                prop_assert_eq!(core != NO_COMPONENT, on_fair_cycle, "{}", i);
            }
        }
    }
}
