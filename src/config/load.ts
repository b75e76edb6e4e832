import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Preset, UserRuleSetting } from '../engine/selection.js';
import type { Budget } from '../engine/sizing.js';
import { DEFAULT_TARGETS, parseTargetSpec, TargetSpecError, type DatabaseTarget, type Targets } from '../engine/targets.js';
import type { Rule, RuleOptions, SeveritySetting } from '../engine/types.js';
import { locateYaml } from '../host/profile.js';
import { parseFriendlySize } from '../util/units.js';
import { ConfigError, type ConfigHost, type ConfigOverride, type ResolvedConfig } from './types.js';

export const CONFIG_NAME = '.tune-lint.yaml';

/** The first `.tune-lint.yaml` from `start` up to the filesystem root (no merging across directories). */
export function findConfig(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, CONFIG_NAME);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export const EMPTY_CONFIG: ResolvedConfig = { file: undefined, base: '.', preset: 'recommended', targets: {}, budget: {}, rules: new Map(), overrides: [] };

type YamlModule = typeof import('yaml');
type Node = import('yaml').Node;
type Pair<K = unknown, V = unknown> = import('yaml').Pair<K, V>;

const TOP_KEYS = ['extends', 'target', 'host', 'budget', 'rules', 'overrides'];
const BUDGET_KEYS: Record<keyof Budget, 'share' | 'size' | 'count'> = {
  apacheShare: 'share',
  osReserveShare: 'share',
  osReserveMin: 'size',
  osReserveMax: 'size',
  mysqlMaxShare: 'share',
  adminConnections: 'count',
  overcommitTolerance: 'share',
};

/**
 * Reads and validates `.tune-lint.yaml`. Every error names `file:line:col`
 * from yaml's LineCounter, so a typo in a rule name reads like a lint message.
 */
export async function loadConfig(file: string, rules: readonly Rule[], cwd: string): Promise<ResolvedConfig> {
  const yaml: YamlModule = await import('yaml');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${display(file, cwd)}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const shown = display(file, cwd);
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, prettyErrors: false });
  const at = (node: { range?: readonly [number, number, number] | null | undefined } | null | undefined): string => {
    const offset = node?.range?.[0] ?? 0;
    const { line, col } = lineCounter.linePos(offset);
    return `${shown}:${line}:${col}`;
  };
  const firstError = document.errors[0];
  if (firstError !== undefined) {
    const { line, col } = lineCounter.linePos(firstError.pos[0]);
    throw new ConfigError(`${shown}:${line}:${col}: ${firstError.message.split('\n')[0]}`);
  }
  const fail = (node: Node | Pair | null | undefined, message: string): never => {
    const located = node !== null && node !== undefined && 'key' in node ? (node.key as Node) : (node as Node | null | undefined);
    throw new ConfigError(`${at(located)}: ${message}`);
  };
  const root = document.contents;
  if (root === null || root === undefined) return { ...EMPTY_CONFIG, file: shown, base: path.dirname(file) };
  if (!yaml.isMap(root)) fail(root, `${CONFIG_NAME} must be a mapping of ${TOP_KEYS.join(', ')}`);
  const map = root as import('yaml').YAMLMap<Node, Node>;
  const get = (key: string): Pair<Node, Node> | undefined => map.items.find((pair) => yaml.isScalar(pair.key) && pair.key.value === key);
  for (const pair of map.items) {
    const key = yaml.isScalar(pair.key) ? String(pair.key.value) : '';
    if (!TOP_KEYS.includes(key)) fail(pair, `unknown key "${key}"; expected one of ${TOP_KEYS.join(', ')}`);
  }

  const known = new Map<string, Rule>();
  for (const rule of rules) {
    known.set(rule.meta.id, rule);
    known.set(rule.meta.name, rule);
  }

  const parsePreset = (pair: Pair<Node, Node> | undefined): Preset => {
    if (pair === undefined) return 'recommended';
    const value = yaml.isScalar(pair.value) ? pair.value.value : undefined;
    if (value !== 'recommended' && value !== 'strict') fail(pair.value, 'extends must be "recommended" or "strict"');
    return value as Preset;
  };

  const parseTargets = (node: Node | null | undefined): Partial<Targets> => {
    if (node === null || node === undefined) return {};
    if (yaml.isScalar(node) && typeof node.value === 'string') {
      try {
        return parseTargetSpec(node.value, DEFAULT_TARGETS);
      } catch (error) {
        return fail(node, (error as Error).message);
      }
    }
    if (!yaml.isMap(node)) return fail(node, 'target must be a mapping like { httpd: "2.4", mariadb: "10.11" }');
    const out: { httpd?: string; db?: DatabaseTarget } = {};
    for (const pair of (node as import('yaml').YAMLMap<Node, Node>).items) {
      const key = yaml.isScalar(pair.key) ? String(pair.key.value) : '';
      const value = yaml.isScalar(pair.value) ? String(pair.value.value) : undefined;
      if (value === undefined) fail(pair.value, `target ${key} must be a version like "2.4"`);
      try {
        const parsed = parseTargetSpec(`${key}=${value}`, DEFAULT_TARGETS);
        if (key === 'httpd' || key === 'apache') out.httpd = parsed.httpd;
        else out.db = parsed.db;
      } catch (error) {
        fail(pair, error instanceof TargetSpecError ? error.message : String(error));
      }
    }
    return out;
  };

  const parseHost = (node: Node | null | undefined, source: string): ConfigHost | undefined => {
    if (node === null || node === undefined) return undefined;
    if (!yaml.isMap(node)) return fail(node, 'host must be a mapping like { ram: 2G, cpus: 2, perChild: 40M }');
    return { located: locateYaml(yaml, document, node, (offset) => at({ range: [offset, offset, offset] })), source };
  };

  const parseBudget = (node: Node | null | undefined): Partial<Budget> => {
    if (node === null || node === undefined) return {};
    if (!yaml.isMap(node)) return fail(node, 'budget must be a mapping like { apacheShare: 0.5 }');
    const out: Partial<Record<keyof Budget, number>> = {};
    for (const pair of (node as import('yaml').YAMLMap<Node, Node>).items) {
      const key = (yaml.isScalar(pair.key) ? String(pair.key.value) : '') as keyof Budget;
      const kind = BUDGET_KEYS[key];
      if (kind === undefined) fail(pair, `unknown budget key "${key}"; expected one of ${Object.keys(BUDGET_KEYS).join(', ')}`);
      const raw = yaml.isScalar(pair.value) ? pair.value.value : undefined;
      const value = kind === 'size' ? (typeof raw === 'number' ? raw : parseFriendlySize(String(raw))) : typeof raw === 'number' ? raw : Number.NaN;
      const valid = value !== undefined && Number.isFinite(value) && (kind === 'share' ? value > 0 && value <= 1 : value >= 0);
      if (!valid) fail(pair.value, `budget ${key} must be ${kind === 'share' ? 'a share between 0 and 1' : kind === 'size' ? 'a size like 512M' : 'a whole number'}`);
      out[key] = value as number;
    }
    return out;
  };

  const parseRules = (node: Node | null | undefined): Map<string, UserRuleSetting> => {
    const out = new Map<string, UserRuleSetting>();
    if (node === null || node === undefined) return out;
    if (!yaml.isMap(node)) return fail(node, 'rules must be a mapping of rule id or name to off, info, warn or error');
    for (const pair of (node as import('yaml').YAMLMap<Node, Node>).items) {
      const key = yaml.isScalar(pair.key) ? String(pair.key.value) : '';
      const rule = known.get(key) ?? known.get(key.toUpperCase());
      if (rule === undefined) fail(pair, `unknown rule "${key}"; run tune-lint rules for the catalogue`);
      out.set((rule as Rule).meta.id, parseRuleSetting(rule as Rule, pair.value));
    }
    return out;
  };

  const parseRuleSetting = (rule: Rule, node: Node | null | undefined): UserRuleSetting => {
    if (yaml.isScalar(node)) return { severity: parseSeverity(node) };
    if (yaml.isSeq(node)) {
      const [severityNode, optionsNode] = (node as import('yaml').YAMLSeq<Node>).items;
      const options = optionsNode === undefined ? {} : parseOptions(rule, optionsNode);
      return { severity: parseSeverity(severityNode), options };
    }
    return fail(node, `${rule.meta.id} must be off, info, warn, error or [severity, { options }]`);
  };

  const parseSeverity = (node: Node | undefined): SeveritySetting => {
    const value = yaml.isScalar(node) ? String(node.value) : '';
    if (!['off', 'info', 'warn', 'error'].includes(value)) fail(node, `severity must be off, info, warn or error, not "${value}"`);
    return value as SeveritySetting;
  };

  const parseOptions = (rule: Rule, node: Node): RuleOptions => {
    if (!yaml.isMap(node)) return fail(node, `${rule.meta.id} options must be a mapping`);
    const options: Record<string, RuleOptions[string]> = {};
    for (const pair of (node as import('yaml').YAMLMap<Node, Node>).items) {
      const key = yaml.isScalar(pair.key) ? String(pair.key.value) : '';
      const expected = rule.defaultOptions[key];
      if (expected === undefined) {
        const names = Object.keys(rule.defaultOptions);
        fail(pair, `${rule.meta.id} has no option "${key}"${names.length === 0 ? '' : `; options: ${names.join(', ')}`}`);
      }
      const value = (pair.value as Node | null)?.toJSON?.();
      const sameType = Array.isArray(expected) ? Array.isArray(value) && value.every((item) => typeof item === 'string') : typeof value === typeof expected;
      if (!sameType) fail(pair.value, `${rule.meta.id} option ${key} must be a ${Array.isArray(expected) ? 'list of strings' : typeof expected}`);
      options[key] = value as RuleOptions[string];
    }
    return options;
  };

  const overridesPair = get('overrides');
  const overrides: ConfigOverride[] = [];
  if (overridesPair !== undefined && overridesPair.value !== null) {
    if (!yaml.isSeq(overridesPair.value)) fail(overridesPair.value, 'overrides must be a list of { files, host, rules, target, budget }');
    const items = (overridesPair.value as import('yaml').YAMLSeq<Node>).items;
    items.forEach((item, index) => {
      if (!yaml.isMap(item)) fail(item, 'each override must be a mapping with files:');
      const entry = item as import('yaml').YAMLMap<Node, Node>;
      const field = (key: string): Pair<Node, Node> | undefined => entry.items.find((pair) => yaml.isScalar(pair.key) && pair.key.value === key);
      for (const pair of entry.items) {
        const key = yaml.isScalar(pair.key) ? String(pair.key.value) : '';
        if (!['files', 'host', 'rules', 'target', 'budget'].includes(key)) fail(pair, `unknown override key "${key}"; expected files, host, rules, target or budget`);
      }
      const filesNode = field('files')?.value;
      const files = yaml.isSeq(filesNode) ? (filesNode as import('yaml').YAMLSeq<Node>).items.map((n) => (yaml.isScalar(n) ? String(n.value) : '')) : yaml.isScalar(filesNode) ? [String(filesNode.value)] : [];
      if (files.length === 0 || files.includes('')) fail(filesNode ?? item, 'an override needs files: a glob or a list of globs');
      const host = parseHost(field('host')?.value, `${shown} overrides[${index}]`);
      const targets = parseTargets(field('target')?.value);
      const budget = parseBudget(field('budget')?.value);
      overrides.push({ files, rules: parseRules(field('rules')?.value), ...(host === undefined ? {} : { host }), targets, budget });
    });
  }
  const host = parseHost(get('host')?.value, shown);
  return {
    file: shown,
    base: path.dirname(file),
    preset: parsePreset(get('extends')),
    targets: parseTargets(get('target')?.value),
    ...(host === undefined ? {} : { host }),
    budget: parseBudget(get('budget')?.value),
    rules: parseRules(get('rules')?.value),
    overrides,
  };
}

function display(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
