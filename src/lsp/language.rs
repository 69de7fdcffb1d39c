//! The language's own names and keywords, as hover and completion
//! describe them.

/// The language's own names, with a line of documentation each.
pub const BUILTINS: &[(&str, &str)] = &[
    ("n", "the number of processes"),
    ("index", "the process's number, 0 to n - 1"),
    (
        "id",
        "the process's id (the index unless `--ids` says otherwise)",
    ),
    ("self", "the process itself (a node)"),
    ("left", "the ring's or chain's left neighbour (a node)"),
    ("right", "the ring's or chain's right neighbour (a node)"),
    (
        "enabled",
        "`enabled(p)`: whether process p has an enabled action (global predicates)",
    ),
    (
        "min",
        "`min(a, b)`, or `min(q in S : e)`: the smallest value",
    ),
    (
        "max",
        "`max(a, b)`, or `max(q in S : e)`: the largest value",
    ),
    ("abs", "`abs(a)`: the absolute value"),
    (
        "argmin",
        "`argmin(q in S : e)`: the member with the smallest e (ties: smallest id)",
    ),
    (
        "argmax",
        "`argmax(q in S : e)`: the member with the largest e (ties: smallest id)",
    ),
    ("int", "`int(b)`: 1 if b holds, else 0"),
    (
        "msgs",
        "`msgs(p, q, m)`: messages (of type m) in the channel from p to q",
    ),
    (
        "tree_parent",
        "on a `tree:N` topology, the process's parent (itself at the root)",
    ),
    ("maxdeg", "the most neighbours any process has"),
    (
        "acyclic",
        "`acyclic(p -> q : P)`: the arcs where P holds form no directed cycle",
    ),
    ("forall", "`forall(q in S : P)`: P holds for every member"),
    ("exists", "`exists(q in S : P)`: P holds for some member"),
    ("count", "`count(q in S : P)`: how many members satisfy P"),
    ("sum", "`sum(q in S : e)`: the total of e over the members"),
    (
        "nbrs",
        "the process's neighbours; `nbrs(p)` in global predicates",
    ),
    ("procs", "every process (global predicates)"),
    (
        "random",
        "`random(lo..hi)`, `random(bool)`, `random(nbrs)`, `random(S)`: a value (or a member of a set, each alike) drawn by the run's seeded generator, in statements",
    ),
    (
        "edge",
        "`edge(q).x`: the edge variable x shared with neighbour q",
    ),
];

/// The language's keywords, as the editor shows them: the grammar's words
/// (`crate::syntax::words`) but the language's own names, which have
/// their documentation in [`BUILTINS`]; `edge` is both, as it begins a
/// declaration and names an edge's variables.
pub fn keywords() -> impl Iterator<Item = &'static str> {
    use crate::syntax::words::{CONTEXTUAL, RESERVED};
    let builtin = |w: &str| BUILTINS.iter().any(|b| b.0 == w);
    (RESERVED.iter().chain(CONTEXTUAL))
        .copied()
        .filter(move |&w| w == "edge" || !builtin(w))
}

/// Whether `word` is one of [`keywords`].
pub fn is_keyword(word: &str) -> bool {
    keywords().any(|k| k == word)
}

/// Fields every process has, besides its variables.
pub const FIELDS: &[&str] = &["id", "index", "left", "right"];
