//! The words the grammar (`grammar/guarded.pest`) gives a meaning of its
//! own: the reserved ones, which no name may be, and those that mean
//! something only where they stand. Diagnostics and the editor's
//! completion take their lists from here; a test holds them to the
//! grammar.

/// The reserved words: the grammar's `keyword` rule, so no name (of a
/// variable, an action, a definition) may be one.
pub const RESERVED: &[&str] = &[
    "param",
    "topology",
    "enum",
    "var",
    "bool",
    "node",
    "legitimate",
    "invariant",
    "process",
    "where",
    "priority",
    "skip",
    "if",
    "else",
    "not",
    "or",
    "and",
    "mod",
    "forall",
    "exists",
    "count",
    "in",
    "nbrs",
    "procs",
    "true",
    "false",
    "def",
    "for",
    "array",
    "of",
    "report",
    "edge",
    "timer",
    "receive",
    "from",
    "send",
    "to",
    "message",
    "channel",
];

/// Words with a meaning only where they stand (`always` in a property,
/// `capacity` in a channel declaration, `min` before its parenthesis):
/// elsewhere they are names like any other.
pub const CONTEXTUAL: &[&str] = &[
    "capacity",
    "delay",
    "acyclic",
    "min",
    "random",
    "property",
    "sometimes",
    "stable",
    "always",
    "eventually",
    "leads_to",
    "under",
    "weak",
    "strong",
    "fairness",
    "max",
    "sum",
    "then",
    "argmin",
    "argmax",
];

#[cfg(test)]
mod tests {
    use super::*;

    const GRAMMAR: &str = include_str!("../../grammar/guarded.pest");

    /// The quoted words of the grammar's rules whose names start with
    /// `prefix` (`kw_`, `w_`), one word a rule.
    fn rule_words(prefix: &str) -> Vec<&'static str> {
        GRAMMAR
            .lines()
            .filter(|l| l.starts_with(prefix))
            .filter_map(|l| l.split('"').nth(1))
            .collect()
    }

    fn sorted(words: &[&'static str]) -> Vec<&'static str> {
        let mut words = words.to_vec();
        words.sort_unstable();
        words
    }

    #[test]
    fn the_lists_are_the_grammars_words() {
        // The `keyword` rule: the quoted words between its braces.
        let rule = GRAMMAR
            .split("\nkeyword = @{")
            .nth(1)
            .expect("a keyword rule");
        let rule = rule.split("\n}").next().expect("its end");
        let keyword: Vec<&str> = rule.split('"').skip(1).step_by(2).collect();
        assert_eq!(sorted(&keyword), sorted(RESERVED), "the keyword rule");
        // Each reserved word is also a rule of its own, and nothing else is.
        assert_eq!(
            sorted(&rule_words("kw_")),
            sorted(RESERVED),
            "the kw_ rules"
        );
        assert_eq!(
            sorted(&rule_words("w_")),
            sorted(CONTEXTUAL),
            "the w_ rules"
        );
    }

    #[test]
    fn misspellings_are_matched_against_the_grammars_words() {
        for word in super::super::hints::SPELLED {
            assert!(
                RESERVED.contains(word) || CONTEXTUAL.contains(word),
                "`{word}` is not a word of the grammar"
            );
        }
    }
}
