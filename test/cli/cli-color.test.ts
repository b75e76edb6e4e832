import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it, type TestContext } from 'node:test';
import { assembleTree, CLI, CLI_NODE, removeScratch, runCli } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

/*
 * Colour only for a person at a terminal. A real pseudo-terminal comes from
 * util-linux's `script`, so tune-lint sees a TTY as it would in a shell.
 */
const root = assembleTree(['fixtures/apache/story-stock-prefork'], 'color');
after(() => removeScratch(root));
const ARGS = ['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--sysroot', '.', 'etc/apache2/apache2.conf'];
const ESC = '\u001b[';

function onTerminal(t: TestContext, args: readonly string[], env: Record<string, string | undefined> = {}): string | undefined {
  const script = requireTool(t, 'script');
  if (script === undefined) return undefined;
  const command = [CLI_NODE, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const merged: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm', NO_COLOR: undefined, FORCE_COLOR: undefined, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) Reflect.deleteProperty(merged, name);
  const result = spawnSync(script, ['-qec', command, '/dev/null'], { cwd: root, env: merged, encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 1, result.stderr);
  return result.stdout.replace(/\r\n/g, '\n');
}

describe('colour', () => {
  it('on a terminal: severities, headings and bars are coloured, and only the escapes differ from plain output', (t) => {
    const coloured = onTerminal(t, ARGS);
    if (coloured === undefined) return;
    assert.ok(coloured.includes(`${ESC}31merror${ESC}39m`), 'errors in red');
    assert.ok(coloured.includes(`${ESC}1mHost facts used:${ESC}22m`));
    assert.ok(coloured.includes(`${ESC}31m!!!`), 'memory beyond RAM in red');
    assert.match(coloured, /\u001b\[32m\+ {4}MaxRequestWorkers/, 'added lines of the patch in green');
    assert.match(coloured, /\u001b\[31m- {4}MaxClients/, 'removed ones in red');
    const plain = runCli(ARGS, { cwd: root }).stdout;
    assert.ok(!plain.includes(ESC), 'a pipe gets no colour');
    assert.equal(coloured.replace(/\u001b\[\d+m/g, ''), plain);
  });

  it('NO_COLOR, --no-color and TERM=dumb turn it off on a terminal', (t) => {
    for (const [args, env] of [
      [ARGS, { NO_COLOR: '1' }],
      [[...ARGS, '--no-color'], {}],
      [ARGS, { TERM: 'dumb' }],
    ] as const) {
      const output = onTerminal(t, args, env);
      if (output === undefined) return;
      assert.ok(!output.includes(ESC), `colour with ${JSON.stringify(env)} ${args.at(-1)}`);
      assert.match(output, /error {2}MaxClients 150/);
    }
  });

  it('machine formats never carry colour, even on a terminal', (t) => {
    for (const format of ['json', 'sarif', 'diff']) {
      const output = onTerminal(t, [...ARGS, '--format', format]);
      if (output === undefined) return;
      assert.ok(!output.includes(ESC), format);
    }
  });
});
