#!/usr/bin/env node
// Build step after tsc: dist/src/cli.js and everything it imports (commander,
// yaml and diff included) as one CommonJS script, dist/bundle/cli/cli.js, and the
// V8 code cache bin/tune-lint.cjs compiles it with, dist/bundle/cli/cli.cache,
// made by a training run. Why: bin/tune-lint.cjs and docs/performance.md.
// ora and systeminformation stay outside: only a probe loads them. The library
// (package.json `exports`) stays the tsc output, one module per source file.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));

const EXTERNAL = ['ora', 'systeminformation'];
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

await build({
  absWorkingDir: process.cwd(),
  entryPoints: ['dist/src/cli.js'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  // The loader passes the bundle's own URL in; commands/version.ts finds package.json from it (dist/bundle/cli is as deep as dist/src/commands).
  define: { 'import.meta.url': '__moduleUrl' },
  plugins: [lazyChildProcessForCommander],
  logLevel: 'warning',
});

let script = readFileSync(OUTFILE, 'utf8').replace(/^#!.*\n/, '');
for (const name of EXTERNAL) {
  const call = `import("${name}")`;
  if (!script.includes(call)) throw new Error(`bundle: no ${call} in ${OUTFILE}; update scripts/bundle.mjs`);
  script = script.split(call).join(`__importExternal("${name}")`);
}
if (/\bimport\(/.test(script.replaceAll('__importExternal(', ''))) throw new Error(`bundle: an import() is left in ${OUTFILE}, which a vm script cannot run`);
writeFileSync(OUTFILE, script);

// The training run: a lint through most of what a run needs (both languages,
// .tune-lint.yaml, the sizing rules, fix passes, the stylish report and its
// patch), output discarded; what V8 compiled on the way is the cache.
const TRAINING = `
const fs = require('node:fs');
const loader = require('./bin/tune-lint.cjs');
fs.rmSync(loader.cacheFile, { force: true });
const script = loader.compile();
process.chdir('fixtures/cli/repo-fleet');
process.argv = [process.execPath, 'tune-lint', '--no-probe', 'hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf', 'hosts/web2/httpd.conf'];
process.stdout.write = () => true;
process.once('beforeExit', () => {
  fs.writeFileSync(loader.cacheFile, script.createCachedData());
  process.exitCode = 0;
});
loader.run(script);
`;
execFileSync(process.execPath, ['--input-type=commonjs', '-e', TRAINING], { stdio: 'inherit' });

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const printed = execFileSync(process.execPath, ['bin/tune-lint.cjs', '--version'], { encoding: 'utf8' }).trim();
if (printed !== version) throw new Error(`bin/tune-lint.cjs --version printed ${printed}, package.json says ${version}`);
