//! Front end: `guarded lsp`, a Language Server Protocol server on standard
//! input and output. lsp-server (rust-analyzer's messages: their parsing,
//! the initialize handshake, shutdown) carries them, over a transport of
//! our own that bounds each message (`transport.rs`); their contents
//! are JSON built here, from the same parser, checker and formatter as
//! the command line (`analysis.rs`), so an editor shows the command
//! line's diagnostics as the user types.

mod analysis;
mod language;
mod rename;
mod scopes;
mod text;
mod transport;

/// The `.gc` files of a folder of the repository, in name order, with
/// their text: what the tests run every request over.
#[cfg(test)]
fn gc_files(folder: &str) -> Vec<(std::path::PathBuf, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "gc"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

use analysis::Analysis;
use lsp_server::{Message, Notification, Request, Response};
use serde_json::{json, Value};
use std::collections::HashMap;

/// What the server can do, as `initialize` answers.
fn capabilities() -> Value {
    json!({
        // Every change sends the whole text.
        "textDocumentSync": 1,
        "hoverProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "documentHighlightProvider": true,
        "renameProvider": { "prepareProvider": true },
        "completionProvider": { "triggerCharacters": ["."] },
        "documentSymbolProvider": true,
        "documentFormattingProvider": true,
        "codeActionProvider": { "codeActionKinds": ["quickfix"] },
    })
}

/// Serves one editor until it shuts the server down.
pub fn serve() -> Result<(), String> {
    let (connection, io) = transport::stdio();
    if let Err(e) = connection.initialize(capabilities()) {
        // Where the input broke off, that is the reason.
        drop(connection);
        io.join()?;
        return Err(format!("the editor did not initialize the server: {e}"));
    }
    let mut documents: HashMap<String, Analysis> = HashMap::new();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                let shutdown = connection
                    .handle_shutdown(&request)
                    .map_err(|e| format!("shutdown: {e}"))?;
                if shutdown {
                    break;
                }
                let response = answer(&documents, &request);
                let _ = connection.sender.send(Message::Response(response));
            }
            Message::Notification(n) => {
                if let Some((uri, analysis)) = changed(&n) {
                    let diagnostics = match &analysis {
                        Some(a) => a.diagnostics(),
                        None => json!([]),
                    };
                    let publish = Notification::new(
                        "textDocument/publishDiagnostics".into(),
                        json!({ "uri": uri, "diagnostics": diagnostics }),
                    );
                    let _ = connection.sender.send(Message::Notification(publish));
                    match analysis {
                        Some(a) => documents.insert(uri, a),
                        None => documents.remove(&uri),
                    };
                }
            }
            Message::Response(_) => {}
        }
    }
    drop(connection);
    io.join()
}

/// A document opened, changed or closed: its address, and its analysis
/// (none once closed).
fn changed(n: &Notification) -> Option<(String, Option<Analysis>)> {
    let uri = n.params["textDocument"]["uri"].as_str()?.to_string();
    match n.method.as_str() {
        "textDocument/didOpen" => {
            let text = n.params["textDocument"]["text"].as_str()?;
            Some((uri, Some(Analysis::of(text.to_string()))))
        }
        "textDocument/didChange" => {
            // Whole texts only (the sync kind announced): the last one.
            let text = n.params["contentChanges"].as_array()?.last()?["text"].as_str()?;
            Some((uri, Some(Analysis::of(text.to_string()))))
        }
        "textDocument/didClose" => Some((uri, None)),
        _ => None,
    }
}

/// The answer to a request about an open document.
fn answer(documents: &HashMap<String, Analysis>, request: &Request) -> Response {
    let id = request.id.clone();
    let p = &request.params;
    let known = [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/documentHighlight",
        "textDocument/prepareRename",
        "textDocument/rename",
        "textDocument/completion",
        "textDocument/documentSymbol",
        "textDocument/formatting",
        "textDocument/codeAction",
    ];
    if !known.contains(&request.method.as_str()) {
        // JSON-RPC's "method not found".
        return Response::new_err(id, -32601, format!("`{}` is not served", request.method));
    }
    let uri = p["textDocument"]["uri"].as_str().unwrap_or_default();
    let Some(doc) = documents.get(uri) else {
        // Not open here: nothing to say.
        return Response::new_ok(id, Value::Null);
    };
    let at = text::offset(doc.text(), &p["position"]);
    let result = match request.method.as_str() {
        "textDocument/hover" => doc.hover(at).unwrap_or(Value::Null),
        "textDocument/definition" => doc
            .definition(at)
            .map_or(Value::Null, |range| json!({ "uri": uri, "range": range })),
        "textDocument/references" => {
            let declaration = p["context"]["includeDeclaration"].as_bool() != Some(false);
            Value::Array(
                doc.references(at, declaration)
                    .into_iter()
                    .map(|range| json!({ "uri": uri, "range": range }))
                    .collect(),
            )
        }
        "textDocument/documentHighlight" => Value::Array(
            doc.references(at, true)
                .into_iter()
                .map(|range| json!({ "range": range }))
                .collect(),
        ),
        "textDocument/prepareRename" => doc.prepare_rename(at).unwrap_or(Value::Null),
        "textDocument/rename" => {
            let new_name = p["newName"].as_str().unwrap_or_default();
            match doc.rename(at, new_name) {
                Ok(edits) => json!({ "changes": { uri: edits } }),
                // LSP's "request failed": the editor shows the reason.
                Err(why) => return Response::new_err(id, -32803, why),
            }
        }
        "textDocument/completion" => doc.completions(at),
        "textDocument/documentSymbol" => doc.symbols(),
        "textDocument/codeAction" => {
            let start = text::offset(doc.text(), &p["range"]["start"]);
            let end = text::offset(doc.text(), &p["range"]["end"]);
            doc.code_actions(uri, start, end)
        }
        _ => doc.formatting(),
    };
    Response::new_ok(id, result)
}
