//! Pest's errors as diagnostics: rules named as a person would name them,
//! never as the grammar does, and the end of input pointed at its last
//! character.

use super::hints::likely_meant;
use super::parse::Rule;
use crate::diagnostic::Problem;
use crate::span::Span;

fn rule_name(rule: &Rule) -> String {
    use Rule::*;
    let s = match rule {
        EOI => "end of input",
        program | item => {
            "a declaration (param, topology, enum, var, edge var, timer, def, message, channel, process, legitimate, invariant, property, report)"
        }
        param_decl => "a parameter declaration",
        topology_decl => "a topology declaration",
        topology_spec => "a topology such as `ring:8`",
        enum_decl => "an enumeration declaration",
        enum_body => "`{` and a list of names",
        var_decl => "a variable declaration",
        domain | bool_domain | node_domain | range_domain | named_domain => {
            "a domain (`lo..hi`, `bool`, `node`, `{a, b}`, `array[LEN] of DOMAIN` or an enumeration name)"
        }
        legitimate_decl => "`legitimate:`",
        invariant_decl => "`invariant NAME:`",
        role => "`process`",
        action => "an action `label :: guard -> statement`",
        arrow => "`->`",
        rbrace => "`}`",
        assign_op => "`:=`",
        priority => "`priority N`",
        stmts | stmt | block | skip_stmt | if_stmt | assign => "a statement",
        target => "a variable to assign",
        expr | sum | primary | atom | paren | call | name => "an expression",
        prefix | sum_prefix | not_op | neg_op => "an operator",
        infix | sum_infix | implies_op | or_op | and_op | eq_op | ne_op | le_op | ge_op | lt_op
        | gt_op | add_op | sub_op | mul_op | div_op | mod_op => "an operator",
        quantifier | quant_kind => "a quantifier",
        draw => "a random draw `random(lo..hi)` or `random(bool)`",
        collection => "`nbrs`, `procs`, a range `lo..hi` or a set",
        int_lit => "a number",
        true_lit | false_lit => "a boolean",
        ident => "a name",
        keyword => "a keyword",
        kw_param => "`param`",
        kw_topology => "`topology`",
        kw_enum => "`enum`",
        kw_var => "`var`",
        kw_bool => "`bool`",
        kw_node => "`node`",
        kw_legitimate => "`legitimate`",
        kw_invariant => "`invariant`",
        kw_process => "`process`",
        kw_where => "`where`",
        kw_priority => "`priority`",
        kw_skip => "`skip`",
        kw_if => "`if`",
        kw_else => "`else`",
        kw_not => "`not`",
        kw_or => "`or`",
        kw_and => "`and`",
        kw_mod => "`mod`",
        kw_forall => "`forall`",
        kw_exists => "`exists`",
        kw_count => "`count`",
        kw_in => "`in`",
        kw_nbrs => "`nbrs`",
        kw_procs => "`procs`",
        kw_true => "`true`",
        kw_false => "`false`",
        kw_def => "`def`",
        kw_report => "`report`",
        kw_edge => "`edge`",
        kw_timer => "`timer`",
        kw_receive => "`receive`",
        kw_from => "`from`",
        kw_send => "`send`",
        kw_to => "`to`",
        kw_message => "`message`",
        kw_channel => "`channel`",
        w_capacity => "`capacity`",
        w_delay => "`delay`",
        w_acyclic => "`acyclic`",
        var_kind => "`var`, `edge var` or `timer`",
        message_decl | msg_field => "a message declaration `message NAME(field: DOMAIN)`",
        channel_decl => "`channel capacity N`",
        action_for => "`for q in COLLECTION`",
        receive => "`receive MESSAGE(fields) from NAME`",
        send_stmt => "`send MESSAGE(values) to PROCESS`",
        edge_target | edge_ref => "`edge(q)`",
        acyclic => "`acyclic(p -> q : predicate)`",
        report_decl => "`report NAME:`",
        kw_for => "`for`",
        kw_array => "`array`",
        kw_of => "`of`",
        w_min => "`min`",
        w_max => "`max`",
        w_sum => "`sum`",
        w_then => "`then`",
        cond => "a conditional `if c then a else b`",
        w_argmin => "`argmin`",
        w_argmax => "`argmax`",
        w_random => "`random`",
        w_property | w_sometimes | w_stable | w_always | w_eventually | w_leads_to | w_under
        | w_weak | w_strong | w_fairness | property_decl | each_process | under_fairness
        | temporal | t_sometimes | t_stable | t_always_eventually | t_always | t_leads_to => {
            property_rule_name(rule)
        }
        random_range => "`random lo..hi`",
        delay_range => "`delay lo..hi`",
        def_decl | def_expr => "a definition `def NAME(params) = expression`",
        def_params => "a parameter list `(a, b)`",
        array_domain => "an array domain `array[LEN] of DOMAIN`",
        for_stmt => "a `for` loop",
        call_stmt => "a statement",
        field => "`.` and a variable",
        index => "`[` and an index",
        set_lit => "a set `{q in nbrs : predicate}`",
        range_coll => "a collection (a range `lo..hi`, a set, or a name)",
        WHITESPACE | COMMENT | ident_char => "whitespace",
    };
    s.to_string()
}

/// The rules of `property` declarations, named.
fn property_rule_name(rule: &Rule) -> &'static str {
    use Rule::*;
    match rule {
        w_property => "`property`",
        w_sometimes => "`sometimes`",
        w_stable => "`stable`",
        w_always => "`always`",
        w_eventually => "`eventually`",
        w_leads_to => "`leads_to`",
        w_under => "`under`",
        w_weak => "`weak`",
        w_strong => "`strong`",
        w_fairness => "`fairness`",
        property_decl => "`property NAME:`",
        each_process => "`forall(p in procs : ...)`",
        under_fairness => "`under weak fairness`",
        _ => "a property (`always P`, `sometimes P`, `stable P`, `always eventually P`, `P leads_to Q`)",
    }
}

/// The literals the parser tried where it got furthest (`max_position`,
/// `tokens` as pest prints them), where that is past the rules it names
/// (`ruled_at`): there (`a for q in nbrs priority 1 ::`, a missing `:`)
/// the rules' position points at the last word that parsed, and says that
/// something else could have stood there (`procs` for `nbrs`). Gives the
/// position and the literals, spelt for a person; none where they are too
/// many to help, or only the characters of a word.
fn literals_further(
    (max_position, tokens): &(usize, Vec<String>),
    ruled_at: usize,
) -> Option<(usize, Vec<String>)> {
    if *max_position <= ruled_at {
        return None;
    }
    // Whitespace and comments may come anywhere, and the characters of a
    // name or a number continue the word just read (`count` in `count ::`).
    let mut names: Vec<String> = tokens
        .iter()
        .filter(|t| {
            !(t.trim().is_empty()
                || ["//", "/*", "_", "0..9", "a..z", "A..Z"].contains(&t.as_str()))
        })
        .map(|t| format!("`{t}`"))
        .collect();
    names.sort();
    names.dedup();
    (!names.is_empty() && names.len() <= 4).then_some((*max_position, names))
}

pub(super) fn syntax_error(
    e: pest::error::Error<Rule>,
    attempts: Option<(usize, Vec<String>)>,
    source: &str,
) -> Problem {
    use pest::error::{ErrorVariant, InputLocation};
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((s, e)) => (s, e),
    };
    let further = attempts.as_ref().and_then(|a| literals_further(a, start));
    // Where the rules stand as far as the literals, a closing bracket the
    // parser would have taken there is worth naming too (`random(0..1`).
    let closing: Vec<String> = match &attempts {
        Some((at, tokens)) if *at == start => tokens
            .iter()
            .filter(|t| [")", "]"].contains(&t.as_str()))
            .map(|t| format!("`{t}`"))
            .collect(),
        _ => Vec::new(),
    };
    let (start, end) = match &further {
        Some((at, _)) => (*at, *at),
        None => (start, end),
    };
    // At end of input, point at the last character rather than past it.
    let at_end = start >= source.len() && !source.is_empty();
    let (start, end) = if at_end {
        let last = source.trim_end().len().max(1);
        let c = source[..last].chars().next_back().map_or(1, char::len_utf8);
        (last - c, last)
    } else if start == end {
        // Show the whole word or number found there, else one character.
        let word = source[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(source.len() - start);
        let c = source[start..].chars().next().map_or(0, char::len_utf8);
        (start, start + word.max(c))
    } else {
        (start, end)
    };
    let message = match (&e.variant, further) {
        (_, Some((_, ref names))) => format!("expected {}", join_or(names)),
        (
            ErrorVariant::ParsingError {
                positives,
                negatives,
            },
            None,
        ) => {
            let mut names: Vec<String> = positives.iter().map(rule_name).collect();
            names.extend(closing);
            names.sort();
            names.dedup();
            if names.is_empty() {
                let neg: Vec<String> = negatives.iter().map(rule_name).collect();
                format!("unexpected {}", neg.join(" or "))
            } else {
                format!("expected {}", join_or(&names))
            }
        }
        (ErrorVariant::CustomError { message }, None) => message.clone(),
    };
    let found = source.get(start..end).unwrap_or("");
    let label = if at_end {
        // What stands there was parsed; the error is that nothing follows.
        "the input ends here".to_string()
    } else if found.trim().is_empty() {
        "here".to_string()
    } else {
        format!("found `{}`", found.trim())
    };
    let problem = Problem::new(
        "guarded::syntax::unexpected",
        format!("syntax error: {message}"),
    )
    .label(Span::new(start, end), label);
    match likely_meant(source, start, found.trim(), &message) {
        Some(hint) => {
            let mut problem = match hint.also {
                Some((span, text)) => problem.label(span, text),
                None => problem,
            }
            .help(hint.help);
            problem.fixes = hint.fixes;
            problem
        }
        None => problem.help(
            "see docs/language.md for the grammar; a program is a list of \
             param/topology/enum/var declarations, process blocks, legitimate/invariant predicates and properties",
        ),
    }
}

fn join_or(names: &[String]) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        _ => format!(
            "{} or {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ),
    }
}
