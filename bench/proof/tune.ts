import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from './processes.js';
import type { ServerTree } from './server-root.js';

export interface TuneOutcome {
  /** The command as a person would type it, with the tree's root shown as `$ROOT`. */
  command: string;
  exitCode: number | null;
  /** tune-lint's own report (stdout), with the root shown as `$ROOT`. */
  report: string;
  /** What `--fix` wrote, as a unified diff relative to the tree's root. */
  patch: string;
  changedFiles: string[];
}

/** Every regular file under the config part of a tree (logs, run and htdocs are the server's, not config; mysql/ holds my.cnf). */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!['logs', 'run', 'htdocs'].includes(name)) walk(name);
      } else if (entry.isFile()) {
        files.set(name, fs.readFileSync(path.join(root, name), 'utf8'));
      }
    }
  };
  walk('');
  return files;
}

/**
 * Runs the real tune-lint CLI (package.json's bin, as built in the repo) with `--fix`
 * on a server tree (with its php-fpm config and the database's option file,
 * linted together so the cross-service rules see them all), with the memory
 * cap as the host's RAM and the measured per-child sizes as facts, and records
 * exactly what it changed.
 */
export async function applyTuneLint(
  repoRoot: string,
  tree: ServerTree,
  facts: { hostRam: string; perChild: string; phpPerChild?: string },
  database?: { configFile: string; target: string; dir: string },
): Promise<TuneOutcome> {
  const cli = path.join(repoRoot, 'bin', 'tune-lint.cjs');
  const bundle = path.join(repoRoot, 'dist', 'bundle', 'cli', 'cli.js');
  if (!fs.existsSync(bundle)) {
    throw new Error(`the tune-lint CLI is not built (${bundle} is missing): run "npm run build" first`);
  }
  // The CPUs are a fact of this host as the cap is of its RAM: the plan sizes PHP children by them.
  const args = [
    '--fix',
    '--fix-type',
    'all',
    '--host-ram',
    facts.hostRam,
    '--host-cpus',
    String(os.availableParallelism()),
    '--per-child',
    facts.perChild,
  ];
  if (facts.phpPerChild !== undefined) args.push('--php-per-child', facts.phpPerChild);
  args.push('--no-probe');
  if (database) args.push('--target', database.target);
  args.push(tree.configFile);
  if (tree.fpm) args.push(tree.fpm.configFile);
  if (database) args.push(database.configFile);
  const before = snapshot(tree.root);
  const run = await runCommand(process.execPath, [cli, ...args], { cwd: tree.root, timeoutMs: 60_000 });
  const hideRoot = (text: string): string => {
    const shown = text.split(tree.root).join('$ROOT');
    return database ? shown.split(database.dir).join('$DB') : shown;
  };
  if (run.code !== 0 && run.code !== 1) {
    throw new Error(`tune-lint failed (exit ${run.code ?? run.signal}): ${hideRoot(run.stderr.trim() || run.stdout.trim())}`);
  }
  const after = snapshot(tree.root);
  const { createTwoFilesPatch } = await import('diff');
  const changedFiles: string[] = [];
  let patch = '';
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const oldText = before.get(name) ?? '';
    const newText = after.get(name) ?? '';
    if (oldText === newText) continue;
    changedFiles.push(name);
    const oldName = before.has(name) ? `a/${name}` : '/dev/null';
    const newName = after.has(name) ? `b/${name}` : '/dev/null';
    patch += createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3 })
      .split('\n')
      .filter((line) => !line.startsWith('====='))
      .join('\n');
  }
  return {
    command: hideRoot(`tune-lint ${args.join(' ')}`),
    exitCode: run.code,
    report: hideRoot(run.stdout),
    patch: hideRoot(patch),
    changedFiles,
  };
}
