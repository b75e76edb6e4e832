import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtinRules } from '../../rules/index.js';
import { CONFIG_NAME, EMPTY_CONFIG, findConfig, loadConfig } from '../config/load.js';
import { ConfigError, type ConfigHost, type ResolvedConfig } from '../config/types.js';
import { unifiedDiff } from '../engine/patch.js';
import { selectRules, type UserRuleSetting } from '../engine/selection.js';
import type { SourceFile } from '../engine/source-file.js';
import { DEFAULT_TARGETS, parseTargetSpec, TargetSpecError, type Targets } from '../engine/targets.js';
import type { Rule, SeveritySetting } from '../engine/types.js';
import { writeFixes } from '../engine/write.js';
import { loadFormatter } from '../formatters/index.js';
import type { UnitOutcome } from '../formatters/types.js';
import { ProbeCache, resolveHostFacts } from '../host/resolve.js';
import { lint, type LintResult } from '../lint.js';
import { compileGlob } from '../util/glob.js';
import { parseFriendlySize } from '../util/units.js';
import type { LintCommandOptions } from './options.js';
import { readVersion } from './version.js';

/** Where the servers keep their main configs, in the order tune-lint looks with no path given. */
export const SYSTEM_CONFIGS = ['/etc/apache2/apache2.conf', '/etc/httpd/conf/httpd.conf', '/etc/mysql/my.cnf', '/etc/my.cnf'];

/**
 * `tune-lint [paths...]`: resolve the configuration, group the paths by host
 * (`.tune-lint.yaml` overrides with a `host:` map a repo of several hosts),
 * lint each host's configs together, print, optionally write, and return the
 * exit code (0 clean, 1 findings at the failure threshold).
 */
export async function runLint(paths: readonly string[], options: LintCommandOptions): Promise<number> {
  const cwd = process.cwd();
  const configFile = options.config === undefined ? findConfig(cwd) : path.resolve(cwd, options.config);
  if (options.config !== undefined && !fs.existsSync(configFile as string)) throw new ConfigError(`${options.config}: no such config file`);
  const config = configFile === undefined ? EMPTY_CONFIG : await loadConfig(configFile, builtinRules, cwd);
  const cliRules = parseRuleFlags(options.rule, builtinRules);
  const targets = cliTargets(config, options.target);
  if (options.printConfig !== undefined) {
    process.stdout.write(`${JSON.stringify(printableConfig(config, options.printConfig, cwd, targets, cliRules), null, 2)}\n`);
    return 0;
  }
  const given = paths.length > 0 ? paths : discoverSystemConfigs(options.sysroot, cwd);
  const units = groupByHost(given, config, cwd);
  const version = readVersion();
  const outcomes: UnitOutcome[] = [];
  const probeCache = new ProbeCache();
  for (const unit of units) {
    const host = await resolveHostFacts({
      flags: { ram: options.hostRam, cpus: options.hostCpus, perChild: options.perChild },
      ...(options.profile === undefined ? {} : { profilePath: options.profile }),
      ...(options.facts === undefined ? {} : { factsPath: options.facts }),
      ...(unit.host === undefined ? {} : { config: unit.host }),
      probe: options.probe,
      probeCache,
      ...(spinnerWanted(options) ? { onSlowProbe: startSpinner } : {}),
    });
    const result = await lint({
      paths: unit.paths,
      cwd,
      ...(options.sysroot === undefined ? {} : { sysroot: options.sysroot }),
      ...(options.lang === undefined ? {} : { language: options.lang }),
      targets: { ...targets, ...unit.targets },
      host,
      budget: { ...config.budget, ...unit.budget },
      rules: selectRules(builtinRules, config.preset, config.rules, (file) => overrideRules(config, file, cwd), cliRules),
      fixType: options.fixType,
      ...(options.maxFileSize === undefined ? {} : { limits: { maxFileBytes: sizeFlag('--max-file-size', options.maxFileSize) } }),
      ...(options.serverRoot === undefined && options.define.length === 0
        ? {}
        : { apache: { ...(options.serverRoot === undefined ? {} : { serverRoot: options.serverRoot }), defines: options.define } }),
      ...(options.includeBase === undefined ? {} : { includeBase: path.resolve(cwd, options.includeBase) }),
    });
    outcomes.push({ label: unit.label, result });
  }
  const fixes = outcomes.flatMap((outcome) => outcome.result.fixes);
  const patch = await unifiedDiff(fixes.map((fix) => ({ patchPath: fix.file.patchPath, before: fix.before, after: fix.after })));
  if (options.fix && fixes.length > 0) writeFixes(fixes);
  const formatter = await loadFormatter(options.format);
  process.stdout.write(
    formatter({
      units: outcomes,
      rules: builtinRules.map((rule) => rule.meta),
      version,
      color: options.color && colorWanted(),
      patch,
      wrote: options.fix && fixes.length > 0,
      fixType: options.fixType,
      quiet: options.quiet,
    }),
  );
  return exitCode(outcomes.map((outcome) => outcome.result), options);
}

function exitCode(results: readonly LintResult[], options: LintCommandOptions): number {
  const diagnostics = results.flatMap((result) => result.diagnostics);
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return 1;
  const warnings = diagnostics.filter((diagnostic) => diagnostic.severity === 'warn').length;
  return options.maxWarnings !== undefined && options.maxWarnings >= 0 && warnings > options.maxWarnings ? 1 : 0;
}

interface HostUnit {
  readonly label: string | undefined;
  readonly paths: string[];
  readonly host: ConfigHost | undefined;
  readonly targets: Partial<Targets>;
  readonly budget: ResolvedConfig['budget'];
}

/** Paths mapped to another host by an override with `host:` are linted apart from the rest. */
function groupByHost(paths: readonly string[], config: ResolvedConfig, cwd: string): HostUnit[] {
  const units = new Map<number, HostUnit>();
  for (const given of paths) {
    const relative = relativeToConfig(config, path.resolve(cwd, given));
    const index = config.overrides.findIndex((override) => override.host !== undefined && override.files.some((glob) => compileGlob(glob)(relative)));
    const override = index === -1 ? undefined : config.overrides[index];
    let unit = units.get(index);
    if (unit === undefined) {
      unit = {
        label: override === undefined ? undefined : override.files.join(', '),
        paths: [],
        host: override?.host ?? config.host,
        targets: { ...config.targets, ...override?.targets },
        budget: { ...config.budget, ...override?.budget },
      };
      units.set(index, unit);
    }
    unit.paths.push(given);
  }
  return [...units.values()];
}

function overrideRules(config: ResolvedConfig, file: SourceFile, cwd: string): ReadonlyMap<string, UserRuleSetting> | undefined {
  if (config.overrides.length === 0) return undefined;
  const relative = relativeToConfig(config, path.resolve(cwd, file.path));
  let merged: Map<string, UserRuleSetting> | undefined;
  for (const override of config.overrides) {
    if (override.rules.size === 0 || !override.files.some((glob) => compileGlob(glob)(relative))) continue;
    merged ??= new Map();
    for (const [id, setting] of override.rules) merged.set(id, setting);
  }
  return merged;
}

function relativeToConfig(config: ResolvedConfig, absolute: string): string {
  return path.relative(path.resolve(config.base), absolute).split(path.sep).join('/');
}

function cliTargets(config: ResolvedConfig, flag: string | undefined): Targets {
  const base: Targets = { ...DEFAULT_TARGETS, ...config.targets };
  if (flag === undefined) return base;
  try {
    return parseTargetSpec(flag, base);
  } catch (error) {
    if (error instanceof TargetSpecError) throw new ConfigError(`--target: ${error.message}`);
    throw error;
  }
}

/** `--rule AP2001=off`, `--rule keepalive-timeout-too-long=warn`. */
function parseRuleFlags(flags: readonly string[], rules: readonly Rule[]): Map<string, UserRuleSetting> {
  const out = new Map<string, UserRuleSetting>();
  for (const flag of flags) {
    const match = /^([A-Za-z0-9-]+)=(off|info|warn|error)$/.exec(flag.trim());
    if (!match) throw new ConfigError(`--rule ${flag}: expected ID=off|info|warn|error, e.g. --rule AP2001=warn`);
    const key = match[1] as string;
    const rule = rules.find((candidate) => candidate.meta.id === key.toUpperCase() || candidate.meta.name === key);
    if (rule === undefined) throw new ConfigError(`--rule ${flag}: unknown rule "${key}"; run tune-lint rules for the catalogue`);
    out.set(rule.meta.id, { severity: match[2] as SeveritySetting });
  }
  return out;
}

function sizeFlag(flag: string, value: string): number {
  const bytes = parseFriendlySize(value);
  if (bytes === undefined || bytes <= 0) throw new ConfigError(`${flag} ${value}: expected a size like 64M`);
  return bytes;
}

function discoverSystemConfigs(sysroot: string | undefined, cwd: string): string[] {
  const root = sysroot === undefined ? '' : path.resolve(cwd, sysroot);
  const found = SYSTEM_CONFIGS.map((file) => path.join(root, file)).filter((file) => fs.existsSync(file));
  if (found.length === 0) {
    throw new ConfigError(`no config given and none found at ${SYSTEM_CONFIGS.join(', ')}${sysroot === undefined ? '' : ` under ${sysroot}`}; pass the paths to lint`);
  }
  return found;
}

function printableConfig(config: ResolvedConfig, file: string, cwd: string, targets: Targets, cliRules: ReadonlyMap<string, UserRuleSetting>): object {
  const source = { path: path.resolve(cwd, file), realPath: path.resolve(cwd, file), displayPath: file } as SourceFile;
  const perFile = overrideRules(config, source, cwd);
  const effective = selectRules(builtinRules, config.preset, config.rules, () => perFile, cliRules);
  const rules: Record<string, unknown> = {};
  for (const rule of builtinRules) {
    const setting = effective.setting(rule, source);
    rules[rule.meta.id] = setting.severity === 'off' ? 'off' : Object.keys(setting.options).length === 0 ? setting.severity : [setting.severity, setting.options];
  }
  const override = config.overrides.find((entry) => entry.host !== undefined && entry.files.some((glob) => compileGlob(glob)(relativeToConfig(config, path.resolve(cwd, file)))));
  return {
    file,
    config: config.file ?? null,
    extends: config.preset,
    target: { httpd: targets.httpd, [targets.db.product]: targets.db.version, ...override?.targets },
    host: (override?.host ?? config.host)?.located.value === undefined ? null : plainHost(override?.host ?? config.host),
    budget: { ...config.budget, ...override?.budget },
    rules,
  };
}

function plainHost(host: ConfigHost | undefined): object | null {
  if (host === undefined) return null;
  const out: Record<string, unknown> = {};
  for (const entry of host.located.entries ?? []) out[entry.key] = entry.value.value;
  return out;
}

function spinnerWanted(options: LintCommandOptions): boolean {
  return options.format === 'stylish' && process.stderr.isTTY === true;
}

function startSpinner(): () => void {
  let stop: (() => void) | undefined;
  let cancelled = false;
  void import('ora').then(({ default: ora }) => {
    if (cancelled) return;
    const spinner = ora({ text: 'Probing this host (RAM, CPUs, Apache and MySQL processes)', stream: process.stderr }).start();
    stop = () => spinner.stop();
  });
  return () => {
    cancelled = true;
    stop?.();
  };
}

function colorWanted(): boolean {
  return process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined;
}

export { CONFIG_NAME };
