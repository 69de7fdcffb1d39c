//! What an action reads of processes other than its own: whether its
//! guard and move depend on its own edges only, or on its own row only.

use super::read_walk::{Part, ReadWalk};
use super::*;

/// Whether `action` reads an edge variable (`edge_var(v)`) only at its own
/// process (`edge(q).x`, `x[q]`) or as a neighbour's copy of their shared
/// edge (`q.x[self]`): then its guard and move depend on no edge but its
/// own, and a table of what it does need not range over its neighbours'
/// other edges.
pub fn reads_own_edges_only(action: &Action, edge_var: &dyn Fn(usize) -> bool) -> bool {
    let mut ok = true;
    {
        let mut visit = |at: &Proc, v: usize, index: Option<&IExpr>| {
            let shared = matches!(index, Some(IExpr::NodeOf(Proc::Me)));
            if edge_var(v) && !matches!(at, Proc::Me) && !shared {
                ok = false;
            }
        };
        let mut walk = ReadWalk {
            visit: &mut visit,
            each: None,
        };
        walk.action(action);
    }
    ok
}

/// Whether `action` (guard, binder, priority and statement) reads no
/// variable but its own process's, nor whether a process is enabled, nor
/// a channel's length: what it does is then a function of its own row
/// and of the messages it receives.
pub fn reads_own_variables_only(action: &Action) -> bool {
    let (mut own, mut beyond) = (true, false);
    {
        let mut visit = |at: &Proc, _: usize, _: Option<&IExpr>| {
            own &= matches!(at, Proc::Me);
        };
        let mut each = |part: Part| {
            beyond |= matches!(part, Part::Enabled | Part::Int(IExpr::Msgs(..)));
        };
        let mut walk = ReadWalk {
            visit: &mut visit,
            each: Some(&mut each),
        };
        walk.action(action);
    }
    own && !beyond
}

#[cfg(test)]
mod tests {
    /// Whether every action of `body` (a process block's actions, with
    /// `x` and `p` declared) reads its own process's variables only.
    fn own_only(body: &str) -> bool {
        let src = format!(
            "message m(v: 0..3)\nchannel capacity 2\nvar x: 0..3 = 0\nvar p: node = self\n\
             process {{\n{body}\n}}\n"
        );
        let setup = crate::load::Setup {
            topology: Some("ring:4".into()),
            ..crate::load::Setup::default()
        };
        let inst = crate::load::load(&src, &setup, &crate::load::read_file)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let actions = inst.prog.roles.iter().flat_map(|r| &r.actions);
        actions.into_iter().all(super::reads_own_variables_only)
    }

    #[test]
    fn an_action_reads_its_own_row_only_unless_it_looks_elsewhere() {
        // Own variables, a message's fields, ids and sides, a draw.
        assert!(own_only(
            "a :: x < 3 -> x := x + 1; send m(index mod 4) to right\n\
             b :: receive m(v) from q and v > x -> x := v; send m(v) to q\n\
             c :: x == 3 -> x := random(0..3); p := left"
        ));
        for elsewhere in [
            "a :: left.x < 3 -> x := 1",
            "a :: x < 3 -> x := right.x",
            "a for q in nbrs :: q.x == 1 -> x := 2",
            "a :: p.x == 2 -> x := 0",
            "a :: receive m(v) from q and q.x == v -> skip",
            "a :: exists(q in nbrs : q.x > x) -> x := 0",
        ] {
            assert!(!own_only(elsewhere), "{elsewhere}");
        }
    }
}
