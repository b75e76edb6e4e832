import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { jsonDiagnostics, jsonFiles, openScratch, runTuneLint, writeTree, type ChildRun } from '../fuzz/child.js';

/*
 * Inputs built to hurt, through the command line, each with the outcome it
 * must have: a size limit, a nesting limit or a file-count limit reported as
 * a diagnostic (or one line and exit 2 for a main file), never a crash or a
 * hang; and peak memory bounded against the input. Big inputs are generated
 * here, in a temp directory (tmpfs when there is one, for the 50,000 files).
 * No assertion is on time: the test timeouts catch a hang.
 */

const MIB = 1024;
const MPM = 'LoadModule mpm_event_module modules/mod_mpm_event.so\n';
const LIMIT_BYTES = 64 * 1024 * 1024;

let scratch: string;
let baselineKiB: number;
before(async () => {
  scratch = openScratch('hostile-inputs');
  writeTree(scratch, { 'tiny.conf': MPM, 'tiny.cnf': '[mysqld]\nmax_connections = 10\n' });
  const runs = [
    await runTuneLint(['--format', 'json', 'tiny.conf'], { cwd: scratch }),
    await runTuneLint(['--format', 'json', 'tiny.cnf'], { cwd: scratch }),
  ];
  baselineKiB = Math.max(...runs.map((run) => run.peakRssKiB ?? 0));
  assert.ok(baselineKiB > 0, 'the child reports its peak RSS');
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/**
 * Peak RSS of the run is at most the baseline of a tiny config, plus
 * `perUnitKiB` per unit of input (bytes or files, named by `unit`), plus
 * `slackMiB`: generous, but linear in the input.
 */
function assertMemory(t: TestContext, run: ChildRun, units: number, perUnitKiB: number, unit = 'bytes', slackMiB = 64): void {
  const peak = run.peakRssKiB;
  assert.ok(peak !== undefined, 'the child reports its peak RSS');
  const bound = baselineKiB + Math.ceil(units * perUnitKiB) + slackMiB * MIB;
  t.diagnostic(
    `peak RSS ${(peak / MIB).toFixed(0)} MiB for ${units} ${unit} of input (baseline ${(baselineKiB / MIB).toFixed(0)} MiB, bound ${(bound / MIB).toFixed(0)} MiB)`,
  );
  assert.ok(peak <= bound, `peak RSS ${peak} KiB is over ${bound} KiB`);
}

function messages(run: ChildRun, ruleId: string): string[] {
  return jsonDiagnostics(run.stdout)
    .filter((d) => d.ruleId === ruleId)
    .map((d) => `${d.file}:${d.line} ${d.message}`);
}

/** A file of `bytes` bytes that takes no time to write: sparse, zeros (never read, the size check comes first). */
function sparseFile(name: string, bytes: number): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, '');
  fs.truncateSync(file, bytes);
  return file;
}

describe('hostile inputs: size', () => {
  it('a 100 MB main file is refused before a byte is read: one line, exit 2, for both readers', async (t) => {
    sparseFile('huge.conf', 100 * 1024 * 1024);
    sparseFile('huge.cnf', 100 * 1024 * 1024);
    for (const name of ['huge.conf', 'huge.cnf']) {
      const run = await runTuneLint([name], { cwd: scratch });
      assert.equal(run.status, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `tune-lint: ${name} is 104857600 bytes, over the limit of ${LIMIT_BYTES} bytes (--max-file-size)\n`);
      assertMemory(t, run, 0, 0);
    }
  });

  it('a 100 MB included file is a diagnostic at the line that includes it, and the rest is linted', async () => {
    writeTree(scratch, {
      'includes-huge.conf': `${MPM}Include ${path.join(scratch, 'huge.conf')}\nKeepAlive On\n`,
      'includes-huge.cnf': `[mysqld]\n!include ${path.join(scratch, 'huge.cnf')}\nmax_connections = 10\n`,
    });
    const apache = await runTuneLint(['--format', 'json', 'includes-huge.conf'], { cwd: scratch });
    assert.equal(apache.status, 1, apache.stderr);
    assert.deepEqual(messages(apache, 'TL0002'), [
      `includes-huge.conf:2 Include ${path.join(scratch, 'huge.conf')}: huge.conf is 104857600 bytes, over the limit of ${LIMIT_BYTES} bytes (--max-file-size)`,
    ]);
    const mycnf = await runTuneLint(['--format', 'json', 'includes-huge.cnf'], { cwd: scratch });
    assert.equal(mycnf.status, 1, mycnf.stderr);
    assert.deepEqual(messages(mycnf, 'TL0002'), [
      `includes-huge.cnf:2 !include ${path.join(scratch, 'huge.cnf')}: huge.cnf is 104857600 bytes, over the limit of ${LIMIT_BYTES} bytes (--max-file-size); tune-lint does not read it`,
    ]);
  });

  it('--max-file-size moves the limit, for included files too', async () => {
    const run = await runTuneLint(['--format', 'json', '--max-file-size', '200M', 'includes-huge.conf'], { cwd: scratch });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(messages(run, 'TL0002'), []);
    assert.deepEqual(jsonFiles(run.stdout), ['includes-huge.conf', 'huge.conf']);
  });

  it('a single 10 MB line is read (Apache) or cut where the server cuts it (my.cnf), in bounded memory', async (t) => {
    const value = 'a'.repeat(10 * 1024 * 1024);
    writeTree(scratch, { 'long-line.conf': `${MPM}ServerName ${value}\n`, 'long-line.cnf': `[mysqld]\nkey_buffer_size = ${value}\n` });
    const apache = await runTuneLint(['--format', 'json', 'long-line.conf'], { cwd: scratch });
    assert.equal(apache.status, 0, apache.stderr);
    assertMemory(t, apache, value.length, 8 / 1024);
    const mycnf = await runTuneLint(['--format', 'json', 'long-line.cnf'], { cwd: scratch });
    assert.equal(mycnf.status, 1, mycnf.stderr);
    const cut = messages(mycnf, 'TL0001');
    assert.equal(
      cut[0],
      'long-line.cnf:2 line is 10485779 bytes long; the server reads at most 4094 bytes at a time and takes the rest as a separate line; expected at most 4094 bytes',
    );
    assertMemory(t, mycnf, value.length, 16 / 1024);
  });

  it('a 9 MB logical line of three million backslash continuations is read in bounded memory', async (t) => {
    const text = `${MPM}ServerName a${'b\\\n'.repeat(3 * 1024 * 1024)}\n`;
    writeTree(scratch, { 'continued.conf': text });
    // Three million physical lines: over the line budget, which this case is not about.
    const run = await runTuneLint(['--format', 'json', '--max-lines', '5000000', 'continued.conf'], { cwd: scratch });
    assert.equal(run.status, 0, run.stderr);
    assertMemory(t, run, text.length, 24 / 1024);
  });
});

describe('hostile inputs: nesting', () => {
  it('100,000 nested sections stop at the nesting limit with a TL0001 at the line, in bounded memory', async (t) => {
    const text = `${MPM}${'<Directory /srv>\n'.repeat(100_000)}${'</Directory>\n'.repeat(100_000)}`;
    writeTree(scratch, { 'nested.conf': text });
    const run = await runTuneLint(['--format', 'json', 'nested.conf'], { cwd: scratch });
    assert.equal(run.status, 1, run.stderr);
    const found = messages(run, 'TL0001');
    assert.ok(
      found.includes('nested.conf:1002 sections nested deeper than 1000 levels; the rest of the file is not parsed'),
      found.slice(-3).join('\n'),
    );
    assertMemory(t, run, text.length, 64 / 1024);
  });

  it('a chain of included files, each nested 990 deep, stops at the limit across files (TL0006), no stack overflow', async () => {
    const dir = path.join(scratch, 'deep-chain');
    const files: Record<string, string> = { 'main.conf': `${MPM}Include ${path.join(dir, 'f0.conf')}\n` };
    for (let index = 0; index < 20; index++) {
      files[`f${index}.conf`] =
        `${'<IfDefine !NEVER>\n'.repeat(990)}Include ${path.join(dir, `f${index + 1}.conf`)}\n${'</IfDefine>\n'.repeat(990)}`;
    }
    files['f20.conf'] = 'KeepAlive On\n';
    writeTree(dir, files);
    const run = await runTuneLint(['--format', 'json', 'deep-chain/main.conf'], { cwd: scratch });
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual(messages(run, 'TL0006'), [
      'deep-chain/f1.conf:11 sections nested deeper than 1000 levels counting the files included inside them; what is inside is not read',
    ]);
  });

  it('100,000 stray close tags under 999 open sections end (the parser and every rule are linear)', async (t) => {
    const text = `${MPM}${'<IfDefine !NEVER>\n'.repeat(999)}${'</Nope>\n'.repeat(100_000)}`;
    writeTree(scratch, { 'stray.conf': text });
    const run = await runTuneLint(['--format', 'json', 'stray.conf'], { cwd: scratch });
    assert.equal(run.status, 1, run.stderr);
    // A thousand are listed and the rest counted (TL0010; 100,000 strays and the 999 sections never closed),
    // so memory follows the lines, not the findings.
    assert.equal(messages(run, 'TL0001').filter((m) => m.endsWith('Expected </IfDefine> but saw </Nope>')).length, 1000);
    assert.deepEqual(messages(run, 'TL0010'), [
      'stray.conf:1 TL0001 parse-error found 99999 more problems in this file than the 1000 listed',
    ]);
    assertMemory(t, run, text.length, 64 / 1024);
  });
});

/** 50,000 small files, on tmpfs when there is one: the test is about the count, not the disk. */
function manyFiles(name: string, extension: string, content: (index: number) => string): string {
  const base = fs.existsSync('/dev/shm')
    ? fs.mkdtempSync('/dev/shm/tune-lint-many-')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-many-'));
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  for (let index = 0; index < 50_000; index++)
    fs.writeFileSync(path.join(dir, `f${String(index).padStart(5, '0')}${extension}`), content(index));
  return dir;
}

describe('hostile inputs: file count', { timeout: 600_000 }, () => {
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it('an Include glob matching 50,000 files reads them all in bounded memory, and --max-files cuts it with a TL0006', async (t) => {
    const dir = manyFiles('conf.d', '.conf', (index) => `# generated file ${index}\nServerAlias host${index}.example.org\n`);
    made.push(dir);
    writeTree(scratch, { 'glob.conf': `${MPM}Include ${dir}/*.conf\n` });
    const run = await runTuneLint(['--format', 'json', 'glob.conf'], { cwd: scratch });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(jsonFiles(run.stdout).length, 50_001);
    assertMemory(t, run, 50_000, 8, 'files');
    const limited = await runTuneLint(['--format', 'json', '--max-files', '1000', 'glob.conf'], { cwd: scratch });
    assert.equal(limited.status, 1, limited.stderr);
    assert.equal(jsonFiles(limited.stdout).length, 1001, 'the main file and the 1,000 files its includes may read');
    assert.deepEqual(messages(limited, 'TL0006'), [
      'glob.conf:2 more than 1000 files read through includes; the rest is not read (--max-files)',
    ]);
  });

  it('an !includedir of 50,000 .cnf files reads them all in bounded memory, and --max-files cuts it with a TL0006', async (t) => {
    const dir = manyFiles('conf.d', '.cnf', (index) => `# generated file ${index}\n[client]\n`);
    made.push(dir);
    writeTree(scratch, { 'includedir.cnf': `[mysqld]\nmax_connections = 10\n!includedir ${dir}\n` });
    const run = await runTuneLint(['--format', 'json', 'includedir.cnf'], { cwd: scratch });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(jsonFiles(run.stdout).length, 50_001);
    assertMemory(t, run, 50_000, 8, 'files');
    const limited = await runTuneLint(['--format', 'json', '--max-files', '1000', 'includedir.cnf'], { cwd: scratch });
    assert.equal(limited.status, 1, limited.stderr);
    assert.equal(jsonFiles(limited.stdout).length, 1001, 'the main file and the 1,000 files its includes may read');
    assert.deepEqual(messages(limited, 'TL0006'), [
      'includedir.cnf:3 more than 1000 files read through includes; the rest is not read (--max-files)',
    ]);
  });

  it('--max-files 1 reads one included file besides the main file', async () => {
    writeTree(scratch, { 'one.conf': `${MPM}Include one-a.conf\nInclude one-b.conf\n`, 'one-a.conf': '# a\n', 'one-b.conf': '# b\n' });
    const run = await runTuneLint(['--format', 'json', '--max-files', '1', 'one.conf'], { cwd: scratch });
    assert.deepEqual(jsonFiles(run.stdout).sort(), ['one-a.conf', 'one.conf']);
    assert.deepEqual(messages(run, 'TL0006'), ['one.conf:3 more than 1 files read through includes; the rest is not read (--max-files)']);
  });

  it('100 symlinks to one 5 MB file of comments: the input budget stops the reading with one TL0006, in bounded memory', async (t) => {
    const dir = path.join(scratch, 'links');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'big.txt'), '# a comment of the kind stock files are full of, repeated\n'.repeat(90_000));
    for (let index = 0; index < 100; index++) {
      for (const extension of ['.conf', '.cnf']) fs.symlinkSync('big.txt', path.join(dir, `${String(index).padStart(3, '0')}${extension}`));
    }
    for (const [main, text] of [
      ['links.conf', `${MPM}Include ${dir}/*.conf\n`],
      ['links.cnf', `[mysqld]\n!includedir ${dir}\n`],
    ] as const) {
      writeTree(scratch, { [main]: text });
      // Lines are counted too (90,000 a file): the byte budget is the one this case is about.
      const run = await runTuneLint(['--format', 'json', '--max-lines', '5000000', main], { cwd: scratch });
      assert.equal(run.status, 1, run.stderr);
      const stopped = messages(run, 'TL0006');
      assert.equal(stopped.length, 1, stopped.join('\n'));
      assert.match(
        stopped[0] as string,
        new RegExp(
          `^${main}:2 .*/012\\.c(onf|nf) would bring what this config reads, counting every inclusion, to \\d+ bytes, over the limit of 67108864 bytes \\(--max-input-size\\); it and the rest are not read$`,
        ),
      );
      assertMemory(t, run, 64 * MIB * MIB, 0.008);
    }
  });

  it('40,000 Includes of one file stop at the input budget; --max-input-size moves it', async (t) => {
    const line = 'ServerAlias www.example.org example.org static.example.org\n';
    writeTree(scratch, { 'twice.inc': line.repeat(30), 'many-includes.conf': `${MPM}${'Include twice.inc\n'.repeat(40_000)}` });
    const run = await runTuneLint(['--format', 'json', '--max-input-size', '16M', 'many-includes.conf'], { cwd: scratch });
    const stopped = messages(run, 'TL0006');
    assert.equal(stopped.length, 1);
    assert.match(
      stopped[0] as string,
      /^many-includes\.conf:\d+ twice\.inc would bring .* over the limit of 16777216 bytes \(--max-input-size\)/,
    );
    const line2 = Number(/^many-includes\.conf:(\d+)/.exec(stopped[0] as string)?.[1]);
    assert.ok(line2 > 8_000 && line2 < 10_000, `stopped at the include that reaches 16 MiB: line ${line2}`);
    assertMemory(t, run, 16 * MIB * MIB, 0.03);
  });

  it('lines are a budget too: a main file over --max-lines is one line and exit 2, an included file over it a TL0006', async () => {
    writeTree(scratch, { 'lines.cnf': `[mysqld]\n!include lines-inc.cnf\n`, 'lines-inc.cnf': `[mysqld]\n${'# c\n'.repeat(50)}` });
    const included = await runTuneLint(['--format', 'json', '--max-lines', '20', 'lines.cnf'], { cwd: scratch });
    assert.deepEqual(messages(included, 'TL0006'), [
      'lines.cnf:2 lines-inc.cnf would bring what this config reads, counting every inclusion, to 53 lines, over the limit of 20 lines (--max-lines); it and the rest are not read',
    ]);
    const main = await runTuneLint(['--max-lines', '20', 'lines-inc.cnf'], { cwd: scratch });
    assert.equal(main.status, 2);
    assert.equal(main.stderr, 'tune-lint: lines-inc.cnf has 51 lines, over the limit of 20 lines (--max-lines)\n');
  });

  it('at the default line limit, the worst lines found (a duplicate with a fix on each) lint under 1 GiB; a thousand findings are listed, the rest counted', async (t) => {
    const lines = 799_990;
    writeTree(scratch, { 'dups.cnf': `[mysqld]\n${'key_buffer_size = 16M\n'.repeat(lines)}` });
    const run = await runTuneLint(['--format', 'json', 'dups.cnf'], { cwd: scratch, timeoutMs: 300_000 });
    assert.equal(run.stderr, '');
    const diagnostics = jsonDiagnostics(run.stdout);
    assert.equal(diagnostics.filter((d) => d.ruleId === 'MY5001').length, 1000);
    assert.deepEqual(messages(run, 'TL0010'), [
      `dups.cnf:1 MY5001 duplicate-option found ${lines - 1 - 1000} more problems in this file than the 1000 listed`,
    ]);
    const patch = (JSON.parse(run.stdout) as { results: { patch?: string }[] }).results[0]?.patch ?? '';
    assert.equal(
      patch.split('\n').filter((line) => line.startsWith('-key_buffer_size')).length,
      1000,
      "the patch holds the listed findings' fixes",
    );
    const peak = run.peakRssKiB ?? Infinity;
    t.diagnostic(`peak RSS ${(peak / MIB).toFixed(0)} MiB for ${lines} lines`);
    assert.ok(peak < 1024 * MIB, `peak RSS ${peak} KiB`);
  });

  it('php-fpm is bounded as the others are: a pool that includes itself three times ends, and --max-lines and --max-files apply', async () => {
    // The 217-byte repository that hung the pre-commit hook: php-fpm itself would recurse until it runs out of file handles.
    const pool =
      '[www]\npm = static\npm.max_children = 5\ninclude = ${scratch}/self.conf\ninclude = ${scratch}/self.conf\ninclude = ${scratch}/self.conf\n';
    writeTree(scratch, { 'self.conf': pool.replaceAll('${scratch}', scratch) });
    const looped = await runTuneLint(['--format', 'json', '--lang', 'phpfpm', 'self.conf'], { cwd: scratch, timeoutMs: 60_000 });
    assert.ok(looped.status === 0 || looped.status === 1, looped.stderr);
    assert.deepEqual(
      messages(looped, 'TL0006'),
      [4, 5, 6].map(
        (line) =>
          `self.conf:${line} include cycle self.conf -> self.conf; php-fpm would read these files again and again until it runs out of file handles`,
      ),
    );

    writeTree(scratch, {
      'fpm-lines.conf': `[global]\ninclude = ${scratch}/fpm-pools/*.conf\n`,
      'fpm-pools/a.conf': `[a]\npm = static\npm.max_children = 2\n${'; c\n'.repeat(50)}`,
      'fpm-pools/b.conf': '[b]\npm = static\npm.max_children = 2\n',
    });
    const lines = await runTuneLint(['--format', 'json', '--lang', 'phpfpm', '--max-lines', '20', 'fpm-lines.conf'], { cwd: scratch });
    assert.deepEqual(messages(lines, 'TL0006'), [
      'fpm-lines.conf:2 fpm-pools/a.conf would bring what this config reads, counting every inclusion, to 55 lines, over the limit of 20 lines (--max-lines); it and the rest are not read',
    ]);
    const files = await runTuneLint(['--format', 'json', '--lang', 'phpfpm', '--max-files', '1', 'fpm-lines.conf'], { cwd: scratch });
    assert.deepEqual(messages(files, 'TL0006'), [
      'fpm-lines.conf:2 more than 1 files read through includes; the rest is not read (--max-files)',
    ]);
    const main = await runTuneLint(['--lang', 'phpfpm', '--max-lines', '20', 'fpm-pools/a.conf'], { cwd: scratch });
    assert.equal(main.status, 2);
    assert.equal(main.stderr, 'tune-lint: fpm-pools/a.conf has 53 lines, over the limit of 20 lines (--max-lines)\n');
  });

  it('php-fpm includes nested deeper than the include depth limit stop there with a TL0006', async () => {
    const chain: Record<string, string> = {};
    for (let level = 0; level < 140; level++) chain[`fpm-chain/${level}.conf`] = `include = ${scratch}/fpm-chain/${level + 1}.conf\n`;
    chain['fpm-chain/140.conf'] = '[deep]\npm.max_children = 1\n';
    writeTree(scratch, chain);
    const run = await runTuneLint(['--format', 'json', '--lang', 'phpfpm', 'fpm-chain/0.conf'], { cwd: scratch });
    assert.deepEqual(messages(run, 'TL0006'), ['fpm-chain/128.conf:1 includes nested deeper than 128 levels; what is inside is not read']);
  });

  it('--max-files takes a whole number of at least 1', async () => {
    for (const [value, message] of [
      ['0', 'tune-lint: --max-files 0: expected a count of at least 1\n'],
      ['many', "tune-lint: option '--max-files <n>' argument 'many' is invalid. expected a whole number\n"],
    ] as const) {
      const run = await runTuneLint(['--max-files', value, 'tiny.conf'], { cwd: scratch });
      assert.equal(run.status, 2);
      assert.equal(run.stderr, message);
    }
  });
});

describe('hostile inputs: expansion', () => {
  it('defines that repeat each other (a billion-laughs config) stop at a bound with a TL0006, in bounded memory', async (t) => {
    const text = `${MPM}Define A ${'x'.repeat(1000)}\nDefine B ${'\${A}'.repeat(1000)}\nDefine C ${'\${B}'.repeat(1000)}\nServerName \${C}\n`;
    writeTree(scratch, { 'bomb.conf': text });
    const run = await runTuneLint(['--format', 'json', 'bomb.conf'], { cwd: scratch });
    assert.equal(run.status, 1, run.stderr);
    const stopped = messages(run, 'TL0006');
    assert.ok(
      stopped.length > 0 &&
        stopped.every((m) =>
          m.includes('expansion stopped here: the expanded values add up to more than 67108864 bytes (--max-file-size)'),
        ),
      stopped.join('\n'),
    );
    assertMemory(t, run, LIMIT_BYTES, 4 / 1024, 'bytes of expansion allowed');
  });
});

describe('hostile inputs: patterns', () => {
  it('an Include wildcard that would backtrack exponentially as a regex matches in linear time', async () => {
    const dir = path.join(scratch, 'redos');
    writeTree(dir, { [`${'a'.repeat(200)}.conf`]: 'KeepAlive On\n' });
    writeTree(scratch, {
      'redos.conf': `${MPM}IncludeOptional ${dir}/${'*a'.repeat(40)}*b\nIncludeOptional ${dir}/${'*'.repeat(60)}x\nIncludeOptional ${dir}/[z-a]*\n`,
    });
    const run = await runTuneLint(['--format', 'json', 'redos.conf'], { cwd: scratch, timeoutMs: 60_000 });
    assert.equal(run.signal, null, 'ended by itself');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(jsonFiles(run.stdout), ['redos.conf']);
  });

  it("override globs in a repository's .tune-lint.yaml that are not valid regexes, or backtrack, are no crash and no hang", async () => {
    const repo = path.join(scratch, 'glob-repo');
    const globs = ['{a', '[z-a]', '[\\\\]', `${'**/'.repeat(40)}nomatch`, `${'*'.repeat(40)}x`];
    writeTree(repo, {
      '.tune-lint.yaml': `overrides:\n${globs.map((glob) => `  - files: [${JSON.stringify(glob)}]\n    rules: { AP4001: off }\n`).join('')}`,
      [`${'a/'.repeat(30)}deep.conf`]: `${MPM}MaxClients 10\n`,
    });
    const run = await runTuneLint(['--format', 'json', `${'a/'.repeat(30)}deep.conf`], { cwd: repo, timeoutMs: 60_000 });
    assert.equal(run.signal, null, 'ended by itself');
    assert.equal(run.stderr, '');
    assert.equal(messages(run, 'AP4001').length, 1, 'no glob matched, so AP4001 still runs');
  });
});

describe('hostile inputs: names that Object.prototype has', () => {
  // Lookup tables keyed by names from the configs must find nothing for these, not inherited members.
  const NAMES = ['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf'];

  it('as Apache directive, module and section names: read as any unknown name, no crash, no phantom MPM', async () => {
    const text = [
      'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so',
      ...NAMES.map((name) => `LoadModule ${name} modules/mod_${name}.so`),
      ...NAMES.map((name) => `${name} on`),
      ...NAMES.map((name) => `<IfModule ${name}>\n    KeepAlive On\n</IfModule>`),
      '',
    ].join('\n');
    writeTree(scratch, { 'proto.conf': text });
    const run = await runTuneLint(['--format', 'json', 'proto.conf'], { cwd: scratch });
    assert.equal(run.stderr, '');
    assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}`);
    assert.deepEqual(messages(run, 'AP1007'), [], 'one MPM is loaded');
    assert.deepEqual(messages(run, 'AP4003'), [], 'none of these is a removed directive');
    const dump = await runTuneLint(['dump', '--json', 'proto.conf'], { cwd: scratch, subcommand: true });
    assert.equal((JSON.parse(dump.stdout) as { mpm: { name: string } }).mpm.name, 'prefork');
  });

  it('as option names and values in my.cnf, and in our own inputs: findings and clear errors, no crash', async () => {
    writeTree(scratch, {
      'proto.cnf': `[mysqld]\n${NAMES.map((name) => `${name} = 1`).join('\n')}\ngeneral_log = constructor\nquery_cache_type = constructor\n`,
    });
    const run = await runTuneLint(['--format', 'json', 'proto.cnf'], { cwd: scratch });
    assert.equal(run.stderr, '');
    assert.equal(run.status, 1);
    assert.equal(messages(run, 'MY1006').length, NAMES.length, 'each is an unknown option');
    assert.deepEqual(
      messages(run, 'MY1005').map((m) => m.split(' sets ')[0]),
      ['proto.cnf:7 general_log = constructor'],
      'constructor is no boolean',
    );
    const size = await runTuneLint(['--host-ram', '512constructor', 'proto.cnf'], { cwd: scratch });
    assert.equal(size.status, 2);
    assert.match(size.stderr, /^tune-lint: .*512constructor.*\n$/);
    const repo = path.join(scratch, 'proto-repo');
    writeTree(repo, { '.tune-lint.yaml': 'budget:\n  constructor: 1\n', 'my.cnf': '[mysqld]\n' });
    const budget = await runTuneLint(['my.cnf'], { cwd: repo });
    assert.equal(budget.status, 2);
    assert.match(budget.stderr, /unknown budget key "constructor"/);
  });
});
