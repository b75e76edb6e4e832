import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoPath } from './paths.js';

/**
 * The Node.js the CLI suites run the bin with: the one running the tests, or
 * TUNE_LINT_CLI_NODE (.ci/run gives the oldest Node the package supports, so
 * a feature newer than that fails a test).
 */
export const CLI_NODE = process.env.TUNE_LINT_CLI_NODE ?? process.execPath;

/** package.json's `bin`, what `npx tune-lint` and the pre-commit hook run: the bundled CLI built with these tests. */
export const CLI = repoPath(
  (JSON.parse(fs.readFileSync(repoPath('package.json'), 'utf8')) as { bin: Record<string, string> }).bin['tune-lint'] as string,
);

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `tune-lint ARGS` in `cwd` with stdout and stderr as pipes (so no
 * colour and no spinner, as in CI), with the environment of the test minus
 * the variables that change colour or add to stderr (TIMING), plus `env`.
 */
export function runCli(args: readonly string[], options: { cwd: string; env?: Record<string, string | undefined> }): CliRun {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    COLUMNS: undefined,
    TIMING: undefined,
    ...options.env,
  };
  const result = spawnSync(CLI_NODE, [CLI, ...args], { cwd: options.cwd, env: definedOnly(env), encoding: 'utf8', timeout: 120_000 });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function definedOnly(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * `--rule ID=off` for every rule of the catalogue except those given, which
 * get the severity given: tests that pin a few rules do not move when rules
 * are added.
 */
export function onlyRules(settings: Record<string, string>): string[] {
  const catalogue = JSON.parse(runCli(['rules', '--json'], { cwd: os.tmpdir() }).stdout) as { rules: { id: string }[] };
  return catalogue.rules.flatMap(({ id }) => ['--rule', `${id}=${settings[id] ?? 'off'}`]);
}

/** A new empty directory under the system's temp dir; the caller removes it (`removeScratch`). */
export function scratchDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `tune-lint-${prefix}-`)));
}

export function removeScratch(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Copies fixture trees (paths relative to the repository) into one scratch
 * directory, later trees over earlier ones, symlinks kept as links: an Apache
 * story and a my.cnf story become one host's `/etc`.
 */
export function assembleTree(trees: readonly string[], prefix = 'tree'): string {
  const target = scratchDir(prefix);
  for (const tree of trees) fs.cpSync(repoPath(tree), target, { recursive: true, verbatimSymlinks: true });
  return target;
}

/** Writes files (relative path -> content) under `root`, creating directories. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
