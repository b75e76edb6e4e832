// Writes a generated file, or with --check on the command line exits 1 when
// the file on disk differs from what would be written (CI and the conventions
// test run the checks).
import { readFileSync, writeFileSync } from 'node:fs';

export function writeOrCheck(target, text, command) {
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = '';
  }
  if (current !== text) {
    console.error(`${target} is stale: run \`${command}\``);
    process.exit(1);
  }
}
