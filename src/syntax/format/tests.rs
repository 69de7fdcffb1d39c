//! The formatter's layout rules, and comments kept (every program of the
//! repository is formatted twice in `cli/fmt.rs`'s tests).

use super::format_program;

#[test]
fn comments_stay_where_they_were() {
    let source = include_str!("../../../tests/fmt/comments.gc");
    let once = format_program(source).unwrap();
    let comments = |s: &str| -> Vec<String> {
        s.lines()
            .filter_map(|l| l.find("//").map(|k| l[k..].to_string()))
            .collect()
    };
    assert_eq!(comments(source), comments(&once));
    for c in [
        "/* a block comment before the first item */",
        "/* inside */",
        "/* inside braces */",
        "/* a block comment alone */",
    ] {
        assert!(once.contains(c), "{c}");
    }
    // A trailing comment stays on its code's line; one on a line of its own stays alone.
    assert!(once.contains("param K = n  // after a parameter\n"));
    assert!(once.contains("process where index == 0 {  // after the brace\n"));
    assert!(once.contains("\n    // Before an action.\n    advance ::"));
    assert!(once.contains("    x := 0;  // after a statement\n"));
    assert!(once.ends_with("\n// The last comment.\n"));
}

#[test]
fn layouts() {
    let cases = [
        // Spacing and tight brackets and ranges.
        ("var   x :0 .. K - 1\n", "var x: 0..K-1\n"),
        (
            "def f( a,b )=a[ i + 1 ]+ - b\n",
            "def f(a, b) = a[i+1] + -b\n",
        ),
        (
            "legitimate :forall( p in procs:p.x==0 )\n",
            "legitimate: forall(p in procs : p.x == 0)\n",
        ),
        // A short action on one line, its statements too.
        (
            "process {\n  a :: x == 0\n    -> x := 1 ;y := 2\n}\n",
            "process {\n    a :: x == 0 -> x := 1; y := 2\n}\n",
        ),
        // At most one empty line between items.
        (
            "param a = 1\n\n\n\nparam b = 2\n",
            "param a = 1\n\nparam b = 2\n",
        ),
    ];
    for (from, to) in cases {
        assert_eq!(format_program(from).unwrap(), to, "{from}");
    }
    // A long guard breaks before its `and`s, under the guard; the
    // statements go to the next line.
    let long = "process { a :: some_long_name == 1 and another_long_name == 2 and a_third_long_name == 3 -> x := 1000000000 }\n";
    assert_eq!(
        format_program(long).unwrap(),
        "process {\n    a :: some_long_name == 1 and another_long_name == 2 and a_third_long_name == 3\n        -> x := 1000000000\n}\n"
    );
    let longer = long.replace(
        "-> x := 1000000000",
        "and a_fourth_long_name == 4 -> x := 1000000000",
    );
    assert_eq!(
        format_program(&longer).unwrap(),
        "process {\n    a :: some_long_name == 1\n         and another_long_name == 2\n         and a_third_long_name == 3\n         and a_fourth_long_name == 4\n        -> x := 1000000000\n}\n"
    );
}

#[test]
fn what_does_not_parse_is_not_formatted() {
    let p = format_program("param = 3\n").unwrap_err();
    assert!(p.code.starts_with("guarded::syntax"), "{}", p.code);
}
