//! `guarded fmt` from the command line: in place, `--check` with its diff
//! and exit code, standard input to standard output, and a program that
//! does not parse. (The layout itself, idempotence and unchanged meaning
//! over every program of the repository are tested in
//! `src/syntax/format.rs`.)

use std::io::Write;
use std::process::{Command, Stdio};

fn guarded(args: &[&str], input: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.unwrap_or("").as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

const MESSY: &str = "var  x:0..3\nprocess{a::x==0->x:=1}\n";
const TIDY: &str = "var x: 0..3\nprocess {\n    a :: x == 0 -> x := 1\n}\n";

#[test]
fn check_then_format_in_place() {
    let dir = std::env::temp_dir().join(format!("guarded-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("messy.gc");
    std::fs::write(&file, MESSY).unwrap();
    let path = file.to_str().unwrap();
    let (code, out, _) = guarded(&["fmt", "--check", path], None);
    assert_eq!(code, 1);
    assert!(
        out.contains("-var  x:0..3") && out.contains("+var x: 0..3"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        MESSY,
        "--check changes nothing"
    );
    let (code, _, err) = guarded(&["fmt", path], None);
    assert_eq!(code, 0);
    assert!(err.contains("formatted"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), TIDY);
    let (code, out, _) = guarded(&["fmt", "--check", path], None);
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn standard_input_to_standard_output() {
    let (code, out, _) = guarded(&["fmt"], Some(MESSY));
    assert_eq!((code, out.as_str()), (0, TIDY));
    let (code, _, _) = guarded(&["fmt", "--check", "-"], Some(TIDY));
    assert_eq!(code, 0);
}

#[test]
fn what_does_not_parse_is_said() {
    let (code, out, err) = guarded(&["fmt"], Some("var = 3\n"));
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert!(
        err.contains("syntax error") && err.contains("help:"),
        "{err}"
    );
    let (code, _, err) = guarded(&["fmt", "no/such/file.gc"], None);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}
