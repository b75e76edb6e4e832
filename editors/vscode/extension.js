// The client of `tune-lint lsp`: starts the server on stdio for the files the
// three languages read and hands it the settings as initializationOptions.
// Everything else (what is read, judged, fixed and shown) is the server's.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration('tune-lint');
  const profile = settings.get('profile');
  const target = settings.get('target');
  // From the workspace, so that a path such as ./node_modules/.bin/tune-lint is the workspace's.
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  client = new LanguageClient(
    'tune-lint',
    'tune-lint',
    { command: settings.get('path'), args: ['lsp', '--stdio'], ...(folder === undefined ? {} : { options: { cwd: folder } }) },
    {
      // By pattern, not language id: another extension may claim .conf files for a language of its own.
      documentSelector: [
        { scheme: 'file', pattern: '**/*.{conf,cnf,load}' },
        { scheme: 'file', pattern: '**/.htaccess' },
      ],
      initializationOptions: {
        probe: settings.get('probe'),
        debounceMs: settings.get('debounceMs'),
        ...(profile ? { profile } : {}),
        ...(target ? { target } : {}),
      },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{conf,cnf,load,yaml}') },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client === undefined ? undefined : client.stop();
}

module.exports = { activate, deactivate };
