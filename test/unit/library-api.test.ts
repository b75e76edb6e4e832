import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

/* The package entry resolves by name from inside the repository (package.json `exports`). */
describe('library API', () => {
  it('exports what every registered language offers, under the names its definition gives', async () => {
    const api = (await import('tune-lint')) as unknown as Record<string, unknown> & typeof import('tune-lint');
    assert.deepEqual(
      api.builtinLanguages.map((language) => language.id),
      ['apache', 'mycnf', 'phpfpm'],
    );
    for (const language of api.builtinLanguages) {
      assert.ok(Object.keys(language.api).length >= 2, `${language.id} offers a parser and a loader at least`);
      for (const [name, value] of Object.entries(language.api)) {
        assert.equal(api[name], value, `import('tune-lint').${name} is ${language.id}'s`);
      }
    }
  });

  it('parses every language losslessly, php-fpm among them, and loads a pool', async () => {
    const api = await import('tune-lint');
    const apacheText = '<Directory "/srv">\r\n\tAllowOverride None\r\n</Directory>\r\n';
    assert.equal(api.parseApache(apacheText).toString(), apacheText);
    const mycnfText = '\ufeff[mysqld]\nkey_buffer_size = 16M # inline\n';
    assert.equal(api.parseMyCnf(mycnfText).toString(), mycnfText);
    const poolText = '[www]\npm = dynamic\npm.max_children = "5" ; a comment\n';
    const lines = api.parsePhpFpm(poolText);
    assert.equal(lines.map((line) => poolText.slice(line.range[0], line.range[1])).join(''), poolText);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-api-'));
    try {
      fs.writeFileSync(path.join(dir, 'www.conf'), poolText);
      const pool = api.loadPhpFpm(path.join(dir, 'www.conf'), new api.ConfigFileSystem({ cwd: dir }));
      assert.equal(pool.pools[0]?.effective('pm.max_children')?.value, '5');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lints, formats and times as the CLI does', async () => {
    const api = await import('tune-lint');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-api-'));
    try {
      fs.writeFileSync(path.join(dir, 'httpd.conf'), 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\nMaxClients 150\n');
      const result = await api.lint({ paths: ['httpd.conf'], cwd: dir, host: {} });
      const ids = result.diagnostics.map((d) => d.ruleId);
      assert.ok(ids.includes('TL0004') && ids.includes('AP4001'), ids.join(' '));
      assert.equal(result.fixes[0]?.after.includes('MaxRequestWorkers 150'), true);
      const patch = await api.unifiedDiff(
        result.fixes.map((fix) => ({ patchPath: fix.file.patchPath, before: fix.before, after: fix.after })),
      );
      const json = JSON.parse(
        api.formatters.json({
          units: [{ label: undefined, result }],
          rules: api.builtinRules.map((r) => r.meta),
          version: '0.0.0',
          color: false,
          patch,
          patches: new api.FilePatches(patch),
          wrote: false,
          fixType: 'all',
          quiet: false,
          remaining: undefined,
        }),
      ) as { version: number; results: { patch?: string }[] };
      assert.equal(json.version, 1);
      assert.match(json.results[0]?.patch ?? '', /^\+MaxRequestWorkers 150$/m);
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

  it('a rule of one own, written with defineRule and held to its cases with testRule', async () => {
    const api = await import('tune-lint');
    const rule = api.defineRule('phpfpm', {
      meta: {
        id: 'PF9201',
        name: 'static-pool',
        category: 'performance',
        description: 'A pool with pm = static',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'tune',
        messages: { found: '[{{pool}}] pm = static; expected pm = dynamic' },
      },
      create(ctx) {
        return {
          end() {
            for (const pool of ctx.config.pools) {
              const use = pool.effective('pm');
              if (use?.value !== 'static') continue;
              ctx.report({
                at: use,
                messageId: 'found',
                data: { pool: pool.name },
                fix: () => ({ file: use.file, range: use.line.valueRange, text: 'dynamic' }),
              });
            }
          },
        };
      },
    });
    await api.testRule(rule, {
      valid: [{ files: { 'pool.d/www.conf': '[www]\npm = dynamic\npm.max_children = 5\n' } }],
      invalid: [
        {
          files: { 'pool.d/www.conf': '[www]\npm = static\npm.max_children = 5\n' },
          errors: [{ message: '[www] pm = static; expected pm = dynamic', line: 2 }],
          output: { 'pool.d/www.conf': '[www]\npm = dynamic\npm.max_children = 5\n' },
        },
      ],
    });
    await assert.rejects(
      api.testRule(rule, { valid: [{ files: { 'pool.d/www.conf': '[www]\npm = static\n' } }] }),
      /PF9201 valid case 0: expected no finding/,
      'a case that does not hold fails',
    );
  });
});
