#!/usr/bin/env node
// Runs every compiled test file under dist/test with node:test. Node 20's
// test runner does not expand globs itself, so the list is built here.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const dir = new URL('../dist/test/', import.meta.url).pathname;
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.test.js'))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort()
  .map((name) => join(dir, name));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
