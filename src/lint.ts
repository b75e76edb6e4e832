import { UserError } from './util/user-error.js';
import * as path from 'node:path';
import type { HostFacts } from './host/facts.js';
import { ConfigFileSystem, FileAccessError, type Limits } from './core/file-system.js';
import { applyFixes, chooseFixes, withoutFix, type FixType } from './fix/apply.js';
import { compareDiagnostics, lintUnit, render, type RuleSelection } from './engine/linter.js';
import { DEFAULT_BUDGET, type Budget, type Sizing } from './analysis/sizing.js';
import type { SourceFile } from './core/source-file.js';
import { DEFAULT_TARGETS, type Targets } from './core/targets.js';
import type { LintTimer } from './engine/timing.js';
import type { Diagnostic, Language } from './engine/types.js';
import { detectLanguage, languageFromName } from './languages/detect.js';
import { ApacheConfig, loadApache } from './languages/apache/model.js';
import { loadMycnf, type MycnfConfig } from './languages/mycnf/model.js';
import type { FileFix, LintResult } from './engine/result.js';

export const MAX_FIX_PASSES = 10;

/** The rule that reports a fix left out of the patch because its finding survived it. */
const FIX_WITHOUT_EFFECT = 'TL0009';

/** When the passes do not settle, a finding whose fix went in this many passes is taken for one the fix does not remove. */
const STUCK_AFTER_PASSES = 3;

export interface LintInput {
  /** Main config files: apache2.conf/httpd.conf and my.cnf; included files are found from them. */
  readonly paths: readonly string[];
  readonly cwd?: string;
  readonly sysroot?: string;
  /** The server path the sysroot holds (`/etc/httpd` for a repository of its files); `/` when not given. */
  readonly sysrootAt?: string;
  /** Forces the language of every path (`--lang`). */
  readonly language?: Language;
  readonly targets?: Targets;
  readonly host?: HostFacts;
  readonly budget?: Partial<Budget>;
  readonly rules: RuleSelection;
  /** Which fixes to compute; 'none' skips the fix passes. */
  readonly fixType?: FixType | 'none';
  readonly limits?: Partial<Limits>;
  readonly apache?: { readonly serverRoot?: string; readonly defines?: readonly string[] };
  /**
   * Base directory for relative `!include` paths (the server resolves them
   * against its working directory): a path on this disk, which under a
   * sysroot is taken as the server path it stands for.
   */
  readonly includeBase?: string;
  /** Collects where the time went, per rule and reading the configs (the CLI's TIMING). */
  readonly timer?: LintTimer;
}


export type { FileFix, LintResult } from './engine/result.js';

/** A problem with the input itself (a main file that cannot be read): exit code 2. */
export class InputError extends UserError {}

interface Loaded {
  readonly apache: ApacheConfig[];
  readonly mycnf: MycnfConfig | undefined;
  readonly files: SourceFile[];
  readonly languages: Map<SourceFile, Language>;
}

/**
 * Lints the configs of one host together: reads every main file and what it
 * includes, runs the rules, and computes the fixes in passes (apply the
 * non-overlapping ones, re-read, re-lint) until nothing changes.
 */
export async function lint(input: LintInput): Promise<LintResult> {
  const cwd = input.cwd ?? process.cwd();
  const fs = new ConfigFileSystem({ sysroot: input.sysroot, sysrootAt: input.sysrootAt, cwd, ...(input.limits === undefined ? {} : { limits: input.limits }) });
  const targets = input.targets ?? DEFAULT_TARGETS;
  const host = input.host ?? {};
  const budget = { ...DEFAULT_BUDGET, ...input.budget };
  const timer = input.timer;
  const load = (view: ConfigFileSystem, previous?: Loaded): Loaded =>
    timer === undefined ? loadAll(input, view, targets, cwd, previous) : timer.reading(() => loadAll(input, view, targets, cwd, previous));
  const first = load(fs);
  let current = first;
  const unitOf = (loaded: Loaded) => ({ apache: loaded.apache, mycnf: loaded.mycnf, host, targets, budget });
  const initial = lintUnit(unitOf(first), input.rules, { timer });
  const fixType = input.fixType ?? 'all';
  let overlay: ReadonlyMap<string, string> = new Map();
  const originals = new Map<string, SourceFile>();
  for (const file of first.files) if (!originals.has(file.realPath)) originals.set(file.realPath, file);
  let passes = 0;
  let diagnostics: readonly Diagnostic[] = initial.diagnostics;
  let sizingAfter: Sizing | undefined;
  const baselineErrors = parseErrorCount(initial.diagnostics);
  const seen = new Set<string>();
  const followUps: Diagnostic[] = [];
  // A fix that lost to an overlapping one comes back in the next pass; that is the same finding, not a follow-up.
  const fixableAtFirst = new Set(initial.diagnostics.filter((diagnostic) => diagnostic.fix !== undefined && diagnostic.fix.deferred !== true).map(findingKey));
  let pending: Diagnostic[] = [];
  // Findings whose fix did not take effect, the state after each pass (the first: before any) to go back
  // to when one shows, and the passes that applied each finding's fix.
  const withoutEffect = new Map<string, Diagnostic>();
  const states: PassState[] = [{ overlay, current, diagnostics, sizingAfter, followUps: 0 }];
  const appliedIn = new Map<string, { readonly passes: number[]; diagnostic: Diagnostic }>();
  // Going back leaves out one more fix at least, so this bounds the passes made again too.
  let attempts = 0;
  while (fixType !== 'none' && attempts++ < 3 * MAX_FIX_PASSES) {
    if (passes >= MAX_FIX_PASSES) {
      // The passes did not settle. A finding whose fix went in pass after pass is one the fix does not
      // remove (a line added where the server does not read it, ten times): the passes are made again from
      // before its first fix, without it, and the finding keeps no fix. Fixes that take effect can take a
      // few passes for one finding, as several lines with the same text are fixed one a pass.
      const stuck = [...appliedIn].filter(([, applied]) => applied.passes.length >= STUCK_AFTER_PASSES);
      if (stuck.length === 0) break;
      const back = stuck.reduce((earliest, [, applied]) => Math.min(earliest, applied.passes[0] as number), Infinity);
      for (const [key, applied] of stuck) withoutEffect.set(key, applied.diagnostic);
      const state = states[back] as PassState;
      ({ overlay, current, diagnostics, sizingAfter } = state);
      followUps.length = state.followUps;
      states.length = back + 1;
      for (const [key, applied] of appliedIn) {
        while (applied.passes.length > 0 && (applied.passes[applied.passes.length - 1] as number) >= back) applied.passes.pop();
        if (applied.passes.length === 0) appliedIn.delete(key);
      }
      passes = back;
      continue;
    }
    const fixes = chooseFixes(diagnostics.filter((diagnostic) => !withoutEffect.has(findingKey(diagnostic))), fixType);
    if (fixes.length === 0) break;
    const chosen = new Set(fixes);
    const applying = diagnostics.filter((diagnostic) => diagnostic.fix !== undefined && chosen.has(diagnostic.fix));
    if (passes > 0) pending = applying;
    const next = new Map(overlay);
    for (const [real, { text }] of applyFixes(fixes)) next.set(real, text);
    const fingerprint = [...next].map(([real, text]) => `${real}\0${text}`).join('\0');
    if (seen.has(fingerprint)) break;
    seen.add(fingerprint);
    const loaded = load(fs.withOverlay(next), current);
    const relinted = lintUnit(unitOf(loaded), input.rules, { fixesOnly: true, timer });
    if (parseErrorCount(relinted.diagnostics) > baselineErrors) break;
    for (const file of loaded.files) if (!originals.has(file.realPath)) originals.set(file.realPath, file);
    overlay = next;
    current = loaded;
    diagnostics = relinted.diagnostics;
    sizingAfter = relinted.sizing;
    for (const diagnostic of pending) if (!fixableAtFirst.has(findingKey(diagnostic))) followUps.push(diagnostic);
    pending = [];
    for (const diagnostic of applying) {
      const key = findingKey(diagnostic);
      const applied = appliedIn.get(key);
      if (applied === undefined) appliedIn.set(key, { passes: [passes], diagnostic });
      else if (applied.passes[applied.passes.length - 1] !== passes) applied.passes.push(passes);
    }
    passes++;
    states.push({ overlay, current, diagnostics, sizingAfter, followUps: followUps.length });
  }
  const fixes: FileFix[] = [];
  for (const [real, after] of overlay) {
    const original = originals.get(real);
    if (original !== undefined && original.text !== after) fixes.push({ file: original, before: original.text, after });
  }
  return {
    diagnostics: withoutEffect.size === 0 ? initial.diagnostics : droppingFixes(initial.diagnostics, withoutEffect, input.rules, originals),
    files: first.files,
    languages: first.languages,
    host,
    sizing: initial.sizing,
    sizingAfter: fixes.length === 0 ? undefined : sizingAfter,
    fixes,
    passes,
    followUps,
    configs: { apache: first.apache, mycnf: first.mycnf },
  };
}

/** What the fix passes have reached after a pass. */
interface PassState {
  readonly overlay: ReadonlyMap<string, string>;
  readonly current: Loaded;
  readonly diagnostics: readonly Diagnostic[];
  readonly sizingAfter: Sizing | undefined;
  /** How many follow-ups were listed by then. */
  readonly followUps: number;
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
  const out = diagnostics.map((diagnostic) => (diagnostic.fix !== undefined && withoutEffect.has(findingKey(diagnostic)) ? withoutFix(diagnostic) : diagnostic));
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
      message: render(rule.meta.messages['dropped'] ?? '', { rule: `${later.ruleId} ${later.ruleName}` }),
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
  return diagnostics.filter((diagnostic) => diagnostic.ruleId === 'TL0001' || (diagnostic.ruleId === 'MY1001' && diagnostic.severity === 'error')).length;
}

/**
 * Reads the configs through `fs`. A fix pass gives the configs of the pass
 * before: an Apache config whose changed files keep their structure is
 * rebased on it instead of walked again (on 10,000 vhosts, most of a pass),
 * and an option-file config none of whose files changed is kept.
 */
function loadAll(input: LintInput, fs: ConfigFileSystem, targets: Targets, cwd: string, previous: Loaded | undefined): Loaded {
  const apache: ApacheConfig[] = [];
  let mycnf: MycnfConfig | undefined;
  const files: SourceFile[] = [];
  const languages = new Map<SourceFile, Language>();
  for (const given of input.paths) {
    const hostPath = path.resolve(cwd, given);
    const language = input.language ?? languageFromName(hostPath) ?? detectLanguage(hostPath, peek(fs, hostPath));
    try {
      if (language === 'apache') {
        const earlier = previous?.apache.find((config) => config.root.path === hostPath);
        const config = (earlier === undefined ? undefined : ApacheConfig.rebased(earlier, fs)) ?? loadApache(hostPath, {
          fs,
          httpd: targets.httpd,
          ...(input.apache?.serverRoot === undefined ? {} : { serverRoot: input.apache.serverRoot }),
          ...(input.apache?.defines === undefined ? {} : { defines: input.apache.defines }),
        });
        apache.push(config);
        for (const entry of config.files) {
          files.push(entry.source);
          languages.set(entry.source, 'apache');
        }
      } else {
        if (mycnf !== undefined) throw new InputError(`${given}: only one my.cnf can be linted per host; ${mycnf.root.displayPath} is already given`);
        // The reader turns an unreadable file into a problem, as the server skips one; a main file given that cannot be read is an input error, as for Apache.
        fs.read(hostPath);
        const earlier = previous?.mycnf;
        mycnf =
          earlier !== undefined && readsTheSame(earlier.files, fs)
            ? earlier
            : loadMycnf(hostPath, { fs, target: targets.db, ...(input.includeBase === undefined ? {} : { includeBase: fs.serverPath(input.includeBase) }) });
        for (const entry of mycnf.files) {
          files.push(entry.source);
          languages.set(entry.source, 'mycnf');
        }
      }
    } catch (error) {
      if (error instanceof FileAccessError) throw new InputError(error.message);
      throw error;
    }
  }
  return { apache, mycnf, files, languages };
}

/**
 * Whether every file a config read reads the same through `fs`. A fix pass
 * changes only texts of files that were read, so then reading the config
 * again would give the same config: a pass that fixed only Apache keeps the
 * option files' config as it is.
 */
function readsTheSame(files: readonly { readonly source: SourceFile }[], fs: ConfigFileSystem): boolean {
  for (const { source } of files) {
    let current: SourceFile;
    try {
      current = fs.read(source.path, source.displayPath);
    } catch {
      return false;
    }
    if (current !== source && current.text !== source.text) return false;
  }
  return true;
}

function peek(fs: ConfigFileSystem, hostPath: string): string | undefined {
  try {
    return fs.read(hostPath).text.slice(0, 4096);
  } catch {
    return undefined;
  }
}
