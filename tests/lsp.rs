//! `guarded lsp` driven over standard input and output by a scripted
//! client: initialize, open, a change that introduces an error, hover,
//! definition, references, highlights, rename, completion, symbols,
//! formatting, quick fixes, shutdown.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Client {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// A request, and its response (notifications before it are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.receive();
            if m["id"] == id {
                return m;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next diagnostics the server publishes.
    fn diagnostics(&mut self) -> Vec<Value> {
        loop {
            let m = self.receive();
            if m["method"] == "textDocument/publishDiagnostics" {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }
}

const URI: &str = "file:///tmp/ring.gc";

const PROGRAM: &str = "param K = n\ntopology ring:4\nvar x: 0..K-1 = 0\n\
def up(v) = (v + 1) mod K\n\
process where index == 0 {\n    advance :: x == left.x -> x := up(x)\n}\n\
process where index != 0 {\n    copy :: x != left.x -> x := left.x\n}\n\
legitimate: count(p in procs : enabled(p)) == 1\n";

/// The position of the `k`-th occurrence of `needle` in `text`, plus `skip` characters.
fn place(text: &str, needle: &str, k: usize, skip: usize) -> Value {
    let (offset, _) = text
        .match_indices(needle)
        .nth(k)
        .expect("the needle is there");
    let offset = offset + skip;
    let line = text[..offset].matches('\n').count();
    let character = offset - text[..offset].rfind('\n').map_or(0, |n| n + 1);
    json!({"line": line, "character": character})
}

/// A request's document and position: at `needle` (its `k`-th) in the program.
fn at(needle: &str, k: usize, skip: usize) -> Value {
    json!({"textDocument": {"uri": URI}, "position": place(PROGRAM, needle, k, skip)})
}

/// `guarded lsp` started, its error output going to `stderr`, and a
/// client of it.
fn server(stderr: Stdio) -> (Child, Client) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let client = Client {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        next: 0,
    };
    (child, client)
}

#[test]
fn a_scripted_session() {
    let (mut child, mut c) = server(Stdio::inherit());
    let init = c.request("initialize", json!({"capabilities": {}}));
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], true, "{init}");
    assert_eq!(caps["documentFormattingProvider"], true);
    c.notify("initialized", json!({}));

    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "guarded", "version": 1, "text": PROGRAM}}),
    );
    assert_eq!(c.diagnostics(), Vec::<Value>::new());

    // A type error, where the command line puts it, with its help line.
    let broken = PROGRAM.replace("x := left.x", "x := left.x == 0");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let d = c.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["code"], "guarded::check::type_mismatch");
    let message = d[0]["message"].as_str().unwrap();
    assert!(
        message.contains("expected int, found bool") && message.contains("help:"),
        "{message}"
    );
    assert_eq!(d[0]["range"]["start"], place(&broken, "left.x == 0", 0, 0));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": PROGRAM}]}),
    );
    assert_eq!(c.diagnostics(), Vec::<Value>::new());

    // Hover: a variable's declaration, a definition's, a builtin's line.
    let h = c.request("textDocument/hover", at("x == left", 0, 0));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("var x: 0..K-1 = 0") && shown.contains("variable"),
        "{shown}"
    );
    let h = c.request("textDocument/hover", at("up(x)", 0, 0));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("def up(v) = (v + 1) mod K"), "{shown}");
    let h = c.request("textDocument/hover", at("enabled(p)", 0, 0));
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("enabled action"),
        "{h}"
    );

    // A parameter's value on the program's topology.
    let h = c.request("textDocument/hover", at("K = n", 0, 0));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        shown.contains("param K = n") && shown.contains("4 on `ring:4`"),
        "{shown}"
    );

    // Definition and references of `K`.
    let def = c.request("textDocument/definition", at("K-1", 0, 0));
    assert_eq!(def["result"]["uri"], URI);
    assert_eq!(
        def["result"]["range"]["start"],
        json!({"line": 0, "character": 6})
    );
    let refs = c.request("textDocument/references", at("K = n", 0, 0));
    assert_eq!(refs["result"].as_array().unwrap().len(), 3, "{refs}");
    let mut without = at("K = n", 0, 0);
    without["context"] = json!({"includeDeclaration": false});
    let refs = c.request("textDocument/references", without);
    assert_eq!(refs["result"].as_array().unwrap().len(), 2, "{refs}");

    // References follow scopes: `x` is read and written in both roles
    // (`left.x` too), `v` is the definition's own, `p` the quantifier's.
    let refs = c.request("textDocument/references", at("x == left", 0, 0));
    assert_eq!(refs["result"].as_array().unwrap().len(), 9, "{refs}");
    let refs = c.request("textDocument/references", at("(v + 1)", 0, 1));
    assert_eq!(refs["result"].as_array().unwrap().len(), 2, "{refs}");
    let h = c.request("textDocument/hover", at("(v + 1)", 0, 1));
    let shown = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("a parameter of the definition"), "{shown}");
    let marks = c.request("textDocument/documentHighlight", at("enabled(p)", 0, 8));
    let marks = marks["result"].as_array().unwrap();
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_eq!(
        marks[0]["range"]["start"],
        place(PROGRAM, "p in procs", 0, 0)
    );

    // Rename: every read and write of `x`, and nothing spelt like it.
    let ready = c.request("textDocument/prepareRename", at("x == left", 0, 0));
    assert_eq!(ready["result"]["placeholder"], "x", "{ready}");
    let mut rename = at("x == left", 0, 0);
    rename["newName"] = json!("level");
    let edits = c.request("textDocument/rename", rename.clone());
    let edits = edits["result"]["changes"][URI].as_array().unwrap();
    assert_eq!(edits.len(), 9);
    assert!(edits.iter().all(|e| e["newText"] == "level"));
    // Refused with the reason: a name the program declares, a keyword,
    // a name the language has.
    for (name, why) in [("K", "taken"), ("process", "keyword"), ("up", "taken")] {
        rename["newName"] = json!(name);
        let refused = c.request("textDocument/rename", rename.clone());
        assert_eq!(refused["error"]["code"], -32803, "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{name}: {message}");
    }
    let mut builtin = at("count(p", 0, 0);
    builtin["newName"] = json!("tally");
    let refused = c.request("textDocument/rename", builtin);
    assert_eq!(refused["error"]["code"], -32803, "{refused}");

    // Completion: fields after `left.`, names and keywords elsewhere.
    let fields = c.request("textDocument/completion", at("left.x", 0, 5));
    let labels: Vec<&str> = fields["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"x") && labels.contains(&"id"),
        "{labels:?}"
    );
    assert!(!labels.contains(&"process"), "{labels:?}");
    let names = c.request("textDocument/completion", at("legitimate", 0, 0));
    let labels: Vec<&str> = names["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for l in ["K", "x", "up", "count", "process"] {
        assert!(labels.contains(&l), "{l}: {labels:?}");
    }
    // Inside the quantifier, its `p`; outside, no `p`.
    assert!(!labels.contains(&"p"), "{labels:?}");
    let inside = c.request("textDocument/completion", at("enabled(p)", 0, 0));
    let items = inside["result"]["items"].as_array().unwrap();
    let p = items
        .iter()
        .find(|i| i["label"] == "p")
        .expect("p is offered");
    assert_eq!(p["detail"], "a quantifier's variable");

    // Symbols: the declarations, the roles with their actions.
    let s = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let symbols = s["result"].as_array().unwrap();
    let names: Vec<&str> = symbols
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "K",
            "x",
            "up",
            "process where index == 0",
            "process where index != 0"
        ]
    );
    assert_eq!(symbols[3]["children"][0]["name"], "advance");

    // Formatting: one edit for a messy text, none for a tidy one.
    let f = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(f["result"], json!([]), "{f}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": "var  x:0..3\n"}]}),
    );
    c.diagnostics();
    let f = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(f["result"][0]["newText"], "var x: 0..3\n", "{f}");

    // A warning that needs an instance: two actions enabled together.
    let overlapping = "topology ring:3\nvar x: 0..1 = 0\nprocess {\n    b :: x == 0 -> x := 1\n    c :: x == 0 -> x := 0\n}\n";
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 5}, "contentChanges": [{"text": overlapping}]}),
    );
    let d = c.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 2);
    assert_eq!(d[0]["code"], "guarded::check::overlapping_actions");

    // A warning from the text alone: a sum whose `mod` binds first.
    let slip = "var x: 0..2 = 0\nprocess {\n    a :: true -> x := x + 1 mod 3\n}\n";
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 6}, "contentChanges": [{"text": slip}]}),
    );
    let d = c.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 2);
    assert_eq!(d[0]["code"], "guarded::check::mod_precedence");
    assert_eq!(
        d[0]["range"]["start"],
        json!({"line": 2, "character": 22}),
        "{d:?}"
    );
    // Its quick fixes: wrap the sum round (preferred), or keep the meaning.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": d[0]["range"], "context": {"diagnostics": d}}),
    );
    let actions = actions["result"].as_array().unwrap();
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["isPreferred"], true);
    let edit = &actions[0]["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "(x + 1) mod 3", "{edit}");
    assert_eq!(edit["range"]["start"], json!({"line": 2, "character": 22}));
    assert_eq!(
        actions[1]["edit"]["changes"][URI][0]["newText"],
        "x + (1 mod 3)"
    );

    // What it does not serve is said.
    let unknown = c.request("textDocument/signatureHelp", at("param", 0, 0));
    assert_eq!(unknown["error"]["code"], -32601);

    let down = c.request("shutdown", Value::Null);
    assert!(down.get("error").is_none(), "{down}");
    c.notify("exit", Value::Null);
    assert!(child.wait().unwrap().success());
}

/// A message claiming more bytes than the server reads ends the session
/// with exit status 1 and the reason, after answering what came before
/// it (such a claim once aborted the process, found by fuzzing).
#[test]
fn a_message_past_the_bound_ends_the_session_with_the_reason() {
    let (mut child, mut c) = server(Stdio::piped());
    let init = c.request("initialize", json!({"capabilities": {}}));
    assert_eq!(init["result"]["capabilities"]["hoverProvider"], true);
    write!(c.stdin, "Content-Length: 999999999999\r\n\r\n{{}}").unwrap();
    drop(c.stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("a message of 999999999999 bytes, more than the"),
        "{err}"
    );
}
