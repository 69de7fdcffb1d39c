//! Each process's role, kept in as little memory as the instance allows:
//! most programs give one role to every process but one or two (the bottom
//! machine of a ring, a tree's root), so their roles are a few runs of
//! consecutive processes, not an entry a process.

/// The most runs kept as runs; beyond them, an entry a process (a lookup
/// then searches at most this many runs).
const MOST_RUNS: usize = 4;

/// Each process's role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleMap {
    /// The number of processes.
    n: usize,
    /// Where each run of consecutive processes with one role begins, and
    /// that role, in process order (the first begins at 0); empty where
    /// `each` holds the roles.
    runs: Vec<(u32, u16)>,
    /// Every process's role, where the runs are too many.
    each: Vec<u16>,
}

impl RoleMap {
    /// The map of `role_of`, every process's role in process order.
    pub fn new(role_of: &[u32]) -> Self {
        let mut runs: Vec<(u32, u16)> = Vec::new();
        for (p, &r) in role_of.iter().enumerate() {
            if runs.last().is_none_or(|&(_, last)| u32::from(last) != r) {
                runs.push((p as u32, r as u16));
                if runs.len() > MOST_RUNS {
                    return RoleMap {
                        n: role_of.len(),
                        runs: Vec::new(),
                        each: role_of.iter().map(|&r| r as u16).collect(),
                    };
                }
            }
        }
        RoleMap {
            n: role_of.len(),
            runs,
            each: Vec::new(),
        }
    }

    /// Process `p`'s role.
    #[inline]
    pub fn of(&self, p: usize) -> usize {
        assert!(p < self.n, "process {p} of {}", self.n);
        let role = match self.runs[..] {
            [] => self.each[p],
            [(_, only)] => only,
            [(_, a), (second, b)] => {
                if p < second as usize {
                    a
                } else {
                    b
                }
            }
            ref runs => Self::search(runs, p),
        };
        usize::from(role)
    }

    /// The role of `p` among three runs or more (kept out of [`RoleMap::of`]
    /// so that the common cases inline small).
    #[inline(never)]
    fn search(runs: &[(u32, u16)], p: usize) -> u16 {
        let later = runs[1..].partition_point(|&(first, _)| first as usize <= p);
        runs[later].1
    }

    /// The number of processes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no processes.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Every process's role, in process order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs()
            .flat_map(|(first, end, role)| (first..end).map(move |_| role))
    }

    /// The runs of consecutive processes with one role: (first, end, role).
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        let from_runs = self.runs.iter().enumerate().map(|(k, &(first, role))| {
            let end = self
                .runs
                .get(k + 1)
                .map_or(self.n, |&(next, _)| next as usize);
            (first as usize, end, usize::from(role))
        });
        let mut each = self.each.iter().enumerate().peekable();
        let from_each = std::iter::from_fn(move || {
            let (first, &role) = each.next()?;
            let mut end = first + 1;
            while each.next_if(|&(_, &r)| r == role).is_some() {
                end += 1;
            }
            Some((first, end, usize::from(role)))
        });
        from_runs.chain(from_each)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<(u32, u16)>() + self.each.capacity() * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_entries_give_every_process_its_role() {
        for role_of in [
            vec![],
            vec![0],
            vec![1, 0, 0, 0, 0],
            vec![0, 0, 1, 1, 2, 0],
            vec![0, 1, 0, 1, 0, 1, 0, 1],
        ] {
            let map = RoleMap::new(&role_of);
            let each: Vec<usize> = role_of.iter().map(|&r| r as usize).collect();
            assert_eq!(
                (0..role_of.len()).map(|p| map.of(p)).collect::<Vec<_>>(),
                each
            );
            assert_eq!(map.iter().collect::<Vec<_>>(), each);
            let mut from_runs = Vec::new();
            for (first, end, role) in map.runs() {
                assert!(first < end);
                from_runs.extend((first..end).map(|_| role));
            }
            assert_eq!(from_runs, each);
            assert_eq!(map.len(), role_of.len());
        }
        // Alternating roles are kept an entry a process, runs merged.
        let map = RoleMap::new(&[0, 1, 0, 1, 0, 1, 1]);
        assert!(map.runs.is_empty());
        assert_eq!(map.runs().count(), 6);
    }
}
