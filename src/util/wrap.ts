const ESCAPE = /\u001b\[[0-9;]*m/y;

/** `text` without its colour escapes: what a terminal shows of it. */
export function withoutColour(text: string): string {
  return text.replace(new RegExp(ESCAPE.source, 'g'), '');
}

/**
 * `line` cut into lines of at most `width` visible characters (colour
 * escapes take none), at spaces after the `keep` first characters (a bar or
 * a `12:5  error` column is never split), each further line indented by
 * `indent` spaces. A word longer than a line is cut where the line ends, so
 * no line is wider than `width`. Without a width, the line as it is.
 */
export function wrapLine(line: string, width: number | undefined, indent: number, keep = indent): string[] {
  if (width === undefined || visibleLength(line) <= width) return [line];
  // An indent that leaves almost no room would cut a line into slivers, or forever: ten columns at least.
  const room = Math.max(width, indent + 10);
  const out: string[] = [];
  let rest = line;
  let first = true;
  while (visibleLength(rest) > room) {
    const cut = cutAt(rest, room, first ? keep : indent);
    out.push(rest.slice(0, cut.end).trimEnd());
    rest = ' '.repeat(indent) + rest.slice(cut.next).trimStart();
    first = false;
  }
  out.push(rest);
  return out;
}

function visibleLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length;) {
    ESCAPE.lastIndex = index;
    if (ESCAPE.test(text)) index = ESCAPE.lastIndex;
    else {
      length++;
      index++;
    }
  }
  return length;
}

/** Where to end this line (string index) and where the next one starts: the last space that fits after `keep`, else the width. */
function cutAt(text: string, width: number, keep: number): { end: number; next: number } {
  let visible = 0;
  let lastSpace = -1;
  let hard = text.length;
  for (let index = 0; index < text.length;) {
    ESCAPE.lastIndex = index;
    if (ESCAPE.test(text)) {
      index = ESCAPE.lastIndex;
      continue;
    }
    if (visible === width) {
      hard = index;
      // A space just past the edge ends the line as well as one inside it.
      if (text[index] === ' ' && visible > keep) lastSpace = index;
      break;
    }
    if (text[index] === ' ' && visible >= keep) lastSpace = index;
    visible++;
    index++;
  }
  return lastSpace > 0 ? { end: lastSpace, next: lastSpace + 1 } : { end: hard, next: hard };
}
