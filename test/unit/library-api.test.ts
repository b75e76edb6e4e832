import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

/* The package entry resolves by name from inside the repository (package.json `exports`). */
describe('library API', () => {
  it("import('tune-lint') gives the parsers, lint and formatters", async () => {
    const api = await import('tune-lint');
    const apacheText = '<Directory "/srv">\r\n\tAllowOverride None\r\n</Directory>\r\n';
    assert.equal(api.parseApache(apacheText).toString(), apacheText);
    const mycnfText = '\ufeff[mysqld]\nkey_buffer_size = 16M # inline\n';
    assert.equal(api.parseMyCnf(mycnfText).toString(), mycnfText);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-api-'));
    try {
      fs.writeFileSync(path.join(dir, 'httpd.conf'), 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\nMaxClients 150\n');
      const result = await api.lint({ paths: ['httpd.conf'], cwd: dir, host: {} });
      const ids = result.diagnostics.map((d) => d.ruleId);
      assert.ok(ids.includes('TL0004') && ids.includes('AP4001'), ids.join(' '));
      assert.equal(result.fixes[0]?.after.includes('MaxRequestWorkers 150'), true);
      const json = JSON.parse(
        api.formatters.json({
          units: [{ label: undefined, result }],
          rules: api.builtinRules.map((r) => r.meta),
          version: '0.0.0',
          color: false,
          patch: '',
          wrote: false,
          fixType: 'all',
          quiet: false,
          remaining: undefined,
        }),
      ) as { version: number };
      assert.equal(json.version, 1);
      const timer = new api.LintTimer();
      await api.lint({ paths: ['httpd.conf'], cwd: dir, host: {}, timer });
      assert.match(
        timer.table(Number.POSITIVE_INFINITY, new Map()),
        /^AP4001 +\| +\d+\.\d{3} \| /m,
        'a timer given to lint() times its rules',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
