// The VS Code client of `baobei lsp`: starts the language server of the baobei installed
// for the workspace and hands it the .bao files and the project's YAML files.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("baobei");
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const serverOptions = {
    command: settings.get("server.command", "baobei"),
    args: settings.get("server.args", ["lsp"]),
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder.uri.fsPath } : {},
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "bao" },
      { scheme: "file", pattern: "**/baobei.yaml" },
      { scheme: "file", pattern: "**/editions/*.{yaml,yml}" },
      { scheme: "file", pattern: "**/scenarios/**/*.{yaml,yml}" },
    ],
    synchronize: {
      // files changed outside the editor (a checkout, a rulebook): the server reads them again
      fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{bao,yaml,yml,txt}"),
    },
  };
  client = new LanguageClient("baobei", "baobei rules", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
