import { LineIndex } from './line-index.js';
import type { Position, Range } from './range.js';

export type TextEncoding = 'utf8' | 'latin1';

/**
 * One configuration file as read from disk. `text` is the whole content; bytes
 * that are not valid UTF-8 are read as latin1 so that writing the text back
 * gives the same bytes.
 */
export class SourceFile {
  private index: LineIndex | undefined = undefined;
  /**
   * What a reader made of the text, kept with the file: a fix pass reads the
   * files it did not change as the same SourceFile and does not parse them
   * again. A field, not a WeakMap keyed by file: on 10,000 files the
   * WeakMap's inserts alone took 15 ms.
   */
  parsed: unknown = undefined;

  constructor(
    /** Absolute path as opened (inside the sysroot when one is given). */
    readonly path: string,
    /** The path shown to people: as included, relative to the working directory. */
    readonly displayPath: string,
    readonly text: string,
    readonly encoding: TextEncoding = 'utf8',
    /** Where a patch must point: the symlink's target, relative to the working directory. */
    readonly patchPath: string = displayPath,
    /** The file behind any symlinks: what --fix writes and what identifies the file across passes. */
    readonly realPath: string = path,
    /** `realPath`'s bytes, when a name in it is not UTF-8 (read as latin1 there): what the system calls on it take. */
    readonly nativePath?: Buffer,
  ) {}

  private bytes: number | undefined = undefined;

  /** The size of the file as read, in bytes. */
  get byteLength(): number {
    this.bytes ??= Buffer.byteLength(this.text, this.encoding);
    return this.bytes;
  }

  get lines(): LineIndex {
    this.index ??= new LineIndex(this.text);
    return this.index;
  }

  position(offset: number): Position {
    return this.lines.position(offset);
  }

  slice(range: Range): string {
    return this.text.slice(range[0], range[1]);
  }

  /** The line ending this file mostly uses, for inserted lines. */
  get eol(): '\n' | '\r\n' {
    const crlf = this.text.split('\r\n').length - 1;
    const lf = this.text.split('\n').length - 1 - crlf;
    return crlf > lf ? '\r\n' : '\n';
  }

  encode(text: string = this.text): Buffer {
    return Buffer.from(text, this.encoding);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes file bytes losslessly: UTF-8 when valid, otherwise latin1 (one char per byte). */
export function decodeBytes(bytes: Uint8Array): { text: string; encoding: TextEncoding } {
  try {
    return { text: strictUtf8.decode(bytes), encoding: 'utf8' };
  } catch {
    return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'), encoding: 'latin1' };
  }
}
