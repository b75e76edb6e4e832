import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { defineRule } from '../../src/engine/define-rule.js';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { FINDINGS_PER_RULE_AND_FILE, lintUnit, type LintUnit } from '../../src/engine/linter.js';
import { selectRules, type UserRuleSetting } from '../../src/engine/selection.js';
import { compareVersions, DEFAULT_TARGETS, parseTargetSpec, versionAtLeast } from '../../src/core/targets.js';
import type { Diagnostic, Rule } from '../../src/engine/types.js';
import { unitOf } from '../helpers/units.js';
import { loadApache } from '../../src/languages/apache/model.js';
import { loadMycnf } from '../../src/languages/mycnf/model.js';
import { variableDefault } from '../../src/languages/mycnf/defaults.js';
import { lint } from '../../src/lint.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-engine-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PREFORK = 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\n';
/** The engine is tested with two rules it knows well and the tool rules, so new catalogue entries cannot change these cases. */
const ENGINE_RULES = builtinRules.filter((rule) => ['AP2001', 'AP4001'].includes(rule.meta.id) || rule.meta.language === 'tool');

async function run(
  text: string,
  options: { rules?: Map<string, UserRuleSetting>; host?: boolean; name?: string } = {},
): Promise<Diagnostic[]> {
  const file = path.join(dir, options.name ?? 'case.conf');
  fs.writeFileSync(file, text);
  const result = await lint({
    paths: [file],
    cwd: dir,
    host:
      options.host === false
        ? {}
        : {
            ram: { value: 512 * 1024 * 1024, source: 'test' },
            perChild: { value: { median: 20 * 2 ** 20, max: 20 * 2 ** 20, count: 0, metric: 'pss' }, source: 'test' },
          },
    rules: selectRules(ENGINE_RULES, 'recommended', options.rules ?? new Map()),
    fixType: 'none',
  });
  return [...result.diagnostics];
}

const ids = (diagnostics: readonly Diagnostic[]): string[] => diagnostics.map((d) => `${d.start.line}:${d.ruleId}:${d.severity}`);

describe('disable comments', () => {
  it('disable-next-line by id silences that rule on the next line only', async () => {
    const found = await run(
      `${PREFORK}# tune-lint-disable-next-line AP4001 -- kept for the 2.2 hosts\nMaxClients 10\nMaxRequestsPerChild 0\n`,
    );
    assert.deepEqual(ids(found), ['4:AP4001:warn']);
  });

  it('rule names work like ids, and several may be listed', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable-next-line renamed-mpm-directive, AP2001\nMaxClients 1000\n`);
    assert.deepEqual(ids(found), []);
  });

  it('disable ... enable covers a block', async () => {
    const found = await run(
      `${PREFORK}# tune-lint-disable AP4001\nMaxClients 10\nMaxRequestsPerChild 0\n# tune-lint-enable AP4001\nMaxRequestsPerChild 0\n`,
    );
    assert.deepEqual(ids(found), ['6:AP4001:warn']);
  });

  it('a bare disable silences every rule until enable', async () => {
    const found = await run(`${PREFORK}# tune-lint-disable\nMaxClients 10000\n# tune-lint-enable\n`);
    assert.deepEqual(ids(found), []);
  });

  it('an unused disable is TL0003; one for a rule that did not run is not; an unknown rule name is', async () => {
    const found = await run(
      `${PREFORK}# tune-lint-disable-next-line AP4001\nMaxRequestWorkers 10\n# tune-lint-disable-next-line AP2001\nMaxRequestWorkers 10\n# tune-lint-disable-next-line no-such-rule\nTimeout 60\n`,
      { host: false },
    );
    assert.deepEqual(ids(found), ['1:TL0004:info', '2:TL0003:warn', '6:TL0003:warn']);
    assert.match(found[1]?.message ?? '', /Unused tune-lint-disable comment for ap4001/);
  });
});

describe('severities and host facts', () => {
  it('rules that need host facts are skipped with one TL0004 note', async () => {
    const found = await run(`${PREFORK}MaxRequestWorkers 150\n`, { host: false });
    assert.deepEqual(ids(found), ['1:TL0004:info']);
    assert.match(found[0]?.message ?? '', /sizing rules skipped: RAM is unknown; expected --host-ram/);
    assert.match(found[0]?.detail ?? '', /skipped: .*AP2001/);
  });

  it("a severity set by the user wins over the rule default and over a finding's own severity", async () => {
    const base = `${PREFORK}MaxClients 150\n`;
    assert.deepEqual(ids(await run(base)), ['2:AP2001:error', '2:AP4001:warn']);
    assert.deepEqual(
      ids(
        await run(base, {
          rules: new Map([
            ['AP2001', { severity: 'warn' }],
            ['AP4001', { severity: 'off' }],
          ]),
        }),
      ),
      ['2:AP2001:warn'],
    );
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
    const [finding] = await run(`${PREFORK}<IfModule mpm_prefork_module>\n    MaxClients 10\n</IfModule>\n`, {
      rules: new Map([['AP2001', { severity: 'off' }]]),
    });
    assert.equal(finding?.ruleId, 'AP4001');
    assert.deepEqual(
      [finding.start, finding.end],
      [
        { line: 3, column: 5 },
        { line: 3, column: 18 },
      ],
    );
    assert.deepEqual(finding.context, ['<IfModule mpm_prefork_module>']);
  });

  it('a file included twice is reported once', async () => {
    fs.writeFileSync(path.join(dir, 'twice.inc'), 'MaxClients 10\n');
    const found = await run(`${PREFORK}Include ${path.join(dir, 'twice.inc')}\nInclude ${path.join(dir, 'twice.inc')}\n`, {
      name: 'twice.conf',
    });
    assert.deepEqual(ids(found.filter((d) => d.ruleId === 'AP4001')), ['1:AP4001:warn']);
  });
});

describe('fix passes', () => {
  const noted = defineRule('apache', {
    meta: {
      id: 'AP9901',
      name: 'noted',
      category: 'performance',
      description: 'reports every Timeout',
      defaultSeverity: 'warn',
      recommended: true,
      messages: { seen: 'seen' },
    },
    create: (ctx) => ({ directive: { timeout: (use) => ctx.report({ at: use, messageId: 'seen' }) } }),
  });
  const fixer = defineRule('apache', {
    meta: { ...noted.meta, id: 'AP9902', name: 'fixer', fix: 'safe' },
    create: (ctx) => ({
      directive: {
        timeout: (use) => ctx.report({ at: use, messageId: 'seen', fix: () => ({ file: use.file, range: use.range, text: 'Timeout 60' }) }),
      },
    }),
  });
  const tools = builtinRules.filter((rule) => rule.meta.language === 'tool');

  function unitOfText(text: string): LintUnit {
    const file = path.join(dir, 'passes.conf');
    fs.writeFileSync(file, text);
    const apache = loadApache(file, { fs: new ConfigFileSystem({ cwd: dir }), httpd: '2.4' });
    return unitOf({ apache: [apache] });
  }

  it('a fix pass runs the rules that can fix and reports reader errors, without notes about the run', () => {
    const unit = unitOfText('# tune-lint-disable-next-line AP4001\nTimeout 300\n<Directory /srv>\n');
    const selection = selectRules([noted, fixer, ...tools], 'recommended', new Map());
    assert.deepEqual(ids(lintUnit(unit, selection).diagnostics), ['1:TL0003:warn', '2:AP9901:warn', '2:AP9902:warn', '3:TL0001:error']);
    assert.deepEqual(ids(lintUnit(unit, selection, { fixesOnly: true }).diagnostics), ['2:AP9902:warn', '3:TL0001:error']);
  });

  it('a rule that reports a fix must say so in meta.fix, or fix passes would never see its fixes', () => {
    const undeclared = { ...fixer, meta: { ...noted.meta, id: 'AP9903' } } as Rule;
    assert.throws(
      () => lintUnit(unitOfText('Timeout 300\n'), selectRules([undeclared], 'recommended', new Map())),
      /AP9903 reported a fix but declares no fix kind/,
    );
  });
});

describe('a fix pass takes findings from the lint before it', () => {
  const created: string[] = [];
  const optionRule = (id: string, readsSizing: boolean) =>
    defineRule('mycnf', {
      meta: {
        id,
        name: `option-${id}`,
        category: 'performance',
        description: 'reports every max_connections',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { seen: 'seen {{peak}}' },
      },
      create: (ctx) => {
        created.push(id);
        return {
          option: {
            max_connections: (use) => {
              const peak = readsSizing ? String(ctx.sizing.apache.length) : 'unread';
              ctx.report({
                at: use,
                messageId: 'seen',
                data: { peak },
                fix: () => ({ file: use.file, range: use.range, text: 'max_connections = 15' }),
              });
            },
          },
        };
      },
    });
  const local = optionRule('MY9901', false);
  const sized = optionRule('MY9902', true);

  function unitWith(mycnfText: string, apacheText: string | undefined): LintUnit {
    const view = new ConfigFileSystem({ cwd: dir });
    fs.writeFileSync(path.join(dir, 'reuse.cnf'), mycnfText);
    const mycnf = loadMycnf(path.join(dir, 'reuse.cnf'), { fs: view, target: DEFAULT_TARGETS.db });
    const apache = apacheText === undefined ? [] : [loadApacheText(apacheText)];
    return unitOf({ apache, mycnf: [mycnf] });
  }
  function loadApacheText(text: string) {
    fs.writeFileSync(path.join(dir, 'reuse.conf'), text);
    return loadApache(path.join(dir, 'reuse.conf'), { fs: new ConfigFileSystem({ cwd: dir }), httpd: '2.4' });
  }

  it('of a rule that read neither host facts nor sizing, on the same option files: not run again, the same findings', () => {
    const selection = selectRules([local, sized], 'recommended', new Map());
    const first = unitWith('[mysqld]\nmax_connections = 500\n', `${PREFORK}MaxRequestWorkers 10\n`);
    created.length = 0;
    const initial = lintUnit(first, selection);
    assert.deepEqual(created, ['MY9901', 'MY9902']);
    assert.deepEqual(
      [...initial.record.readBeyondConfig].map((rule) => rule.meta.id),
      ['MY9902'],
    );
    // A pass that changed only Apache: the same my.cnf config, the Apache config read again.
    const pass = { ...first, apache: [loadApacheText(`${PREFORK}MaxRequestWorkers 20\n`)] };
    created.length = 0;
    const relinted = lintUnit(pass, selection, { fixesOnly: true, before: initial.record });
    assert.deepEqual(created, ['MY9902'], 'the rule that read the sizing runs again');
    assert.deepEqual(
      relinted.diagnostics.map((d) => `${d.ruleId} ${d.message}`),
      initial.diagnostics.map((d) => `${d.ruleId} ${d.message}`),
    );
    assert.equal(
      relinted.diagnostics.find((d) => d.ruleId === 'MY9901'),
      initial.diagnostics.find((d) => d.ruleId === 'MY9901'),
    );
    assert.deepEqual(
      [...relinted.record.readBeyondConfig].map((rule) => rule.meta.id),
      ['MY9902'],
    );
  });

  it('runs every rule again on option files read again, or for other host facts', () => {
    const selection = selectRules([local, sized], 'recommended', new Map());
    const first = unitWith('[mysqld]\nmax_connections = 500\n', undefined);
    const initial = lintUnit(first, selection);
    created.length = 0;
    lintUnit(unitWith('[mysqld]\nmax_connections = 500\n', undefined), selection, { fixesOnly: true, before: initial.record });
    assert.deepEqual(created, ['MY9901', 'MY9902'], 'another config object, though the same text');
    created.length = 0;
    lintUnit({ ...first, host: { cpus: { value: 2, source: 'test' } } }, selection, { fixesOnly: true, before: initial.record });
    assert.deepEqual(created, ['MY9901', 'MY9902'], 'other host facts');
  });
});

describe('the limit of findings listed', () => {
  const everyTimeout = defineRule('apache', {
    meta: {
      id: 'AP9904',
      name: 'every-timeout',
      category: 'performance',
      description: 'reports every Timeout and offers to raise it',
      defaultSeverity: 'warn',
      recommended: true,
      fix: 'safe',
      messages: { seen: 'seen' },
    },
    create: (ctx) => ({
      directive: {
        timeout: (use) => ctx.report({ at: use, messageId: 'seen', fix: () => ({ file: use.file, range: use.range, text: 'Timeout 61' }) }),
      },
    }),
  });
  const tools = builtinRules.filter((rule) => rule.meta.language === 'tool');

  it(`lists ${FINDINGS_PER_RULE_AND_FILE} findings of a rule in a file, counts the rest in one TL0010, and fixes only those listed`, async () => {
    const file = path.join(dir, 'many.conf');
    fs.writeFileSync(file, 'Timeout 60\n'.repeat(FINDINGS_PER_RULE_AND_FILE + 250));
    const result = await lint({ paths: [file], cwd: dir, rules: selectRules([everyTimeout, ...tools], 'recommended', new Map()) });
    assert.equal(result.diagnostics.filter((d) => d.ruleId === 'AP9904').length, FINDINGS_PER_RULE_AND_FILE);
    const note = result.diagnostics.find((d) => d.ruleId === 'TL0010');
    assert.equal(note?.message, `AP9904 every-timeout found 250 more problems in this file than the ${FINDINGS_PER_RULE_AND_FILE} listed`);
    assert.equal(note.start.line, 1);
    const after = result.fixes[0]?.after ?? '';
    assert.equal(after.split('Timeout 61').length - 1, FINDINGS_PER_RULE_AND_FILE, 'the patch holds the fixes of the findings listed');
  });
});

describe('target versions', () => {
  it('a release pinned to the patch level is at least its series: 2.4.62 is 2.4, 8.0.36 is 8.0', () => {
    for (const [target, minimum, expected] of [
      ['2.4.62', '2.4', true],
      ['2.4.62', '2.4.21', true],
      ['2.4.62', '2.4.63', false],
      ['2.4.62', '2.5', false],
      ['2.2.34', '2.4', false],
      ['8.0.36', '8.0', true],
      ['8.0.36', '8.0.30', true],
      ['8.0.20', '8.0.30', false],
      ['10.11.9', '10.11', true],
      ['10.4.34', '10.5', false],
    ] as const) {
      assert.equal(versionAtLeast(target, minimum), expected, `${target} >= ${minimum}`);
    }
  });

  it('a series alone is a current release of it: 2.4 is at least 2.4.30, and not 2.5', () => {
    assert.equal(versionAtLeast('2.4', '2.4.30'), true);
    assert.equal(versionAtLeast('2.4', '2.4'), true);
    assert.equal(versionAtLeast('2.4', '2.5'), false);
    assert.equal(versionAtLeast('8.0', '8.0.30'), true);
    assert.equal(compareVersions('2.4', '2.4.0'), 1, 'a current 2.4 is later than 2.4.0');
  });

  it('a database version of the other product is refused with the likely meaning', () => {
    assert.throws(
      () => parseTargetSpec('mariadb=8.0'),
      /unsupported mariadb target "8.0": MariaDB is 5.5 or 10.0 and later \(did you mean mysql=8.0\?\)/,
    );
    assert.throws(
      () => parseTargetSpec('mysql=10.11'),
      /unsupported mysql target "10.11": MySQL has no version 10 \(did you mean mariadb=10.11\?\)/,
    );
    assert.deepEqual(parseTargetSpec('mariadb=5.5.68').db, { product: 'mariadb', version: '5.5.68' });
    assert.deepEqual(parseTargetSpec('mariadb=11.4').db, { product: 'mariadb', version: '11.4' });
    assert.deepEqual(parseTargetSpec('mysql=9.1').db, { product: 'mysql', version: '9.1' });
  });

  it('--target with a patch level reads the configs as its series does', async () => {
    const file = path.join(dir, 'include-optional.conf');
    fs.writeFileSync(path.join(dir, 'optional-part.conf'), 'KeepAlive Off\n');
    fs.writeFileSync(file, `${PREFORK}IncludeOptional optional-*.conf\n`);
    const files = (httpd: string): string[] =>
      loadApache(file, { fs: new ConfigFileSystem({ cwd: dir }), httpd, serverRoot: dir }).files.map((entry) =>
        path.basename(entry.source.path),
      );
    assert.deepEqual(files('2.4.62'), files('2.4'));
    assert.deepEqual(files('2.4.62'), ['include-optional.conf', 'optional-part.conf']);
    const mysql = (version: string): unknown => variableDefault('innodb_io_capacity', parseTargetSpec(`mysql=${version}`).db);
    assert.equal(mysql('8.4.2'), mysql('8.4'));
    assert.equal(mysql('8.0.36'), mysql('8.0'));
    assert.notEqual(mysql('8.4.2'), mysql('8.0.36'));
  });
});
