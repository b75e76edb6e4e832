import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigFileSystem, FileAccessError } from '../core/file-system.js';
import type { Preset, UserRuleSetting } from '../engine/selection.js';
import type { Budget } from '../analysis/sizing.js';
import { parseTargetSpec, TargetSpecError, type Targets } from '../core/targets.js';
import { OPTION_TYPE_WORDING, optionValue } from '../engine/define-rule.js';
import type { OptionValue, Rule, RuleOptions, SeveritySetting } from '../engine/types.js';
import { HostFactsError } from '../host/facts.js';
import { locateYaml } from '../host/profile.js';
import { hostFactsFromLocated } from '../host/values.js';
import { lookupTable } from '../util/lookup.js';
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

export const EMPTY_CONFIG: ResolvedConfig = {
  file: undefined,
  base: '.',
  preset: 'recommended',
  targets: {},
  budget: {},
  rules: new Map(),
  overrides: [],
};

type YamlModule = typeof import('yaml');
type Node = import('yaml').Node;
type YamlMap = import('yaml').YAMLMap<Node, Node>;
type YamlSeq = import('yaml').YAMLSeq<Node>;
type Pair = import('yaml').Pair<Node, Node>;

export const TOP_KEYS = ['extends', 'target', 'host', 'budget', 'env', 'rules', 'overrides'] as const;
export const OVERRIDE_KEYS = ['name', 'files', 'host', 'rules', 'target', 'budget'] as const;
export const SEVERITIES: readonly SeveritySetting[] = ['off', 'info', 'warn', 'error'];
/** How a budget key is written: a share of 0 to 1, a size, a whole number, or a factor of 1 or more. */
export type BudgetKeyKind = 'share' | 'size' | 'count' | 'factor';

export const BUDGET_KEYS: Readonly<Partial<Record<string, BudgetKeyKind>>> = lookupTable<BudgetKeyKind>({
  apacheShare: 'share',
  osReserveShare: 'share',
  osReserveMin: 'size',
  osReserveMax: 'size',
  mysqlMaxShare: 'share',
  adminConnections: 'count',
  overcommitTolerance: 'share',
  poolDataHeadroom: 'factor',
  phpChildrenPerCpu: 'factor',
  threadsPerPhpChild: 'factor',
  raiseThreshold: 'factor',
  otherServices: 'size',
} satisfies Record<keyof Budget, BudgetKeyKind>);

/**
 * Reads and validates `.tune-lint.yaml`. Every error names `file:line:col`
 * from yaml's LineCounter, so a typo in a rule name reads like a lint message.
 * yaml is imported here, lazily, so a run without a config file never loads it.
 */
export async function loadConfig(file: string, rules: readonly Rule[], cwd: string): Promise<ResolvedConfig> {
  const shown = display(file, cwd);
  let text: string;
  try {
    // Through ConfigFileSystem's guards: a repository's .tune-lint.yaml may be a FIFO or a link to /dev/zero.
    text = new ConfigFileSystem({ cwd }).read(path.resolve(cwd, file), shown).text;
  } catch (error) {
    if (!(error instanceof FileAccessError)) throw error;
    throw new ConfigError(error.code === 'missing' ? `${shown}: no such config file` : error.message);
  }
  return new ConfigReader(await import('yaml'), text, shown, rules).read(path.dirname(file));
}

/** One pass over the YAML document; each `parse*` method checks one part and throws ConfigError at its node. */
class ConfigReader {
  private readonly lineCounter: import('yaml').LineCounter;
  private readonly document: import('yaml').Document;
  private readonly known = new Map<string, Rule>();

  constructor(
    private readonly yaml: YamlModule,
    text: string,
    private readonly shown: string,
    rules: readonly Rule[],
  ) {
    this.lineCounter = new yaml.LineCounter();
    this.document = yaml.parseDocument(text, { lineCounter: this.lineCounter, prettyErrors: false });
    for (const rule of rules) {
      this.known.set(rule.meta.id.toLowerCase(), rule);
      this.known.set(rule.meta.name, rule);
    }
  }

  read(base: string): ResolvedConfig {
    const { yaml } = this;
    const firstError = this.document.errors[0];
    if (firstError !== undefined) throw new ConfigError(`${this.where(firstError.pos[0])}: ${firstError.message.split('\n')[0]}`);
    const root = this.document.contents;
    if (root === null || (yaml.isScalar(root) && root.value === null)) return { ...EMPTY_CONFIG, file: this.shown, base };
    if (!yaml.isMap(root)) return this.fail(root, `${CONFIG_NAME} must be a mapping with the keys ${TOP_KEYS.join(', ')}`);
    const map = root as YamlMap;
    this.checkKeys(map, TOP_KEYS, '');
    const host = this.parseHost(this.field(map, 'host'), this.shown);
    const env = this.parseEnv(this.field(map, 'env'));
    return {
      file: this.shown,
      base,
      preset: this.parsePreset(this.field(map, 'extends')),
      targets: this.parseTargets(this.field(map, 'target')),
      ...(host === undefined ? {} : { host }),
      budget: this.parseBudget(this.field(map, 'budget')),
      ...(env === undefined ? {} : { env }),
      rules: this.parseRules(this.field(map, 'rules')),
      overrides: this.parseOverrides(this.field(map, 'overrides')),
    };
  }

  private where(offset: number): string {
    const { line, col } = this.lineCounter.linePos(offset);
    return `${this.shown}:${line}:${col}`;
  }

  private fail(node: Node | Pair | null | undefined, message: string): never {
    const target =
      node !== null && node !== undefined && 'key' in node && this.yaml.isNode(node.key) ? node.key : (node as Node | null | undefined);
    throw new ConfigError(`${this.where(target?.range?.[0] ?? 0)}: ${message}`);
  }

  private keyOf(pair: Pair): string {
    return this.yaml.isScalar(pair.key) ? String(pair.key.value) : '';
  }

  private field(map: YamlMap, key: string): Pair | undefined {
    return map.items.find((pair) => this.keyOf(pair) === key);
  }

  private checkKeys(map: YamlMap, allowed: readonly string[], what: string): void {
    for (const pair of map.items) {
      const key = this.keyOf(pair);
      if (!allowed.includes(key)) this.fail(pair, `unknown ${what}key "${key}"; expected ${allowed.join(', ')}`);
    }
  }

  /** The value of a `key: value` pair; a key written with nothing after it counts as absent. */
  private valueOf(pair: Pair | undefined): Node | undefined {
    const value = pair?.value;
    if (value === null || value === undefined) return undefined;
    return this.yaml.isScalar(value) && value.value === null ? undefined : value;
  }

  private parsePreset(pair: Pair | undefined): Preset {
    const node = this.valueOf(pair);
    if (node === undefined) return 'recommended';
    const value = this.yaml.isScalar(node) ? node.value : undefined;
    if (value !== 'recommended' && value !== 'strict') this.fail(node, `extends must be "recommended" or "strict"`);
    return value;
  }

  /** `{ httpd: "2.4", mariadb: "10.11" }` or the flag's form `httpd=2.4,mariadb=10.11`; only what is written is set. */
  private parseTargets(pair: Pair | undefined): Partial<Targets> {
    const { yaml } = this;
    const node = this.valueOf(pair);
    if (node === undefined) return {};
    const parts: [string, Node][] = [];
    if (yaml.isScalar(node) && typeof node.value === 'string') {
      for (const part of node.value
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean))
        parts.push([part, node]);
    } else if (yaml.isMap(node)) {
      for (const entry of (node as YamlMap).items) {
        const value = this.valueOf(entry);
        if (value === undefined || !yaml.isScalar(value)) this.fail(entry, `target ${this.keyOf(entry)} must be a version like "2.4"`);
        parts.push([`${this.keyOf(entry)}=${versionText(value)}`, entry.key]);
      }
    } else {
      this.fail(node, 'target must be a mapping like { httpd: "2.4", mariadb: "10.11" }');
    }
    const out: { httpd?: string; db?: Targets['db'] } = {};
    for (const [part, at] of parts) {
      const product = part.split('=')[0]?.trim().toLowerCase();
      try {
        const parsed = parseTargetSpec(part);
        if (product === 'httpd' || product === 'apache') out.httpd = parsed.httpd;
        else out.db = parsed.db;
      } catch (error) {
        this.fail(at, error instanceof TargetSpecError ? error.message : String(error));
      }
    }
    return out;
  }

  private parseHost(pair: Pair | undefined, source: string): ConfigHost | undefined {
    const node = this.valueOf(pair);
    if (node === undefined) return undefined;
    if (!this.yaml.isMap(node)) return this.fail(node, 'host must be a mapping like { ram: 2G, cpus: 2, perChild: 40M }');
    const located = locateYaml(this.yaml, this.document, node, (offset) => this.where(offset));
    try {
      return { located, source, facts: hostFactsFromLocated(located, source, 'host.') };
    } catch (error) {
      if (error instanceof HostFactsError) throw new ConfigError(error.message);
      throw error;
    }
  }

  /** `env: { APACHE_RUN_USER: www-data }`: names as sh takes them, values as strings (a number is its text). */
  private parseEnv(pair: Pair | undefined): Record<string, string> | undefined {
    const { yaml } = this;
    const node = this.valueOf(pair);
    if (node === undefined) return undefined;
    if (!yaml.isMap(node)) return this.fail(node, 'env must be a mapping like { APACHE_RUN_USER: www-data }');
    const out: Record<string, string> = {};
    for (const entry of (node as YamlMap).items) {
      const key = this.keyOf(entry);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
        this.fail(entry, `env name "${key}" must be letters, digits and _, not starting with a digit`);
      const valueNode = this.valueOf(entry);
      const raw = valueNode !== undefined && yaml.isScalar(valueNode) ? valueNode.value : undefined;
      if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
        this.fail(valueNode ?? entry, `env ${key} must be a string, like ${key}: value`);
      out[key] = String(raw);
    }
    return out;
  }

  private parseBudget(pair: Pair | undefined): Partial<Budget> {
    const { yaml } = this;
    const node = this.valueOf(pair);
    if (node === undefined) return {};
    if (!yaml.isMap(node)) return this.fail(node, 'budget must be a mapping like { apacheShare: 0.5 }');
    const out: Partial<Record<keyof Budget, number>> = {};
    for (const entry of (node as YamlMap).items) {
      const key = this.keyOf(entry);
      const kind = BUDGET_KEYS[key];
      if (kind === undefined) this.fail(entry, `unknown budget key "${key}"; expected ${Object.keys(BUDGET_KEYS).join(', ')}`);
      const valueNode = this.valueOf(entry);
      const raw = valueNode !== undefined && yaml.isScalar(valueNode) ? valueNode.value : undefined;
      const value =
        kind === 'size' ? (typeof raw === 'number' ? raw : parseFriendlySize(String(raw))) : typeof raw === 'number' ? raw : Number.NaN;
      const valid =
        value !== undefined &&
        Number.isFinite(value) &&
        (kind === 'share'
          ? value > 0 && value <= 1
          : kind === 'count'
            ? Number.isInteger(value) && value >= 0
            : kind === 'factor'
              ? value >= 1
              : value >= 0);
      if (!valid) {
        const expected = {
          share: 'a share above 0 and at most 1, like 0.5',
          size: 'a size like 512M',
          count: 'a whole number',
          factor: 'a factor of 1 or more, like 1.5',
        }[kind];
        this.fail(valueNode ?? entry, `budget ${key} must be ${expected}`);
      }
      out[key as keyof Budget] = value;
    }
    return out;
  }

  private parseRules(pair: Pair | undefined): Map<string, UserRuleSetting> {
    const out = new Map<string, UserRuleSetting>();
    const node = this.valueOf(pair);
    if (node === undefined) return out;
    if (!this.yaml.isMap(node)) return this.fail(node, 'rules must be a mapping of rule id or name to off, info, warn or error');
    for (const entry of (node as YamlMap).items) {
      const key = this.keyOf(entry);
      const rule = this.known.get(key) ?? this.known.get(key.toLowerCase());
      if (rule === undefined) this.fail(entry, `unknown rule "${key}"; tune-lint rules lists the ids and names`);
      const id = rule.meta.id;
      if (out.has(id)) this.fail(entry, `${id} is set twice in this rules mapping (by id and by name)`);
      out.set(id, this.parseRuleSetting(rule, entry));
    }
    return out;
  }

  private parseRuleSetting(rule: Rule, entry: Pair): UserRuleSetting {
    const { yaml } = this;
    const node = this.valueOf(entry);
    if (node !== undefined && yaml.isScalar(node)) return { severity: this.parseSeverity(node) };
    if (node !== undefined && yaml.isSeq(node)) {
      const items = (node as YamlSeq).items;
      if (items.length === 0 || items.length > 2) this.fail(node, `${rule.meta.id} must be [severity] or [severity, { options }]`);
      const [severityNode, optionsNode] = items;
      return {
        severity: this.parseSeverity(severityNode as Node),
        ...(optionsNode === undefined ? {} : { options: this.parseOptions(rule, optionsNode) }),
      };
    }
    return this.fail(node ?? entry, `${rule.meta.id} must be off, info, warn, error or [severity, { options }]`);
  }

  private parseSeverity(node: Node): SeveritySetting {
    // YAML 1.1 writers (Ansible's to_nice_yaml, PyYAML) turn a plain `off` into `false`: read it back as off.
    const value = this.yaml.isScalar(node) ? (node.value === false ? 'off' : String(node.value)) : '';
    if (!(SEVERITIES as readonly string[]).includes(value)) this.fail(node, `severity must be off, info, warn or error, not "${value}"`);
    return value as SeveritySetting;
  }

  private parseOptions(rule: Rule, node: Node): RuleOptions {
    if (!this.yaml.isMap(node)) return this.fail(node, `${rule.meta.id} options must be a mapping`);
    const options: Record<string, OptionValue> = {};
    const specs = rule.meta.options ?? {};
    for (const entry of (node as YamlMap).items) {
      const key = this.keyOf(entry);
      const spec = specs[key];
      if (spec === undefined) {
        const names = Object.keys(specs);
        return this.fail(entry, `${rule.meta.id} has no option "${key}"${names.length === 0 ? '' : `; its options: ${names.join(', ')}`}`);
      }
      const value = optionValue(spec, entry.value?.toJSON());
      if (value === undefined)
        return this.fail(entry.value ?? entry, `${rule.meta.id} option ${key} must be ${OPTION_TYPE_WORDING[spec.type]}`);
      options[key] = value;
    }
    return options;
  }

  private parseOverrides(pair: Pair | undefined): ConfigOverride[] {
    const { yaml } = this;
    const node = this.valueOf(pair);
    if (node === undefined) return [];
    if (!yaml.isSeq(node)) return this.fail(node, `overrides must be a list of { ${OVERRIDE_KEYS.join(', ')} }`);
    return (node as YamlSeq).items.map((item, index) => {
      if (!yaml.isMap(item)) return this.fail(item, 'each override must be a mapping with files:');
      const entry = item as YamlMap;
      this.checkKeys(entry, OVERRIDE_KEYS, 'override ');
      const nameNode = this.valueOf(this.field(entry, 'name'));
      if (nameNode !== undefined && !(yaml.isScalar(nameNode) && typeof nameNode.value === 'string'))
        this.fail(nameNode, 'name must be a string');
      const files = this.parseGlobs(this.field(entry, 'files'), entry);
      const host = this.parseHost(this.field(entry, 'host'), `${this.shown} overrides[${index}]`);
      return {
        name: nameNode === undefined ? undefined : String(nameNode.value),
        files,
        ...(host === undefined ? {} : { host }),
        rules: this.parseRules(this.field(entry, 'rules')),
        targets: this.parseTargets(this.field(entry, 'target')),
        budget: this.parseBudget(this.field(entry, 'budget')),
        where: this.where(entry.range?.[0] ?? 0),
      };
    });
  }

  private parseGlobs(pair: Pair | undefined, override: YamlMap): string[] {
    const { yaml } = this;
    const node = this.valueOf(pair);
    const nodes = node === undefined ? [] : yaml.isSeq(node) ? (node as YamlSeq).items : [node];
    const globs = nodes.map((glob) =>
      yaml.isScalar(glob) && typeof glob.value === 'string' && glob.value !== ''
        ? glob.value
        : this.fail(glob, 'a glob must be a non-empty string'),
    );
    if (globs.length === 0) this.fail(pair ?? override, 'an override needs files: a glob or a list of globs, relative to the config file');
    return globs;
  }
}

function display(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/**
 * A version as written. Unquoted, `mariadb: 10.10` and `mysql: 8.0` are YAML
 * numbers (10.1 and 8): their source text is the version meant.
 */
function versionText(scalar: import('yaml').Scalar): string {
  return typeof scalar.value === 'number' && typeof scalar.source === 'string' ? scalar.source : String(scalar.value);
}
