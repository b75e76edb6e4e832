import { spawn } from 'node:child_process';
import { readEnvvars } from '../languages/apache/envvars.js';
import { SERVER_TOOL_PATH } from '../util/system-tools.js';
import { decodeBytes } from '../core/source-file.js';

/**
 * What `--verify` and the tests that use the real servers' config checkers
 * (`apache2 -t`, `my_print_defaults`, `mariadbd --help --verbose`) as oracles
 * share: the environment httpd gets, its stderr read, output decoded line by
 * line. `--verify` runs the checkers in the sandbox (sandbox.ts); the tests
 * run them on the project's own fixtures with {@link runTool}: an argument
 * array (never a shell), a clean environment, a timeout.
 */

export interface ToolRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a binary to completion (SIGKILL after `timeoutMs`), collecting its output. Rejects only when it cannot be started. */
export function runTool(
  binary: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
  cwd = '/',
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ exitCode, signal, timedOut, stdout: decodeLines(Buffer.concat(stdout)), stderr: decodeLines(Buffer.concat(stderr)) });
    });
  });
}

/** Each line decoded on its own, so one latin1 path does not turn the UTF-8 of every other line into mojibake. */
export function decodeLines(bytes: Buffer): string {
  const lines: string[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
    lines.push(decodeBytes(bytes.subarray(start, end)).text);
    start = end + 1;
  }
  lines.push(decodeBytes(bytes.subarray(start)).text);
  return lines.join('\n');
}

/**
 * The environment the config checkers give httpd, built here and never
 * inherited: PATH of the system directories, LANG=C, and of what a Debian
 * `envvars` file exports (read with {@link readEnvvars}, never run) only the
 * `APACHE_*` variables its configuration expands. Anything else it exports
 * (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `PATH`, `LANG`) would steer the loader or
 * the C library, not the configuration, and is left out.
 */
export function apacheEnvironment(envvarsText: string | undefined, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const base: Record<string, string> = { PATH: SERVER_TOOL_PATH, LANG: 'C' };
  const exported = envvarsText === undefined ? {} : readEnvvars(envvarsText, base);
  const kept = Object.entries(exported).filter(([name]) => CONFIGURATION_VARIABLE.test(name));
  return { ...base, ...Object.fromEntries(kept), ...extra };
}

/** The variables Debian's apache2ctl exports for the configuration (APACHE_RUN_USER, APACHE_LOG_DIR...). */
const CONFIGURATION_VARIABLE = /^APACHE_[A-Z0-9_]+$/;

interface ApacheMessage {
  /** The stderr line(s) as printed (a two-line AH00526 error is one message). */
  readonly raw: string;
  /** `AH00111` etc. */
  readonly code: string | undefined;
  /** From a timestamped log line `[...] [core:warn] [pid ...]`. */
  readonly module: string | undefined;
  readonly level: string | undefined;
  /** The message without log prefix and code. */
  readonly text: string;
}

interface ApacheSyntaxError {
  /** The file and line Apache blames: the innermost of a chain of includes. */
  readonly file: string;
  readonly line: number;
  readonly message: string;
  /** The Include lines that led there, outermost first. */
  readonly includedFrom: readonly { readonly file: string; readonly line: number }[];
}

export interface ApacheStderr {
  /** `Syntax OK` was printed. */
  readonly syntaxOk: boolean;
  readonly messages: ApacheMessage[];
  /** The fatal error, when it names a file and line. */
  readonly error: ApacheSyntaxError | undefined;
}

/** The stderr of `apache2 -t` in any mode: `Syntax OK`, each warning, and the fatal error with its include chain. */
export function parseApacheStderr(stderr: string): ApacheStderr {
  const lines = stderr.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let syntaxOk = false;
  let error: ApacheSyntaxError | undefined;
  const messages: ApacheMessage[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line === 'Syntax OK') {
      syntaxOk = true;
      continue;
    }
    // AH00526 (an error while walking the tree) puts the message on the next line.
    const walkError = /^AH00526: Syntax error on line (\d+) of (.*):$/.exec(line);
    if (walkError !== null && index + 1 < lines.length) {
      const message = lines[++index] as string;
      const text = `Syntax error on line ${walkError[1]} of ${walkError[2]}:\n${message}`;
      messages.push({ raw: `${line}\n${message}`, code: 'AH00526', module: undefined, level: undefined, text });
      error = { file: walkError[2] as string, line: Number(walkError[1]), message, includedFrom: [] };
      continue;
    }
    const parsed = parseMessageLine(line);
    messages.push(parsed);
    error ??= readError(parsed.text);
  }
  return { syntaxOk, messages, error };
}

function parseMessageLine(raw: string): ApacheMessage {
  let rest = raw;
  let module: string | undefined;
  let level: string | undefined;
  const logged = /^\[[^\]]*\] \[([^:\]]*):([^\]]*)\] \[pid [^\]]*\] (.*)$/.exec(rest);
  if (logged !== null) {
    module = logged[1];
    level = logged[2];
    rest = logged[3] as string;
  }
  const coded = /^(?:\(\d+\)[^:]*: )?(AH\d{5}): (.*)$/.exec(rest);
  if (coded !== null) return { raw, code: coded[1], module, level, text: coded[2] as string };
  return { raw, code: undefined, module, level, text: rest };
}

/** `apache2: Syntax error on line 1 of A: Syntax error on line 2 of B: message` and `... Error reading F at line N: message`. */
function readError(text: string): ApacheSyntaxError | undefined {
  let rest = text.replace(/^[^\s:]+: (?=Syntax error on line|Error reading )/, '');
  const chain: { file: string; line: number }[] = [];
  for (;;) {
    const link = /^Syntax error on line (\d+) of (.+?): (.*)$/s.exec(rest);
    if (link === null) break;
    chain.push({ file: link[2] as string, line: Number(link[1]) });
    rest = link[3] as string;
  }
  const reading = /^Error reading (.+?) at line (\d+): (.*)$/s.exec(rest);
  if (reading !== null) return { file: reading[1] as string, line: Number(reading[2]), message: reading[3] as string, includedFrom: chain };
  const innermost = chain.pop();
  if (innermost === undefined) return undefined;
  return { ...innermost, message: rest, includedFrom: chain };
}
