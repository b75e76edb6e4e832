import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CLI, CLI_NODE } from './cli.js';

interface Message {
  readonly id?: number;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly message: string };
}

export interface PublishedDiagnostic {
  readonly range: { readonly start: { line: number; character: number }; readonly end: { line: number; character: number } };
  readonly severity: number;
  readonly code: string;
  readonly codeDescription?: { readonly href: string };
  readonly message: string;
  readonly source: string;
  readonly relatedInformation?: readonly { readonly message: string }[];
}

interface WorkspaceEditResult {
  readonly changes: Record<string, readonly { range: PublishedDiagnostic['range']; newText: string }[]>;
}

export interface CodeActionResult {
  readonly title: string;
  readonly kind: string;
  readonly isPreferred?: boolean;
  readonly edit?: WorkspaceEditResult;
  readonly data?: unknown;
}

/**
 * A language client written out by hand: `tune-lint lsp --stdio` in a child
 * process, spoken to in JSON-RPC with Content-Length headers as an editor
 * does, every notification kept, so a test waits for what an editor would see.
 */
export class LspClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = Buffer.alloc(0);
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners: ((message: Message) => void)[] = [];
  /** The latest diagnostics published per URI. */
  readonly diagnostics = new Map<string, readonly PublishedDiagnostic[]>();
  readonly shownMessages: string[] = [];
  stderr = '';

  constructor(cwd: string) {
    this.child = spawn(CLI_NODE, [CLI, 'lsp', '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  async initialize(root: string, options: { initializationOptions?: object; resolveEdits?: boolean } = {}): Promise<unknown> {
    const result = await this.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'tree' }],
      capabilities: {
        textDocument: {
          codeAction: options.resolveEdits === true ? { resolveSupport: { properties: ['edit'] } } : {},
          hover: { contentFormat: ['markdown'] },
        },
      },
      initializationOptions: { debounceMs: 20, ...options.initializationOptions },
    });
    this.notify('initialized', {});
    return result;
  }

  open(file: string, text = fs.readFileSync(file, 'utf8')): string {
    const uri = pathToFileURL(file).href;
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'conf', version: 1, text } });
    return uri;
  }

  change(uri: string, version: number, text: string): void {
    this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** The next diagnostics published for a URI that satisfy `accept`, or those already there. */
  diagnosticsFor(
    uri: string,
    accept: (list: readonly PublishedDiagnostic[]) => boolean = () => true,
    ms = 30_000,
  ): Promise<readonly PublishedDiagnostic[]> {
    const current = this.diagnostics.get(uri);
    if (current !== undefined && accept(current)) return Promise.resolve(current);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no diagnostics as wanted for ${uri} in ${ms} ms; last: ${JSON.stringify(this.diagnostics.get(uri))}; stderr: ${this.stderr}`,
            ),
          ),
        ms,
      );
      this.listeners.push((message) => {
        if (message.method !== 'textDocument/publishDiagnostics') return;
        const params = message.params as { uri: string; diagnostics: PublishedDiagnostic[] };
        if (params.uri === uri && accept(params.diagnostics)) {
          clearTimeout(timer);
          resolve(params.diagnostics);
        }
      });
    });
  }

  codeActions(uri: string, diagnostics: readonly PublishedDiagnostic[], only?: readonly string[]): Promise<CodeActionResult[]> {
    const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return this.request('textDocument/codeAction', {
      textDocument: { uri },
      range,
      context: { diagnostics, ...(only === undefined ? {} : { only }) },
    }) as Promise<CodeActionResult[]>;
  }

  resolveCodeAction(action: CodeActionResult): Promise<CodeActionResult> {
    return this.request('codeAction/resolve', action) as Promise<CodeActionResult>;
  }

  hover(uri: string, line: number, character: number): Promise<{ contents: { kind: string; value: string } } | null> {
    return this.request('textDocument/hover', { textDocument: { uri }, position: { line, character } }) as Promise<{
      contents: { kind: string; value: string };
    } | null>;
  }

  async close(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    await this.request('shutdown', null);
    this.notify('exit', null);
    return exited;
  }

  /** Ends the server without the protocol, for a test that failed half-way. */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.write({ method, params });
  }

  private write(message: object): void {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  private read(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const headerEnd = this.buffered.indexOf('\r\n\r\n');
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffered.subarray(0, headerEnd).toString('ascii'))?.[1]);
      if (this.buffered.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffered.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as Message;
      this.buffered = this.buffered.subarray(headerEnd + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(message: Message): void {
    if (message.method === undefined && message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
      return;
    }
    if (message.method === 'textDocument/publishDiagnostics') {
      const params = message.params as { uri: string; diagnostics: PublishedDiagnostic[] };
      this.diagnostics.set(params.uri, params.diagnostics);
    }
    if (message.method === 'window/showMessage') this.shownMessages.push((message.params as { message: string }).message);
    for (const listener of [...this.listeners]) listener(message);
  }
}

/** A document's text with an editor's edits applied, last first, as an editor applies a WorkspaceEdit's edits to one file. */
export function applyEdits(text: string, edits: readonly { range: PublishedDiagnostic['range']; newText: string }[]): string {
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const offset = (position: { line: number; character: number }): number => (lineStarts[position.line] ?? text.length) + position.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const edit of sorted) out = out.slice(0, offset(edit.range.start)) + edit.newText + out.slice(offset(edit.range.end));
  return out;
}
