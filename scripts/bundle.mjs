#!/usr/bin/env node
// Build step after tsc: dist/src/cli.js and everything it imports (commander,
// yaml and diff included) as one CommonJS script, dist/bundle/cli/cli.js, and the
// V8 code cache bin/tune-lint.cjs compiles it with, dist/bundle/cli/cli.cache,
// made by a training run. Why: bin/tune-lint.cjs and docs/performance.md.
// ora, systeminformation and mysql2 stay outside: only a probe or a live server loads them; the language
// server's packages too: only `tune-lint lsp` loads them (required where its module is first run). The library
// (package.json `exports`) stays the tsc output, one module per source file.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));

const EXTERNAL = ['ora', 'systeminformation', 'mysql2/promise', 'mysql2'];
const LANGUAGE_SERVER = ['vscode-languageserver', 'vscode-languageserver/node', 'vscode-languageserver-textdocument'];
const OUTFILE = 'dist/bundle/cli/cli.js';

// commander requires node:child_process at load time, for executable
// subcommands tune-lint has none of; with net, stream and the rest it pulls in,
// that is about a tenth of Node's own start-up. Commander gets it on first use.
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(bundler) {
    bundler.onResolve({ filter: /^(node:)?child_process$/ }, ({ importer }) =>
      importer.includes('/node_modules/commander/') ? { path: 'child_process', namespace: 'lazy-child-process' } : undefined,
    );
    bundler.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
  },
};

// commands/version.ts reads package.json beside dist/ through import.meta.url, which a CommonJS script
// has not; resolving that URL is also the only thing Node's URL class did in a lint (15 functions compiled
// on every run). The bundle is built from one package.json, so its version is written in; the build checks
// `--version` against package.json below.
const { version: PACKAGE_VERSION } = JSON.parse(readFileSync('package.json', 'utf8'));
const versionWrittenIn = {
  name: 'version-written-in',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]dist[\\/]src[\\/]commands[\\/]version\.js$/ }, () => ({
      contents: `export function readVersion() { return ${JSON.stringify(PACKAGE_VERSION)}; }`,
      loader: 'js',
    }));
  },
};

await build({
  absWorkingDir: process.cwd(),
  entryPoints: ['dist/src/cli.js'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: [...EXTERNAL, ...LANGUAGE_SERVER],
  plugins: [lazyChildProcessForCommander, versionWrittenIn],
  // Every run deserialises the code cache, and V8 interns the names in it: minified, the stock Debian lint
  // takes 9 M fewer instructions (711.8 to 702.6 M) and the script is 1.55 to 0.83 MB. A minified stack
  // trace names nothing a reader knows, so `--debug` runs the module build instead (bin/tune-lint.cjs).
  minify: true,
  logLevel: 'warning',
});

// What the bundle imports on demand through the loader (importOnDemand in
// bin/tune-lint.cjs): the externals, node:tty, which loads net (only a run at
// a terminal asks for it, util/stdio.ts), and node:http, which only asking a
// running Apache for its status page needs (live/apache.ts).
const IMPORTED_ON_DEMAND = [...EXTERNAL, 'node:tty', 'node:http'];

let script = readFileSync(OUTFILE, 'utf8').replace(/^#!.*\n/, '');
for (const name of IMPORTED_ON_DEMAND) {
  const call = `import("${name}")`;
  if (!script.includes(call)) throw new Error(`bundle: no ${call} in ${OUTFILE}; update scripts/bundle.mjs`);
  script = script.split(call).join(`__importExternal("${name}")`);
}
if (/\bimport\(/.test(script.replaceAll('__importExternal(', '')))
  throw new Error(`bundle: an import() is left in ${OUTFILE}, which a vm script cannot run`);
// `import * as fs from 'node:fs'` becomes `__toESM(require("node:fs"), 1)`, a
// copy of the module with a getter per export, made again for each of the
// thirty-odd modules that import fs, path or os. A namespace import of a
// built-in needs only the module itself; `.default`, the one thing the copy
// adds, is checked to be unused. Minified, __toESM has one short name at
// every such call, checked to be the function that reads `__esModule`.
const namespaceCopies = [...script.matchAll(/([\w$]+)=([\w$]+)\(require\("(node:[\w/]+)"\),1\)/g)];
const toEsm = new Set(namespaceCopies.map(([, , copier]) => copier));
if (namespaceCopies.length === 0 || toEsm.size !== 1) throw new Error(`bundle: no single __toESM in ${OUTFILE}; update scripts/bundle.mjs`);
const [copier] = toEsm;
if (!new RegExp(`[ ,]${copier.replace(/\$/g, '\\$')}=\\([\\w$,]*\\)=>[^;]*\\.__esModule`).test(script))
  throw new Error(`bundle: ${copier} in ${OUTFILE} is not __toESM; update scripts/bundle.mjs`);
for (const [call, name, , builtin] of namespaceCopies) {
  if (new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\.default\\b`).test(script))
    throw new Error(`bundle: ${name}.default is used; keep __toESM for ${builtin}`);
  script = script.replace(call, () => `${name}=require("${builtin}")`);
}

if (script.includes('import.meta') || script.includes('import_meta'))
  throw new Error(`bundle: import.meta is left in ${OUTFILE}, which a CommonJS script has not`);
// The loader reads the script as latin1, which is faster than decoding UTF-8 and exact for ASCII; esbuild escapes the rest.
if (/[^\x00-\x7f]/.test(script)) throw new Error(`bundle: ${OUTFILE} is not ASCII, and bin/tune-lint.cjs reads it as latin1`);
// Wrapped here, not by the loader: a wrapper added at run time is a second copy of the script that V8 flattens.
writeFileSync(OUTFILE, `(function (require, __importExternal) {${script}\n})`);

// The training runs, one after the other in one process: what V8 compiled on
// the way is the cache, so they are the runs users make most. Debian's stock
// Apache and MariaDB with host facts (the sizing rules, fix passes, the
// stylish report and its patch; then JSON), and a config repository with
// .tune-lint.yaml (the yaml parser, overrides, both languages). A function no
// run reaches is compiled when first called, as without a cache; one in the
// cache that a run never calls costs only its share of deserialising.
// Measured by instructions in docs/performance.md ("The bin: one script with a V8 code cache").
const HOST_FACTS = ['--host-ram', '2G', '--host-cpus', '2'];
const DEBIAN_APACHE = ['--sysroot', 'fixtures/apache/debian', 'fixtures/apache/debian/etc/apache2/apache2.conf'];
const DEBIAN_MARIADB = ['--sysroot', 'fixtures/mycnf/debian', 'fixtures/mycnf/debian/etc/mysql/my.cnf'];
const TRAINING_RUNS = [
  { cwd: '.', argv: ['--no-probe', ...HOST_FACTS, ...DEBIAN_APACHE] },
  { cwd: '.', argv: ['--no-probe', ...HOST_FACTS, '--format', 'json', ...DEBIAN_APACHE] },
  { cwd: '.', argv: ['--no-probe', ...HOST_FACTS, '--format', 'json', ...DEBIAN_MARIADB] },
  { cwd: 'fixtures/cli/repo-fleet', argv: ['--no-probe', 'hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf', 'hosts/web2/httpd.conf'] },
];
const TRAINING = `
const fs = require('node:fs');
const path = require('node:path');
const loader = require('./bin/tune-lint.cjs');
fs.rmSync(loader.cacheFile, { force: true });
const script = loader.compile();
const runs = ${JSON.stringify(TRAINING_RUNS)};
const top = process.cwd();
const exit = process.exit;
let done = 0;
let settled = false;
function fail(message) {
  settled = true;
  process.stderr.write('bundle: ' + message + '\\n');
  exit(1);
}
// The CLI ends each run with process.exit() once its output is out: that starts the next run.
// Exit 1 is findings; anything else is a run that did not lint (a fixture moved, say).
process.exit = (code) =>
  code === 0 || code === 1 ? setImmediate(next) : fail('training run ' + done + ' (' + runs[done - 1].argv.join(' ') + ') exited ' + code);
process.once('exit', () => {
  if (!settled) fail('training run ' + done + ' of ' + runs.length + ' ended without process.exit(); no cache written');
});
function next() {
  if (done === runs.length) {
    fs.writeFileSync(loader.cacheFile, script.createCachedData());
    settled = true;
    exit(0);
  }
  const run = runs[done++];
  process.chdir(path.join(top, run.cwd));
  process.argv = [process.execPath, 'tune-lint', ...run.argv];
  loader.run(script);
}
next();
`;
execFileSync(process.execPath, ['--input-type=commonjs', '-e', TRAINING], { stdio: ['ignore', 'ignore', 'inherit'] });

const printed = execFileSync(process.execPath, ['bin/tune-lint.cjs', '--version'], { encoding: 'utf8' }).trim();
if (printed !== PACKAGE_VERSION) throw new Error(`bin/tune-lint.cjs --version printed ${printed}, package.json says ${PACKAGE_VERSION}`);
