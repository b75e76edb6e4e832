import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget } from '../../src/core/targets.js';

/** Repository root (this file runs as dist/test/helpers/mycnf-fixtures.js). */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const FIXTURES = path.join(REPO_ROOT, 'fixtures', 'mycnf');
/** Real third-party option files, outside the repository; tests use them only when present. */
export const CORPUS = path.resolve(REPO_ROOT, '..', 'shared', 'corpus', 'mysql');

export const MARIADB_10_11: DatabaseTarget = { product: 'mariadb', version: '10.11' };
export const MYSQL_8_0: DatabaseTarget = { product: 'mysql', version: '8.0' };

/** A fixture tree: a main option file, read with cwd = `dir`; layouts with absolute paths are read with `--sysroot dir`. */
export interface FixtureTree {
  readonly name: string;
  readonly dir: string;
  /** Main file, relative to dir. */
  readonly main: string;
  readonly sysroot: boolean;
  readonly target: DatabaseTarget;
}

/** Every regular file under dir (symlinks not followed), sorted. */
export function filesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(full));
    else if (entry.isFile()) found.push(full);
  }
  return found.sort();
}

export function fixtureTrees(): FixtureTree[] {
  const parser = fs
    .readdirSync(path.join(FIXTURES, 'parser'))
    .sort()
    .map((name) => ({ name: `parser/${name}`, dir: path.join(FIXTURES, 'parser'), main: name, sysroot: false, target: MARIADB_10_11 }));
  const reader = fs
    .readdirSync(path.join(FIXTURES, 'reader'))
    .sort()
    .map((name) => ({
      name: `reader/${name}`,
      dir: path.join(FIXTURES, 'reader', name),
      main: 'my.cnf',
      sysroot: false,
      target: MARIADB_10_11,
    }));
  const layouts: FixtureTree[] = [
    { name: 'debian', dir: path.join(FIXTURES, 'debian'), main: 'etc/mysql/my.cnf', sysroot: true, target: MARIADB_10_11 },
    { name: 'rhel', dir: path.join(FIXTURES, 'rhel'), main: 'etc/my.cnf', sysroot: true, target: MYSQL_8_0 },
    { name: 'story', dir: path.join(FIXTURES, 'story'), main: 'etc/mysql/my.cnf', sysroot: true, target: MARIADB_10_11 },
  ];
  return [...parser, ...reader, ...layouts];
}

const INCLUDE_LINE = /^([\t\v\f\r ]*![\t\v\f\r ]*include(?:dir)?[\t\v\f\r ]+)\//gm;

/**
 * A copy of a fixture tree in a temporary directory. For layout trees,
 * absolute `!include` paths and absolute symlinks point into the copy, so that
 * my_print_defaults (which has no --sysroot) reads the same files as we do
 * with --sysroot.
 */
export function materialise(tree: FixtureTree): { dir: string; main: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tune-lint-mycnf-${tree.name.replaceAll('/', '-')}-`));
  const copy = (from: string, to: string): void => {
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const source = path.join(from, entry.name);
      const target = path.join(to, entry.name);
      if (entry.isDirectory()) {
        fs.mkdirSync(target);
        copy(source, target);
      } else if (entry.isSymbolicLink()) {
        const link = fs.readlinkSync(source);
        fs.symlinkSync(link.startsWith('/') ? path.join(dir, link) : link, target);
      } else {
        const text = fs.readFileSync(source, 'latin1');
        fs.writeFileSync(target, tree.sysroot ? text.replace(INCLUDE_LINE, `$1${dir}/`) : text, 'latin1');
        // Never world-writable, whatever the checkout's umask: the server would ignore the file.
        fs.chmodSync(target, 0o644);
      }
    }
  };
  copy(tree.dir, dir);
  return { dir, main: path.join(dir, tree.main), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function temporaryDirectory(label: string): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tune-lint-mycnf-${label}-`));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `body` in a new temporary directory, which is removed afterwards whatever happens. */
export async function inTemporaryDirectory(label: string, body: (dir: string) => void | Promise<void>): Promise<void> {
  const { dir, cleanup } = temporaryDirectory(label);
  try {
    await body(dir);
  } finally {
    cleanup();
  }
}
