import type { Sizing } from '../analysis/sizing.js';
import type { SourceFile } from '../core/source-file.js';
import {
  compareDiagnostics,
  overLimitKey,
  renderTemplate,
  type LintRecord,
  type RuleSelection,
  type UnitResult,
} from '../engine/linter.js';
import type { FileFix } from '../engine/result.js';
import type { Diagnostic } from '../engine/types.js';
import { applyFixes, chooseFixes, withoutFix, type FixType } from './apply.js';

export const MAX_FIX_PASSES = 10;

/** The rule that reports a fix left out of the patch because its finding survived it. */
const FIX_WITHOUT_EFFECT = 'TL0009';

/** When the passes do not settle, a finding whose fix went in this many passes is taken for one the fix does not remove. */
const STUCK_AFTER_PASSES = 3;

/** What the passes work on: the configs as read, and how to read and lint them again with some files' texts replaced. */
export interface PassSubject<Loaded extends { readonly files: readonly SourceFile[] }> {
  readonly first: Loaded;
  readonly initial: UnitResult;
  readonly rules: RuleSelection;
  /** `none`: no pass at all (a plain lint). */
  readonly fixType: FixType | 'none';
  /** The configs read with these texts (by real path) in place of the files', reusing what `previous` read. */
  reload(overlay: ReadonlyMap<string, string>, previous: Loaded): Loaded;
  /** The findings with fixes and the reader problems of configs a pass read, and their sizing; `before` is an earlier lint of the host (LintRecord). */
  relint(loaded: Loaded, before: LintRecord): UnitResult;
}

export interface PassOutcome {
  /** The first lint's findings, those whose fix did not take effect without it, with a TL0009 for each. */
  readonly diagnostics: readonly Diagnostic[];
  readonly fixes: readonly FileFix[];
  /** The sizing over the fixed configs, when the fixes changed anything. */
  readonly sizingAfter: Sizing | undefined;
  readonly passes: number;
  readonly followUps: readonly Diagnostic[];
}

/**
 * Computes the fixes in passes: apply the fixes that do not overlap, read and
 * lint again, until nothing changes, a text comes back, a pass adds a parse
 * error, or MAX_FIX_PASSES. When the passes do not settle, a finding whose fix
 * went in pass after pass is one the fix does not remove (a line added where
 * the server does not read it, ten times): the passes are made again from
 * before its first fix, without it, and the finding keeps no fix. Fixes that
 * take effect can take a few passes for one finding, as several lines with the
 * same text are fixed one a pass.
 */
export function runFixPasses<Loaded extends { readonly files: readonly SourceFile[] }>(subject: PassSubject<Loaded>): PassOutcome {
  return new FixPasses(subject).run();
}

/**
 * What the passes have reached after a pass. The configs read in it are not
 * kept: a pass gone back to reads them again, which is rare, where keeping
 * them held a whole model per pass (2 GB for ten passes over a big file).
 */
interface PassState {
  readonly overlay: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
  readonly sizingAfter: Sizing | undefined;
  /** How many follow-ups were listed by then. */
  readonly followUps: number;
}

class FixPasses<Loaded extends { readonly files: readonly SourceFile[] }> {
  private state: PassState;
  /** The configs of the current state, read with its overlay. */
  private current: Loaded;
  private passes = 0;
  private readonly originals = new Map<string, SourceFile>();
  private readonly baselineErrors: number;
  private readonly seen = new SeenStates();
  private readonly followUps: Diagnostic[] = [];
  /** A fix that lost to an overlapping one comes back in the next pass; that is the same finding, not a follow-up. */
  private readonly fixableAtFirst: ReadonlySet<string>;
  /** Rules and files past the limit of findings listed, in the first lint. */
  private readonly overLimit: ReadonlySet<string>;
  /** Findings whose fix did not take effect. */
  private readonly withoutEffect = new Map<string, Diagnostic>();
  /** The state after each pass (the first: before any), to go back to when such a finding shows. */
  private readonly states: PassState[];
  /** The passes that applied each finding's fix. */
  private readonly appliedIn = new Map<string, { readonly passes: number[]; readonly diagnostic: Diagnostic }>();
  /** The latest lint, whatever pass: a relint takes from it only what is exactly the same again. */
  private latest: LintRecord;

  constructor(private readonly subject: PassSubject<Loaded>) {
    const { first, initial } = subject;
    this.remember(first.files);
    this.baselineErrors = parseErrorCount(initial.diagnostics);
    this.overLimit = initial.overLimit;
    this.fixableAtFirst = new Set(
      initial.diagnostics.filter((diagnostic) => diagnostic.fix !== undefined && diagnostic.fix.deferred !== true).map(findingKey),
    );
    this.state = { overlay: new Map(), diagnostics: initial.diagnostics, sizingAfter: undefined, followUps: 0 };
    this.current = first;
    this.states = [this.state];
    this.latest = initial.record;
  }

  run(): PassOutcome {
    // Going back leaves out one more fix at least, so this bounds the passes made again too.
    for (let attempts = 0; attempts < 3 * MAX_FIX_PASSES; attempts++) {
      const settled = this.passes >= MAX_FIX_PASSES ? !this.goBackBeforeStuckFixes() : !this.pass();
      if (settled) break;
    }
    return this.outcome();
  }

  /** One pass; false when there is nothing more to do. */
  private pass(): boolean {
    const { diagnostics, overlay } = this.state;
    const { fixType } = this.subject;
    if (fixType === 'none') return false;
    const fixes = chooseFixes(
      diagnostics.filter((diagnostic) => !this.withoutEffect.has(findingKey(diagnostic)) && !this.beyondListed(diagnostic)),
      fixType,
    );
    if (fixes.length === 0) return false;
    const chosen = new Set(fixes);
    const applying = diagnostics.filter((diagnostic) => diagnostic.fix !== undefined && chosen.has(diagnostic.fix));
    const next = new Map(overlay);
    for (const [real, { text }] of applyFixes(fixes)) next.set(real, text);
    if (!this.seen.add(next)) return false;
    const loaded = this.subject.reload(next, this.current);
    const relinted = this.subject.relint(loaded, this.latest);
    this.latest = relinted.record;
    if (parseErrorCount(relinted.diagnostics) > this.baselineErrors) return false;
    this.remember(loaded.files);
    if (this.passes > 0) this.noteFollowUps(applying);
    for (const diagnostic of applying) {
      const key = findingKey(diagnostic);
      const applied = this.appliedIn.get(key);
      if (applied === undefined) this.appliedIn.set(key, { passes: [this.passes], diagnostic });
      else if (applied.passes[applied.passes.length - 1] !== this.passes) applied.passes.push(this.passes);
    }
    this.passes++;
    this.current = loaded;
    this.state = {
      overlay: next,
      diagnostics: relinted.diagnostics,
      sizingAfter: relinted.sizing,
      followUps: this.followUps.length,
    };
    this.states.push(this.state);
    return true;
  }

  /** The findings of a later pass that the input did not have; one whose fix goes in over several passes (a line a pass) is listed once. */
  private noteFollowUps(applying: readonly Diagnostic[]): void {
    const listed = new Set(this.followUps.map(findingKey));
    for (const diagnostic of applying) {
      const key = findingKey(diagnostic);
      if (this.fixableAtFirst.has(key) || listed.has(key)) continue;
      this.followUps.push(diagnostic);
      listed.add(key);
    }
  }

  /**
   * A fix a later pass offers, of a rule that found more in its file than it
   * lists (TL0010): the patch holds the fixes of the findings listed, applied
   * in the first pass, not one more thousand a pass (which the passes could
   * not tell from the first: a thousand lines of the same text are one
   * finding to them).
   */
  private beyondListed(diagnostic: Diagnostic): boolean {
    return this.passes > 0 && this.overLimit.has(overLimitKey(diagnostic.ruleId, diagnostic.file));
  }

  /** After MAX_FIX_PASSES: back to before the first fix of the findings whose fix went in pass after pass; false when there are none. */
  private goBackBeforeStuckFixes(): boolean {
    const stuck = [...this.appliedIn].filter(([, applied]) => applied.passes.length >= STUCK_AFTER_PASSES);
    if (stuck.length === 0) return false;
    const back = stuck.reduce((earliest, [, applied]) => Math.min(earliest, applied.passes[0] as number), Infinity);
    for (const [key, applied] of stuck) this.withoutEffect.set(key, applied.diagnostic);
    this.state = this.states[back] as PassState;
    this.current = back === 0 ? this.subject.first : this.subject.reload(this.state.overlay, this.subject.first);
    this.followUps.length = this.state.followUps;
    this.states.length = back + 1;
    for (const [key, applied] of this.appliedIn) {
      while (applied.passes.length > 0 && (applied.passes[applied.passes.length - 1] as number) >= back) applied.passes.pop();
      if (applied.passes.length === 0) this.appliedIn.delete(key);
    }
    this.passes = back;
    return true;
  }

  private outcome(): PassOutcome {
    const fixes: FileFix[] = [];
    for (const [real, after] of this.state.overlay) {
      const original = this.originals.get(real);
      if (original !== undefined && original.text !== after) fixes.push({ file: original, before: original.text, after });
    }
    const reported = this.subject.initial.diagnostics;
    return {
      diagnostics:
        this.withoutEffect.size === 0 ? reported : droppingFixes(reported, this.withoutEffect, this.subject.rules, this.originals),
      fixes,
      sizingAfter: fixes.length === 0 ? undefined : this.state.sizingAfter,
      passes: this.passes,
      followUps: this.followUps,
    };
  }

  /** Each real file as first read: what a fix's before and after are taken against. */
  private remember(files: readonly SourceFile[]): void {
    for (const file of files) if (!this.originals.has(file.realPath)) this.originals.set(file.realPath, file);
  }
}

/**
 * The findings as reported, those whose fix did not take effect without it
 * (the patch leaves it out), and for each such fix a TL0009 at the finding,
 * unless that rule is off for the file. A finding a later pass made is
 * placed at the start of the file as read, since its position is in text
 * the patch no longer has.
 */
function droppingFixes(
  diagnostics: readonly Diagnostic[],
  withoutEffect: ReadonlyMap<string, Diagnostic>,
  rules: RuleSelection,
  originals: ReadonlyMap<string, SourceFile>,
): Diagnostic[] {
  const out = diagnostics.map((diagnostic) =>
    diagnostic.fix !== undefined && withoutEffect.has(findingKey(diagnostic)) ? withoutFix(diagnostic) : diagnostic,
  );
  const rule = rules.rules.find((candidate) => candidate.meta.id === FIX_WITHOUT_EFFECT);
  if (rule === undefined) return out;
  for (const [key, later] of withoutEffect) {
    const reported = diagnostics.find((diagnostic) => findingKey(diagnostic) === key);
    const file = reported?.file ?? originals.get(later.file.realPath);
    if (file === undefined) continue;
    const severity = rules.setting(rule, file).severity;
    if (severity === 'off') continue;
    const range = reported?.range ?? ([0, 0] as const);
    out.push({
      ruleId: rule.meta.id,
      ruleName: rule.meta.name,
      severity,
      ...renderTemplate(rule.meta.messages.dropped ?? '', { rule: `${later.ruleId} ${later.ruleName}` }),
      file,
      range,
      start: reported?.start ?? file.position(0),
      end: reported?.end ?? file.position(0),
      context: reported?.context ?? [],
    });
  }
  return out.sort(compareDiagnostics);
}

/**
 * What makes two passes' reports one finding: the rule, the file and the text
 * it points at, in the same sections. A finding an earlier fix caused points
 * at text that fix changed, or is not in the first pass at all.
 */
function findingKey(diagnostic: Diagnostic): string {
  const [start, end] = diagnostic.range;
  return [diagnostic.ruleId, diagnostic.file.realPath, diagnostic.file.text.slice(start, end), ...diagnostic.context].join('\0');
}

/** Errors of the readers: a parse error, or an option file the server's reader refuses (MY1001). */
function parseErrorCount(diagnostics: readonly Diagnostic[]): number {
  return diagnostics.filter(
    (diagnostic) => diagnostic.ruleId === 'TL0001' || (diagnostic.ruleId === 'MY1001' && diagnostic.severity === 'error'),
  ).length;
}

/**
 * The states the passes reach, to notice one seen before. Each path and each
 * text gets a number the first time it shows, and a state is the list of its
 * numbers: Map finds a text by V8's own hash and comparison of strings, where
 * a hash taken here a character at a time ran in the interpreter in a short
 * lint (6.6 M of the stock Debian lint's instructions). Exact, and the texts
 * it holds are those the passes reached, which their states hold too.
 */
export class SeenStates {
  private readonly numbers = new Map<string, number>();
  private readonly states = new Set<string>();

  /** Remembers the texts by path; false when the same texts were seen before. */
  add(texts: ReadonlyMap<string, string>): boolean {
    const parts: number[] = [];
    for (const [real, text] of texts) parts.push(this.numberOf(real), this.numberOf(text));
    const state = parts.join(',');
    if (this.states.has(state)) return false;
    this.states.add(state);
    return true;
  }

  private numberOf(text: string): number {
    let number = this.numbers.get(text);
    if (number === undefined) {
      number = this.numbers.size;
      this.numbers.set(text, number);
    }
    return number;
  }
}
