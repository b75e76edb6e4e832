#!/usr/bin/env node
// `npm run check`: every static check the project keeps, in one command, each
// step named with what it found. Types (TypeScript 7), lint (ESLint with
// typescript-eslint's typed rules and a complexity cap), format (Prettier),
// unused files, exports and dependencies (knip), and the generated files.
// ESLint and the TypeScript 6 it reads types with are a package of their own
// (tools/lint: the build's TypeScript 7 has no compiler API); it is installed
// from its lock file here when it is missing or older than the lock.
//
//   npm run check                 all steps
//   npm run check -- lint format  the named steps only
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const toolsDir = join(root, 'tools', 'lint');

function ensureLintTools() {
  const marker = join(toolsDir, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(toolsDir, 'package-lock.json')).mtimeMs) return true;
  console.log('check: installing the lint tools (tools/lint) from their lock file');
  return run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', toolsDir]);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  return result.status === 0;
}

const STEPS = {
  types: () => run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']),
  lint: () => ensureLintTools() && run(join(toolsDir, 'node_modules', '.bin', 'eslint'), ['--max-warnings', '0', '.']),
  format: () => run(bin('prettier'), ['--check', '--log-level', 'warn', '.']),
  // knip reads the entries and the project from knip.json.
  unused: () => run(bin('knip'), ['--no-progress']),
  generated: () =>
    run('npm', ['run', '--silent', 'build']) &&
    ['gen-registry.mjs', 'gen-docs-index.mjs', 'gen-rule-pages.mjs', 'gen-config-schema.mjs'].every((script) =>
      run(process.execPath, [join(root, 'scripts', script), '--check']),
    ),
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in STEPS));
if (unknown.length > 0) {
  console.error(`check: no step ${unknown.join(', ')}; the steps are ${Object.keys(STEPS).join(', ')}`);
  process.exit(2);
}
const failed = [];
for (const [name, step] of Object.entries(STEPS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const started = Date.now();
  const ok = step();
  console.log(`check: ${name} ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (!ok) failed.push(name);
}
if (failed.length > 0) {
  console.error(`check: failed: ${failed.join(', ')}`);
  process.exit(1);
}
