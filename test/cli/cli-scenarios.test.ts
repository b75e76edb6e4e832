import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { assembleTree, removeScratch, runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { golden, updating } from '../helpers/rule-fixtures.js';

/**
 * Golden CLI runs: each `fixtures/cli/scenarios/NAME/scenario.json` names the
 * fixture trees to lay out as one directory, the arguments and the exit code;
 * `stdout.FORMAT` beside it is what tune-lint prints in that format. Update
 * with `UPDATE_FIXTURES=1 npm test` and review the diff by hand.
 */
interface Scenario {
  readonly description: string;
  readonly trees: readonly string[];
  readonly args: readonly string[];
  readonly exit: number;
  readonly formats?: readonly string[];
}

const FORMATS = ['stylish', 'json', 'sarif', 'diff'];
const SCENARIOS = repoPath('fixtures', 'cli', 'scenarios');
const scratches: string[] = [];
after(() => scratches.forEach(removeScratch));

for (const name of fs.readdirSync(SCENARIOS).sort()) {
  const dir = path.join(SCENARIOS, name);
  const scenario = JSON.parse(fs.readFileSync(path.join(dir, 'scenario.json'), 'utf8')) as Scenario;
  describe(`scenario ${name}: ${scenario.description}`, () => {
    const root = assembleTree(scenario.trees, `scenario-${name}`);
    scratches.push(root);
    for (const format of scenario.formats ?? FORMATS) {
      it(`--format ${format}: golden stdout, exit ${scenario.exit}, nothing on stderr`, () => {
        const run = runCli([...scenario.args, '--format', format], { cwd: root });
        assert.equal(run.stderr, '');
        assert.equal(run.status, scenario.exit, run.stdout);
        const expected = golden(path.join(dir, `stdout.${format}`), run.stdout);
        assert.equal(
          run.stdout,
          expected,
          `stdout differs from ${path.relative(repoPath(), dir)}/stdout.${format}${updating ? '' : ' (UPDATE_FIXTURES=1 rewrites it)'}`,
        );
      });
    }
  });
}
