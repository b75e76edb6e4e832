import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { applyPatch, structuredPatch } from 'diff';
import { FilePatches, unifiedDiff, type FileChange } from '../../src/fix/patch.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The printed patch against the two tools users feed it to: `git apply` and
 * GNU `patch -p1`. Each case writes the "before" files, applies the patch
 * with each tool in its own copy, and compares the bytes with "after".
 */

interface Case {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

const CASES: Case[] = [
  { path: 'plain.conf', before: 'a\nb\nc\n', after: 'a\nB\nc\n' },
  { path: 'no-final-newline.conf', before: 'a\nb\nc', after: 'a\nb\nC' },
  { path: 'line-added-at-end-without-newline.conf', before: 'a\nb', after: 'a\nb\nc' },
  { path: 'final-newline-kept-absent.conf', before: 'KeepAlive On', after: 'KeepAlive Off' },
  { path: 'crlf.conf', before: 'a\r\nb\r\nc\r\n', after: 'a\r\nb\r\nB2\r\nc\r\n' },
  {
    path: 'bom-crlf.conf',
    before: '\uFEFFServerLimit 256\r\nMaxRequestWorkers 256\r\n',
    after: '\uFEFFServerLimit 16\r\nMaxRequestWorkers 16\r\n',
  },
  { path: 'mixed-endings.conf', before: 'a\r\nb\nc\r\n', after: 'a\r\nB\nc\r\n' },
  { path: 'old-mac-cr.conf', before: 'a\rb\rc\n', after: 'a\rB\rc\n' },
  { path: 'tabs and spaces/x y.conf', before: '\tListen 80\n', after: '\tListen 8080\n' },
  { path: 'quote"and\\backslash.cnf', before: '[mysqld]\nport=1\n', after: '[mysqld]\nport=2\n' },
  { path: 'sites-available/café.conf', before: '# café\nServerName café.example\n', after: '# café\nServerName cafe.example\n' },
  { path: 'emptied.conf', before: 'Listen 80\n', after: '' },
  { path: 'was-empty.conf', before: '', after: 'Listen 80\n' },
  {
    path: 'far-apart.conf',
    before: Array.from({ length: 40 }, (_, i) => `Line${i}\n`).join(''),
    after: Array.from({ length: 40 }, (_, i) => (i === 2 || i === 30 ? `Changed${i}\n` : `Line${i}\n`)).join(''),
  },
];

describe('unifiedDiff', () => {
  it('diffs changed regions alone: the patch turns the old text into the new one, and with lines that do not repeat it is the diff of the whole texts (fast-check)', async () => {
    const edits = fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.nat(3)), { maxLength: 6 });
    const apply = (lines: string[], changes: [number, number, number][], made: () => string): string => {
      for (const [at, removed, inserted] of changes)
        lines.splice(lines.length === 0 ? 0 : at % (lines.length + 1), removed, ...Array.from({ length: inserted }, made));
      return lines.join('');
    };
    // Few distinct lines: equal lines repeat, and the regions may pair them otherwise than one diff would.
    const repeating = fc.array(fc.constantFrom('a\n', 'b\n', 'c\r\n', 'Listen 80\n', '\n', 'x'), { maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(repeating, edits, async (lines, changes) => {
        const before = lines.join('');
        let made = 0;
        const after = apply(
          [...lines].map((line) => (line === 'x' ? 'x\n' : line)),
          changes,
          () => (made++ % 2 === 0 ? 'a\n' : 'new\n'),
        );
        // A last line without its line feed ('x') gets one in the new text: the "\\ No newline" case.
        const patch = await unifiedDiff([{ patchPath: 'f.conf', before, after }]);
        assert.equal(patch === '' ? before : applyPatch(before, patch), after);
      }),
      { numRuns: 400 },
    );
    // Lines that are all different: exactly the whole-text diff.
    const unique = fc.integer({ min: 0, max: 80 }).map((count) => Array.from({ length: count }, (_, n) => `line ${n}\n`));
    await fc.assert(
      fc.asyncProperty(unique, edits, async (lines, changes) => {
        const before = lines.join('');
        let made = 0;
        const after = apply([...lines], changes, () => `new ${made++}\n`);
        assert.equal(await unifiedDiff([{ patchPath: 'f.conf', before, after }]), wholeTextDiff('f.conf', before, after));
      }),
      { numRuns: 400 },
    );
  });

  it('stays linear in the changes: 5,000 changed lines of one file', async () => {
    const vhost = (n: number, timeout: number) =>
      `<VirtualHost *:80>\n  ServerName s${n}.example\n  DocumentRoot /srv/s${n}\n  KeepAliveTimeout ${timeout}\n  ErrorLog /var/log/s${n}.log\n  CustomLog /var/log/s${n}.access combined\n  Header set X-Site s${n}\n  RewriteEngine On\n</VirtualHost>\n`;
    const sites = Array.from({ length: 5000 }, (_, n) => n);
    const patch = await unifiedDiff([
      { patchPath: 'vhosts.conf', before: sites.map((n) => vhost(n, 30)).join(''), after: sites.map((n) => vhost(n, 3)).join('') },
    ]);
    assert.equal(patch.match(/^@@ /gm)?.length, 5000);
  });

  it('a long rest of the file with every line changed is one replacement, and the patch still applies', async () => {
    const before = `# head\n${Array.from({ length: 3000 }, (_, n) => `ServerAdmin s${n}@example.org # admin\n`).join('')}last`;
    const after = `# head\n${Array.from({ length: 3000 }, (_, n) => `# admin\nServerAdmin s${n}@example.org\n`).join('')}last line\n`;
    const patch = await unifiedDiff([{ patchPath: 'big.conf', before, after }]);
    assert.equal(patch.match(/^@@ /gm)?.length, 1);
    assert.match(patch, /^-last\n\\ No newline at end of file\n/m);
    assert.equal(applyPatch(before, patch), after);
  });

  it("writes a one-line change its context does not hold without jsdiff, as jsdiff's whole-text diff writes it (fast-check)", async () => {
    // Few distinct lines, so that many edits sit among equal lines, which jsdiff may pair otherwise than a replacement would.
    const lines = fc.array(fc.constantFrom<string>('a\n', 'b\n', 'c\r\n', 'Timeout 300\n', '\n'), { maxLength: 40 });
    const edit = fc.tuple(fc.nat(), fc.constantFrom('replace', 'insert', 'delete'), fc.constantFrom('d\n', 'Timeout 60\n', 'a\n'));
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(lines, edit, async (old, [at, kind, line]) => {
        const index = old.length === 0 ? 0 : at % (kind === 'insert' ? old.length + 1 : old.length);
        if (kind !== 'insert' && old.length === 0) return;
        const now = [...old];
        now.splice(index, kind === 'insert' ? 0 : 1, ...(kind === 'delete' ? [] : [line]));
        const [before, after] = [old.join(''), now.join('')];
        const patch = await unifiedDiff([{ patchPath: 'f.conf', before, after }]);
        assert.equal(patch === '' ? before : applyPatch(before, patch), after);
        const changed = [...(kind === 'insert' ? [] : [old[index] as string]), ...(kind === 'delete' ? [] : [line])];
        const context = [...old.slice(Math.max(0, index - 3), index), ...old.slice(kind === 'insert' ? index : index + 1).slice(0, 3)];
        // A file of four lines at most is one window whatever the edit: then even a line its context holds is written as jsdiff writes it.
        const isolated = !changed.some((changedLine) => context.includes(changedLine));
        if (before === after || (!isolated && old.length > 4)) return;
        compared++;
        assert.equal(patch, wholeTextDiff('f.conf', before, after));
      }),
      { numRuns: 1000, seed: 20261203 },
    );
    assert.ok(compared > 100, `only ${compared} edits were compared`);
  });

  it('prints nothing when nothing changed', async () => {
    assert.equal(await unifiedDiff([{ patchPath: 'a.conf', before: 'x\n', after: 'x\n' }]), '');
  });

  it('names files a/ and b/ relative to the working directory, quoting the names git quotes and those with spaces', async () => {
    const patch = await unifiedDiff(CASES.map(changeOf));
    assert.match(patch, /^diff --git a\/plain\.conf b\/plain\.conf\n--- a\/plain\.conf\n\+\+\+ b\/plain\.conf\n/);
    assert.ok(patch.includes('--- "a/tabs and spaces/x y.conf"\n'));
    assert.ok(patch.includes('--- "a/quote\\"and\\\\backslash.cnf"\n'));
    assert.ok(patch.includes('--- "a/sites-available/caf\\303\\251.conf"\n'));
    assert.ok(patch.includes('\\ No newline at end of file\n'));
  });

  it('applies with git apply and with patch -p1, byte for byte, for every kind of line ending, BOM and name', async (t) => {
    await appliesExactly(t, CASES);
  });

  it('applies exactly for random files and random line edits (property, one patch per run of 25 files)', async (t) => {
    const line = fc.stringMatching(/^[ -~\t\xe9]{0,20}$/);
    const ending = fc.constantFrom('\n', '\r\n', '\r\n', '\n');
    const fileText = fc
      .array(fc.tuple(line, ending), { maxLength: 25 })
      .chain((lines) =>
        fc
          .boolean()
          .map((finalEnding) =>
            lines.map(([text, eol], index) => (index === lines.length - 1 && !finalEnding ? text : text + eol)).join(''),
          ),
      );
    const edited = fileText.chain((before) =>
      fc
        .array(fc.tuple(fc.nat(), fc.constantFrom('replace', 'insert', 'delete'), line), { maxLength: 4 })
        .map((edits) => ({ before, after: editLines(before, edits) })),
    );
    const runs = fc.sample(fc.array(edited, { minLength: 25, maxLength: 25 }), { numRuns: 3, seed: 20261130 });
    for (const [run, files] of runs.entries()) {
      const cases = files
        .filter((file) => file.before !== file.after)
        .map((file, index) => ({ path: `run${run}/f${index}.conf`, ...file }));
      await appliesExactly(t, cases);
    }
  });
});

function changeOf(testCase: Case): FileChange {
  return { patchPath: testCase.path, before: testCase.before, after: testCase.after };
}

/** Applies a few line edits, keeping each line's own ending. */
function editLines(text: string, edits: readonly [number, string, string][]): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (const [at, kind, content] of edits) {
    const index = lines.length === 0 ? 0 : at % (lines.length + (kind === 'insert' ? 1 : 0));
    const eol = /\r?\n$/.exec(lines[index] ?? lines[index - 1] ?? '\n')?.[0] ?? '\n';
    if (kind === 'insert') lines.splice(index, 0, content + eol);
    else if (kind === 'delete') lines.splice(index, 1);
    else if (index < lines.length) lines[index] = content + (/\r?\n$/.exec(lines[index] as string)?.[0] ?? '');
  }
  return lines.join('');
}

async function appliesExactly(t: TestContext, cases: readonly Case[]): Promise<void> {
  const git = requireTool(t, 'git');
  const patchTool = requireTool(t, 'patch');
  if (git === undefined || patchTool === undefined) return;
  const patch = await unifiedDiff(cases.map(changeOf));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-patch-'));
  try {
    const patchFile = path.join(scratch, 'fix.patch');
    fs.writeFileSync(patchFile, patch);
    for (const tool of ['git', 'patch'] as const) {
      const tree = path.join(scratch, tool);
      for (const testCase of cases) {
        fs.mkdirSync(path.dirname(path.join(tree, testCase.path)), { recursive: true });
        fs.writeFileSync(path.join(tree, testCase.path), testCase.before);
      }
      if (tool === 'git') {
        execFileSync(git, ['apply', '--check', patchFile], { cwd: tree, stdio: 'pipe' });
        execFileSync(git, ['apply', patchFile], { cwd: tree, stdio: 'pipe' });
      } else {
        execFileSync(patchTool, ['-p1', '--dry-run', '--batch', '-i', patchFile], { cwd: tree, stdio: 'pipe' });
        execFileSync(patchTool, ['-p1', '--batch', '--no-backup-if-mismatch', '-i', patchFile], { cwd: tree, stdio: 'pipe' });
      }
      for (const testCase of cases) {
        assert.deepEqual(fs.readFileSync(path.join(tree, testCase.path)), Buffer.from(testCase.after), `${tool}: ${testCase.path}`);
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The patch as one diff of the whole texts gives it (how unifiedDiff made it before diffing regions alone). */
function wholeTextDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 });
  const range = (start: number, lines: number) => (lines === 0 ? `${start - 1},0` : `${start},${lines}`);
  const hunks = patch.hunks.map(
    (hunk) =>
      `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n${hunk.lines.map((l) => `${l}\n`).join('')}`,
  );
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${hunks.join('')}`;
}

describe('FilePatches', () => {
  it("gives each file its own part of the patch, whatever its path needs, and '' to a file the patch leaves alone", async () => {
    const paths = ['/etc/apache2/apache2.conf', 'etc/my.cnf', '/srv/sites enabled/a.conf', '/etc/apache2/"x".conf', '/etc/caf\u00e9.conf'];
    const changes = paths.map((patchPath, index) => ({ patchPath, before: `a ${index}\n`, after: `b ${index}\n` }));
    const patches = new FilePatches(await unifiedDiff(changes));
    for (const [index, patchPath] of paths.entries()) {
      assert.equal(patches.of(patchPath), await unifiedDiff([changes[index] as FileChange]), patchPath);
    }
    assert.equal(patches.of('/etc/apache2/ports.conf'), '');
    assert.equal(patches.of('/srv/sites'), '');
    assert.equal(new FilePatches('').of('/etc/apache2/apache2.conf'), '');
  });
});
