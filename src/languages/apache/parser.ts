import type { Range } from '../../core/types.js';
import type { ApacheArg, ApacheNode, CloseTag, DirectiveNode, ErrorNode, ParseProblem, SectionNode } from './cst.js';
import { isSpace, LineView, LogicalLines, nextWord, splitWords, wordValues, type LogicalLine, type Word } from './lexer.js';
import { printApache } from './print.js';
import { remembered } from '../../util/remembered.js';
import { asciiLowerCase } from '../../util/ascii.js';

const DEFAULT_MAX_NESTING = 1_000;

/**
 * The argument nodes of the directives and sections a rule asked for them
 * (with their ranges): a few lines of a file, so kept here rather than in a
 * field of every node (the model reads argument values, not nodes).
 */
const argumentNodes = new WeakMap<DirectiveNode | SectionNode, readonly ApacheArg[]>();

/** Shared by every file that parses cleanly, most of them. */
const NO_PROBLEMS: readonly ParseProblem[] = Object.freeze([]);

/**
 * A parsed Apache config file. The nodes tile the text, so `toString()`
 * gives back the input byte for byte, whatever it contains.
 */
export class ApacheDocument {
  constructor(
    readonly text: string,
    readonly nodes: readonly ApacheNode[],
    readonly problems: readonly ParseProblem[],
  ) {}

  toString(): string {
    return printApache(this);
  }
}

interface OpenSection {
  readonly line: LogicalLine;
  /** The name as written and lower-cased (once: every close tag compares against the whole stack). */
  readonly spelled: readonly [string, string];
  readonly argsText: string;
  /** Where argsText starts in the line's text. */
  readonly argsOffset: number;
  readonly afterClose: string;
  readonly children: ApacheNode[];
}

/**
 * Parses Apache httpd configuration text. Never throws: broken structure
 * (unclosed or stray `</X>`, a section line without `>`) becomes problems with
 * httpd's own wording, and the rest of the file is still parsed.
 */
export function parseApache(text: string, options: { maxNesting?: number } = {}): ApacheDocument {
  const maxNesting = options.maxNesting ?? DEFAULT_MAX_NESTING;
  const problems: ParseProblem[] = [];
  const root: ApacheNode[] = [];
  const stack = new OpenSections();
  const lines = new LogicalLines(text);
  const current = (): ApacheNode[] => parentOf(stack, root);

  while (lines.advance()) {
    if (lines.joined === undefined && readFromOffsets(lines, stack, root, problems)) continue;
    const line = lines.joined ?? new LineView(lines.start, lines.end, text, lines.contentStart, lines.contentEnd);
    // Read once: a view's text is a new slice of the file on each read.
    const lineText = line.text;
    if (lineText.length === 0) {
      current().push(new TextLine('blank', ...LineView.partsOf(line)));
      continue;
    }
    if (lineText.startsWith('#')) {
      current().push(new TextLine('comment', ...LineView.partsOf(line)));
      continue;
    }
    const first = nextWord(lineText, 0) as Word;
    const firstText = lineText.slice(first.start, first.end);
    if (firstText.startsWith('</')) {
      // httpd wants exactly `</Name>`: a close tag with more text (`</Directory >`) is an error, but closes.
      const [name, nameLower] = spelling(firstText.endsWith('>') ? firstText.slice(2, -1) : firstText.slice(2));
      if (!firstText.endsWith('>') || nextWord(lineText, first.end) !== undefined)
        problems.push({ message: `</${name}> directive missing closing '>'`, range: line.content });
      closeSection(new CloseLine(name, ...LineView.partsOf(line)), nameLower, stack, root, problems);
      continue;
    }
    if (firstText.startsWith('<')) {
      if (stack.length >= maxNesting) {
        const message = `sections nested deeper than ${maxNesting} levels; the rest of the file is not parsed`;
        problems.push({ message, range: [line.start, line.start] });
        current().push({ kind: 'error', line, range: [line.start, text.length], message } satisfies ErrorNode);
        break;
      }
      stack.push(openSection(line, lineText, firstText, first, problems));
      continue;
    }
    current().push(directive(line, first));
  }

  while (stack.length > 0) {
    const open = stack.pop() as OpenSection;
    problems.push({ message: `<${open.spelled[0]}> was not closed`, range: open.line.content });
    current().push(finishSection(open, undefined));
  }
  return new ApacheDocument(text, kept(root), problems.length === 0 ? NO_PROBLEMS : problems);
}

/**
 * A line of one physical line, read straight from its offsets when it is of
 * the common kinds: a blank, a comment, a directive whose name is a plain
 * word, a close tag `</Name>`. False for any other line, which the general
 * path reads. The view, text, first word and name slices that path makes per
 * line were most of what parsing a big file allocated.
 */
function readFromOffsets(lines: LogicalLines, stack: OpenSections, root: ApacheNode[], problems: ParseProblem[]): boolean {
  const { text, start, end, contentStart, contentEnd } = lines;
  if (contentStart === contentEnd) {
    parentOf(stack, root).push(new TextLine('blank', start, end, text, contentStart, contentEnd));
    return true;
  }
  const code = text.charCodeAt(contentStart);
  if (code === HASH) {
    parentOf(stack, root).push(new TextLine('comment', start, end, text, contentStart, contentEnd));
    return true;
  }
  if (code === LESS_THAN) {
    const spelled = text.charCodeAt(contentStart + 1) === SLASH ? plainCloseTag(text, contentStart, contentEnd) : undefined;
    if (spelled === undefined) return false;
    closeSection(new CloseLine(spelled[0], start, end, text, contentStart, contentEnd), spelled[1], stack, root, problems);
    return true;
  }
  if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) return false;
  let nameEnd = contentStart;
  let hash = FNV_OFFSET;
  for (let char = code; nameEnd < contentEnd && !isSpace(char); char = text.charCodeAt(++nameEnd)) {
    // An escape makes the name differ from its text: the general path unescapes it.
    if (char === BACKSLASH) return false;
    hash = hashStep(hash, char);
  }
  const spelled = spellings.at(text, contentStart, nameEnd, hash);
  parentOf(stack, root).push(new Directive(start, end, text, contentStart, contentEnd, spelled, nameEnd - contentStart));
  return true;
}

/** A comment or blank line, its own line; its range is made on first use, as a directive's. */
class TextLine<Kind extends 'comment' | 'blank'> extends LineView {
  constructor(
    readonly kind: Kind,
    start: number,
    end: number,
    source: string | LogicalLine,
    contentStart: number,
    contentEnd: number,
  ) {
    super(start, end, source, contentStart, contentEnd);
  }

  get line(): LogicalLine {
    return this;
  }

  get range(): Range {
    return [this.start, this.end];
  }
}

/**
 * A directive line, its own line. The name is read eagerly; the argument
 * nodes are built on first use, and the source ranges on each, from the line
 * itself: a 10,000-vhost tree has a quarter of a million directives, the
 * model reads only their argument values, and rules look at the ranges of a
 * few.
 */
class Directive extends LineView implements DirectiveNode {
  constructor(
    start: number,
    end: number,
    source: string | LogicalLine,
    contentStart: number,
    contentEnd: number,
    /** The name as written and in lower case, shared by the lines that spell it so. */
    private readonly spelled: readonly [string, string],
    /** Where the name ends in the line's text; it starts at 0, as the text is trimmed. */
    private readonly nameEnd: number,
  ) {
    super(start, end, source, contentStart, contentEnd);
  }

  get name(): string {
    return this.spelled[0];
  }

  get nameLower(): string {
    return this.spelled[1];
  }

  get kind(): 'directive' {
    return 'directive';
  }

  get line(): LogicalLine {
    return this;
  }

  /** Sliced on each use, not kept: the model asks once per line, and the lines are many. */
  get argsText(): string {
    return this.text.slice(this.nameEnd).trimStart();
  }

  get range(): Range {
    return [this.start, this.end];
  }

  get nameRange(): Range {
    return sourceRange(this, 0, this.nameEnd);
  }

  get args(): readonly ApacheArg[] {
    return remembered(argumentNodes, this, () => splitWords(this.text, this.nameEnd).map((word) => toArg(this, word)));
  }

  /** The argument values alone, without building the argument nodes. */
  argValues(): string[] {
    const nodes = argumentNodes.get(this);
    if (nodes !== undefined) return nodes.map((arg) => arg.value);
    return wordValues(this.text, this.nameEnd);
  }
}

/** `node.args.map((arg) => arg.value)`, cheaper for the parser's own nodes. */
export function argValues(node: DirectiveNode): string[] {
  return node instanceof Directive ? node.argValues() : node.args.map((arg) => arg.value);
}

/**
 * Directive and section names repeat: one string per spelling and one for its
 * lower case, shared by every line that spells the name so (for a bounded
 * number of spellings). On 10,000 vhosts the section names alone were a
 * tenth of the parse's memory. A name is looked up where it is written in the
 * text, by a hash taken as it is scanned: the slice a Map lookup needs was,
 * with the Map's own hashing of it, a sixth of parsing a big file.
 */
class Spellings {
  private slots: (readonly [string, string] | undefined)[] = new Array<undefined>(256).fill(undefined);
  private size = 0;

  /** The spelling of `text` from `from` to `to`, whose hash by {@link hashStep} is `hash`. */
  at(text: string, from: number, to: number, hash: number): readonly [string, string] {
    const length = to - from;
    const mask = this.slots.length - 1;
    for (let probe = 0, slot = hash & mask; probe < MAX_PROBES; probe++, slot = (slot + 1) & mask) {
      const known = this.slots[slot];
      if (known === undefined) break;
      if (known[0].length === length && text.startsWith(known[0], from)) return known;
    }
    const name = text.slice(from, to);
    const made = [name, asciiLowerCase(name)] as const;
    if (this.size < MAX_SPELLINGS) this.insert(made, hash);
    return made;
  }

  private insert(spelled: readonly [string, string], hash: number): void {
    // Kept at most half full, so that a miss ends at an empty slot soon.
    if (2 * (this.size + 1) > this.slots.length) {
      const old = this.slots;
      this.slots = new Array<undefined>(old.length * 2).fill(undefined);
      this.size = 0;
      for (const known of old) if (known !== undefined) this.place(known, hashOf(known[0]));
    }
    this.place(spelled, hash);
  }

  /**
   * Puts a spelling within MAX_PROBES slots of its hash, or leaves it out: the
   * hash is no secret, and names a file makes collide on purpose must not make
   * every lookup walk them all (a name left out is only made again when met).
   */
  private place(spelled: readonly [string, string], hash: number): void {
    const mask = this.slots.length - 1;
    for (let probe = 0, slot = hash & mask; probe < MAX_PROBES; probe++, slot = (slot + 1) & mask) {
      if (this.slots[slot] !== undefined) continue;
      this.slots[slot] = spelled;
      this.size++;
      return;
    }
  }
}

/** How many slots a lookup or an insertion looks at, at most. */
const MAX_PROBES = 16;
const MAX_SPELLINGS = 10_000;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** One character into a name's FNV-1a hash. */
function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

function hashOf(name: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < name.length; index++) hash = hashStep(hash, name.charCodeAt(index));
  return hash;
}

const spellings = new Spellings();

function spelling(name: string): readonly [string, string] {
  return spellings.at(name, 0, name.length, hashOf(name));
}

function directive(line: LogicalLine, first: Word): DirectiveNode {
  return new Directive(...LineView.partsOf(line), spelling(first.value), first.end);
}

const HASH = 35;
const SLASH = 47;
const GREATER_THAN = 62;
const BACKSLASH = 92;
const LESS_THAN = 60;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;

function openSection(line: LogicalLine, lineText: string, firstText: string, first: Word, problems: ParseProblem[]): OpenSection {
  const bareName = firstText.endsWith('>') ? firstText.slice(1, -1) : firstText.slice(1);
  const rest = lineText.slice(first.end).trim();
  // httpd cuts the arguments at the last `>` and drops whatever follows it.
  const lastGt = rest.lastIndexOf('>');
  const closed = firstText.endsWith('>') ? rest === '' : lastGt !== -1;
  if (!closed) problems.push({ message: `<${bareName}> directive missing closing '>'`, range: line.content });
  const argsText = lastGt === -1 ? rest : rest.slice(0, lastGt).trimEnd();
  const afterClose = lastGt === -1 ? '' : rest.slice(lastGt + 1);
  const argsOffset = argsText === '' ? first.end : lineText.indexOf(argsText, first.end);
  return {
    line,
    spelled: spelling(bareName),
    argsText,
    argsOffset,
    afterClose,
    children: [],
  };
}

/**
 * The name of a close tag written `</Name>` and nothing else (no blank in it),
 * read where it stands; undefined for any other line, which the general path
 * reads as httpd does.
 */
function plainCloseTag(text: string, contentStart: number, contentEnd: number): readonly [string, string] | undefined {
  const nameEnd = contentEnd - 1;
  if (nameEnd <= contentStart + 2 || text.charCodeAt(nameEnd) !== GREATER_THAN) return undefined;
  let hash = FNV_OFFSET;
  for (let at = contentStart + 2; at < nameEnd; at++) {
    const code = text.charCodeAt(at);
    if (isSpace(code)) return undefined;
    hash = hashStep(hash, code);
  }
  return spellings.at(text, contentStart + 2, nameEnd, hash);
}

function closeSection(closeTag: CloseLine, nameLower: string, stack: OpenSections, root: ApacheNode[], problems: ParseProblem[]): void {
  const { name } = closeTag;
  const top = stack.top();
  const matchAt = stack.find(nameLower);
  if (top !== undefined && matchAt === stack.length - 1) {
    stack.pop();
    parentOf(stack, root).push(finishSection(top, closeTag));
    return;
  }
  if (top === undefined) {
    const message = `</${name}> without matching <${name}> section`;
    problems.push({ message, range: closeTag.content });
    root.push({ kind: 'error', line: closeTag, range: [closeTag.start, closeTag.end], message });
    return;
  }
  problems.push({ message: `Expected </${top.spelled[0]}> but saw </${name}>`, range: closeTag.content });
  if (matchAt === -1) {
    top.children.push({ kind: 'error', line: closeTag, range: [closeTag.start, closeTag.end], message: `stray </${name}>` });
    return;
  }
  while (stack.length - 1 > matchAt) {
    const unclosed = stack.pop() as OpenSection;
    parentOf(stack, root).push(finishSection(unclosed, undefined));
  }
  const matched = stack.pop() as OpenSection;
  parentOf(stack, root).push(finishSection(matched, closeTag));
}

/**
 * The sections open at a point of the file, with a count per name, so that a
 * close tag that matches none of them (a stray `</X>`, possibly a hundred
 * thousand times under a thousand open sections) costs no scan of the stack.
 */
class OpenSections {
  private readonly items: OpenSection[] = [];
  private readonly counts = new Map<string, number>();

  get length(): number {
    return this.items.length;
  }

  top(): OpenSection | undefined {
    return this.items[this.items.length - 1];
  }

  push(section: OpenSection): void {
    this.items.push(section);
    const nameLower = section.spelled[1];
    this.counts.set(nameLower, (this.counts.get(nameLower) ?? 0) + 1);
  }

  pop(): OpenSection | undefined {
    const section = this.items.pop();
    if (section === undefined) return undefined;
    const nameLower = section.spelled[1];
    const left = (this.counts.get(nameLower) ?? 1) - 1;
    if (left === 0) this.counts.delete(nameLower);
    else this.counts.set(nameLower, left);
    return section;
  }

  /** Depth of the innermost open section with this lower-case name, -1 when none is open. */
  find(nameLower: string): number {
    if (!this.counts.has(nameLower)) return -1;
    for (let i = this.items.length - 1; i >= 0; i--) {
      if ((this.items[i] as OpenSection).spelled[1] === nameLower) return i;
    }
    return -1;
  }
}

function parentOf(stack: OpenSections, root: ApacheNode[]): ApacheNode[] {
  return stack.top()?.children ?? root;
}

function finishSection(open: OpenSection, close: CloseTag | undefined): SectionNode {
  const last = open.children[open.children.length - 1];
  return new Section(open, close, close?.line.end ?? last?.range[1] ?? open.line.end);
}

/**
 * The nodes of a section or file, kept: a copy as long as its length. An
 * array filled by push keeps the room it grew by (a third and more), which
 * on a file of vhosts was a tenth of the parse's memory.
 */
function kept(nodes: ApacheNode[]): readonly ApacheNode[] {
  return nodes.length === 0 ? NO_NODES : nodes.slice();
}

const NO_NODES: readonly ApacheNode[] = Object.freeze([]);

/**
 * A section; like a directive's, its argument nodes are built on first use
 * and its source ranges on each (the model reads the argument text).
 */
class Section implements SectionNode {
  /** The name as written and in lower case, shared by the sections that spell it so. */
  private readonly spelled: readonly [string, string];
  readonly argsText: string;
  readonly afterClose: string;
  readonly open: LogicalLine;
  readonly children: readonly ApacheNode[];
  private readonly argsOffset: number;

  constructor(
    opened: OpenSection,
    readonly close: CloseTag | undefined,
    private readonly end: number,
  ) {
    this.spelled = opened.spelled;
    this.argsText = opened.argsText;
    this.argsOffset = opened.argsOffset;
    this.afterClose = opened.afterClose;
    this.open = opened.line;
    this.children = kept(opened.children);
  }

  get kind(): 'section' {
    return 'section';
  }

  get name(): string {
    return this.spelled[0];
  }

  get nameLower(): string {
    return this.spelled[1];
  }

  get range(): Range {
    return [this.open.start, this.end];
  }

  get nameRange(): Range {
    // The open line's text is trimmed: `<` at 0, the name after it.
    return sourceRange(this.open, 1, 1 + this.name.length);
  }

  get args(): readonly ApacheArg[] {
    return remembered(argumentNodes, this, () =>
      splitWords(this.argsText).map((word) =>
        toArg(this.open, { ...word, start: word.start + this.argsOffset, end: word.end + this.argsOffset }),
      ),
    );
  }
}

/** A close tag line, its own line. */
class CloseLine extends LineView implements CloseTag {
  constructor(
    readonly name: string,
    start: number,
    end: number,
    source: string | LogicalLine,
    contentStart: number,
    contentEnd: number,
  ) {
    super(start, end, source, contentStart, contentEnd);
  }

  get line(): LogicalLine {
    return this;
  }

  get range(): Range {
    return [this.start, this.end];
  }
}

function toArg(line: LogicalLine, word: Word): ApacheArg {
  return { value: word.value, range: sourceRange(line, word.start, word.end), quote: word.quote, unterminated: word.unterminated };
}

/** Source range of [start, end) in the logical text; end maps past the last character. */
function sourceRange(line: LogicalLine, start: number, end: number): Range {
  const from = line.sourceOffset(start);
  return [from, end > start ? line.sourceOffset(end - 1) + 1 : from];
}
