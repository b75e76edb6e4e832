import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { writeFixes, WriteError, type PendingWrite } from '../../src/fix/write.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';

/*
 * --fix's writer against the real filesystem: atomic replace, mode and owner
 * kept, symlinks written through, refusals that leave every original intact
 * (read-only file, directory not writable as an unprivileged user, read-only
 * mount, a file changed before and during the write), and a writer killed
 * with SIGKILL at random points of a large write.
 */

const NOBODY = 65534;
const WRITE_MODULE = pathToFileURL(repoPath('dist', 'src', 'fix', 'write.js')).href;
const FILES_MODULE = pathToFileURL(repoPath('dist', 'src', 'core', 'file-system.js')).href;
const TEMP_PATTERN = /^\..+\.tune-lint-\d+-[0-9a-f]{8}$/;

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-write-'));
  fs.chmodSync(scratch, 0o755);
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function dir(name: string): string {
  const made = path.join(scratch, name);
  fs.mkdirSync(made, { recursive: true, mode: 0o755 });
  fs.chmodSync(made, 0o755);
  return made;
}

/** The file as tune-lint reads it, and the fix that replaces `from` by `to`. */
function pending(file: string, from: string, to: string, sysroot?: string): PendingWrite {
  const reader = new ConfigFileSystem({ cwd: scratch, ...(sysroot === undefined ? {} : { sysroot }) });
  const source = reader.read(file);
  assert.ok(source.text.includes(from), `${file} should contain ${from}`);
  return { file: source, before: source.text, after: source.text.replace(from, to) };
}

function tempFiles(directory: string): string[] {
  return fs.readdirSync(directory).filter((name) => TEMP_PATTERN.test(name));
}

function snapshot(file: string): { bytes: Buffer; ino: number; mode: number; mtimeMs: number } {
  const stat = fs.statSync(file);
  return { bytes: fs.readFileSync(file), ino: stat.ino, mode: stat.mode, mtimeMs: stat.mtimeMs };
}

describe('writeFixes', () => {
  it('replaces the file by rename, keeping mode, owner and every byte of the new text', (t) => {
    const d = dir('replace');
    const file = path.join(d, 'mpm.conf');
    fs.writeFileSync(file, '\uFEFF<IfModule mpm_prefork_module>\r\n    MaxRequestWorkers 150\r\n</IfModule>\r\n');
    fs.chmodSync(file, 0o640);
    const root = process.geteuid?.() === 0;
    if (root) fs.chownSync(file, NOBODY, NOBODY);
    const old = snapshot(file);
    const entry = pending(file, '150', '12');
    const report = writeFixes([entry]);
    const now = fs.statSync(file);
    assert.deepEqual(report.written, [file]);
    assert.deepEqual(
      fs.readFileSync(file),
      Buffer.from('\uFEFF<IfModule mpm_prefork_module>\r\n    MaxRequestWorkers 12\r\n</IfModule>\r\n'),
    );
    assert.notEqual(now.ino, old.ino, 'a new inode: the file was renamed over, not rewritten in place');
    assert.equal(now.mode & 0o7777, 0o640);
    if (root) assert.deepEqual([now.uid, now.gid], [NOBODY, NOBODY]);
    else t.diagnostic('not root: owner kept is only checked as root');
    assert.deepEqual(tempFiles(d), []);
  });

  it('keeps the POSIX ACL and the extended attributes, and the group bits the ACL mask stands for', (t) => {
    const setfacl = requireTool(t, 'setfacl');
    const setfattr = requireTool(t, 'setfattr');
    if (setfacl === undefined || setfattr === undefined) return;
    const d = dir('acl');
    const file = path.join(d, 'ports.conf');
    fs.writeFileSync(file, 'Listen 80\n');
    fs.chmodSync(file, 0o640);
    execFileSync(setfacl, ['-m', 'u:nobody:rw,g::r', file]);
    execFileSync(setfattr, ['-n', 'user.origin', '-v', 'etckeeper', file]);
    const attributes = (): string =>
      execFileSync(requireTool(t, 'getfacl') as string, ['-cp', file], { encoding: 'utf8' }) +
      execFileSync(requireTool(t, 'getfattr') as string, ['-d', '--absolute-names', file], { encoding: 'utf8' });
    const before = { attributes: attributes(), mode: fs.statSync(file).mode };
    assert.match(before.attributes, /user:nobody:rw-/);
    writeFixes([pending(file, 'Listen 80', 'Listen 8080')]);
    assert.equal(fs.readFileSync(file, 'utf8'), 'Listen 8080\n');
    assert.equal(attributes(), before.attributes);
    assert.equal(fs.statSync(file).mode, before.mode, 'the group bits are still the ACL mask');
  });

  it('keeps a latin1 file in latin1', () => {
    const d = dir('latin1');
    const file = path.join(d, 'old.conf');
    fs.writeFileSync(file, Buffer.from('# Configuraci\xf3n de M\xe1laga\nMaxClients 150\n', 'latin1'));
    const entry = pending(file, '150', '20');
    assert.equal(entry.file.encoding, 'latin1');
    writeFixes([entry]);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('# Configuraci\xf3n de M\xe1laga\nMaxClients 20\n', 'latin1'));
  });

  it('writes through a symlink to its target and leaves the link a link (Debian mods-enabled)', () => {
    const d = dir('symlink/etc/apache2');
    fs.mkdirSync(path.join(d, 'mods-available'));
    fs.mkdirSync(path.join(d, 'mods-enabled'));
    const target = path.join(d, 'mods-available', 'mpm_prefork.conf');
    fs.writeFileSync(target, 'MaxRequestWorkers 150\n');
    const link = path.join(d, 'mods-enabled', 'mpm_prefork.conf');
    fs.symlinkSync('../mods-available/mpm_prefork.conf', link);
    const entry = pending(link, '150', '12');
    assert.equal(entry.file.realPath, target);
    writeFixes([entry]);
    assert.equal(fs.readlinkSync(link), '../mods-available/mpm_prefork.conf');
    assert.equal(fs.readFileSync(target, 'utf8'), 'MaxRequestWorkers 12\n');
  });

  it('writes through an absolute symlink inside a sysroot to the file inside the sysroot, never the host', () => {
    const root = dir('sysroot-link');
    fs.mkdirSync(path.join(root, 'etc/apache2/mods-available'), { recursive: true });
    fs.mkdirSync(path.join(root, 'etc/apache2/mods-enabled'), { recursive: true });
    const target = path.join(root, 'etc/apache2/mods-available/mpm_event.conf');
    fs.writeFileSync(target, 'MaxRequestWorkers 400\n');
    fs.symlinkSync('/etc/apache2/mods-available/mpm_event.conf', path.join(root, 'etc/apache2/mods-enabled/mpm_event.conf'));
    const entry = pending(path.join(root, 'etc/apache2/mods-enabled/mpm_event.conf'), '400', '100', root);
    assert.equal(entry.file.realPath, target);
    writeFixes([entry]);
    assert.equal(fs.readFileSync(target, 'utf8'), 'MaxRequestWorkers 100\n');
  });

  it('touches nothing when nothing changed', () => {
    const d = dir('unchanged');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'KeepAlive On\n');
    const old = snapshot(file);
    const entry = pending(file, 'On', 'On');
    assert.deepEqual(writeFixes([entry]), { written: [], staleTempFiles: [] });
    assert.deepEqual(snapshot(file), old);
  });

  it('refuses a read-only file with one line, and writes none of the other files', () => {
    const d = dir('readonly');
    const writable = path.join(d, 'a.conf');
    const readOnly = path.join(d, 'b.conf');
    fs.writeFileSync(writable, 'MaxRequestWorkers 150\n');
    fs.writeFileSync(readOnly, 'MaxRequestWorkers 150\n');
    fs.chmodSync(readOnly, 0o444);
    const before = [snapshot(writable), snapshot(readOnly)];
    const entries = [pending(writable, '150', '12'), pending(readOnly, '150', '12')];
    assert.throws(
      () => writeFixes(entries),
      (error: unknown) => {
        assert.ok(error instanceof WriteError);
        assert.equal(error.message, `${entries[1]?.file.displayPath}: read-only (mode 0444); nothing written`);
        return true;
      },
    );
    assert.deepEqual([snapshot(writable), snapshot(readOnly)], before);
    assert.deepEqual(tempFiles(d), []);
  });

  it('refuses a file changed on disk since it was read', () => {
    const d = dir('changed');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    const entry = pending(file, '150', '12');
    fs.appendFileSync(file, '# added by the admin meanwhile\n');
    const old = snapshot(file);
    assert.throws(() => writeFixes([entry]), /a\.conf: changed on disk since tune-lint read it; nothing written, run again$/);
    assert.deepEqual(snapshot(file), old);
  });

  it('refuses a file with several hard links', () => {
    const d = dir('hardlink');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    fs.linkSync(file, path.join(d, 'b.conf'));
    assert.throws(() => writeFixes([pending(file, '150', '12')]), /has 2 hard links/);
    assert.equal(fs.readFileSync(path.join(d, 'b.conf'), 'utf8'), 'MaxRequestWorkers 150\n');
  });

  it('refuses a file in a directory the user cannot write, as an unprivileged user (nobody)', async (t) => {
    const why = cannotRunAsNobody();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const d = dir('nobody-dir');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    fs.chownSync(file, NOBODY, NOBODY);
    fs.chmodSync(file, 0o644);
    const old = snapshot(file);
    const run = await runChild(childWriter(file, '150', '12'), { uid: NOBODY, gid: NOBODY });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(
      run.stderr,
      `${path.relative(scratch, file)}: its directory ${d} is not writable (EACCES), and the file is replaced by renaming a new file over it; nothing written\n`,
    );
    assert.deepEqual(snapshot(file), old);
    assert.deepEqual(tempFiles(d), []);
  });

  it('refuses a file owned by another user, as an unprivileged user (nobody)', async (t) => {
    const why = cannotRunAsNobody();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const d = dir('nobody-file');
    fs.chownSync(d, NOBODY, NOBODY);
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    fs.chmodSync(file, 0o644);
    const old = snapshot(file);
    const run = await runChild(childWriter(file, '150', '12'), { uid: NOBODY, gid: NOBODY });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, `${path.relative(scratch, file)}: not writable (EACCES); nothing written\n`);
    assert.deepEqual(snapshot(file), old);
  });

  it('refuses a file on a read-only mount (private mount namespace)', async (t) => {
    const d = dir('ro-mount');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'mount', '--bind', '-o', 'ro', d, d], {
      encoding: 'utf8',
    });
    if (probe.error !== undefined || probe.status !== 0) {
      t.skip(`no private mount namespace here (unshare: ${probe.error?.message ?? probe.stderr.trim()})`);
      return;
    }
    const old = snapshot(file);
    const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`;
    const run = await runCommand('unshare', [
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      script,
      'sh',
      d,
      process.execPath,
      '--input-type=module',
      '-e',
      childWriter(file, '150', '12'),
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, `${path.relative(scratch, file)}: not writable (EROFS); nothing written\n`);
    assert.deepEqual(snapshot(file), old);
  });

  it('refuses, and renames nothing, when a file changes while the new versions are being written', async () => {
    const d = dir('race');
    const big = path.join(d, 'big.conf');
    const small = path.join(d, 'small.conf');
    let caught = 0;
    for (let trial = 0; trial < 5 && caught === 0; trial++) {
      fs.writeFileSync(big, `MaxRequestWorkers 150\n${'# padding to make the write take a while\n'.repeat(500_000)}`);
      fs.writeFileSync(small, 'MaxRequestWorkers 150\n');
      const entries = [pending(big, '150', '12'), pending(small, '150', '12')];
      // The admin's editor saves small.conf as soon as tune-lint starts writing big.conf's new version.
      const editor = spawn(process.execPath, ['--input-type=module', '-e', appendWhenTempAppears(d, small)], { stdio: 'pipe' });
      const ready = new Promise<void>((resolve) => editor.stdout.once('data', () => resolve()));
      const exited = new Promise<void>((resolve) => editor.on('close', () => resolve()));
      await ready;
      let outcome: 'refused' | 'written';
      try {
        writeFixes(entries);
        outcome = 'written';
      } catch (error) {
        assert.match(String(error), /small\.conf: changed on disk since tune-lint read it; nothing written, run again/);
        outcome = 'refused';
      }
      await exited;
      const smallText = fs.readFileSync(small, 'utf8');
      assert.ok(smallText.endsWith('# saved by the admin\n'), "the admin's save is never lost");
      if (outcome === 'refused') {
        caught++;
        assert.ok(fs.readFileSync(big, 'utf8').startsWith('MaxRequestWorkers 150\n'), 'big.conf was not renamed either');
      }
      assert.deepEqual(tempFiles(d), []);
    }
    assert.ok(caught > 0, 'the change during the write was caught in one of five trials');
  });

  it('never leaves a partial file when the writer is killed at any point (SIGKILL), and the next run removes its temp file', async () => {
    const d = dir('killed');
    const file = path.join(d, 'huge.conf');
    const oldText = `MaxRequestWorkers 150\n${'# a long comment line in a large generated config\n'.repeat(160_000)}`;
    const newText = oldText.replace('150', '12');
    let killedWithTemp = 0;
    for (let trial = 0; trial < 8; trial++) {
      fs.writeFileSync(file, oldText);
      const child = spawn(process.execPath, ['--input-type=module', '-e', childWriter(file, '150', '12')], { stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
      await waitFor(() => tempFiles(d).length > 0 || head(file) === 'MaxRequestWorkers 12', 10_000);
      await delay(trial * 4);
      const hadTemp = tempFiles(d).length > 0;
      child.kill('SIGKILL');
      await exited;
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(text === oldText || text === newText, `trial ${trial}: the file is the old or the new version, nothing in between`);
      const strays = tempFiles(d);
      assert.ok(strays.length <= 1, `trial ${trial}: at most one stray temp file: ${strays.join(', ')}`);
      if (hadTemp && text === oldText) killedWithTemp++;
      for (const stray of strays) {
        const old = new Date(Date.now() - 120_000);
        fs.utimesSync(path.join(d, stray), old, old);
      }
      if (text === oldText) {
        const report = writeFixes([pending(file, '150', '12')]);
        assert.deepEqual(
          report.staleTempFiles,
          strays.map((stray) => path.join(d, stray)),
        );
        assert.equal(fs.readFileSync(file, 'utf8'), newText);
      }
      assert.deepEqual(tempFiles(d), []);
    }
    assert.ok(killedWithTemp > 0, 'at least one kill landed while the new version was being written');
  });

  it('keeps the temp file of a writer that may still be running', () => {
    const d = dir('fresh-temp');
    const file = path.join(d, 'a.conf');
    fs.writeFileSync(file, 'MaxRequestWorkers 150\n');
    const foreign = path.join(d, `.a.conf.tune-lint-${process.pid}-0123abcd`);
    const young = path.join(d, '.a.conf.tune-lint-999999999-0123abcd');
    fs.writeFileSync(foreign, 'x');
    fs.writeFileSync(young, 'x');
    const report = writeFixes([pending(file, '150', '12')]);
    assert.deepEqual(report.staleTempFiles, []);
    assert.ok(fs.existsSync(foreign) && fs.existsSync(young));
  });
});

/** A child that reads `file` as tune-lint does and writes the fix; exit 2 with the one-line error on stderr. */
function childWriter(file: string, from: string, to: string): string {
  return `
    import { writeFixes, WriteError } from ${JSON.stringify(WRITE_MODULE)};
    import { ConfigFileSystem } from ${JSON.stringify(FILES_MODULE)};
    const source = new ConfigFileSystem({ cwd: ${JSON.stringify(scratch)} }).read(${JSON.stringify(file)});
    try {
      writeFixes([{ file: source, before: source.text, after: source.text.replace(${JSON.stringify(from)}, ${JSON.stringify(to)}) }]);
    } catch (error) {
      if (!(error instanceof WriteError)) throw error;
      process.stderr.write(error.message + '\\n');
      process.exit(2);
    }
  `;
}

/** A child that prints "ready", waits for a tune-lint temp file in `directory`, then appends a line to `file`. */
function appendWhenTempAppears(directory: string, file: string): string {
  return `
    import * as fs from 'node:fs';
    const pattern = ${TEMP_PATTERN.toString()};
    process.stdout.write('ready\\n');
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline && !fs.readdirSync(${JSON.stringify(directory)}).some((name) => pattern.test(name))) {}
    fs.appendFileSync(${JSON.stringify(file)}, '# saved by the admin\\n');
  `;
}

function cannotRunAsNobody(): string | undefined {
  if (process.geteuid?.() !== 0) return 'needs root to run a writer as another user';
  const check = spawnSync('/bin/sh', ['-c', 'test -r "$0" && test -x "$1"', fileOf(WRITE_MODULE), scratch], { uid: NOBODY, gid: NOBODY });
  return check.status === 0 ? undefined : `the compiled modules or ${scratch} are not reachable by uid ${NOBODY}`;
}

function fileOf(url: string): string {
  return new URL(url).pathname;
}

async function runChild(code: string, ids: { uid: number; gid: number }): Promise<{ code: number | null; stderr: string }> {
  return runCommand(process.execPath, ['--input-type=module', '-e', code], ids);
}

function runCommand(command: string, args: string[], ids?: { uid: number; gid: number }): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: scratch, stdio: ['ignore', 'ignore', 'pipe'], ...ids });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

function head(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(20);
    return bytes.subarray(0, fs.readSync(fd, bytes, 0, 20, 0)).toString('latin1');
  } finally {
    fs.closeSync(fd);
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await delay(1);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
