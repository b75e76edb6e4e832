import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { clientPrograms } from '../../src/languages/mycnf/client-programs.js';
import { OPTION_TYPE_LISTS } from '../../src/languages/mycnf/option-types.js';
import { MARIADB_NOOP_LISTS } from '../../src/languages/mycnf/removed-options.js';
import { selectRules } from '../../src/engine/selection.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import type { TextEncoding } from '../../src/core/source-file.js';
import type { Diagnostic, Rule } from '../../src/engine/types.js';
import { lint } from '../../src/lint.js';
import { parseMyCnf } from '../../src/languages/mycnf/parser.js';
import { inTemporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { printDefaults, serverSeries } from '../helpers/mycnf-oracle.js';
import { ruleCases, runCase, type RuleCase, said } from '../helpers/rule-fixtures.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The MySQL rules' claims about what the server does, checked against the
 * installed MariaDB 10.11: `mariadbd --defaults-file=F --help --verbose`
 * processes the options exactly as at start-up and prints the resulting
 * variables without starting a server; `my_print_defaults` shows what the
 * reader reads. Every quoted server message in a finding must be what
 * mariadbd says for that line, every fix must make the complaint go away, and
 * the tables the rules rely on must match the binaries.
 */

interface ServerRun {
  readonly status: number | null;
  readonly stderr: string;
  readonly values: ReadonlyMap<string, string>;
}

/** `mariadbd --defaults-file=F --help --verbose`, asynchronously so that many runs share the wait. Never starts a server. */
function mariadbd(tool: string, file: string): Promise<ServerRun> {
  return new Promise((resolve) => {
    execFile(
      tool,
      [`--defaults-file=${file}`, '--help', '--verbose'],
      { cwd: path.dirname(file), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        const values = new Map<string, string>();
        const lines = stdout.split('\n');
        const start = lines.findIndex((line) => /^-{20,} -{10,}$/.test(line));
        for (const line of start === -1 ? [] : lines.slice(start + 1)) {
          if (line.trim() === '') break;
          const match = /^(\S+)\s+(.*)$/.exec(line);
          if (match) values.set((match[1] as string).replaceAll('-', '_'), (match[2] as string).trimEnd());
        }
        resolve({ status, stderr, values });
      },
    );
  });
}

/** Writes an option file the server will read (never world-writable, which it would skip). */
/** `text` as bytes, one char per byte, unless it is a UTF-8 file's text as read (`encoding`). */
function writeOptionFile(dir: string, name: string, text: string, encoding: TextEncoding = 'latin1'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, encoding);
  fs.chmodSync(file, 0o644);
  return file;
}

function installedMariadbd(t: Parameters<typeof requireTool>[0]): string | undefined {
  const tool = requireTool(t, 'mariadbd');
  if (tool === undefined) return undefined;
  assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
  return tool;
}

const MY_RULES = builtinRules.filter((rule) => rule.meta.id.startsWith('MY'));

/** Single-file fixture cases whose target is MariaDB 10.11 (no target, or mariadb=10.11). */
function mariadbCases(rule: Rule, kind: 'bad' | 'good'): RuleCase[] {
  return ruleCases(rule).filter(
    (testCase) =>
      testCase.kind === kind &&
      testCase.paths.length === 1 &&
      !testCase.sysroot &&
      (testCase.settings.target ?? 'mariadb=10.11') === 'mariadb=10.11',
  );
}

/** Server wording a finding quotes: the text in double quotes that is one of the server's messages. */
const SERVER_WORDING =
  /"((?:error: )?(?:unknown variable|unknown option|ambiguous option|Unknown suffix|Incorrect unsigned|ignoring option|boolean value|Using unique option prefix|'[a-z0-9-]+' (?:was removed|is MySQL)|option 'max_connections': unsigned value)[^"]*)"/g;

function quotedWording(diagnostic: Diagnostic): string[] {
  return [...said(diagnostic).matchAll(SERVER_WORDING)].map((match) => match[1] as string);
}

/**
 * The line of a finding alone under its group header, so the server's first
 * complaint is about it. A finding of another rule on a set-variable line is
 * about the option inside, once MY4001 has rewritten the line.
 */
function isolate(diagnostic: Diagnostic): string | undefined {
  const text = diagnostic.file.text;
  const document = parseMyCnf(text);
  let header: string | undefined;
  for (const line of document.lines) {
    if (line.kind === 'group') header = text.slice(line.range[0], line.range[1]).trimEnd();
    if (line.range[0] <= diagnostic.range[0] && diagnostic.range[0] < line.range[1]) {
      let body = text.slice(line.range[0], line.range[1]).trimEnd();
      if (diagnostic.ruleId !== 'MY4001') body = body.replace(/^(\s*)(?:loose[-_])?set[-_]variable\s*=\s*/i, '$1');
      return header === undefined ? undefined : `${header}\n${body}\n`;
    }
  }
  return undefined;
}

async function fixedText(testCase: RuleCase): Promise<string | undefined> {
  const result = await runCase(testCase);
  return result.fixes[0]?.after;
}

describe('MySQL rules against mariadbd 10.11', () => {
  it('quote what mariadbd says about each line they report', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('rules-wording', async (dir) => {
      const checks: Promise<void>[] = [];
      let index = 0;
      for (const rule of MY_RULES) {
        for (const testCase of mariadbCases(rule, 'bad')) {
          const result = await runCase(testCase);
          for (const diagnostic of result.diagnostics.filter((d) => d.ruleId === rule.meta.id)) {
            const wording = quotedWording(diagnostic);
            const alone = isolate(diagnostic);
            if (wording.length === 0 || alone === undefined) continue;
            const file = writeOptionFile(dir, `line-${index++}.cnf`, alone, diagnostic.file.encoding);
            checks.push(
              mariadbd(tool, file).then((run) => {
                for (const text of wording) {
                  assert.ok(
                    run.stderr.includes(text),
                    `${rule.meta.id} ${testCase.name}: mariadbd does not say "${text}" for\n${alone}\nit says:\n${run.stderr}`,
                  );
                }
              }),
            );
          }
        }
      }
      assert.ok(checks.length >= 30, `${checks.length} quoted messages checked`);
      await Promise.all(checks);
    });
  });

  it('fix what they fix: the fixed file gives mariadbd nothing to complain about that the rule reported', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('rules-fixed', async (dir) => {
      const checks: Promise<void>[] = [];
      let index = 0;
      for (const rule of MY_RULES) {
        for (const testCase of mariadbCases(rule, 'bad')) {
          const result = await runCase(testCase);
          const fix = result.fixes[0];
          if (fix === undefined) continue;
          const fixed = fix.after;
          const fixedDiagnostics = result.diagnostics.filter((d) => d.ruleId === rule.meta.id && d.fix !== undefined);
          const wording = fixedDiagnostics.flatMap(quotedWording);
          const file = writeOptionFile(dir, `fixed-${index++}.cnf`, fixed, fix.file.encoding);
          const unfixedErrors = result.diagnostics.some((d) => d.ruleId === rule.meta.id && d.fix === undefined && d.severity === 'error');
          checks.push(
            mariadbd(tool, file).then((run) => {
              for (const text of wording)
                assert.ok(!run.stderr.includes(text), `${rule.meta.id} ${testCase.name}: after the fix mariadbd still says "${text}"`);
              if (!unfixedErrors) {
                assert.equal(run.status, 0, `${rule.meta.id} ${testCase.name}: the fixed file is accepted\n${fixed}\n${run.stderr}`);
                assert.doesNotMatch(run.stderr, /\[ERROR\]/, `${rule.meta.id} ${testCase.name}: no error for the fixed file`);
              }
            }),
          );
        }
      }
      assert.ok(checks.length >= 20, `${checks.length} fixed files checked`);
      await Promise.all(checks);
    });
  });

  it('find an error in every fixture mariadbd refuses: a file with no error finding starts', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('rules-clean', async (dir) => {
      const everything = selectRules(builtinRules, 'all', new Map());
      const checks: Promise<void>[] = [];
      let index = 0;
      for (const rule of MY_RULES) {
        for (const testCase of [...mariadbCases(rule, 'good'), ...mariadbCases(rule, 'bad')]) {
          const result = await lint({
            paths: testCase.paths,
            cwd: testCase.cwd,
            targets: parseTargetSpec(''),
            host: {},
            rules: everything,
            fixType: 'all',
          });
          const texts: { readonly text: string; readonly encoding: TextEncoding }[] = [
            { text: fs.readFileSync(path.join(testCase.cwd, testCase.paths[0] as string), 'latin1'), encoding: 'latin1' },
            ...result.fixes.map((fix) => ({ text: fix.after, encoding: fix.file.encoding })),
          ];
          for (const [version, { text, encoding }] of texts.entries()) {
            const scratch = writeOptionFile(dir, `clean-${index++}.cnf`, text, encoding);
            const findings =
              version === 0
                ? result.diagnostics
                : (await lint({ paths: [scratch], cwd: dir, targets: parseTargetSpec(''), host: {}, rules: everything, fixType: 'none' }))
                    .diagnostics;
            if (findings.some((diagnostic) => diagnostic.severity === 'error')) continue;
            // A plugin's option is a warning: INSTALL PLUGIN (the mysql.plugin table, which --help does not read) may load it.
            const pluginRefusals = findings.filter((diagnostic) => diagnostic.ruleId === 'MY1006').flatMap(quotedWording);
            checks.push(
              mariadbd(tool, scratch).then((run) => {
                const label = `${rule.meta.id} ${testCase.name}${version === 0 ? '' : ' (fixed)'}`;
                if (pluginRefusals.length > 0) {
                  assert.ok(
                    pluginRefusals.some((wording) =>
                      run.stderr.split('\n').some((line) => line.includes('[ERROR]') && line.endsWith(`mariadbd: ${wording}`)),
                    ),
                    `${label}: without the plugin mariadbd refuses as the warning says\n${run.stderr}`,
                  );
                  return;
                }
                assert.doesNotMatch(
                  run.stderr,
                  /\[ERROR\]/,
                  `${label}: tune-lint finds no error, so mariadbd must take it\n${text}\n${run.stderr}`,
                );
                assert.equal(run.status, 0, label);
              }),
            );
          }
        }
      }
      assert.ok(checks.length >= 60, `${checks.length} files without an error finding checked`);
      await Promise.all(checks);
    });
  });
});

describe('MySQL rules on the installed /etc/mysql tree', () => {
  it('find an error exactly when mariadbd refuses the tree (the plugin packages add their own files)', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    if (!fs.existsSync('/etc/mysql/my.cnf')) {
      assert.notEqual(process.env.CI, 'true', 'CI installs mariadb-server, which ships /etc/mysql/my.cnf');
      t.skip('/etc/mysql/my.cnf is not installed');
      return;
    }
    const result = await lint({
      paths: ['/etc/mysql/my.cnf'],
      cwd: '/',
      targets: parseTargetSpec(''),
      host: {},
      rules: selectRules(builtinRules, 'all', new Map()),
      fixType: 'none',
    });
    const errors = result.diagnostics.filter((diagnostic) => diagnostic.severity === 'error' && diagnostic.ruleId.startsWith('MY'));
    const run = await mariadbd(tool, '/etc/mysql/my.cnf');
    const refused = run.status !== 0 || run.stderr.includes('[ERROR]');
    const files = fs.readdirSync('/etc/mysql/mariadb.conf.d').join(' ');
    t.diagnostic(`/etc/mysql/mariadb.conf.d: ${files}`);
    assert.equal(
      errors.length > 0,
      refused,
      `tune-lint: ${errors.map((diagnostic) => `${diagnostic.ruleId} ${diagnostic.message}`).join('; ') || 'no error'}\nmariadbd: ${run.stderr}`,
    );
  });
});

describe('MySQL rules: what the server reads, checked value by value', () => {
  const caseOf = (id: string, name: string): RuleCase => {
    const rule = MY_RULES.find((candidate) => candidate.meta.id === id) as Rule;
    return ruleCases(rule).find((testCase) => testCase.name === name) as RuleCase;
  };
  const run = async (tool: string, dir: string, name: string, text: string): Promise<ServerRun> =>
    mariadbd(tool, writeOptionFile(dir, name, text));

  it('MY1002: the server reads nothing under [ mysqld ], and everything once fixed', async (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    await inTemporaryDirectory('my1002', async (dir) => {
      const testCase = caseOf('MY1002', 'bad-spaces.cnf');
      const original = fs.readFileSync(path.join(testCase.cwd, 'bad-spaces.cnf'), 'latin1');
      const before = printDefaults(tool, writeOptionFile(dir, 'before.cnf', original), ['--mysqld'], dir);
      assert.equal(before.stdout, '');
      const after = printDefaults(tool, writeOptionFile(dir, 'after.cnf', (await fixedText(testCase)) as string), ['--mysqld'], dir);
      assert.equal(after.stdout, '--max_connections=100\n--innodb_buffer_pool_size=256M\n');
    });
  });

  it('MY1001: a reader error in the main file stops the reader, in an included file only that file', async (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    await inTemporaryDirectory('my1001', async (dir) => {
      for (const name of ['bad-option-before-group', 'bad-unclosed-group', 'bad-include-without-path', 'bad-bom-crlf']) {
        const text = fs.readFileSync(path.join(caseOf('MY1001', name).cwd, 'my.cnf'), 'latin1');
        const result = printDefaults(tool, writeOptionFile(dir, `${name}.cnf`, text), ['--mysqld'], dir);
        assert.equal(result.status, 2, `${name}: ${result.stderr}`);
      }
      const included = caseOf('MY1001', 'bad-in-included-file').cwd;
      writeOptionFile(dir, 'extra.cnf', fs.readFileSync(path.join(included, 'extra.cnf'), 'latin1'));
      const main = writeOptionFile(
        dir,
        'main.cnf',
        fs.readFileSync(path.join(included, 'my.cnf'), 'latin1').replace('!include /extra.cnf', `!include ${dir}/extra.cnf`),
      );
      const result = printDefaults(tool, main, ['--mysqld'], dir);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, '--max_connections=100\n--port=3306\n', 'the rest of extra.cnf is not read');
      assert.match(result.stderr, /Found option without preceding group/);
    });
  });

  it('MY1003, MY1004: a comment after a suffix letter and a second letter are ignored; 1e3 is an exabyte; the fixes keep or give the value meant', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('sizes', async (dir) => {
      const accidental = await run(
        tool,
        dir,
        'a.cnf',
        '[mysqld]\nkey_buffer_size = 64M ; index cache\nmax_heap_table_size = 512MB\ninnodb_log_file_size = 1e3\n',
      );
      assert.equal(accidental.status, 0, accidental.stderr);
      assert.equal(accidental.values.get('key_buffer_size'), String(64 * 2 ** 20));
      assert.equal(accidental.values.get('max_heap_table_size'), String(512 * 2 ** 20));
      assert.equal(accidental.values.get('innodb_log_file_size'), (2n ** 60n).toString());
      const decimal = caseOf('MY1004', 'bad-decimal.cnf');
      // 1.3M has no exact integer form and no fix; mariadbd would stop at it before printing the values.
      const fixed = await run(tool, dir, 'fixed.cnf', ((await fixedText(decimal)) as string).replace('sort_buffer_size = 1.3M\n', ''));
      assert.equal(fixed.values.get('innodb_buffer_pool_size'), String(1.5 * 2 ** 30));
      assert.equal(fixed.values.get('key_buffer_size'), String(512 * 1024));
      const hex = await run(tool, dir, 'hex.cnf', (await fixedText(caseOf('MY1004', 'bad-space-hex-crlf.cnf'))) as string);
      assert.equal(hex.values.get('max_allowed_packet'), String(16 * 2 ** 20));
      assert.equal(hex.values.get('tmp_table_size'), String(16 * 2 ** 20));
    });
  });

  it('MY1005: an invalid boolean is ignored or set OFF as the finding says; the fix sets what was meant', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('booleans', async (dir) => {
      const testCase = caseOf('MY1005', 'bad-yes-no.cnf');
      const original = await run(tool, dir, 'original.cnf', fs.readFileSync(path.join(testCase.cwd, 'bad-yes-no.cnf'), 'latin1'));
      assert.equal(original.values.get('innodb_file_per_table'), 'TRUE', 'ignored: the default stays');
      assert.equal(original.values.get('skip_name_resolve'), 'FALSE', 'enabled is set OFF');
      assert.equal(original.values.get('general_log'), 'FALSE');
      const fixed = await run(tool, dir, 'fixed.cnf', (await fixedText(testCase)) as string);
      assert.equal(fixed.values.get('skip_name_resolve'), 'TRUE');
      assert.equal(fixed.values.get('innodb_file_per_table'), 'TRUE');
      assert.doesNotMatch(fixed.stderr, /value '(?:yes|no|Enabled)'/, 'only slow_query_log = 2, which has no fix, is left');
    });
  });

  it('MY1007: the clients refuse a server option in [client]', async (t) => {
    const tool = requireTool(t, 'mariadb');
    if (tool === undefined) return;
    await inTemporaryDirectory('my1007', async (dir) => {
      const testCase = caseOf('MY1007', 'bad-server-in-client.cnf');
      const file = writeOptionFile(dir, 'client.cnf', fs.readFileSync(path.join(testCase.cwd, 'bad-server-in-client.cnf'), 'latin1'));
      // --help processes the option files and exits without connecting anywhere.
      const result = spawnSync(tool, [`--defaults-file=${file}`, '--help'], { encoding: 'utf8' });
      assert.match(result.stderr, /mariadb: unknown variable 'innodb_buffer_pool_size=1G'/);
      const good = caseOf('MY1007', 'good-groups.cnf');
      const goodFile = writeOptionFile(dir, 'good.cnf', fs.readFileSync(path.join(good.cwd, 'good-groups.cnf'), 'latin1'));
      const clean = spawnSync(tool, [`--defaults-file=${goodFile}`, '--help'], { encoding: 'utf8' });
      assert.doesNotMatch(clean.stderr, /^(?!Warning:).*unknown (?:variable|option)/m, 'only the loose- option is skipped, with a warning');
    });
  });

  it('MY1008: dot-files and copies ending in .cnf are read from an !includedir; a relative include follows the working directory', async (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    await inTemporaryDirectory('my1008', async (dir) => {
      const confd = path.join(dir, 'conf.d');
      fs.mkdirSync(confd);
      const source = path.join(caseOf('MY1008', 'bad-hidden-and-backup').cwd, 'etc', 'mysql', 'conf.d');
      for (const name of fs.readdirSync(source)) writeOptionFile(confd, name, fs.readFileSync(path.join(source, name), 'latin1'));
      writeOptionFile(confd, '50-server.cnf.bak', '[mysqld]\nmax_connections = 999\n');
      const main = writeOptionFile(dir, 'my.cnf', `[mysqld]\n!includedir ${confd}\n`);
      const result = printDefaults(tool, main, ['--mysqld'], dir);
      assert.equal(
        result.stdout,
        '--max_connections=20\n--max_connections=100\n--max_connections=500\n--key_buffer_size=8M\n',
        'sorted by name, .bak skipped',
      );
      const relative = caseOf('MY1008', 'bad-relative').cwd;
      const elsewhere = path.join(dir, 'elsewhere');
      fs.mkdirSync(elsewhere);
      writeOptionFile(dir, 'extra.cnf', fs.readFileSync(path.join(relative, 'extra.cnf'), 'latin1'));
      const including = writeOptionFile(dir, 'including.cnf', fs.readFileSync(path.join(relative, 'my.cnf'), 'latin1'));
      assert.equal(printDefaults(tool, including, ['--mysqld'], dir).stdout, '--port=3306\n--max_connections=100\n');
      assert.equal(
        printDefaults(tool, including, ['--mysqld'], elsewhere).stdout,
        '--port=3306\n',
        'from another directory the include finds nothing',
      );
    });
  });

  it('MY2004, MY2005, MY2006, MY2007: clamp, query cache, tiny key cache and thread cache autosizing as the findings say', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('memory', async (dir) => {
      const clamped = await run(tool, dir, 'clamped.cnf', '[mysqld]\nmax_connections = 200000\n');
      assert.match(clamped.stderr, /option 'max_connections': unsigned value 200000 adjusted to 100000/);
      for (const name of ['bad-size-set.cnf', 'bad-type-off-size-set.cnf', 'bad-type-on-default-size.cnf', 'bad-large.cnf']) {
        const testCase = caseOf('MY2005', name);
        const before = await run(tool, dir, `qc-${name}`, fs.readFileSync(path.join(testCase.cwd, name), 'latin1'));
        assert.equal(before.values.get('query_cache_type'), 'ON', `${name}: the cache is on`);
        const after = await run(tool, dir, `qc-fixed-${name}`, (await fixedText(testCase)) as string);
        assert.equal(after.values.get('query_cache_size'), '0', `${name}: fixed`);
        assert.notEqual(after.values.get('query_cache_type'), 'ON', `${name}: no longer on`);
      }
      const tiny = await run(tool, dir, 'tiny.cnf', '[mysqld]\nkey_buffer_size = 1K\n');
      assert.equal(tiny.values.get('key_buffer_size'), '0');
      const threads = caseOf('MY2007', 'bad-zero.cnf');
      const fixedThreads = await run(tool, dir, 'threads.cnf', (await fixedText(threads)) as string);
      assert.equal(fixedThreads.values.get('thread_cache_size'), '100', 'autosized to max_connections, as the message says');
    });
  });

  it('MY4001, MY4003, MY4004, MY5001: the rewritten lines set what the old ones meant', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('rewrites', async (dir) => {
      const story = await run(tool, dir, 'story.cnf', (await fixedText(caseOf('MY4001', 'bad-story-lines.cnf'))) as string);
      assert.equal(story.status, 0, story.stderr);
      assert.equal(story.values.get('max_connections'), '15');
      assert.equal(story.values.get('max_user_connections'), '15');
      assert.equal(story.values.get('query_cache_limit'), String(16 * 2 ** 20));
      assert.equal(story.values.get('query_cache_size'), String(64 * 2 ** 20));
      const abbreviated = caseOf('MY4003', 'bad-mariadb-note.cnf');
      const original = await run(
        tool,
        dir,
        'abbreviated.cnf',
        fs.readFileSync(path.join(abbreviated.cwd, 'bad-mariadb-note.cnf'), 'latin1'),
      );
      const full = await run(tool, dir, 'full.cnf', (await fixedText(abbreviated)) as string);
      assert.match(original.stderr, /Using unique option prefix/);
      assert.doesNotMatch(full.stderr, /Using unique option prefix/);
      for (const key of ['key_buffer_size', 'myisam_recover_options', 'thread_cache_size', 'max_heap_table_size'])
        assert.equal(full.values.get(key), original.values.get(key), key);
      const redo = await run(tool, dir, 'redo.cnf', (await fixedText(caseOf('MY4004', 'bad-mariadb-capacity.cnf'))) as string);
      assert.equal(redo.values.get('innodb_log_file_size'), String(2 ** 30));
      const duplicates = caseOf('MY5001', 'bad-different.cnf');
      const winner = await run(tool, dir, 'dup.cnf', fs.readFileSync(path.join(duplicates.cwd, 'bad-different.cnf'), 'latin1'));
      assert.equal(winner.values.get('max_connections'), '200', 'the later line wins, as the finding says');
      const same = caseOf('MY5001', 'bad-same.cnf');
      const sameBefore = await run(tool, dir, 'same.cnf', fs.readFileSync(path.join(same.cwd, 'bad-same.cnf'), 'latin1'));
      const sameAfter = await run(tool, dir, 'same-fixed.cnf', (await fixedText(same)) as string);
      assert.deepEqual(sameAfter.values, sameBefore.values, 'removing a dead equal line changes nothing');
    });
  });
});

describe('the tables the MySQL rules rely on, against the binaries', () => {
  it('option types: every integer, decimal and boolean option is one in mariadbd 10.11', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    const help = spawnSync(tool, ['--no-defaults', '--help', '--verbose'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const numeric = new Set(
      [...help.stdout.matchAll(/^ {2}(?:-\S, )?--([a-z0-9-]+)(?:=#|\[=#\])/gm)].map((match) => (match[1] as string).replaceAll('-', '_')),
    );
    const bare = new Set(
      [...help.stdout.matchAll(/^ {2}(?:-\S, )?--([a-z0-9-]+)(?: |$)/gm)].map((match) => (match[1] as string).replaceAll('-', '_')),
    );
    for (const name of [...OPTION_TYPE_LISTS.integer, ...OPTION_TYPE_LISTS.decimal])
      assert.ok(numeric.has(name), `${name} is listed as --${name}=#`);
    for (const name of [...OPTION_TYPE_LISTS.booleanIgnored, ...OPTION_TYPE_LISTS.booleanSetOff])
      assert.ok(bare.has(name), `${name} is listed bare`);
    await inTemporaryDirectory('types', async (dir) => {
      const lines = (names: readonly string[], value: string): string =>
        `[mysqld]\n${names.map((name) => `${name}=${value}`).join('\n')}\n`;
      const [ignored, off, decimal] = await Promise.all([
        mariadbd(tool, writeOptionFile(dir, 'ignored.cnf', lines(OPTION_TYPE_LISTS.booleanIgnored, 'yes'))),
        mariadbd(tool, writeOptionFile(dir, 'off.cnf', lines(OPTION_TYPE_LISTS.booleanSetOff, 'yes'))),
        mariadbd(tool, writeOptionFile(dir, 'decimal.cnf', lines(OPTION_TYPE_LISTS.decimal, '1.5'))),
      ]);
      assert.equal(
        (ignored.stderr.match(/due to invalid value 'yes'/g) ?? []).length,
        OPTION_TYPE_LISTS.booleanIgnored.length,
        ignored.stderr,
      );
      assert.doesNotMatch(ignored.stderr, /Set to OFF/);
      assert.equal(
        (off.stderr.match(/boolean value 'yes' wasn't recognized\. Set to OFF\./g) ?? []).length,
        OPTION_TYPE_LISTS.booleanSetOff.length,
        off.stderr,
      );
      assert.doesNotMatch(decimal.stderr, /ERROR/, decimal.stderr);
      // mariadbd stops at the first value it refuses, so integers are offered one at a time; a spread sample keeps the run short.
      const sample = OPTION_TYPE_LISTS.integer.filter((_, index) => index % 25 === 0);
      const runs = await Promise.all(sample.map((name) => mariadbd(tool, writeOptionFile(dir, `int-${name}.cnf`, lines([name], '1.5')))));
      runs.forEach((result, index) => assert.match(result.stderr, /Unknown suffix '\.'/, `${sample[index] as string} refuses 1.5`));
      const signed = new Set(OPTION_TYPE_LISTS.signedInteger);
      const unsigned = OPTION_TYPE_LISTS.integer.filter((name, index) => !signed.has(name) && index % 25 === 1);
      const negatives = await Promise.all(
        unsigned.map((name) => mariadbd(tool, writeOptionFile(dir, `neg-${name}.cnf`, lines([name], '-1')))),
      );
      negatives.forEach((result, index) =>
        assert.match(result.stderr, /Incorrect unsigned value: '-1'/, `${unsigned[index] as string} refuses -1`),
      );
      const allSigned = await mariadbd(tool, writeOptionFile(dir, 'signed.cnf', lines(OPTION_TYPE_LISTS.signedInteger, '-1')));
      assert.doesNotMatch(allSigned.stderr, /ERROR/, 'the signed options take -1');
    });
  });

  it('MariaDB no-ops: each option of the lists gets its "does nothing" warning', async (t) => {
    const tool = installedMariadbd(t);
    if (tool === undefined) return;
    await inTemporaryDirectory('noops', async (dir) => {
      const names = [...MARIADB_NOOP_LISTS.removed, ...MARIADB_NOOP_LISTS.mysql];
      const result = await mariadbd(tool, writeOptionFile(dir, 'noops.cnf', `[mysqld]\n${names.map((name) => `${name}=1`).join('\n')}\n`));
      assert.equal(result.status, 0, result.stderr);
      for (const name of MARIADB_NOOP_LISTS.removed) {
        assert.ok(
          result.stderr.includes(`'${name.replaceAll('_', '-')}' was removed. It does nothing now`),
          `${name}: "was removed" warning`,
        );
      }
      for (const name of MARIADB_NOOP_LISTS.mysql) {
        const written =
          result.stderr.includes(`'${name}' is MySQL 5.6 / 5.7 compatible option`) ||
          result.stderr.includes(`'${name.replaceAll('_', '-')}' is MySQL 5.6 / 5.7 compatible option`);
        assert.ok(written, `${name}: MySQL-compatibility warning`);
      }
    });
  });

  it('MY1009: the programs a finding names stop as it quotes; good fixtures and fixed files stop none', async (t) => {
    const rule = MY_RULES.find((candidate) => candidate.meta.id === 'MY1009') as Rule;
    const programs = clientPrograms();
    for (const { program } of programs) if (requireTool(t, program) === undefined) return;
    await inTemporaryDirectory('my1009', async (dir) => {
      const stops = (file: string): string[] =>
        programs.flatMap(({ program }) => {
          const run = spawnSync(program, [`--defaults-file=${file}`, '--version'], { encoding: 'utf8' });
          return run.stderr.split('\n').filter((line) => /^\S+: (?:unknown|ambiguous) (?:variable|option)/.test(line));
        });
      let checked = 0;
      for (const testCase of mariadbCases(rule, 'bad')) {
        const result = await runCase(testCase);
        const text = fs.readFileSync(path.join(testCase.cwd, testCase.paths[0] as string), 'latin1');
        const refusals = stops(writeOptionFile(dir, `bad-${checked}.cnf`, text));
        for (const diagnostic of result.diagnostics.filter((finding) => finding.ruleId === 'MY1009')) {
          const quoted = /"(\S+: [^"]+)"/.exec(said(diagnostic))?.[1];
          assert.ok(
            quoted !== undefined && refusals.includes(quoted),
            `${testCase.name}: ${quoted ?? said(diagnostic)} among ${refusals.join(' | ')}`,
          );
          checked++;
        }
        const fixed = result.fixes[0]?.after;
        if (fixed !== undefined) {
          const remaining = (
            await lint({
              paths: [writeOptionFile(dir, `fixed-${checked}.cnf`, fixed)],
              cwd: dir,
              targets: parseTargetSpec(''),
              host: {},
              rules: selectRules([rule], 'all', new Map()),
              fixType: 'none',
            })
          ).diagnostics;
          const argumentOf = (line: string): string => /'(?:--)?([^']*)'/.exec(line)?.[1] ?? line;
          const stillStopping = new Set(stops(path.join(dir, `fixed-${checked}.cnf`)).map(argumentOf));
          const stillReported = new Set(remaining.map((diagnostic) => argumentOf(/"\S+: ([^"]+)"/.exec(said(diagnostic))?.[1] ?? '')));
          assert.deepEqual(stillStopping, stillReported, `${testCase.name} fixed: what still stops a program is what is still reported`);
        }
      }
      for (const testCase of mariadbCases(rule, 'good')) {
        const text = fs.readFileSync(path.join(testCase.cwd, testCase.paths[0] as string), 'latin1');
        assert.deepEqual(stops(writeOptionFile(dir, `good-${checked++}.cnf`, text)), [], testCase.name);
      }
      assert.ok(checked >= 4, `${checked} findings and files checked`);
    });
  });

  it('client options: each program reads the groups and takes the options the table says', (t) => {
    for (const { program, groups, options } of clientPrograms()) {
      const tool = requireTool(t, program);
      if (tool === undefined) return;
      const help = spawnSync(tool, ['--no-defaults', '--help'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).stdout;
      const listed = [...help.matchAll(/^ {2}(?:-\S, )?--([a-z0-9_-]+)/gm)].map((match) => (match[1] as string).replaceAll('-', '_'));
      assert.deepEqual([...new Set(listed)].sort(), options.all(), program);
      const read = /^The following groups are read: (.*)$/m.exec(help)?.[1]?.trim().split(/\s+/) ?? [];
      assert.deepEqual(new Set(read), groups, `${program} reads these groups`);
    }
  });
});
