/** Half-open offsets into a SourceFile's text. */
export type Range = readonly [start: number, end: number];

/** 1-based line and column (UTF-16 code units). */
export interface Position {
  line: number;
  column: number;
}
