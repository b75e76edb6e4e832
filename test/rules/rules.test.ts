import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { copyCase, expectationLines, golden, patchOf, ruleCases, runCase } from '../helpers/rule-fixtures.js';
import { requireTool } from '../helpers/tools.js';

/*
 * Every rule against its own fixtures, with only that rule on: bad cases give
 * exactly the golden diagnostics and patch, good cases give nothing, and a
 * fixed case, written out, lints clean and fixes to itself.
 */
for (const rule of builtinRules.filter((candidate) => candidate.meta.language !== 'tool')) {
  describe(`${rule.meta.id} ${rule.meta.name}`, () => {
    for (const testCase of ruleCases(rule)) {
      it(testCase.name, async (t) => {
        const result = await runCase(testCase);
        const own = result.diagnostics.filter((d) => d.ruleId === rule.meta.id);
        const actual = expectationLines(own);
        if (testCase.kind === 'good') {
          assert.equal(actual, '', 'a good case must not trigger the rule');
          return;
        }
        assert.ok(own.length > 0, 'a bad case must trigger the rule');
        assert.equal(actual, golden(testCase.expectedPath, actual));
        const patch = await patchOf(result);
        assert.equal(patch, golden(testCase.patchPath, patch));
        if (patch === '') {
          assert.ok(
            own.every((d) => d.fix === undefined || !isAllowed(d, testCase.settings.fixType)),
            'fixable diagnostics must produce a patch',
          );
          return;
        }
        assert.ok(rule.meta.fix !== undefined || own.every((d) => d.fix !== undefined), 'a rule without meta.fix must not fix');
        const scratch = copyCase(testCase);
        try {
          const git = requireTool(t, 'git');
          const patchTool = requireTool(t, 'patch');
          if (git === undefined || patchTool === undefined) return;
          const patchFile = path.join(scratch, '.golden.patch');
          fs.writeFileSync(patchFile, patch);
          execFileSync(git, ['apply', '--check', '-p1', patchFile], { cwd: scratch, stdio: 'pipe' });
          execFileSync(patchTool, ['-p1', '--dry-run', '--batch', '-i', patchFile], { cwd: scratch, stdio: 'pipe' });
          for (const fix of result.fixes) {
            const target = path.join(scratch, path.relative(testCase.cwd, fix.file.realPath));
            fs.writeFileSync(target, fix.file.encode(fix.after));
          }
          fs.rmSync(patchFile);
          const again = await runCase(testCase, scratch);
          assert.equal(await patchOf(again), '', 'fixing the fixed output must change nothing');
          assert.equal(
            again.diagnostics.filter((d) => d.ruleId === 'TL0001').length,
            result.diagnostics.filter((d) => d.ruleId === 'TL0001').length,
            'the fixed output must parse as well as the input',
          );
        } finally {
          fs.rmSync(scratch, { recursive: true, force: true });
        }
      });
    }
  });
}

function isAllowed(d: { fix?: { kind: string } }, fixType: string | undefined): boolean {
  return fixType === undefined || fixType === 'all' || d.fix?.kind === fixType;
}
