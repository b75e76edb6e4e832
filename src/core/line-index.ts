import type { Position } from './range.js';

/**
 * Turns offsets into 1-based line/column positions. Lines end at `\n`; a `\r`
 * before it belongs to the line it ends. Columns count UTF-16 code units, which
 * is what SARIF's default `columnKind` and editors expect.
 */
export class LineIndex {
  private readonly starts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    let at = text.indexOf('\n');
    while (at !== -1) {
      starts.push(at + 1);
      at = text.indexOf('\n', at + 1);
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** 1-based line of an offset (offsets past the end clamp to the last line). */
  lineOf(offset: number): number {
    const starts = this.starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }

  position(offset: number): Position {
    const line = this.lineOf(offset);
    return { line, column: offset - (this.starts[line - 1] as number) + 1 };
  }

  /** Offset of the first character of a 1-based line. */
  lineStart(line: number): number {
    return this.starts[Math.min(Math.max(line, 1), this.starts.length) - 1] as number;
  }
}
