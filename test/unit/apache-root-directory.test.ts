import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { lint } from '../../src/lint.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { selectRules } from '../../src/engine/selection.js';
import { builtinRules } from '../../rules/index.js';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { loadApache } from '../../src/languages/apache/model.js';

/*
 * AP3001 compares a `<Directory>` line's text with the few ways of writing
 * `/` alone instead of splitting every section's arguments; it must find
 * the sections whose arguments, as the model splits them, are `/` alone.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-root-directory-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let written = 0;

const ARGUMENTS = fc
  .array(fc.constantFrom('/', '"', "'", '\\', 'a', '>', ' ', '\t'), { minLength: 1, maxLength: 6 })
  .map((chars) => chars.join('').trim())
  .filter((text) => text !== '');

describe('AP3001 <Directory /> as written', () => {
  it('reports exactly the sections whose arguments are / alone (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(ARGUMENTS, async (argsText) => {
        const name = `root-${written++}.conf`;
        fs.writeFileSync(path.join(scratch, name), `<Directory ${argsText}>\n    AllowOverride All\n</Directory>\n`);
        const config = loadApache(path.join(scratch, name), { fs: new ConfigFileSystem({ cwd: scratch }), httpd: '2.4.71' });
        const section = config.sections.find((candidate) => candidate.name === 'directory');
        const isRoot = section?.args.length === 1 && section.args[0] === '/';
        const result = await lint({
          paths: [name],
          cwd: scratch,
          targets: parseTargetSpec('httpd=2.4'),
          rules: selectRules(
            builtinRules.filter((rule) => rule.meta.id === 'AP3001'),
            'all',
            new Map(),
          ),
          fixType: 'none',
        });
        assert.equal(
          result.diagnostics.some((d) => d.ruleId === 'AP3001'),
          isRoot,
          `<Directory ${argsText}>`,
        );
      }),
      { numRuns: 1000, seed: 20261203 },
    );
  });
});
