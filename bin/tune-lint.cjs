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
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const bundle = path.join(__dirname, '..', 'dist', 'bundle', 'cli', 'cli.js');
const cacheFile = path.join(__dirname, '..', 'dist', 'bundle', 'cli', 'cli.cache');

function compile() {
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  let source;
  try {
    // ASCII, as the build checks: latin1 is exact for it and skips UTF-8 decoding.
    source = fs.readFileSync(bundle, 'latin1');
  } catch (error) {
    // A checkout built with tsc alone: say what is missing rather than print a stack.
    process.stderr.write(`tune-lint: cannot read ${bundle} (${error.code ?? error.message}); run npm run build\n`);
    process.exit(2);
  }
  return new vm.Script(`(function (require, __moduleUrl, __importExternal) {${source}\n})`, { filename: bundle, cachedData });
}

function run(script) {
  // A script run through vm has no import() of its own; ora and systeminformation (a probe's) come through this one.
  script.runInThisContext()(require, pathToFileURL(bundle).href, (specifier) => import(specifier));
}

if (require.main === module) run(compile());
else module.exports = { cacheFile, compile, run };
