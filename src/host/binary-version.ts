import * as fs from 'node:fs';

/*
 * A server's release read from its binary's bytes, never by running it: the
 * compiled-in version strings sit in the ELF file's `.rodata` section, within
 * its first kilobytes on every build measured (Debian's apache2 2.4.71,
 * mariadbd 10.11.19, MySQL 9.7.4's mysqld: at 0x1b8, 0x421 and 0x3520 of
 * sections of 66 KiB, 5.2 MiB and 13 MiB). Only that section is read, a
 * chunk at a time, until the strings are found.
 */

/** A chunk of `.rodata` read at a time, and how much of it is read at most. */
const CHUNK_BYTES = 1024 * 1024;
const MAX_SECTION_BYTES = 64 * 1024 * 1024;
/** Section headers past this count are not an ELF file any toolchain writes. */
const MAX_SECTIONS = 4096;
const MAX_SECTION_NAMES_BYTES = 64 * 1024;

export type BinaryRead<T> = { readonly found: true; readonly value: T } | { readonly found: false; readonly why: string };

/** What a search of `.rodata` keeps looking for until it returns a value. */
export type RodataSearch<T> = (chunk: Buffer) => T | undefined;

/**
 * Runs `search` over the `.rodata` section of the ELF file at `file`, chunk
 * by chunk (each chunk overlaps the one before by a little, so a string is
 * never cut in two). The file is opened without blocking and must be a
 * regular file; nothing in it is executed.
 */
export async function searchRodata<T>(file: string, search: RodataSearch<T>): Promise<BinaryRead<T>> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
    if (!(await handle.stat()).isFile()) return { found: false, why: 'not a regular file' };
    const section = await rodataSection(handle);
    if (typeof section === 'string') return { found: false, why: section };
    const overlap = 256;
    const end = section.offset + Math.min(section.size, MAX_SECTION_BYTES);
    for (let at = section.offset; at < end; at += CHUNK_BYTES - overlap) {
      const chunk = await readAt(handle, at, Math.min(CHUNK_BYTES, end - at));
      const found = search(chunk);
      if (found !== undefined) return { found: true, value: found };
      if (chunk.length < CHUNK_BYTES) break;
    }
    return { found: false, why: 'no version string in its .rodata section' };
  } catch (error) {
    return { found: false, why: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    await handle?.close();
  }
}

async function readAt(handle: fs.promises.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** Where `.rodata` lies in the file, or why it cannot be found. */
async function rodataSection(handle: fs.promises.FileHandle): Promise<{ offset: number; size: number } | string> {
  const header = await readAt(handle, 0, 64);
  if (header.length < 52 || header.readUInt32BE(0) !== 0x7f454c46) return 'not an ELF binary';
  const wide = header[4] === 2;
  const little = header[5] === 1;
  const u16 = (buffer: Buffer, at: number) => (little ? buffer.readUInt16LE(at) : buffer.readUInt16BE(at));
  const u32 = (buffer: Buffer, at: number) => (little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at));
  const word = (buffer: Buffer, at: number) =>
    wide ? Number(little ? buffer.readBigUInt64LE(at) : buffer.readBigUInt64BE(at)) : u32(buffer, at);
  if (wide && header.length < 64) return 'a truncated ELF header';
  const tableOffset = word(header, wide ? 0x28 : 0x20);
  const entrySize = u16(header, wide ? 0x3a : 0x2e);
  const count = u16(header, wide ? 0x3c : 0x30);
  const namesIndex = u16(header, wide ? 0x3e : 0x32);
  if (count === 0 || count > MAX_SECTIONS || namesIndex >= count || entrySize < (wide ? 64 : 40)) return 'no section headers';
  const table = await readAt(handle, tableOffset, count * entrySize);
  if (table.length < count * entrySize) return 'truncated section headers';
  const section = (index: number) => {
    const at = index * entrySize;
    return { name: u32(table, at), offset: word(table, at + (wide ? 0x18 : 0x10)), size: word(table, at + (wide ? 0x20 : 0x14)) };
  };
  const names = section(namesIndex);
  const nameBytes = await readAt(handle, names.offset, Math.min(names.size, MAX_SECTION_NAMES_BYTES));
  for (let index = 0; index < count; index++) {
    const candidate = section(index);
    const end = nameBytes.indexOf(0, candidate.name);
    if (end !== -1 && nameBytes.toString('latin1', candidate.name, end) === '.rodata')
      return { offset: candidate.offset, size: candidate.size };
  }
  return 'no .rodata section';
}

/**
 * The first match of `pattern` in the bytes around each place `marker`
 * occurs in `chunk`: markers are found at memchr speed, and only a few dozen
 * bytes around each are decoded for the pattern.
 */
export function matchNear(chunk: Buffer, marker: string, pattern: RegExp, before = 24, after = 40): RegExpExecArray | undefined {
  for (let at = chunk.indexOf(marker, 0, 'latin1'); at !== -1; at = chunk.indexOf(marker, at + 1, 'latin1')) {
    const start = Math.max(0, at - before);
    const match = pattern.exec(chunk.toString('latin1', start, Math.min(chunk.length, at + marker.length + after)));
    if (match !== null) return match;
  }
  return undefined;
}
