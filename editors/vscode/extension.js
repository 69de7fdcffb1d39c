// Starts `guarded lsp` for .gc files: diagnostics as you type, hover,
// go to definition, references, completion, symbols and formatting.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("guarded").get("path", "guarded");
  client = new LanguageClient(
    "guarded",
    "guarded language server",
    { command, args: ["lsp"] },
    { documentSelector: [{ scheme: "file", language: "guarded" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
