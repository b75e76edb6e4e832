/** One file's change, by the paths a patch names. */
export interface FileChange {
  readonly patchPath: string;
  readonly before: string;
  readonly after: string;
  /** How the file's text maps to its bytes (latin1 for files that are not valid UTF-8); default utf8. */
  readonly encoding?: 'utf8' | 'latin1';
}

/**
 * A unified diff of every change, in the form `git apply` and `patch -p1`
 * take: `diff --git a/P b/P`, `--- a/P`, `+++ b/P`, hunks with three lines of
 * context. Line endings inside lines are kept, so CRLF files stay CRLF; a BOM
 * is part of the first line; a file without a final newline gets git's
 * `\ No newline at end of file` marker. As text it suits a report; written
 * to a file or pipe, use {@link unifiedDiffBytes}, which gives every file's
 * lines back in that file's own bytes.
 */
export async function unifiedDiff(changes: readonly FileChange[]): Promise<string> {
  return (await fileSections(changes)).map((section) => section.text).join('');
}

/**
 * The same patch as bytes: each file's section in the file's encoding, so a
 * latin1 config's lines match byte for byte (the paths are ASCII: non-ASCII
 * bytes in names are escaped as git does).
 */
export async function unifiedDiffBytes(changes: readonly FileChange[]): Promise<Buffer> {
  return Buffer.concat((await fileSections(changes)).map((section) => Buffer.from(section.text, section.encoding)));
}

async function fileSections(changes: readonly FileChange[]): Promise<{ text: string; encoding: 'utf8' | 'latin1' }[]> {
  const relevant = changes.filter((change) => change.before !== change.after);
  if (relevant.length === 0) return [];
  const sections: { text: string; encoding: 'utf8' | 'latin1' }[] = [];
  let jsdiff: typeof import('diff') | undefined;
  for (const change of relevant) {
    const out: string[] = [];
    const path = relativePath(change.patchPath);
    const [a, b] = [quotePath(`a/${path}`), quotePath(`b/${path}`)];
    out.push(`${gitHeader(a, b)}--- ${a}\n+++ ${b}\n`);
    for (const window of changedWindows(change.before, change.after)) {
      if ('replaced' in window) {
        out.push(replacementHunk(window));
        continue;
      }
      jsdiff ??= await import('diff');
      const patch = jsdiff.structuredPatch(`a/${path}`, `b/${path}`, window.before, window.after, undefined, undefined, {
        context: CONTEXT,
      });
      for (const hunk of patch.hunks) {
        out.push(
          `@@ -${range(hunk.oldStart + window.oldOffset, hunk.oldLines)} +${range(hunk.newStart + window.newOffset, hunk.newLines)} @@\n`,
        );
        for (const line of hunk.lines) out.push(`${line}\n`);
      }
    }
    sections.push({ text: out.join(''), encoding: change.encoding ?? 'utf8' });
  }
  return sections;
}

const CONTEXT = 3;
/** Equal lines that end a changed region: more than two hunks' context, so jsdiff would start a new hunk there too. */
const RESYNC = 2 * CONTEXT + 1;
/** How far apart (in lines skipped on both sides together) a changed region may look for the lines where the texts agree again. */
const RESYNC_REACH = 64;

/** A region this many lines long (both sides) with no place where the texts agree again is not diffed: see changedWindows. */
const REPLACED_ABOVE = 4000;

/** Lines every one of which changed, with their context: one hunk that takes the old lines out and puts the new ones in. */
interface Replacement {
  readonly context: readonly string[];
  readonly replaced: readonly string[];
  readonly replacing: readonly string[];
  readonly trailing: readonly string[];
  readonly oldOffset: number;
  readonly newOffset: number;
}

interface DiffWindow {
  readonly before: string;
  readonly after: string;
  /** Lines of each text before the window. */
  readonly oldOffset: number;
  readonly newOffset: number;
}

/**
 * The parts of two texts a diff needs, each a changed region with its
 * context: jsdiff's Myers diff costs the product of the length and the
 * number of changes, and a fix pass can change thousands of lines of one
 * file (5,000 took 21 s as one diff). The texts are walked line by line;
 * where they differ, the nearest place where 7 lines agree again (within 64
 * lines skipped) ends the region, and jsdiff diffs that region alone. Two
 * regions are at least 7 equal lines apart, where jsdiff starts a new hunk as
 * well, so the hunks are the ones a diff of the whole texts gives whenever
 * that diff pairs the same lines. With no such place, the rest is one region,
 * and when that region is long it is written as a replacement of every line.
 * A region of one line changed, added or taken out, whose lines its context
 * does not hold, is written as a replacement too: the only diff of it pairs
 * the context lines with themselves, and jsdiff would write the same hunk.
 * That is what most fixes make (a value on one line), and then jsdiff is not
 * loaded at all (2.9 M of the stock Debian lint's instructions with it).
 */
function changedWindows(fullBefore: string, fullAfter: string): (DiffWindow | Replacement)[] {
  const skipped = sharedLeadingLines(fullBefore, fullAfter, CONTEXT);
  const old = splitLines(fullBefore.slice(skipped.length));
  const now = splitLines(fullAfter.slice(skipped.length));
  const windows: (DiffWindow | Replacement)[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length || j < now.length) {
    if (i < old.length && j < now.length && old[i] === now[j]) {
      i++;
      j++;
      continue;
    }
    const [endOld, endNew] = resync(old, now, i, j);
    const startOld = Math.max(0, i - CONTEXT);
    const startNew = j - (i - startOld);
    if (endOld === old.length && endNew === now.length && endOld - i + (endNew - j) > REPLACED_ABOVE) {
      windows.push({
        context: old.slice(startOld, i),
        replaced: old.slice(i),
        replacing: now.slice(j),
        trailing: [],
        oldOffset: skipped.lines + startOld,
        newOffset: skipped.lines + startNew,
      });
      break;
    }
    const stopOld = Math.min(old.length, endOld + CONTEXT);
    const stopNew = endNew + (stopOld - endOld);
    if (endOld - i <= 1 && endNew - j <= 1) {
      const context = old.slice(startOld, i);
      const trailing = old.slice(endOld, stopOld);
      const replaced = old.slice(i, endOld);
      const replacing = now.slice(j, endNew);
      if (![...replaced, ...replacing].some((line) => context.includes(line) || trailing.includes(line))) {
        windows.push({ context, replaced, replacing, trailing, oldOffset: skipped.lines + startOld, newOffset: skipped.lines + startNew });
        i = endOld;
        j = endNew;
        continue;
      }
    }
    windows.push({
      before: old.slice(startOld, stopOld).join(''),
      after: now.slice(startNew, stopNew).join(''),
      oldOffset: skipped.lines + startOld,
      newOffset: skipped.lines + startNew,
    });
    i = endOld;
    j = endNew;
  }
  return windows;
}

/**
 * The lines two texts differ in, each run of them with the text that takes
 * its place: offsets into `before` (whole lines) and the new lines, found by
 * the same walk as {@link changedWindows}, without context, each run ending
 * at the first line the texts share again, so that changes a few lines apart
 * stay apart, and a run of as many new lines as old ones taken line by line.
 */
export function changedLineRegions(before: string, after: string): { start: number; end: number; text: string }[] {
  const skipped = sharedLeadingLines(before, after, 0);
  const old = splitLines(before.slice(skipped.length));
  const now = splitLines(after.slice(skipped.length));
  const regions: { start: number; end: number; text: string }[] = [];
  let i = 0;
  let j = 0;
  let offset = skipped.length;
  while (i < old.length || j < now.length) {
    if (i < old.length && j < now.length && old[i] === now[j]) {
      offset += (old[i] as string).length;
      i++;
      j++;
      continue;
    }
    const [endOld, endNew] = resync(old, now, i, j, 1);
    if (endOld - i === endNew - j) {
      // As many lines on both sides: each line replaced by its counterpart, a region of its own.
      for (; i < endOld; i++, j++) {
        const line = old[i] as string;
        if (line !== now[j]) regions.push({ start: offset, end: offset + line.length, text: now[j] as string });
        offset += line.length;
      }
      continue;
    }
    const replaced = old.slice(i, endOld).join('');
    regions.push({ start: offset, end: offset + replaced.length, text: now.slice(j, endNew).join('') });
    offset += replaced.length;
    i = endOld;
    j = endNew;
  }
  return regions;
}

/**
 * The hunk of a Replacement, as jsdiff writes one whose lines have nothing
 * in common: context, the old lines, the new ones, the context after, each
 * last line without a line feed marked. Diffing such a region would cost the
 * square of its length (250,000 lines each moved below a comment of their
 * own: hours) and find next to nothing in common.
 */
function replacementHunk(hunk: Replacement): string {
  const unchanged = hunk.context.length + hunk.trailing.length;
  const out = [
    `@@ -${range(hunk.oldOffset + 1, unchanged + hunk.replaced.length)} +${range(hunk.newOffset + 1, unchanged + hunk.replacing.length)} @@\n`,
  ];
  const emit = (mark: string, line: string): void => {
    out.push(line.endsWith('\n') ? `${mark}${line}` : `${mark}${line}\n\\ No newline at end of file\n`);
  };
  for (const line of hunk.context) emit(' ', line);
  for (const line of hunk.replaced) emit('-', line);
  for (const line of hunk.replacing) emit('+', line);
  for (const line of hunk.trailing) emit(' ', line);
  return out.join('');
}

/** Where the texts agree again after differing at (i, j): the first pair of positions, fewest lines skipped first, followed by `equal` equal lines or both ends. */
function resync(old: readonly string[], now: readonly string[], i: number, j: number, equal = RESYNC): [number, number] {
  for (let skipped = 1; skipped <= RESYNC_REACH; skipped++) {
    for (let skippedOld = 0; skippedOld <= skipped; skippedOld++) {
      const [k, l] = [i + skippedOld, j + skipped - skippedOld];
      if (k > old.length || l > now.length) continue;
      if (agree(old, now, k, l, equal)) return [k, l];
    }
  }
  return [old.length, now.length];
}

function agree(old: readonly string[], now: readonly string[], k: number, l: number, equal: number): boolean {
  for (let offset = 0; offset < equal; offset++) {
    const [a, b] = [old[k + offset], now[l + offset]];
    if (a === undefined || b === undefined) return a === undefined && b === undefined;
    if (a !== b) return false;
  }
  return true;
}

/**
 * The whole lines two texts start with alike, less `keep` of them, and their
 * length: the walks above need not split and compare them (a fix changes a
 * line or two of a file). The first difference is found by comparing halves,
 * which V8 does natively; only the lines before it are counted.
 */
function sharedLeadingLines(before: string, after: string, keep: number): { lines: number; length: number } {
  let alike = 0;
  let differs = Math.min(before.length, after.length) + 1;
  while (differs - alike > 1) {
    const middle = (alike + differs) >>> 1;
    if (before.slice(alike, middle) === after.slice(alike, middle)) alike = middle;
    else differs = middle;
  }
  const ends: number[] = [];
  for (let end = before.indexOf('\n'); end !== -1 && end < alike; end = before.indexOf('\n', end + 1)) ends.push(end + 1);
  const lines = Math.max(0, ends.length - keep);
  return { lines, length: lines === 0 ? 0 : (ends[lines - 1] as number) };
}

/** Lines with their line feeds, as jsdiff compares them (a CR stays part of its line). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end + 1;
    lines.push(text.slice(start, stop));
    start = stop;
  }
  return lines;
}

/**
 * Each file's part of a patch {@link unifiedDiff} made, by the patch path of
 * its file (FileChange.patchPath): the JSON report gives every file its own.
 * A part starts at its `diff --git` line, which no hunk line can be (those
 * start with a blank, `+`, `-`, `@` or `\`).
 */
export class FilePatches {
  /** By the `diff --git` line. */
  private readonly parts = new Map<string, string>();
  /** By the relative path, for the parts whose path needs no quotes (PLAIN_HEADER). */
  private readonly plainParts = new Map<string, string>();

  constructor(patch: string) {
    for (let start = 0; start < patch.length;) {
      const next = patch.indexOf('\ndiff --git ', start);
      const end = next === -1 ? patch.length : next + 1;
      const part = patch.slice(start, end);
      const header = part.slice(0, part.indexOf('\n') + 1);
      this.parts.set(header, part);
      const plain = PLAIN_HEADER.exec(header);
      if (plain?.[1] !== undefined && plain[1] === plain[2]) this.plainParts.set(plain[1], part);
      start = end;
    }
  }

  /**
   * The part of the file with this patch path; '' when the patch does not
   * change it. A plain path is looked up as it is: the report asks this of
   * every file read, and a header made and hashed for each of 10,000 files
   * took 20 ms.
   */
  of(patchPath: string): string {
    if (this.parts.size === 0) return '';
    const path = relativePath(patchPath);
    if (!NEEDS_QUOTES.test(path)) return this.plainParts.get(path) ?? '';
    return this.parts.get(gitHeader(quotePath(`a/${path}`), quotePath(`b/${path}`))) ?? '';
  }
}

/** The `diff --git` line of a path without quotes: quotePath quotes every path with a blank. */
const PLAIN_HEADER = /^diff --git a\/([^\s"]+) b\/([^\s"]+)\n$/;

/** A patch path as the patch names it: relative, as `git apply` and `patch -p1` take it. */
function relativePath(patchPath: string): string {
  return patchPath.replace(/^\/+/, '');
}

function gitHeader(a: string, b: string): string {
  return `diff --git ${a} ${b}\n`;
}

/** What quotePath quotes a path for: a blank or control character, a quote, a backslash, anything not ASCII. */
const NEEDS_QUOTES = /[\x00-\x20"\\\x7f-\uffff]/;

const C_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A path as git writes it in a patch: as it is when plain, else in double
 * quotes with C escapes and non-ASCII bytes in octal. Unlike git, a space
 * also gets quotes, since GNU patch reads an unquoted name only up to it;
 * both tools read the quoted form.
 */
function quotePath(path: string): string {
  if (!NEEDS_QUOTES.test(path)) return path;
  let quoted = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    quoted += C_ESCAPES[char] ?? (byte < 0x20 || byte >= 0x7f ? `\\${byte.toString(8).padStart(3, '0')}` : char);
  }
  return `"${quoted}"`;
}

/** An empty side of a hunk names the line before it (the unified format's quirk). */
function range(start: number, lines: number): string {
  return lines === 0 ? `${start - 1},0` : `${start},${lines}`;
}
