import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  MessageType,
  ProposedFeatures,
  ShowMessageNotification,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
  type CodeAction,
  type CodeActionParams,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type InitializeParams,
  type InitializeResult,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { builtinRules } from '../../rules/index.js';
import { rulePageOf } from '../commands/lint.js';
import { readVersion } from '../commands/version.js';
import type { Diagnostic } from '../engine/types.js';
import { builtinLanguages } from '../languages/index.js';
import { UserError } from '../util/user-error.js';
import { editsBetween, lspDiagnostic, realUri, workspaceEdit, type UriOf } from './convert.js';
import { hoverAt } from './hover.js';
import { DEFAULT_EDITOR_SETTINGS, EditorWorkspace, realPath, type EditorSettings, type EditorUnit } from './workspace.js';

/** The kind of the "fix all safe problems in this file" action, under the editors' fix-all-on-save kind. */
const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.tune-lint`;

/** A finding as published, with the editor's form of it: code actions find the finding again by the latter. */
interface Published {
  readonly finding: Diagnostic;
  readonly shown: LspDiagnostic;
}

/**
 * `tune-lint lsp`: a language server on stdin and stdout. Each file the
 * editor opens is linted with the tree it belongs to (the workspace as the
 * sysroot), unsaved buffers in place of the files on disk, and again a
 * moment after each change; findings are published for the file they are in,
 * included files too. Quick fixes are the fixes `--fix` writes; hover shows a
 * setting's effective value and where it is set.
 */
export function runLanguageServer(): Promise<number> {
  const connection = createConnection(
    ProposedFeatures.all,
    new StreamMessageReader(process.stdin),
    new StreamMessageWriter(process.stdout),
  );
  const server = new LanguageServer(connection);
  server.listen();
  return new Promise((resolve) => connection.onExit(() => resolve(0)));
}

class LanguageServer {
  private readonly documents = new TextDocuments(TextDocument);
  private workspace = new EditorWorkspace(undefined, DEFAULT_EDITOR_SETTINGS);
  private readonly rulePage = rulePageOf(readVersion());
  private readonly published = new Map<string, readonly Published[]>();
  /** The files each unit published findings for, to clear those it no longer has. */
  private readonly publishedBy = new Map<EditorUnit, Set<string>>();
  /** Each unit's lint in flight: lints of a unit run one after the other, and hover waits for the last. */
  private readonly linting = new Map<EditorUnit, Promise<void>>();
  private readonly timers = new Map<EditorUnit, NodeJS.Timeout>();
  private resolvesEdits = false;
  private reported: string | undefined;

  constructor(private readonly connection: Connection) {}

  listen(): void {
    const { connection, documents } = this;
    connection.onInitialize((params) => this.initialize(params));
    connection.onInitialized(() => void this.lintEverything());
    documents.onDidOpen(({ document }) => this.schedule(document.uri, 0));
    documents.onDidChangeContent(({ document }) => this.schedule(document.uri, this.workspace.settings.debounceMs));
    // Closed, the file on disk is what counts again.
    documents.onDidClose(({ document }) => this.schedule(document.uri, 0));
    // A file changed on disk (a checkout, another program, `.tune-lint.yaml`, a profile): the workspace is read again.
    connection.onDidChangeWatchedFiles(() => void this.reopen());
    connection.onCodeAction((params) => this.codeActions(params));
    connection.onCodeActionResolve(async (action) => ({ ...action, edit: await this.fixAllEdit((action.data as { uri: string }).uri) }));
    connection.onHover(async ({ textDocument, position }) => {
      const document = this.documents.get(textDocument.uri);
      const entry = document === undefined ? undefined : this.unitOf(document.uri);
      if (document === undefined || entry === undefined) return null;
      await this.linting.get(entry);
      if (entry.result === undefined) return null;
      const rules = builtinRules.map((rule) => rule.meta);
      return hoverAt(entry.result, realPath(fileURLToPath(document.uri)), document.offsetAt(position), rules, this.rulePage) ?? null;
    });
    documents.listen(connection);
    connection.listen();
  }

  private async initialize(params: InitializeParams): Promise<InitializeResult> {
    // Clients that predate workspace folders (eglot, older Vim plugins) send only the root URI.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
    const root = folder?.startsWith('file:') === true ? fileURLToPath(folder) : undefined;
    this.workspace = new EditorWorkspace(root, settingsOf(params.initializationOptions));
    this.resolvesEdits = params.capabilities.textDocument?.codeAction?.resolveSupport?.properties.includes('edit') === true;
    await this.open();
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND], resolveProvider: true },
        hoverProvider: true,
      },
      serverInfo: { name: 'tune-lint', version: readVersion() },
    };
  }

  private async open(): Promise<void> {
    try {
      await this.workspace.open();
    } catch (error) {
      this.report(error);
    }
  }

  /** Files changed on disk: the workspace is read again (`.tune-lint.yaml`, the host facts) and every finding published anew. */
  private async reopen(): Promise<void> {
    await Promise.all(this.linting.values());
    for (const uris of this.publishedBy.values()) for (const uri of uris) void this.connection.sendDiagnostics({ uri, diagnostics: [] });
    this.published.clear();
    this.publishedBy.clear();
    this.linting.clear();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.workspace = new EditorWorkspace(this.workspace.root, this.workspace.settings);
    await this.open();
    for (const document of this.documents.all()) this.unitOf(document.uri);
    await this.lintEverything();
  }

  private unitOf(uri: string): EditorUnit | undefined {
    if (!uri.startsWith('file:')) return undefined;
    return this.workspace.unitOf(fileURLToPath(uri), this.documents.get(uri)?.getText() ?? '');
  }

  private schedule(uri: string, delay: number): void {
    const entry = this.unitOf(uri);
    if (entry === undefined) return;
    clearTimeout(this.timers.get(entry));
    this.timers.set(
      entry,
      setTimeout(() => {
        this.timers.delete(entry);
        void this.relint(entry);
      }, delay),
    );
  }

  private async lintEverything(): Promise<void> {
    await Promise.all(this.workspace.all().map((entry) => this.relint(entry)));
  }

  private relint(entry: EditorUnit): Promise<void> {
    const next = (this.linting.get(entry) ?? Promise.resolve()).then(async () => {
      try {
        this.publish(entry, (await this.workspace.lint(entry, this.buffers(), 'none')).diagnostics);
        this.reported = undefined;
      } catch (error) {
        this.report(error);
      }
    });
    this.linting.set(entry, next);
    return next;
  }

  /** The open documents' texts, by path: what the linter reads instead of the disk. */
  private buffers(): Map<string, string> {
    return new Map(
      this.documents
        .all()
        .filter((document) => document.uri.startsWith('file:'))
        .map((document) => [fileURLToPath(document.uri), document.getText()]),
    );
  }

  private publish(entry: EditorUnit, diagnostics: readonly Diagnostic[]): void {
    const byUri = new Map<string, Published[]>();
    const uriOf = this.uriResolver();
    for (const finding of diagnostics) {
      const uri = uriOf(finding.file);
      let list = byUri.get(uri);
      if (list === undefined) byUri.set(uri, (list = []));
      list.push({ finding, shown: lspDiagnostic(finding, this.rulePage, uriOf) });
    }
    const before = this.publishedBy.get(entry) ?? new Set();
    for (const uri of new Set([...before, ...byUri.keys(), ...this.openUrisOf(entry)])) {
      const list = byUri.get(uri) ?? [];
      this.published.set(uri, list);
      void this.connection.sendDiagnostics({ uri, diagnostics: list.map((item) => item.shown) });
    }
    this.publishedBy.set(entry, new Set(byUri.keys()));
  }

  /**
   * A file's URI as the editor has it: the document open on the same real
   * file (a `sites-enabled` symlink opened as such), else the real file's, so
   * findings and edits land in the buffer the user sees.
   */
  private uriResolver(): UriOf {
    const open = this.openByRealPath();
    return (file) => open.get(file.realPath) ?? realUri(file);
  }

  /** The URIs of the open documents on files the unit read. */
  private openUrisOf(entry: EditorUnit): string[] {
    return [...this.openByRealPath()].filter(([real]) => entry.files.has(real)).map(([, uri]) => uri);
  }

  /** The open documents' URIs by the real path of their file. */
  private openByRealPath(): Map<string, string> {
    const open = new Map<string, string>();
    for (const document of this.documents.all()) {
      if (document.uri.startsWith('file:')) open.set(realPath(fileURLToPath(document.uri)), document.uri);
    }
    return open;
  }

  private async codeActions({ textDocument, range, context }: CodeActionParams): Promise<CodeAction[]> {
    const published = this.published.get(textDocument.uri) ?? [];
    const wanted = (kind: string): boolean => context.only === undefined || context.only.some((only) => kind.startsWith(only));
    const actions: CodeAction[] = [];
    for (const shown of context.diagnostics) {
      const item = published.find((candidate) => sameDiagnostic(candidate.shown, shown));
      if (item === undefined) continue;
      const { fix } = item.finding;
      if (fix !== undefined && wanted(CodeActionKind.QuickFix)) {
        actions.push({
          title: `${fix.kind === 'safe' ? 'Fix' : 'Tune'} (${item.finding.ruleId}, ${fix.kind}): ${item.finding.message}`,
          kind: `${CodeActionKind.QuickFix}.tune-lint.${fix.kind}`,
          diagnostics: [shown],
          isPreferred: fix.kind === 'safe',
          edit: workspaceEdit(fix.edits, this.uriResolver()),
        });
      }
      if (wanted(CodeActionKind.QuickFix)) actions.push(this.disableAction(item.finding, shown));
    }
    const safeHere = published.some((item) => item.finding.fix?.kind === 'safe');
    if (safeHere && wanted(FIX_ALL_KIND) && (context.only !== undefined || overlaps(published, range))) {
      const action: CodeAction = {
        title: 'Fix all safe problems in this file (tune-lint)',
        kind: FIX_ALL_KIND,
        data: { uri: textDocument.uri },
      };
      actions.push(this.resolvesEdits ? action : { ...action, edit: await this.fixAllEdit(textDocument.uri) });
    }
    return actions;
  }

  /** `# tune-lint-disable-next-line AP2007` above the line, indented as it is, in the comment the file's language writes. */
  private disableAction(finding: Diagnostic, shown: LspDiagnostic): CodeAction {
    const { file } = finding;
    const lineStart = file.text.lastIndexOf('\n', finding.range[0] - 1) + 1;
    const indent = /^[ \t]*/.exec(file.text.slice(lineStart))?.[0] ?? '';
    const lineEnd = file.text.indexOf('\n', lineStart);
    const newline = lineEnd > 0 && file.text[lineEnd - 1] === '\r' ? '\r\n' : '\n';
    const comment = this.commentOf(finding);
    return {
      title: `Disable ${finding.ruleId} for this line`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [shown],
      edit: workspaceEdit(
        [{ file, range: [lineStart, lineStart], text: `${indent}${comment} tune-lint-disable-next-line ${finding.ruleId}${newline}` }],
        this.uriResolver(),
      ),
    };
  }

  private commentOf(finding: Diagnostic): string {
    const prefix = finding.ruleId.slice(0, 2);
    return builtinLanguages.find((language) => language.rules.prefix === prefix)?.rules.sample.comment ?? '#';
  }

  /** What `--fix --fix-type safe` writes to this file, as edits of the buffer. */
  private async fixAllEdit(uri: string): Promise<WorkspaceEdit> {
    const entry = this.unitOf(uri);
    if (entry === undefined) return { changes: {} };
    const result = await this.workspace.lint(entry, this.buffers(), 'safe');
    const uriOf = this.uriResolver();
    const fix = result.fixes.find((candidate) => uriOf(candidate.file) === uri);
    return fix === undefined ? { changes: {} } : workspaceEdit(editsBetween(fix.file, fix.after), uriOf);
  }

  /** Shows a problem once: a lint that fails the same way at every keystroke is not shown again until it changes. */
  private report(error: unknown): void {
    const message = error instanceof UserError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (message === this.reported) return;
    this.reported = message;
    // A notification, not showErrorMessage's request: nothing waits for the editor to answer.
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message: `tune-lint: ${message}` });
  }
}

function settingsOf(given: unknown): EditorSettings {
  const options = typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : {};
  const text = (name: string): string | undefined => (typeof options[name] === 'string' ? options[name] : undefined);
  const profile = text('profile');
  const target = text('target');
  return {
    probe: options.probe === true,
    ...(profile === undefined ? {} : { profile }),
    ...(target === undefined ? {} : { target }),
    debounceMs: typeof options.debounceMs === 'number' && options.debounceMs >= 0 ? options.debounceMs : DEFAULT_EDITOR_SETTINGS.debounceMs,
  };
}

function sameDiagnostic(a: LspDiagnostic, b: LspDiagnostic): boolean {
  return (
    a.code === b.code &&
    a.message === b.message &&
    a.range.start.line === b.range.start.line &&
    a.range.start.character === b.range.start.character &&
    a.range.end.line === b.range.end.line &&
    a.range.end.character === b.range.end.character
  );
}

function overlaps(published: readonly Published[], range: { start: { line: number }; end: { line: number } }): boolean {
  return published.some((item) => item.shown.range.start.line <= range.end.line && item.shown.range.end.line >= range.start.line);
}
