import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { defineRule } from '../../src/engine/define-rule.js';
import { applyFixes, chooseFixes } from '../../src/fix/apply.js';
import { selectRules } from '../../src/engine/selection.js';
import { SourceFile } from '../../src/core/source-file.js';
import type { Diagnostic, Fix, Rule, TextEdit } from '../../src/engine/types.js';
import { insertApacheLineAfter, renameApacheDirective, replaceApacheArg } from '../../src/languages/apache/edits.js';
import { splitLogicalLines } from '../../src/languages/apache/lexer.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { SeenStates } from '../../src/fix/passes.js';
import { MAX_FIX_PASSES, lint, type LintResult } from '../../src/lint.js';

/*
 * The fix loop (ESLint's verifyAndFix, done per host): non-overlapping fixes per
 * pass, later passes see earlier output, --fix-type filters, and the loop is
 * bounded (repeated text, new parse errors, MAX_FIX_PASSES).
 */

function file(text: string, name = 'x.conf'): SourceFile {
  return new SourceFile(`/virtual/${name}`, name, text);
}

function diagnosticWith(fix: Fix): Diagnostic {
  const edit = fix.edits[0] as TextEdit;
  return {
    ruleId: 'AP9999',
    ruleName: 'test',
    severity: 'warn',
    message: 'test',
    file: edit.file,
    range: edit.range,
    start: { line: 1, column: 1 },
    end: { line: 1, column: 1 },
    context: [],
    fix,
  };
}

describe('chooseFixes and applyFixes', () => {
  const source = file('0123456789');
  const fix = (kind: Fix['kind'], ...edits: [number, number, string][]): Fix => ({
    kind,
    edits: edits.map(([start, end, text]) => ({ file: source, range: [start, end], text })),
  });

  it('takes fixes in report order and leaves an overlapping one for the next pass', () => {
    const first = fix('safe', [2, 5, 'abc']);
    const overlapping = fix('safe', [4, 6, 'X']);
    const adjacent = fix('safe', [5, 7, 'Y']);
    const samePoint = fix('safe', [2, 2, 'ins']);
    const afterEnd = fix('safe', [5, 5, '|']);
    assert.deepEqual(chooseFixes([first, overlapping, adjacent, samePoint, afterEnd].map(diagnosticWith), 'all'), [first, adjacent]);
    assert.deepEqual(chooseFixes([first, afterEnd].map(diagnosticWith), 'all'), [first, afterEnd]);
    const applied = applyFixes([first, afterEnd]).get(source.realPath);
    assert.equal(applied?.text, '01abc|56789');
  });

  it('chooses what comparing every pair of edits chooses, in any report order (fast-check)', () => {
    const twoFiles = [source, file('abcdefghijklmnopqrstuvwxyz', 'y.conf')];
    const edit = fc.record({
      file: fc.integer({ min: 0, max: 1 }),
      start: fc.integer({ min: 0, max: 10 }),
      length: fc.integer({ min: 0, max: 4 }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { maxLength: 25 }), (fixes) => {
        const built: Fix[] = fixes.map((edits) => ({
          kind: 'safe',
          edits: edits.map(({ file: which, start, length }) => ({
            file: twoFiles[which] as SourceFile,
            range: [start, Math.min(start + length, 10)] as const,
            text: 'x',
          })),
        }));
        assert.deepEqual(chooseFixes(built.map(diagnosticWith), 'all'), everyPairChoice(built));
      }),
      { numRuns: 500 },
    );
  });

  it('drops a fix whose own edits overlap, and filters by --fix-type', () => {
    const selfOverlapping = fix('safe', [1, 3, 'a'], [2, 4, 'b']);
    const tune = fix('tune', [8, 9, 'T']);
    const safe = fix('safe', [0, 1, 'S']);
    const diagnostics = [selfOverlapping, tune, safe].map(diagnosticWith);
    assert.deepEqual(chooseFixes(diagnostics, 'all'), [tune, safe]);
    assert.deepEqual(chooseFixes(diagnostics, 'safe'), [safe]);
    assert.deepEqual(chooseFixes(diagnostics, 'tune'), [tune]);
  });

  it('never applies an edit whose range is backwards or past the end of the file', () => {
    const backwards = fix('safe', [5, 3, 'x']);
    const pastEnd = fix('safe', [9, 11, 'x']);
    const fractional = fix('safe', [1.5, 2, 'x']);
    const fine = fix('safe', [10, 10, '!']);
    assert.deepEqual(chooseFixes([backwards, pastEnd, fractional, fine].map(diagnosticWith), 'all'), [fine]);
  });

  it('applies several edits of one fix and of several files, each file from its own original text', () => {
    const other = file('abc\n', 'y.conf');
    const multi: Fix = {
      kind: 'safe',
      edits: [
        { file: source, range: [8, 10], text: '' },
        { file: source, range: [0, 0], text: '>' },
        { file: other, range: [3, 3], text: 'd' },
      ],
    };
    const applied = applyFixes([multi]);
    assert.equal(applied.get(source.realPath)?.text, '>01234567');
    assert.equal(applied.get(other.realPath)?.text, 'abcd\n');
  });
});

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-passes-'));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
function config(text: string): string {
  const name = `case-${++counter}.conf`;
  fs.writeFileSync(path.join(scratch, name), text);
  return name;
}

/** Only these rules, plus the tool rules (parse errors), all enabled. */
async function run(paths: readonly string[], rules: readonly Rule[], fixType: 'safe' | 'tune' | 'all' = 'all'): Promise<LintResult> {
  const tools = builtinRules.filter((rule) => rule.meta.language === 'tool');
  return lint({
    paths,
    cwd: scratch,
    rules: selectRules([...tools, ...rules] as Rule[], 'all', new Map()),
    fixType,
    targets: { httpd: '2.4', db: { product: 'mariadb', version: '10.11' } },
  });
}

/** A test rule that reports each `directive` line and, as its fix, adds `line` after it: in every pass. */
function insertsAfter(id: string, directive: string, line: string): Rule {
  return defineRule('apache', {
    meta: {
      id,
      name: `test-${id.toLowerCase()}`,
      category: 'style',
      description: 'test',
      defaultSeverity: 'warn',
      recommended: true,
      fix: 'safe',
      messages: { m: `add ${line}` },
    },
    create: (ctx) => ({
      directive: {
        [directive]: (use: ApacheDirectiveUse) => ctx.report({ at: use, messageId: 'm', fix: () => insertApacheLineAfter(use, line) }),
      },
    }),
  });
}

const renameRule = defineRule('apache', {
  meta: {
    id: 'AP9001',
    name: 'test-rename',
    category: 'correctness',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: { m: 'rename' },
  },
  create: (ctx) => ({
    directive: { maxclients: (use) => ctx.report({ at: use, messageId: 'm', fix: () => renameApacheDirective(use, 'MaxRequestWorkers') }) },
  }),
});

/** Only sees the new name, so it can act only after renameRule's fix: two passes. */
const lowerRule = defineRule('apache', {
  meta: {
    id: 'AP9002',
    name: 'test-lower',
    category: 'performance',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: { m: 'lower' },
  },
  create: (ctx) => ({
    directive: {
      maxrequestworkers: (use) => {
        if (use.args[0] !== '12') ctx.report({ at: use, messageId: 'm', fix: () => replaceApacheArg(use, 0, '12') });
      },
    },
  }),
});

describe('SeenStates, which notices a state of the passes seen before', () => {
  it('knows the same texts by path again, and nothing that differs in any text, path or boundary between them (fast-check)', () => {
    const state = fc.array(fc.tuple(fc.string(), fc.string({ unit: 'binary' })), { maxLength: 4 });
    fc.assert(
      fc.property(state, state, (a, b) => {
        const first = new Map(a);
        const second = new Map(b);
        const same = JSON.stringify([...first]) === JSON.stringify([...second]);
        const seen = new SeenStates();
        assert.equal(seen.add(first), true);
        assert.equal(seen.add(second), !same);
        assert.equal(seen.add(new Map(first)), false);
      }),
      { numRuns: 2000 },
    );
    const seen = new SeenStates();
    assert.equal(seen.add(new Map([['/a', 'bc']])), true);
    assert.equal(seen.add(new Map([['/ab', 'c']])), true);
    assert.equal(seen.add(new Map([['/a', 'x\0']])), true);
    assert.equal(seen.add(new Map([['/a', 'x']])), true);
    assert.equal(seen.add(new Map([['/a', 'x']])), false);
  });
});

describe('lint fix passes', () => {
  it('applies a fix that only shows up after another fix, in a second pass, and the output is a fixed point', async () => {
    const name = config('<IfModule !mpm_event_module>\n    MaxClients 150\n</IfModule>\n');
    const result = await run([name], [renameRule, lowerRule]);
    assert.equal(result.passes, 2);
    assert.equal(result.fixes[0]?.after, '<IfModule !mpm_event_module>\n    MaxRequestWorkers 12\n</IfModule>\n');
    assert.deepEqual(
      result.diagnostics.map((d) => d.ruleId),
      ['AP9001'],
      'diagnostics are those of the input',
    );
    assert.deepEqual(
      result.followUps.map((d) => d.ruleId),
      ['AP9002'],
      'what the rename called for',
    );
    fs.writeFileSync(path.join(scratch, name), result.fixes[0].after);
    const again = await run([name], [renameRule, lowerRule]);
    assert.deepEqual([again.fixes, again.passes, again.diagnostics], [[], 0, []]);
  });

  it('a follow-up fixed in two passes is listed once', async () => {
    // Asks for two KeepAlive lines after MaxRequestWorkers and adds one a pass: a follow-up of the rename, fixed in passes 2 and 3.
    const twoLines = defineRule('apache', {
      meta: {
        id: 'AP9003',
        name: 'test-two-lines',
        category: 'style',
        description: 'test',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { m: 'add KeepAlive' },
      },
      create: (ctx) => ({
        directive: {
          maxrequestworkers: (use) => {
            if (ctx.config.named('keepalive').length < 2)
              ctx.report({ at: use, messageId: 'm', fix: () => insertApacheLineAfter(use, 'KeepAlive On') });
          },
        },
      }),
    });
    const name = config('MaxClients 150\n');
    const result = await run([name], [renameRule, twoLines]);
    assert.equal(result.fixes[0]?.after, 'MaxRequestWorkers 150\nKeepAlive On\nKeepAlive On\n');
    assert.deepEqual(
      result.followUps.map((d) => d.ruleId),
      ['AP9003'],
    );
  });

  it('a fix that lost to an overlapping one and comes in a later pass is the same finding, not a follow-up', async () => {
    const inserting = (id: string, line: string) =>
      defineRule('apache', {
        meta: {
          id,
          name: `test-insert-${id}`,
          category: 'style',
          description: 'test',
          defaultSeverity: 'warn',
          recommended: true,
          fix: 'safe',
          messages: { m: `insert ${line}` },
        },
        create: (ctx) => ({
          directive: {
            listen: (use) => {
              if (!use.file.text.includes(line))
                ctx.report({
                  at: use,
                  messageId: 'm',
                  fix: () => ({ file: use.file, range: [use.range[1], use.range[1]], text: `\n${line}` }),
                });
            },
          },
        }),
      });
    const name = config('Listen 80\n');
    const result = await run([name], [inserting('AP9005', 'KeepAlive On'), inserting('AP9006', 'Timeout 60')]);
    assert.equal(result.passes, 2, 'both insert at the same place: one waits a pass');
    assert.equal(result.fixes[0]?.after, 'Listen 80\nTimeout 60\nKeepAlive On\n');
    assert.deepEqual(result.followUps, []);
  });

  it("never inserts into a block whose inner section the reader closed at the block's tag (found by the long fuzz run)", async () => {
    // `< IfModule ...>` opens a section named '' that `</IfModule>` closes along with the real block: a line
    // put before that tag is inside the broken section, not in effect, and AP2005 asked for it again every pass.
    const text = [
      'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so',
      'LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so',
      '<IfModule mpm_prefork_module>bphp8.2.so',
      '< IfModule mpm_prefork_module>',
      '    MaxRequestWorkers 12',
      '</IfModule>',
      '',
    ].join('\n');
    const name = config(text);
    const recycling = builtinRules.filter((rule) => rule.meta.id === 'AP2005');
    const result = await run([name], recycling);
    assert.equal(result.passes, 1);
    assert.equal(result.fixes[0]?.after, text.replace('mod_mpm_prefork.so\n', 'mod_mpm_prefork.so\nMaxConnectionsPerChild 10000\n'));
    fs.writeFileSync(path.join(scratch, name), result.fixes[0].after);
    assert.deepEqual((await run([name], recycling)).fixes, []);
  });

  it('offers no MaxSpareServers above what an int holds (found by the long fuzz run)', async () => {
    // MinSpareServers 99999999999999999999 is read as 2147483647; MinSpareServers + 1 is no int, so the line
    // AP2003 added was read as 2147483647 again, still too low, and asked for in every pass.
    const name = config('LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\nMinSpareServers 99999999999999999999\n');
    const result = await lint({
      paths: [name],
      cwd: scratch,
      rules: selectRules(
        builtinRules.filter((rule) => rule.meta.id === 'AP2003' || rule.meta.language === 'tool'),
        'all',
        new Map(),
      ),
      host: { ram: { value: 4 * 1024 ** 3, source: 'test' } },
    });
    const adjusted = result.diagnostics.filter(
      (diagnostic) => diagnostic.ruleId === 'AP2003' && diagnostic.message.startsWith('MaxSpareServers'),
    );
    assert.equal(adjusted.length, 1);
    assert.equal(adjusted[0]?.fix, undefined);
    assert.ok(!result.diagnostics.some((diagnostic) => diagnostic.ruleId === 'TL0009'));
  });

  it('a fix without effect on a finding an earlier fix made is reported at the start of the file as read', async () => {
    const stubbornAfterRename = insertsAfter('AP9008', 'maxrequestworkers', '# once more');
    const name = config('Listen 80\nMaxClients 150\n');
    const result = await run([name], [stubbornAfterRename, renameRule]);
    assert.equal(result.fixes[0]?.after, 'Listen 80\nMaxRequestWorkers 150\n');
    const dropped = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0009');
    assert.deepEqual(
      dropped.map((diagnostic) => [diagnostic.file, diagnostic.start.line, diagnostic.start.column]),
      [[result.files[0], 1, 1]],
    );
    assert.match(dropped[0]?.message ?? '', /^the fix of AP9008 test-ap9008 here/);
  });

  it('a finding with the same text again in the next pass, on another line, is not a fix without effect (found by the long fuzz run)', async () => {
    // MY1004 makes line 3 what line 2 is; MY5001 removed line 2 as a duplicate, and the next pass finds line 3
    // a duplicate with the same text: one finding's key, two lines, each fix taking effect.
    const name = `case-${++counter}.cnf`;
    fs.writeFileSync(path.join(scratch, name), '[mysqld]\nkey_buffer_size = 16M\nkey_buffer_size = 16Me = 16M\nkey_buffer_size = 16M\n');
    const rules = builtinRules.filter((rule) => rule.meta.id === 'MY5001' || rule.meta.id === 'MY1004');
    const result = await run([name], rules);
    assert.ok(
      !result.diagnostics.some((diagnostic) => diagnostic.ruleId === 'TL0009'),
      result.diagnostics.map((diagnostic) => diagnostic.message).join('\n'),
    );
    assert.equal(result.fixes[0]?.after.match(/key_buffer_size/g)?.length, 1);
    fs.writeFileSync(path.join(scratch, name), result.fixes[0].after);
    assert.deepEqual((await run([name], rules)).fixes, []);
  });

  it('lines with the same finding fixed one a pass are no fix without effect (found by the long fuzz run)', async () => {
    // Each fixed backslash joins the next line, whose backslash then gets its fix in the next pass: one
    // finding (the same text, no sections), fixed in four passes, each fix taking effect.
    const name = config(
      'LoadModule mpm_event_module modules/mod_mpm_event.so\nTimeout \\ \n  Timeout \\ \n  eout \\ \n  Timeout \\ \n    10\n',
    );
    const hazards = builtinRules.filter((rule) => rule.meta.id === 'AP1002');
    const result = await run([name], hazards);
    assert.ok(!result.diagnostics.some((diagnostic) => diagnostic.ruleId === 'TL0009'));
    assert.ok(result.passes > 1);
    assert.equal(
      result.fixes[0]?.after,
      'LoadModule mpm_event_module modules/mod_mpm_event.so\nTimeout \\\n  Timeout \\\n  eout \\\n  Timeout \\\n    10\n',
    );
  });

  it('a line added after a last line that ends in a backslash is a line of its own (found by the long fuzz run)', async () => {
    // httpd joins a line that ends in a backslash to the next one: AP1010's ThreadsPerChild, added after
    // `ThreadLimit 0\`, became part of it, never took effect, and was asked for again in every pass.
    const clamped = builtinRules.filter((rule) => rule.meta.id === 'AP1010');
    for (const [text, expected] of [
      ['LoadModule mpm_event_module modules/mod_mpm_event.so\nThreadLimit 0\\\n', 'ThreadLimit 1\\\n\n'],
      ['LoadModule mpm_event_module modules/mod_mpm_event.so\nThreadLimit 0\\', 'ThreadLimit 1 \n'],
    ] as const) {
      const name = config(text);
      const result = await run([name], clamped);
      const after = result.fixes[0]?.after ?? '';
      assert.ok(after.includes(`\n${expected}`), JSON.stringify(after));
      assert.deepEqual(
        splitLogicalLines(after)
          .map((line) => line.text)
          .filter((line) => line.startsWith('Thread')),
        ['ThreadLimit 1', 'ThreadsPerChild 1'],
      );
      assert.ok(!result.diagnostics.some((diagnostic) => diagnostic.ruleId === 'TL0009'));
      fs.writeFileSync(path.join(scratch, name), after);
      assert.deepEqual((await run([name], clamped)).fixes, []);
    }
  });

  it('leaves out a fix whose finding survives it, keeps the others, and says so (TL0009)', async () => {
    const stubborn = defineRule('apache', {
      meta: {
        id: 'AP9007',
        name: 'test-stubborn',
        category: 'style',
        description: 'test',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { m: 'always' },
      },
      create: (ctx) => ({
        directive: {
          listen: (use) =>
            ctx.report({
              at: use,
              messageId: 'm',
              fix: () => ({ file: use.file, range: [use.range[1], use.range[1]], text: '\n# once more' }),
            }),
        },
      }),
    });
    const name = config('Listen 80\nMaxClients 150\n');
    const result = await run([name], [stubborn, renameRule]);
    assert.equal(
      result.fixes[0]?.after,
      'Listen 80\nMaxRequestWorkers 150\n',
      'the rename is kept, the line that changes nothing is not added',
    );
    assert.equal(result.passes, 1);
    const byRule = new Map(result.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic]));
    assert.equal(byRule.get('AP9007')?.fix, undefined, 'the finding no longer claims a fix');
    assert.notEqual(byRule.get('AP9001')?.fix, undefined);
    const dropped = byRule.get('TL0009');
    assert.equal(dropped?.start.line, 1);
    assert.match(dropped.message, /^the fix of AP9007 test-stubborn here is left out of the patch/);
  });

  it('never adds an option to a file the server stopped reading before it (found by the long fuzz run)', async () => {
    // The included file's first line is an option before any [group]: the server ignores the rest of the
    // file, so a max_connections line added to its [mysqld] was not in effect, and MY2004 asked for it again
    // in every pass.
    fs.mkdirSync(path.join(scratch, 'stopped', 'conf.d'), { recursive: true });
    const files: Record<string, string> = {
      'stopped/httpd.conf':
        'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nLoadModule php_module /usr/lib/apache2/modules/libphp8.2.so\nMaxRequestWorkers 4\n',
      'stopped/my.cnf': '!include conf.d/a.cnf\n',
      'stopped/conf.d/a.cnf': "lamp1's MariaDB\n[mysqld]\nmax_connections = 100\n",
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(scratch, name), text);
    const lintStopped = () =>
      lint({
        paths: ['stopped/httpd.conf', 'stopped/my.cnf'],
        cwd: scratch,
        readers: { mycnf: { includeBase: path.join(scratch, 'stopped') } },
        rules: selectRules(
          builtinRules.filter((rule) => rule.meta.id === 'MY2004' || rule.meta.language === 'tool'),
          'all',
          new Map(),
        ),
        host: { ram: { value: 512 * 1024 * 1024, source: 'test' } },
        targets: { httpd: '2.4', db: { product: 'mariadb', version: '10.11' } },
      });
    const result = await lintStopped();
    assert.equal(result.passes, 1);
    assert.deepEqual(
      result.fixes.map((fix) => [fix.file.displayPath, fix.after]),
      [['stopped/my.cnf', '!include conf.d/a.cnf\n\n[mysqld]\nmax_connections = 14\n']],
    );
    fs.writeFileSync(path.join(scratch, 'stopped', 'my.cnf'), result.fixes[0]?.after ?? '');
    assert.deepEqual((await lintStopped()).fixes, []);
  });

  it('honours --fix-type in every pass', async () => {
    const name = config('MaxClients 150\nMaxRequestWorkers 99\n');
    const safe = await run([name], [renameRule, lowerRule], 'safe');
    assert.equal(safe.fixes[0]?.after, 'MaxRequestWorkers 150\nMaxRequestWorkers 99\n');
    const tune = await run([name], [renameRule, lowerRule], 'tune');
    assert.equal(tune.fixes[0]?.after, 'MaxClients 150\nMaxRequestWorkers 12\n');
    const all = await run([name], [renameRule, lowerRule], 'all');
    assert.equal(all.fixes[0]?.after, 'MaxRequestWorkers 12\nMaxRequestWorkers 12\n');
  });

  it('stops when the text repeats (circular fixes)', async () => {
    const toggle = defineRule('apache', {
      meta: {
        id: 'AP9003',
        name: 'test-toggle',
        category: 'style',
        description: 'test',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { m: 'toggle' },
      },
      create: (ctx) => ({
        directive: {
          keepalive: (use) =>
            ctx.report({ at: use, messageId: 'm', fix: () => replaceApacheArg(use, 0, use.args[0] === 'On' ? 'Off' : 'On') }),
        },
      }),
    });
    const result = await run([config('KeepAlive On\n')], [toggle]);
    assert.ok(result.passes < MAX_FIX_PASSES, `stopped after ${result.passes} passes`);
  });

  it('stops after MAX_FIX_PASSES when every pass changes the text and finds something new', async () => {
    // Each pass's finding is at the line the pass before added, so no fix goes without effect.
    const grow = defineRule('apache', {
      meta: {
        id: 'AP9004',
        name: 'test-grow',
        category: 'style',
        description: 'test',
        defaultSeverity: 'warn',
        recommended: true,
        fix: 'safe',
        messages: { m: 'grow' },
      },
      create: (ctx) => {
        let last: ApacheDirectiveUse | undefined;
        return {
          directive: { timeout: (use) => (last = use) },
          end: () => {
            const at = last;
            if (at !== undefined)
              ctx.report({ at, messageId: 'm', fix: () => insertApacheLineAfter(at, `Timeout ${Number(at.args[0]) + 1}`) });
          },
        };
      },
    });
    const result = await run([config('Timeout 0\n')], [grow]);
    assert.equal(result.passes, MAX_FIX_PASSES);
    assert.equal(result.fixes[0]?.after, Array.from({ length: MAX_FIX_PASSES + 1 }, (_, index) => `Timeout ${index}\n`).join(''));
  });

  it('discards a pass whose output no longer parses, and keeps the earlier passes', async () => {
    const breaks = insertsAfter('AP9005', 'maxrequestworkers', '</IfModule>');
    const result = await run([config('MaxClients 150\n')], [renameRule, breaks]);
    assert.equal(result.passes, 1);
    assert.equal(result.fixes[0]?.after, 'MaxRequestWorkers 150\n');
  });

  it('puts the fix in the included file that holds the setting, named by its symlink target', async () => {
    const root = path.join(scratch, 'tree');
    fs.mkdirSync(path.join(root, 'mods-available'), { recursive: true });
    fs.mkdirSync(path.join(root, 'mods-enabled'));
    fs.writeFileSync(path.join(root, 'main.conf'), 'IncludeOptional mods-enabled/*.conf\n');
    fs.writeFileSync(path.join(root, 'mods-available', 'mpm_prefork.conf'), 'MaxClients 150\n');
    fs.symlinkSync('../mods-available/mpm_prefork.conf', path.join(root, 'mods-enabled', 'mpm_prefork.conf'));
    const result = await lint({
      paths: ['tree/main.conf'],
      cwd: scratch,
      readers: { apache: { serverRoot: root } },
      rules: selectRules([renameRule] as Rule[], 'all', new Map()),
    });
    assert.equal(result.fixes.length, 1);
    const only = result.fixes[0];
    assert.equal(only?.file.displayPath, 'tree/mods-enabled/mpm_prefork.conf');
    assert.equal(only.file.patchPath, 'tree/mods-available/mpm_prefork.conf');
    assert.equal(only.file.realPath, path.join(fs.realpathSync(root), 'mods-available', 'mpm_prefork.conf'));
    assert.equal(only.after, 'MaxRequestWorkers 150\n');
  });
});

/** The choice as first written: each edit compared with every edit taken before it (quadratic, and plainly right). */
function everyPairChoice(fixes: readonly Fix[]): Fix[] {
  const overlap = (a: TextEdit, b: TextEdit): boolean =>
    a.file.realPath === b.file.realPath &&
    (a.range[0] === a.range[1] && b.range[0] === b.range[1]
      ? a.range[0] === b.range[0]
      : (a.range[0] < b.range[1] && b.range[0] < a.range[1]) || a.range[0] === b.range[0]);
  const taken: Fix[] = [];
  for (const fix of fixes) {
    const own = fix.edits.some((a, i) => fix.edits.some((b, j) => i < j && overlap(a, b)));
    const clash = fix.edits.some((a) => taken.some((other) => other.edits.some((b) => overlap(a, b))));
    if (!own && !clash) taken.push(fix);
  }
  return taken;
}
