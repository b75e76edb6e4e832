#!/usr/bin/env node
// Runs the compiled test files under dist/test with node:test. Node 20's
// test runner does not expand globs itself, so the list is built here. The
// tests are in tiers: unit/ and rules/ run in-process (npm run test:fast),
// cli/ runs the bin, oracle/ the real apache2 and MariaDB tools, fuzz/ the
// fast-check properties. Words on the command line keep the files whose
// path under dist/test contains one of them: `cli/`, `verify`, `fix-passes`.
// The system configs the tests read (/etc/apache2, /etc/mysql) must come out
// of the run byte for byte as they went in: a test that writes there fails the run.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const dir = new URL('../dist/test/', import.meta.url).pathname;
const only = process.argv.slice(2);
const files = readdirSync(dir, { recursive: true })
  .map(String)
  .filter((name) => name.endsWith('.test.js'))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort()
  .map((name) => join(dir, name));
// With no files node --test would discover on its own, helper modules included.
if (files.length === 0) {
  console.error(`no test file in dist/test matches ${only.join(', ')}`);
  process.exit(2);
}

function fingerprint(root) {
  const entries = new Map();
  const walk = (path) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) entries.set(path, `link ${readlinkSync(path)}`);
    else if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else if (stat.isFile()) entries.set(path, `${stat.mode.toString(8)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
  };
  walk(root);
  return entries;
}

const watched = ['/etc/apache2', '/etc/mysql'];
const before = watched.map(fingerprint);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
const changed = watched.flatMap((root, index) => {
  const after = fingerprint(root);
  const was = before[index];
  const paths = new Set([...was.keys(), ...after.keys()]);
  return [...paths].filter((path) => was.get(path) !== after.get(path));
});
if (changed.length > 0) {
  console.error(`The test run changed system configs it must only read:\n${changed.map((path) => `  ${path}`).join('\n')}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
