import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { hostFactsFromConfig } from '../../src/host/profile.js';
import { lint, type LintResult } from '../../src/lint.js';
import { apacheConfigTest } from '../helpers/apache-oracle.js';
import { repoPath } from '../helpers/paths.js';
import { patchOf } from '../helpers/rule-fixtures.js';
import { inCI, requireTool } from '../helpers/tools.js';

const STORY = repoPath('fixtures', 'apache', 'story-fat-apache');
const MOD_SECURITY = '/usr/lib/apache2/modules/mod_security2.so';

async function lintStory(root: string, rules: readonly string[]): Promise<LintResult> {
  return lint({
    paths: ['etc/apache2/apache2.conf'],
    cwd: root,
    sysroot: root,
    targets: parseTargetSpec('httpd=2.4'),
    host: hostFactsFromConfig({ ram: '4G' }, 'test'),
    rules: selectRules(
      builtinRules.filter((rule) => rules.includes(rule.meta.id)),
      'all',
      new Map(),
    ),
    fixType: 'all',
  });
}

/*
 * The fat-Apache story on a 4 GiB host with the memory rule and the
 * oversized-limits rule on: AP2001 lowers MaxClients to what the budget
 * holds in the first fix pass, and only then is ServerLimit 10000 oversized,
 * so AP2002 lowers it in the second pass. The combined patch changes both
 * lines in the file mods-enabled/ links to, the patched tree lints clean for both rules and still passes
 * `apache2 -t` with no new warning.
 */
describe('AP2001 and AP2002 on the fat-Apache story', () => {
  it('lowers MaxClients in pass 1 and ServerLimit to match in pass 2', async (t) => {
    const result = await lintStory(STORY, ['AP2001', 'AP2002']);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.ruleId} ${d.file.displayPath}:${d.start.line}`),
      ['AP2001 etc/apache2/mods-enabled/mpm_prefork.conf:16'],
      'before fixing, ServerLimit 10000 is not twice MaxClients 10000',
    );
    assert.match(result.diagnostics[0]?.message ?? '', /^MaxClients 10000 x 16 MiB .*expected MaxRequestWorkers at most 230\b/);
    assert.equal(result.passes, 2);
    assert.equal(
      await patchOf(result),
      [
        'diff --git a/etc/apache2/mods-available/mpm_prefork.conf b/etc/apache2/mods-available/mpm_prefork.conf',
        '--- a/etc/apache2/mods-available/mpm_prefork.conf',
        '+++ b/etc/apache2/mods-available/mpm_prefork.conf',
        '@@ -12,7 +12,7 @@',
        '     StartServers        100',
        '     MinSpareServers      10',
        '     MaxSpareServers      10',
        '-    ServerLimit       10000',
        '-    MaxClients        10000',
        '+    ServerLimit       230',
        '+    MaxClients        230',
        '     MaxRequestsPerChild 2500',
        ' </IfModule>',
        '',
      ].join('\n'),
    );

    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-compose-'));
    try {
      fs.cpSync(STORY, scratch, { recursive: true, verbatimSymlinks: true });
      for (const fix of result.fixes)
        fs.writeFileSync(path.join(scratch, path.relative(STORY, fix.file.realPath)), fix.file.encode(fix.after));
      const again = await lintStory(scratch, ['AP2001', 'AP2002']);
      assert.deepEqual(
        again.diagnostics.map((d) => d.message),
        [],
        'the patched tree lints clean for both rules',
      );
      assert.equal(again.fixes.length, 0);

      const binary = requireTool(t, 'apache2');
      if (binary === undefined) return;
      if (!fs.existsSync(MOD_SECURITY)) {
        const reason = `${MOD_SECURITY} is missing (libapache2-mod-security2)`;
        if (inCI) throw new Error(`CI=true but the oracle is missing: ${reason}`);
        t.skip(reason);
        return;
      }
      const checked = await apacheConfigTest({ sysroot: scratch, serverRoot: '/etc/apache2', configFile: 'apache2.conf', binary });
      assert.equal(checked.exitCode, 0, checked.stderr);
      assert.deepEqual(
        checked.messages.map((message) => message.code),
        ['AH00558'],
        'no MPM warning after the patch; only the missing global ServerName',
      );
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
