import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../rules/index.js';
import { selectRules, type UserRuleSetting } from '../src/engine/selection.js';
import type { Diagnostic } from '../src/engine/types.js';
import { lint } from '../src/lint.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-engine-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PREFORK = 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\n';
/** The engine is tested with two rules it knows well and the tool rules, so new catalogue entries cannot change these cases. */
const ENGINE_RULES = builtinRules.filter((rule) => ['AP2001', 'AP4001'].includes(rule.meta.id) || rule.meta.language === 'tool');

async function run(text: string, options: { rules?: Map<string, UserRuleSetting>; host?: boolean; name?: string } = {}): Promise<Diagnostic[]> {
  const file = path.join(dir, options.name ?? 'case.conf');
  fs.writeFileSync(file, text);
  const result = await lint({
    paths: [file],
    cwd: dir,
    host: options.host === false ? {} : { ram: { value: 512 * 1024 * 1024, source: 'test' }, perChild: { value: { median: 20 * 2 ** 20, max: 20 * 2 ** 20, count: 0, metric: 'pss' }, source: 'test' } },
    rules: selectRules(ENGINE_RULES, 'recommended', options.rules ?? new Map()),
    fixType: 'none',
  });
  return [...result.diagnostics];
}

const ids = (diagnostics: readonly Diagnostic[]): string[] => diagnostics.map((d) => `${d.start.line}:${d.ruleId}:${d.severity}`);

describe('disable comments', () => {
  it('disable-next-line by id silences that rule on the next line only', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable-next-line AP4001 -- kept for the 2.2 hosts\nMaxClients 10\nMaxRequestsPerChild 0\n`);
    assert.deepEqual(ids(found), ['4:AP4001:warn']);
  });

  it('rule names work like ids, and several may be listed', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable-next-line renamed-mpm-directive, AP2001\nMaxClients 1000\n`);
    assert.deepEqual(ids(found), []);
  });

  it('disable ... enable covers a block', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable AP4001\nMaxClients 10\nMaxRequestsPerChild 0\n# tune-lint-enable AP4001\nMaxRequestsPerChild 0\n`);
    assert.deepEqual(ids(found), ['6:AP4001:warn']);
  });

  it('a bare disable silences every rule until enable', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable\nMaxClients 10000\n# tune-lint-enable\n`);
    assert.deepEqual(ids(found), []);
  });

  it('an unused disable is TL0003; one for a rule that did not run is not; an unknown rule name is', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable-next-line AP4001\nMaxRequestWorkers 10\n# tune-lint-disable-next-line AP2001\nMaxRequestWorkers 10\n# tune-lint-disable-next-line no-such-rule\nTimeout 60\n`, { host: false });
    assert.deepEqual(ids(found), ['1:TL0004:info', '2:TL0003:warn', '6:TL0003:warn']);
    assert.match(found[1]?.message ?? '', /Unused tune-lint-disable comment for ap4001/);
  });
});

describe('severities and host facts', () => {
  it('rules that need host facts are skipped with one TL0004 note', async () => {
    const found = await run(`${PREFORK}MaxRequestWorkers 150\n`, { host: false });
    assert.deepEqual(ids(found), ['1:TL0004:info']);
    assert.match(found[0]?.message ?? '', /sizing rules skipped \(.*AP2001.*\): RAM is unknown; give --host-ram/);
  });

  it('a severity set by the user wins over the rule default and over a finding\'s own severity', async () => {
    const base = `${PREFORK}MaxClients 150\n`;
    assert.deepEqual(ids(await run(base)), ['2:AP2001:error', '2:AP4001:warn']);
    assert.deepEqual(ids(await run(base, { rules: new Map([['AP2001', { severity: 'warn' }], ['AP4001', { severity: 'off' }]]) })), ['2:AP2001:warn']);
  });

  it('the preset decides which rules run; strict adds the ones not recommended', () => {
    const recommended = selectRules(builtinRules, 'recommended', new Map());
    const strict = selectRules(builtinRules, 'strict', new Map());
    const anyFile = { path: '/x', realPath: '/x', displayPath: 'x' } as never;
    for (const rule of builtinRules) {
      const expected = rule.meta.recommended || rule.meta.language === 'tool' ? rule.meta.defaultSeverity : 'off';
      assert.equal(recommended.setting(rule, anyFile).severity, expected, rule.meta.id);
      assert.equal(strict.setting(rule, anyFile).severity, rule.meta.defaultSeverity, rule.meta.id);
    }
  });
});

describe('diagnostics', () => {
  it('carry file, 1-based line/column, end and the enclosing sections', async () => {
    const [finding] = await run(`${PREFORK}<IfModule mpm_prefork_module>\n    MaxClients 10\n</IfModule>\n`, { rules: new Map([['AP2001', { severity: 'off' }]]) });
    assert.equal(finding?.ruleId, 'AP4001');
    assert.deepEqual([finding?.start, finding?.end], [{ line: 3, column: 5 }, { line: 3, column: 18 }]);
    assert.deepEqual(finding?.context, ['<IfModule mpm_prefork_module>']);
  });

  it('a file included twice is reported once', async () => {
    fs.writeFileSync(path.join(dir, 'twice.inc'), 'MaxClients 10\n');
    const found = await run(`${PREFORK}Include ${path.join(dir, 'twice.inc')}\nInclude ${path.join(dir, 'twice.inc')}\n`, { name: 'twice.conf' });
    assert.deepEqual(ids(found.filter((d) => d.ruleId === 'AP4001')), ['1:AP4001:warn']);
  });
});
