import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI } from '../helpers/cli.js';

export const NOBODY = 65534;

export interface ChildRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident memory of the child in KiB (getrusage's ru_maxrss, written by the child as it exits). */
  readonly peakRssKiB: number | undefined;
}

/**
 * Records the child's peak RSS from inside it (process.resourceUsage at exit),
 * so the measurement needs neither /usr/bin/time nor a race on /proc.
 */
const RSS_PROBE = `import { writeFileSync } from 'node:fs';
process.on('exit', () => { writeFileSync(process.env.TUNE_LINT_RSS_FILE, String(process.resourceUsage().maxRSS)); });
`;

let probeDir: string | undefined;

function probeFile(): string {
  probeDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-rss-'));
  fs.chmodSync(probeDir, 0o755);
  const file = path.join(probeDir, 'rss-probe.mjs');
  if (!fs.existsSync(file)) fs.writeFileSync(file, RSS_PROBE, { mode: 0o644 });
  return file;
}

/**
 * Runs `tune-lint --no-probe --no-color ARGS` (or `tune-lint ARGS` for a
 * subcommand such as dump) as a child, optionally as another user, and
 * collects its output, exit and peak memory.
 */
export function runTuneLint(
  args: readonly string[],
  options: { cwd: string; uid?: number; gid?: number; timeoutMs?: number; env?: Record<string, string>; subcommand?: boolean },
): Promise<ChildRun> {
  const rssFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-rss-out-')), 'rss');
  fs.chmodSync(path.dirname(rssFile), 0o777);
  return new Promise((resolve, reject) => {
    const flags = options.subcommand === true ? [] : ['--no-probe', '--no-color'];
    const child = spawn(process.execPath, ['--import', probeFile(), CLI, ...flags, ...args], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', TUNE_LINT_RSS_FILE: rssFile, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      let peakRssKiB: number | undefined;
      try {
        peakRssKiB = Number(fs.readFileSync(rssFile, 'utf8'));
      } catch {
        peakRssKiB = undefined;
      }
      fs.rmSync(path.dirname(rssFile), { recursive: true, force: true });
      resolve({
        status,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        peakRssKiB,
      });
    });
  });
}

export interface JsonDiagnostic {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly detail?: string;
  readonly file: string;
  readonly line: number;
}

/** The diagnostics of a `--format json` report. */
export function jsonDiagnostics(stdout: string): JsonDiagnostic[] {
  const report = JSON.parse(stdout) as { results: { diagnostics: JsonDiagnostic[] }[] };
  return report.results.flatMap((result) => result.diagnostics);
}

/** The files of a `--format json` report, in order. */
export function jsonFiles(stdout: string): string[] {
  return (JSON.parse(stdout) as { results: { file: string }[] }).results.map((result) => result.file);
}

/** Why tune-lint cannot be run as nobody here, or undefined when it can (root, and the build readable by that user). */
export function cannotRunAsNobody(): string | undefined {
  if (process.geteuid?.() !== 0) return 'needs root to run the CLI as another user';
  const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(CLI)}, require('fs').constants.R_OK)`], {
    uid: NOBODY,
    gid: NOBODY,
  });
  return probe.status === 0 ? undefined : `the checkout (${CLI}) is not readable by uid ${NOBODY}`;
}

/** A scratch directory that nobody can enter too (created by root for tests that switch users). */
export function openScratch(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `tune-lint-${prefix}-`)));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** Writes files (relative path -> content) under `root`, creating directories. */
export function writeTree(root: string, files: Readonly<Record<string, string | Buffer>>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
