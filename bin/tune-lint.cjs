#!/usr/bin/env node
'use strict';
// tune-lint's command line: dist/bundle/cli/cli.js (the CLI and everything it
// imports as one script, made by scripts/bundle.mjs) compiled with the V8 code
// cache the build made for it. Node 20 spends more of a short run loading and
// compiling ~150 ES modules than linting (docs/performance.md). A cache made by
// another Node (another V8, other flags) is rejected by V8 and the script is
// compiled as usual: slower, same result. Nothing is written at run time.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const bundle = path.join(__dirname, '..', 'dist', 'bundle', 'cli', 'cli.js');
const cacheFile = path.join(__dirname, '..', 'dist', 'bundle', 'cli', 'cli.cache');

function compile() {
  let bytes;
  try {
    bytes = fs.readFileSync(bundle);
  } catch (error) {
    // A checkout built with tsc alone: say what is missing rather than print a stack.
    process.stderr.write(`tune-lint: cannot read ${bundle} (${error.code ?? error.message}); run npm run build\n`);
    process.exit(2);
  }
  // ASCII, as the build checks: latin1 is exact for it and skips UTF-8 decoding. The build wrote the
  // function wrapper into the file, so V8 gets the string as read rather than a copy with a wrapper added.
  const source = bytes.toString('latin1');
  return new vm.Script(source, { filename: bundle, cachedData: readCache(bytes) });
}

/**
 * The code cache, read into `spare` (the script's bytes, copied into its
 * string by now) when it fits, as it does: on the machines this is measured
 * on, the first touch of each fresh 4 KiB page costs several microseconds,
 * and a buffer of its own would be 230 more of them. Undefined when there is
 * no cache to read; V8 checks the one there is and compiles without it when
 * it is not its own.
 */
function readCache(spare) {
  let fd;
  try {
    fd = fs.openSync(cacheFile, 'r');
    const { size } = fs.fstatSync(fd);
    const buffer = size <= spare.length ? spare.subarray(0, size) : Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = fs.readSync(fd, buffer, filled, size - filled, filled);
      if (read === 0) return undefined;
      filled += read;
    }
    return buffer;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A script run through vm has no import() of its own; what the bundle loads
 * on demand (node:tty at a terminal, systeminformation for a probe, ora for
 * its spinner) comes through here. Built-ins and CommonJS packages are
 * required: the first import() loads Node's ES module loader, about 6 ms of
 * a run at a terminal. ora is an ES module, which Node 20 cannot require.
 */
function importOnDemand(specifier) {
  try {
    return Promise.resolve(require(specifier));
  } catch (error) {
    return error?.code === 'ERR_REQUIRE_ESM' ? import(specifier) : Promise.reject(error);
  }
}

function run(script) {
  script.runInThisContext()(require, importOnDemand);
}

/**
 * `--debug` prints an error's stack trace, and the bundle's is minified: such
 * a run takes the module build (dist/src, the library's one file per source,
 * which the bundle is made from and prints the same) so the trace names the
 * sources' files, functions and lines.
 */
function runModuleBuild() {
  const { pathToFileURL } = require('node:url');
  import(pathToFileURL(path.join(__dirname, '..', 'dist', 'src', 'cli.js')).href).catch((error) => {
    process.stderr.write(`tune-lint: ${error?.stack ?? error}\n`);
    process.exit(2);
  });
}

if (require.main === module) {
  if (process.argv.includes('--debug')) runModuleBuild();
  else run(compile());
} else module.exports = { cacheFile, compile, importOnDemand, run };
