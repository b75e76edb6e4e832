import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { SourceFile } from '../../src/core/source-file.js';
import type { Rule } from '../../src/engine/types.js';
import { printable } from '../../src/util/printable.js';
import { removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';

/*
 * The smaller edges an attacker's repository and a careless command line
 * found: each ended in a wrong answer, a silent default, raw
 * terminal control or an internal error, and now ends in the right answer or
 * one line naming what is wrong, exit code 2.
 */

const dir = scratchDir('edges');
after(() => removeScratch(dir));
const PREFORK =
  'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\n<IfModule mpm_prefork_module>\n    MaxClients 150\n</IfModule>\n';
const HOST = ['--no-probe', '--host-ram', '500M', '--per-child', '20M'];

describe('command-line values', () => {
  it('a RAM size no host has, a CPU count no kernel has, an empty --target: one line, exit 2', () => {
    writeFiles(dir, { 'flags.conf': PREFORK });
    for (const [args, message] of [
      [
        ['--host-ram', '99999999999999999999T'],
        'tune-lint: --host-ram: "99999999999999999999T" is more RAM than any host has (at most 1024 TiB)\n',
      ],
      [['--host-cpus', '1e6'], 'tune-lint: --host-cpus: expected a number of CPUs written as digits, such as 2 or 1.5, got "1e6"\n'],
      [['--host-cpus', '100000'], 'tune-lint: --host-cpus: "100000" is more CPUs than Linux supports (at most 8192)\n'],
      [['--target', ''], 'tune-lint: --target: invalid target "": expected httpd=2.4, mysql=8.0 or mariadb=10.11\n'],
    ] as const) {
      const run = runCli(['--no-probe', ...args, 'flags.conf'], { cwd: dir });
      assert.equal(run.stderr, message, args.join(' '));
      assert.equal(run.status, 2);
    }
  });

  it('--print-config with --fix or --verify says they would do nothing, instead of ignoring them', () => {
    writeFiles(dir, { 'print.conf': PREFORK });
    const run = runCli(['--print-config', 'print.conf', '--fix', 'print.conf'], { cwd: dir });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'tune-lint: --print-config prints the configuration for a path and lints nothing, so --fix would do nothing; run them without it\n',
    );
    assert.equal(fs.readFileSync(path.join(dir, 'print.conf'), 'utf8'), PREFORK);
  });

  it('a facts file that starts with a byte order mark is read as JSON, as editors save it', () => {
    writeFiles(dir, {
      'bom.conf': PREFORK,
      'facts.json': '\uFEFF{"ansible_facts": {"ansible_memtotal_mb": 512, "ansible_processor_vcpus": 1}}',
    });
    const run = runCli(['--facts', 'facts.json', '--per-child', '20M', 'bom.conf'], { cwd: dir });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /RAM 512 MiB \(from ansible facts facts\.json\)/);
  });
});

describe('files', () => {
  it('--fix on a file whose name is 250 bytes long: its temporary name is cut to fit, and the file is written', () => {
    const name = `${'a'.repeat(245)}.conf`;
    writeFiles(dir, { [name]: PREFORK });
    const run = runCli([...HOST, '--fix', name], { cwd: dir });
    assert.equal(run.status, 0, run.stderr);
    assert.match(fs.readFileSync(path.join(dir, name), 'utf8'), /MaxRequestWorkers 21/);
    assert.deepEqual(
      fs.readdirSync(dir).filter((entry) => entry.includes('tune-lint-')),
      [],
    );
  });

  it('a file whose name is not UTF-8 (caf\\351.conf) is read as httpd reads it, and --fix writes it whole', () => {
    const tree = path.join(dir, 'latin1-names');
    fs.mkdirSync(path.join(tree, 'conf.d'), { recursive: true });
    fs.writeFileSync(
      path.join(tree, 'main.conf'),
      'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nIncludeOptional conf.d/*.conf\n',
    );
    const name = Buffer.concat([Buffer.from(path.join(tree, 'conf.d/caf')), Buffer.from([0xe9]), Buffer.from('.conf')]);
    fs.writeFileSync(name, 'MaxClients 150\n');
    const run = runCli(['--no-probe', '--format', 'json', 'main.conf'], { cwd: tree });
    const results = JSON.parse(run.stdout) as { results: { file: string; diagnostics: { ruleId: string }[] }[] };
    assert.deepEqual(
      results.results.map((result) => [
        result.file,
        result.diagnostics.map((diagnostic) => diagnostic.ruleId).filter((id) => id === 'AP4001' || id === 'TL0002'),
      ]),
      [
        ['main.conf', []],
        ['conf.d/caf\u00e9.conf', ['AP4001']],
      ],
    );
    const fixed = runCli(['--no-probe', '--fix', 'main.conf'], { cwd: tree });
    assert.equal(fixed.status, 0, fixed.stderr);
    assert.equal(fs.readFileSync(name, 'utf8'), 'MaxRequestWorkers 150\n');
    assert.deepEqual(
      fs.readdirSync(path.join(tree, 'conf.d'), { encoding: 'buffer' }),
      [name.subarray(name.lastIndexOf(0x2f) + 1)],
      'no temporary file left',
    );
  });

  it('an Include of a /proc file reads what it holds, as httpd does, though its size says 0', () => {
    writeFiles(dir, { 'proc.conf': `${PREFORK}Include /proc/self/status\n` });
    const run = runCli(['--no-probe', '--format', 'json', 'proc.conf'], { cwd: dir });
    const results = JSON.parse(run.stdout) as { results: { file: string; diagnostics: { ruleId: string; message: string }[] }[] };
    const status = results.results.find((result) => result.file === '/proc/self/status');
    assert.ok(
      status?.diagnostics.some((diagnostic) => diagnostic.ruleId === 'AP1015' && diagnostic.message.startsWith('Name: is no directive')),
    );
  });
});

describe('the terminal', () => {
  it('bidi controls, zero-width characters and U+2028 from a config are shown as escapes, never sent raw', () => {
    assert.equal(printable('Listen 80\u202e#\u2066x\u2069\u2028y\u200bz\uFEFF'), 'Listen 80\\u202e#\\u2066x\\u2069\\u2028y\\u200bz\\ufeff');
    writeFiles(dir, { 'bidi.conf': PREFORK.replace('MaxClients 150', 'MaxClients 150 \u202e1 ') });
    const run = runCli([...HOST, 'bidi.conf'], { cwd: dir });
    assert.doesNotMatch(run.stdout, /[\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    assert.match(run.stdout, /\\u202e/);
  });
});

describe("a repository's .tune-lint.yaml", () => {
  it('the overrides that apply to a file are worked out once per file, not once per rule (200,000 overrides took 76 s)', () => {
    const asked: string[] = [];
    const selection = selectRules(builtinRules, 'recommended', new Map(), (file) => {
      asked.push(file.path);
      return new Map([['AP2001', { severity: 'off' as const }]]);
    });
    const files = ['a.conf', 'b.conf'].map((name) => new SourceFile(`/repo/${name}`, name, ''));
    for (const file of files) for (const rule of builtinRules) selection.setting(rule, file);
    assert.deepEqual(asked, ['/repo/a.conf', '/repo/b.conf']);
    assert.equal(selection.setting(builtinRules.find((rule) => rule.meta.id === 'AP2001') as Rule, files[0] as SourceFile).severity, 'off');
  });
});
