#!/usr/bin/env node
import { CommanderError } from 'commander';
import { describeError } from './commands/errors.js';
import { buildProgram } from './program.js';
import { stderr, stdout } from './util/stdio.js';

async function main(argv: readonly string[]): Promise<number> {
  let exit = 0;
  const program = buildProgram((code) => (exit = code));
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv);
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    stderr.write(`${describeError(error, debug)}\n`);
    return 2;
  }
}

// No top-level await: the bin runs this file bundled as a CommonJS script (scripts/bundle.mjs).
void main(process.argv).then((code) => {
  // Ending the process here skips tearing down a heap that is no longer needed
  // (on 10,000 vhosts, 250 MiB and about 90 ms); output still in Node's stream
  // is left to drain with the event loop.
  if (stdout.drained && stderr.drained) process.exit(code);
  process.exitCode = code;
});
