import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';

/*
 * Reading a file whole when the file system hands it out in pieces: a read
 * may return less than asked before the end (network and FUSE file systems
 * do), and the reader must go on rather than take a short read for the end.
 */
describe('reading a config file whose reads come back short', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-short-reads-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const bytes of [3_000, 200_000]) {
    it(`gives every byte of a ${bytes}-byte file when each read returns at most 1,000 bytes`, () => {
      const file = path.join(dir, `${bytes}.conf`);
      const text = Array.from({ length: bytes / 30 }, (_, index) => `Define LINE_${String(index).padStart(12, '0')} x\n`).join('');
      fs.writeFileSync(file, text);
      // The reader imports node:fs as a module namespace: replaced on the CommonJS object and synced into it.
      const builtin = createRequire(import.meta.url)('node:fs') as { readSync: typeof fs.readSync };
      const readSync = builtin.readSync;
      let reads = 0;
      builtin.readSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: null) => {
        reads++;
        return readSync(fd, buffer, offset, Math.min(length, 1_000), position);
      }) as typeof fs.readSync;
      syncBuiltinESMExports();
      try {
        assert.equal(new ConfigFileSystem().read(file).text, text);
        assert.ok(reads >= Math.ceil(text.length / 1_000), `${reads} reads`);
      } finally {
        builtin.readSync = readSync;
        syncBuiltinESMExports();
      }
    });
  }
});
