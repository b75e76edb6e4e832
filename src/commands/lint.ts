import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { docsUrl } from '../docs-url.js';
import { builtinRules } from '../../rules/index.js';
import { EMPTY_CONFIG, findConfig, loadConfig } from '../config/load.js';
import { hostGroupOf, overrideRulesOf, type HostGroup } from '../config/resolve.js';
import { givenEnvironment } from '../config/env-file.js';
import { ConfigError, type ResolvedConfig } from '../config/types.js';
import type { RuleSelection } from '../engine/linter.js';
import { FilePatches, unifiedDiff, unifiedDiffBytes } from '../fix/patch.js';
import { selectRules, type UserRuleSetting } from '../engine/selection.js';
import { DEFAULT_TARGETS, parseTargetSpec, TargetSpecError, type Targets } from '../core/targets.js';
import { LintTimer, timingRows } from '../engine/timing.js';
import type { Rule, RuleOptions, SeveritySetting } from '../engine/types.js';
import { loadFormatter } from '../formatters/index.js';
import type { FormatInput, UnitOutcome } from '../formatters/types.js';
import type { HostFacts } from '../host/facts.js';
import { ProbeCache, resolveHostFacts, type HostSources } from '../host/resolve.js';
import { lint, type LintInput, type LintResult } from '../lint.js';
import type { ConfigSet } from '../core/language.js';
import type { GivenEnvironment } from '../core/types.js';
import { parseFriendlySize } from '../util/units.js';
import type { LintCommandOptions } from './options.js';
import { checkReadingFlags, mainPath, mainPaths } from './paths.js';
import { readVersion } from './version.js';
import { stderr, stdout } from '../util/stdio.js';

/** The main configs of one host, linted together so cross-service rules see both. */
export interface HostUnit {
  readonly group: HostGroup;
  readonly paths: string[];
}

/** What a run resolved once from the config file and the flags. */
interface Run {
  readonly config: ResolvedConfig;
  readonly cliRules: ReadonlyMap<string, UserRuleSetting>;
  /** Options a flag sets for every rule that takes them: --min-uptime. */
  readonly optionDefaults: RuleOptions;
  readonly cliTarget: string | undefined;
  /** No path given: the main configs are the usual ones found (a repository's /etc), and one that cannot be read is a finding. */
  readonly discovered: boolean;
  readonly options: LintCommandOptions;
  readonly cwd: string;
  /** One probe of this machine per run, shared by its hosts and by the lint after --fix. */
  readonly probeCache: ProbeCache;
  readonly liveCache: LiveCache;
  /** Set when TIMING asks where the time went (ESLint's variable). */
  readonly timer: LintTimer | undefined;
}

/**
 * `tune-lint [paths...]`: resolve the configuration, group the paths by host
 * (`.tune-lint.yaml` overrides that describe a host split a repo of several),
 * lint each host's configs together, print, optionally write, and return the
 * exit code (0 clean, 1 findings at the failure threshold).
 */
export async function runLint(paths: readonly string[], options: LintCommandOptions): Promise<number> {
  const cwd = process.cwd();
  checkReadingFlags(options, cwd);
  const config = await loadRunConfig(options, cwd);
  const timingShown = timingRows(process.env.TIMING);
  const timer = timingShown === undefined ? undefined : new LintTimer();
  const run: Run = {
    config,
    cliRules: parseRuleFlags(options.rule, builtinRules),
    optionDefaults: flagOptionDefaults(options),
    cliTarget: checkTargetFlag(options.target),
    discovered: paths.length === 0,
    options,
    cwd,
    probeCache: new ProbeCache(),
    liveCache: new LiveCache(),
    timer,
  };
  if (options.printConfig !== undefined) {
    const lintOnly = [options.fix ? '--fix' : undefined, options.verify ? '--verify' : undefined].filter((flag) => flag !== undefined);
    if (lintOnly.length > 0)
      throw new ConfigError(
        `--print-config prints the configuration for a path and lints nothing, so ${lintOnly.join(' and ')} would do nothing; run them without it`,
      );
    return printConfigOf(options.printConfig, run);
  }
  const units = groupByHost(mainPaths(paths, options, cwd), config);
  const linted = await lintUnits(units, run, options.fixType);
  const outcomes = options.verify ? await verifyUnits(linted, options, cwd, config) : linted;
  const fixes = outcomes.flatMap((outcome) => outcome.result.fixes);
  const changes = fixes.map((fix) => ({
    patchPath: fix.file.patchPath,
    before: fix.before,
    after: fix.after,
    encoding: fix.file.encoding,
  }));
  const patch = await unifiedDiff(changes);
  const wrote = options.fix && fixes.length > 0;
  if (wrote) {
    const written = (await import('../fix/write.js')).writeFixes(fixes);
    for (const stale of written.staleTempFiles)
      stderr.write(`tune-lint: removed ${stale}, a temporary file left by an interrupted --fix\n`);
  }
  // After --fix the exit code is about the configs as written, as with ESLint: what the fixes left.
  const judged = wrote ? await lintUnits(units, run, 'none') : outcomes;
  // The bare patch goes out in each file's own bytes, so `git apply` matches latin1 lines too.
  if (options.format === 'diff') {
    stdout.write(await unifiedDiffBytes(changes));
  } else {
    // The report is written in chunks as it is made, never held as one string.
    (await loadFormatter(options.format))(
      {
        units: options.format === 'stylish' ? outcomes : await withFixesAsPatch(outcomes),
        rules: builtinRules.map((rule) => rule.meta),
        version: readVersion(),
        color: options.format === 'stylish' && options.color && (await colorWanted()),
        patch,
        patches: new FilePatches(patch),
        wrote,
        fixType: options.fixType,
        quiet: options.quiet,
        ...readerAids(run),
        remaining: wrote ? judged.flatMap((outcome) => outcome.result.diagnostics) : undefined,
      },
      (chunk) => stdout.write(chunk),
    );
  }
  if (timer !== undefined)
    stderr.write(timer.table(timingShown as number, new Map(builtinRules.map((rule) => [rule.meta.id, rule.meta.name]))));
  if (options.format === 'diff' && patch === '') noteEmptyPatch(outcomes, options);
  return exitCode(
    judged.map((outcome) => outcome.result),
    options,
  );
}

/** JSON and SARIF carry fixes: the ones that are exactly the patch. */
async function withFixesAsPatch(outcomes: readonly UnitOutcome[]): Promise<UnitOutcome[]> {
  const { fixesAsPatch } = await import('../fix/fixes-as-patch.js');
  return outcomes.map((outcome) => ({ ...outcome, result: { ...outcome.result, diagnostics: fixesAsPatch(outcome.result) } }));
}

/** An empty diff is ambiguous; as ShellCheck does, say on stderr why there is nothing to patch. */
function noteEmptyPatch(outcomes: readonly UnitOutcome[], options: LintCommandOptions): void {
  const shown = outcomes
    .flatMap((outcome) => outcome.result.diagnostics)
    .filter((diagnostic) => !options.quiet || diagnostic.severity === 'error');
  if (shown.length === 0) return;
  const kind = options.fixType === 'all' ? '' : ` with --fix-type ${options.fixType}`;
  stderr.write(`tune-lint: ${shown.length} ${shown.length === 1 ? 'problem' : 'problems'} found, none fixable${kind}: nothing to patch\n`);
}

async function loadRunConfig(options: LintCommandOptions, cwd: string): Promise<ResolvedConfig> {
  const file = options.config === undefined ? findConfig(cwd) : path.resolve(cwd, options.config);
  return file === undefined ? EMPTY_CONFIG : loadConfig(file, builtinRules, cwd);
}

async function lintUnits(units: readonly HostUnit[], run: Run, fixType: NonNullable<LintInput['fixType']>): Promise<UnitOutcome[]> {
  const { options, probeCache } = run;
  const selection = ruleSelection(run.config, run);
  const common = { ...commonLintInput(options, run.cwd, run.config), fixType, ...(run.timer === undefined ? {} : { timer: run.timer }) };
  const outcomes: UnitOutcome[] = [];
  for (const unit of units) {
    const host = await resolveHostFacts({
      ...hostSources(options, unit.group),
      probe: options.probe,
      probeCache,
      linted: unit.paths,
      ...((await spinnerWanted(options)) ? { onSlowProbe: startSpinner } : {}),
    });
    const targets = targetsOf(unit.group, run.cliTarget, host);
    const askServers = liveWanted(options) ? run.liveCache.asker(unit.group.label ?? '', host, targets, options) : undefined;
    const result = await lint({
      ...common,
      paths: unit.paths,
      ...(run.discovered ? { discovered: true } : {}),
      targets,
      host,
      ...(askServers === undefined ? {} : { askServers }),
      budget: unit.group.budget,
      rules: selection,
    });
    outcomes.push({ label: unit.group.label, result });
  }
  return outcomes;
}

/** The running servers are asked when this machine is probed for the configs and they are its own (no profile, facts file or sysroot). */
function liveWanted(options: LintCommandOptions): boolean {
  return options.probe && options.live && options.profile === undefined && options.facts === undefined && options.sysroot === undefined;
}

/** The servers are asked once per host unit and run: the lint after --fix reuses the answers. */
class LiveCache {
  private readonly answers = new Map<string, Promise<HostFacts>>();

  asker(label: string, host: HostFacts, targets: Targets, options: LintCommandOptions): (configs: ConfigSet) => Promise<HostFacts> {
    return (configs) => {
      let answer = this.answers.get(label);
      if (answer === undefined) {
        answer = import('../live/index.js').then(({ askServers }) =>
          askServers(host, configs, targets.db, {
            ...(options.mysqlDefaultsFile === undefined ? {} : { mysqlDefaultsFile: options.mysqlDefaultsFile }),
            ...(options.liveReadTime === undefined ? {} : { tablesReadMs: parseDuration(options.liveReadTime, '--live-read-time') * 1000 }),
          }),
        );
        this.answers.set(label, answer);
      }
      return answer;
    };
  }
}

/** --verify: the real servers read each host's patched configs before anything is printed or written; fixes they reject are left out (TL0008). */
async function verifyUnits(
  outcomes: readonly UnitOutcome[],
  options: LintCommandOptions,
  cwd: string,
  config: ResolvedConfig,
): Promise<UnitOutcome[]> {
  const { FixVerifier } = await import('../verify/verify.js');
  const includeBase = options.includeBase === undefined ? undefined : path.resolve(cwd, options.includeBase);
  const verifier = new FixVerifier({
    cwd,
    sysroot: options.sysroot,
    sysrootAt: options.sysrootAt,
    includeBase,
    defines: options.define,
    env: commonLintInput(options, cwd, config).readers?.apache?.env ?? [],
    onNote: (note) => stderr.write(`tune-lint: ${note}\n`),
  });
  const verified: UnitOutcome[] = [];
  for (const outcome of outcomes) verified.push({ ...outcome, result: await verifier.verify(outcome.result) });
  return verified;
}

/** What every host's lint shares: where files are and how far to read them. */
function commonLintInput(options: LintCommandOptions, cwd: string, config: ResolvedConfig): Omit<LintInput, 'paths' | 'rules'> {
  const environment = [...configEnvironment(config), ...givenEnvironment(options)];
  return {
    cwd,
    ...(options.sysroot === undefined ? {} : { sysroot: options.sysroot }),
    ...(options.sysrootAt === undefined ? {} : { sysrootAt: options.sysrootAt }),
    ...(options.lang === undefined ? {} : { language: options.lang }),
    limits: {
      ...(options.maxFileSize === undefined ? {} : { maxFileBytes: sizeFlag('--max-file-size', options.maxFileSize) }),
      ...(options.maxFiles === undefined ? {} : { maxFiles: countFlag('--max-files', options.maxFiles) }),
      ...(options.maxInputSize === undefined ? {} : { maxInputBytes: sizeFlag('--max-input-size', options.maxInputSize) }),
      ...(options.maxLines === undefined ? {} : { maxInputLines: countFlag('--max-lines', options.maxLines) }),
    },
    readers: {
      ...(options.serverRoot === undefined && options.define.length === 0 && environment.length === 0
        ? {}
        : {
            apache: {
              ...(options.serverRoot === undefined ? {} : { serverRoot: options.serverRoot }),
              defines: options.define,
              env: environment,
            },
          }),
      ...(options.includeBase === undefined ? {} : { mycnf: { includeBase: path.resolve(cwd, options.includeBase) } }),
    },
  };
}

/** `.tune-lint.yaml`'s `env:`, as one source of the variables httpd starts with. */
export function configEnvironment(config: ResolvedConfig): GivenEnvironment[] {
  return config.env === undefined ? [] : [{ source: config.file ?? '.tune-lint.yaml', values: config.env }];
}

function hostSources(options: LintCommandOptions, group: HostGroup): Omit<HostSources, 'probe'> {
  return {
    flags: { ram: options.hostRam, cpus: options.hostCpus, perChild: options.perChild, phpPerChild: options.phpPerChild },
    ...(options.profile === undefined ? {} : { profilePath: options.profile }),
    ...(options.facts === undefined ? {} : { factsPath: options.facts }),
    ...(group.host === undefined ? {} : { config: group.host }),
  };
}

function ruleSelection(config: ResolvedConfig, run: Run): RuleSelection {
  return selectionOf(config, run.cliRules, run.optionDefaults);
}

/** Preset and --min-uptime < config `rules` < matching `overrides` (per file) < `--rule`. */
export function selectionOf(
  config: ResolvedConfig,
  cliRules: ReadonlyMap<string, UserRuleSetting> = new Map(),
  optionDefaults: RuleOptions = {},
): RuleSelection {
  return selectRules(builtinRules, config.preset, config.rules, (file) => overrideRulesOf(config, file.path), cliRules, optionDefaults);
}

/**
 * Defaults < the servers of the host (probed, or from a profile) < config
 * `target` < the host's override < `--target`. The httpd and database
 * targets are marked as assumed until one of them names the server.
 */
export function targetsOf(group: HostGroup, cliTarget: string | undefined, host: HostFacts): Targets {
  let base: Targets = {
    ...DEFAULT_TARGETS,
    ...(group.targets.httpd === undefined ? { httpdAssumed: true } : {}),
    db: { ...DEFAULT_TARGETS.db, assumed: true },
  };
  if (host.httpdVersion !== undefined) base = parseTargetSpec(`httpd=${host.httpdVersion.value}`, base);
  if (host.databaseServer !== undefined) base = parseTargetSpec(host.databaseServer.value, base);
  const configured: Targets = { ...base, ...group.targets };
  return cliTarget === undefined ? configured : parseTargetSpec(cliTarget, configured);
}

function checkTargetFlag(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  // An empty spec would silently mean the defaults: say so instead.
  if (flag.trim() === '') throw new ConfigError(`--target: invalid target "${flag}": expected httpd=2.4, mysql=8.0 or mariadb=10.11`);
  try {
    parseTargetSpec(flag);
  } catch (error) {
    if (error instanceof TargetSpecError) throw new ConfigError(`--target: ${error.message}`);
    throw error;
  }
  return flag;
}

/**
 * With problems shown, errors always fail; warnings fail past --max-warnings
 * (a negative value turns the limit off); info never fails. --quiet shows and
 * counts errors only.
 */
function exitCode(results: readonly LintResult[], options: LintCommandOptions): number {
  const diagnostics = results.flatMap((result) => result.diagnostics);
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return 1;
  if (options.quiet || options.maxWarnings === undefined || options.maxWarnings < 0) return 0;
  return diagnostics.filter((diagnostic) => diagnostic.severity === 'warn').length > options.maxWarnings ? 1 : 0;
}

/** Main configs an override maps to another host are linted apart from the rest; the order of first appearance is kept. */
export function groupByHost(paths: readonly string[], config: ResolvedConfig): HostUnit[] {
  const units = new Map<number, HostUnit>();
  for (const given of paths) {
    const group = hostGroupOf(config, given);
    let unit = units.get(group.index);
    if (unit === undefined) {
      unit = { group, paths: [] };
      units.set(group.index, unit);
    }
    unit.paths.push(given);
  }
  return [...units.values()];
}

async function printConfigOf(file: string, run: Run): Promise<number> {
  const { config } = run;
  const absolutePath = mainPath(file, run.options, run.cwd);
  const group = hostGroupOf(config, absolutePath);
  const host: HostFacts = await resolveHostFacts({ ...hostSources(run.options, group), probe: false });
  const targets = targetsOf(group, run.cliTarget, host);
  const { printConfig } = await import('../config/print.js');
  stdout.write(
    printConfig({ config, file, absolutePath, group, host, targets, selection: ruleSelection(config, run), rules: builtinRules }),
  );
  return 0;
}

/** What the stylish report takes besides the results: width, rule pages, the patch or not, the uptime firm verdicts wait for. */
function readerAids(run: Run): Pick<FormatInput, 'width' | 'noPatch' | 'rulePage' | 'minUptime'> {
  const { minUptime } = run.optionDefaults;
  return {
    ...terminalWidth(),
    ...(run.options.patch ? {} : { noPatch: true }),
    rulePage: rulePageOf(readVersion()),
    ...(typeof minUptime === 'number' ? { minUptime } : {}),
  };
}

/** The terminal's columns when stdout is one, else COLUMNS when set: what the stylish report wraps to. */
function terminalWidth(): { width?: number } {
  const columns = process.stdout.isTTY ? process.stdout.columns : Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? { width: columns } : {};
}

/**
 * Where each rule's page is: the file the .deb or .rpm installed beside
 * the program they installed (`/usr/share/doc/tune-lint/rules`), else the
 * docs of this version on the web.
 */
export function rulePageOf(version: string): (ruleId: string) => string {
  let packaged = false;
  try {
    packaged = nodeFs.realpathSync(process.argv[1] ?? '').startsWith('/usr/share/tune-lint/');
  } catch {
    packaged = false;
  }
  return (ruleId) => (packaged ? `/usr/share/doc/tune-lint/rules/${ruleId}.md` : docsUrl(version, ruleId));
}

/** The options a flag gives every rule that takes them. */
function flagOptionDefaults(options: LintCommandOptions): RuleOptions {
  return options.minUptime === undefined ? {} : { minUptime: parseDuration(options.minUptime, '--min-uptime') };
}

const DURATION_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, min: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `10m`, `1h`, `2d`: a flag's duration, in seconds. */
function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)\s*(s|m|min|h|d)?$/.exec(text.trim());
  const unit = DURATION_UNITS[match?.[2] ?? ''];
  if (match === null || unit === undefined) throw new ConfigError(`${flag} ${text}: expected a duration such as 30s, 10m, 1h or 2d`);
  return Number(match[1]) * unit;
}

/** `--rule AP2001=off`, `--rule apache-memory-overcommit=warn`. */
function parseRuleFlags(flags: readonly string[], rules: readonly Rule[]): Map<string, UserRuleSetting> {
  const out = new Map<string, UserRuleSetting>();
  for (const flag of flags) {
    const match = /^([A-Za-z0-9-]+)=(off|info|warn|error)$/.exec(flag.trim());
    if (!match) throw new ConfigError(`--rule ${flag}: expected ID=off|info|warn|error, e.g. --rule AP2001=warn`);
    const key = match[1] as string;
    const rule = rules.find((candidate) => candidate.meta.id === key.toUpperCase() || candidate.meta.name === key);
    if (rule === undefined) throw new ConfigError(`--rule ${flag}: unknown rule "${key}"; tune-lint rules lists the ids and names`);
    out.set(rule.meta.id, { severity: match[2] as SeveritySetting });
  }
  return out;
}

function countFlag(flag: string, value: number): number {
  if (value < 1) throw new ConfigError(`${flag} ${value}: expected a count of at least 1`);
  return value;
}

function sizeFlag(flag: string, value: string): number {
  const bytes = parseFriendlySize(value);
  if (bytes === undefined || bytes <= 0) throw new ConfigError(`${flag} ${value}: expected a size like 64M`);
  return bytes;
}

async function spinnerWanted(options: LintCommandOptions): Promise<boolean> {
  return options.format === 'stylish' && (await stderr.isTerminal());
}

function startSpinner(): () => void {
  let stop: (() => void) | undefined;
  let cancelled = false;
  // The spinner is for the eye only: where ora cannot load (its string-width uses a regex flag Node 18 lacks), there is none.
  import('ora')
    .then(({ default: ora }) => {
      if (cancelled) return;
      const spinner = ora({ text: 'Probing this host (RAM, CPUs, Apache and MySQL processes)', stream: process.stderr }).start();
      stop = () => spinner.stop();
    })
    .catch(() => undefined);
  return () => {
    cancelled = true;
    stop?.();
  };
}

/** Colour only for a person at a terminal: not in pipes or logs, and never when NO_COLOR is set (no-color.org) or the terminal is dumb. */
async function colorWanted(): Promise<boolean> {
  const noColor = process.env.NO_COLOR;
  return (noColor === undefined || noColor === '') && process.env.TERM !== 'dumb' && (await stdout.isTerminal());
}
