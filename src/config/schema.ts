import { docsUrl } from '../docs-url.js';
import { HTTPD_TARGET_VERSION, TARGET_PART } from '../core/targets.js';
import type { Budget } from '../analysis/sizing.js';
import type { OptionType, Rule } from '../engine/types.js';
import { HOST_FACT_NAMES, type HostFactName } from '../host/facts.js';
import { CPUS_TEXT, MOUNT_KEYS, PER_CHILD_KEYS, WHOLE_NUMBER_TEXT } from '../host/values.js';
import { FRIENDLY_SIZE_UNITS } from '../util/units.js';
import { BUDGET_KEYS, CONFIG_NAME, OVERRIDE_KEYS, SEVERITIES, TOP_KEYS } from './load.js';

/**
 * The JSON Schema (draft-07) of `.tune-lint.yaml`, for editors: completion of
 * keys, rule ids and options, and errors while typing. Built from the tables
 * the loader checks against (src/config/load.ts, host/values.ts,
 * core/targets.ts, util/units.ts) and the rules' metadata, so a document
 * the loader accepts is one the schema accepts (test/unit/config-schema.test.ts).
 * The loader checks more than a schema can say: a RAM figure too small to be
 * meant, a perChild max below its median, a rule set by id and by name, a
 * MariaDB version below 10 or a MySQL one above 9; those stay its errors alone.
 */
export function configSchema(rules: readonly Rule[], version: string): object {
  const severity = { $ref: '#/definitions/severity' };
  const ruleDefinitions: Record<string, object> = {};
  const ruleProperties: Record<string, object> = {};
  const rulePatterns: Record<string, object> = {};
  for (const rule of rules) {
    const { id, name, description } = rule.meta;
    ruleDefinitions[id] = ruleSetting(rule, severity);
    const reference = { $ref: `#/definitions/rule/${id}`, description: `${id} ${name}: ${description}. ${docsUrl(version, id)}` };
    ruleProperties[id] = reference;
    ruleProperties[name] = reference;
    rulePatterns[`^(?:${caseless(id)}|${caseless(name)})$`] = { $ref: `#/definitions/rule/${id}` };
  }
  const section = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: CONFIG_NAME,
    description: `tune-lint's configuration, found upward from the working directory. ${docsUrl(version).replace(/README\.md$/, 'docs/usage.md')}`,
    // An empty file is a valid configuration: every default.
    anyOf: [{ $ref: '#/definitions/config' }, { type: 'null' }],
    definitions: {
      config: {
        type: 'object',
        additionalProperties: false,
        properties: pick(TOP_KEYS, {
          extends: section({
            enum: ['recommended', 'strict'],
            description: 'The preset: recommended (the default) or strict, every rule on',
          }),
          target: section({ $ref: '#/definitions/target' }),
          host: section({ $ref: '#/definitions/host' }),
          budget: section({ $ref: '#/definitions/budget' }),
          env: section({
            type: 'object',
            description: 'Variables httpd starts with, for ${NAME} in its config (as --env gives them; --env-file and --env win)',
            propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
            additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
          }),
          rules: section({ $ref: '#/definitions/rules' }),
          overrides: section({
            type: 'array',
            description: 'Settings for the files their globs match (relative to this file), applied in order, later over earlier',
            items: { $ref: '#/definitions/override' },
          }),
        }),
      },
      severity: { enum: [...SEVERITIES], description: 'off, info, warn or error' },
      size: {
        description: 'A size: a number of bytes, or text like 512M, 1.5G or 2GiB (units are binary and any case)',
        anyOf: [
          { type: 'number', minimum: 0 },
          { type: 'string', pattern: `^\\s*\\d+(?:\\.\\d+)?\\s*(?:${FRIENDLY_SIZE_UNITS.map(caseless).join('|')})?\\s*$` },
        ],
      },
      target: {
        description: 'Server versions the configs are for: { httpd: "2.4", mariadb: "10.11" } or "httpd=2.4,mariadb=10.11"',
        anyOf: [
          {
            type: 'string',
            pattern: `^[\\s,]*(?:${caseless(inner(TARGET_PART))}(?:\\s*,[\\s,]*${caseless(inner(TARGET_PART))})*)?[\\s,]*$`,
          },
          {
            type: 'object',
            properties: {
              httpd: { $ref: '#/definitions/httpdVersion' },
              mariadb: { $ref: '#/definitions/version' },
              mysql: { $ref: '#/definitions/version' },
            },
            patternProperties: {
              [`^(?:${caseless('httpd')}|${caseless('apache')})$`]: { $ref: '#/definitions/httpdVersion' },
              [`^(?:${caseless('mysql')}|${caseless('mariadb')})$`]: { $ref: '#/definitions/version' },
            },
            additionalProperties: false,
          },
        ],
      },
      httpdVersion: {
        description: '2.2 or 2.4, or a release of them like 2.4.62',
        anyOf: [{ type: 'string', pattern: HTTPD_TARGET_VERSION.source }, { enum: [2.2, 2.4] }],
      },
      version: {
        description: 'A version like 10.11 or 8.0.36',
        anyOf: [
          { type: 'string', pattern: '^\\d+(?:\\.\\d+){0,2}$' },
          { type: 'number', minimum: 0 },
        ],
      },
      host: {
        type: 'object',
        description: 'Facts about the host the configs run on; they take the place of a probe',
        additionalProperties: false,
        properties: pick(HOST_FACT_NAMES, hostFactSchemas()),
      },
      budget: {
        type: 'object',
        description: 'How the memory budget is shared out',
        additionalProperties: false,
        properties: Object.fromEntries(
          Object.entries(BUDGET_KEYS).map(([key, kind]): [string, object] => {
            const description: string = BUDGET_DESCRIPTIONS[key as keyof Budget];
            if (kind === 'share')
              return [
                key,
                { type: 'number', exclusiveMinimum: 0, maximum: 1, description: `${description}: a share above 0 and at most 1` },
              ];
            if (kind === 'count') return [key, { type: 'integer', minimum: 0, description }];
            if (kind === 'factor') return [key, { type: 'number', minimum: 1, description: `${description}: a factor of 1 or more` }];
            return [key, { $ref: '#/definitions/size', description }];
          }),
        ),
      },
      rules: {
        type: 'object',
        description: 'Rule id or name to a severity (off, info, warn, error) or [severity, { options }]; tune-lint rules lists them',
        properties: ruleProperties,
        patternProperties: rulePatterns,
        additionalProperties: false,
      },
      rule: ruleDefinitions,
      override: {
        type: 'object',
        required: ['files'],
        additionalProperties: false,
        properties: pick(OVERRIDE_KEYS, {
          name: section({ type: 'string', description: 'The host these files belong to, shown in reports' }),
          files: {
            description: 'A glob or a list of globs relative to this file: ** spans directories',
            anyOf: [
              { type: 'string', minLength: 1 },
              { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
            ],
          },
          host: section({ $ref: '#/definitions/host' }),
          rules: section({ $ref: '#/definitions/rules' }),
          target: section({ $ref: '#/definitions/target' }),
          budget: section({ $ref: '#/definitions/budget' }),
        }),
      },
    },
  };
}

const BUDGET_DESCRIPTIONS: Readonly<Record<keyof Budget, string>> = {
  apacheShare: 'Share of RAM for Apache when a database runs on the same host',
  osReserveShare: 'OS reserve: this share of RAM',
  osReserveMin: 'OS reserve: at least this',
  osReserveMax: 'OS reserve: at most this',
  mysqlMaxShare: "MySQL's worst case above this share of RAM is reported",
  adminConnections: 'Connections kept free for cron, CLI and admins',
  overcommitTolerance: 'Up to this much over the Apache budget is a note, beyond it an error',
  poolDataHeadroom: 'The InnoDB buffer pool the data asks: data and indexes times this',
  phpChildrenPerCpu: 'PHP children a CPU runs at once: pools far above CPUs times this are cut, far below it raised',
  threadsPerPhpChild: 'Apache threads in front of php-fpm for each PHP child they feed, when memory is short',
  raiseThreshold: 'A limit is raised only to this multiple of its value or more',
  otherServices: 'What other services on the host take at peak (Redis, memcached, a JVM): set aside with the OS reserve',
};

/** A per-child size as a flag gives it, or as a probe measures it (median, max, how many, which metric, what the children ran). */
function childMemorySchema(size: object, description: string): object {
  return {
    description,
    anyOf: [
      size,
      {
        type: 'object',
        required: ['median'],
        additionalProperties: false,
        properties: pick(PER_CHILD_KEYS, {
          median: size,
          max: size,
          p90: { ...size, description: 'The 90th percentile of the processes measured' },
          count: { type: 'integer', minimum: 0 },
          busy: {
            type: 'integer',
            minimum: 0,
            description: 'How many of them had served requests; 0 means all idle, and idle figures never raise a limit',
          },
          metric: { enum: ['pss', 'rss'] },
          mpm: { enum: ['prefork', 'worker', 'event'], description: 'The MPM the measured children run' },
          php: { type: 'boolean', description: 'Whether the measured children have mod_php mapped' },
        }),
      },
    ],
  };
}

function hostFactSchemas(): Record<HostFactName, object> {
  const size = { $ref: '#/definitions/size' };
  return {
    ram: { ...size, description: 'RAM, like 2G' },
    cpus: {
      description: 'CPUs; fractions are allowed (a cgroup quota of 1.5)',
      anyOf: [
        { type: 'number', exclusiveMinimum: 0 },
        { type: 'string', pattern: CPUS_TEXT.source },
      ],
    },
    swap: size,
    perChild: childMemorySchema(size, 'Memory of one Apache child: a size, or { median, max, count, metric } as a probe measures it'),
    phpPerChild: childMemorySchema(size, 'Memory of one php-fpm child: a size, or { median, max, count, metric } as a probe measures it'),
    apacheRunning: { type: 'boolean' },
    httpdVersion: {
      description: 'The httpd release the host runs, like 2.4.71',
      anyOf: [{ type: 'string', pattern: '^\\s*2\\.[24](\\.\\d+)?\\s*$' }, { type: 'number' }],
    },
    databaseServer: {
      type: 'string',
      description: 'The database server the host runs, as a target: mariadb=10.11.19, mysql=8.0.36',
      pattern: '^\\s*([Mm][Yy][Ss][Qq][Ll]|[Mm][Aa][Rr][Ii][Aa][Dd][Bb])=\\d+(\\.\\d+){0,2}\\s*$',
    },
    mysqlRunning: { type: 'boolean' },
    mysqlRss: size,
    somaxconn: {
      description: 'net.core.somaxconn',
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: WHOLE_NUMBER_TEXT.source },
      ],
    },
    mounts: {
      type: 'array',
      description: 'Filesystems, for the rules that depend on where files are served from',
      items: {
        type: 'object',
        required: ['mountPoint', 'fsType'],
        additionalProperties: false,
        properties: pick(MOUNT_KEYS, {
          mountPoint: { type: 'string', pattern: '^/' },
          fsType: { type: 'string', minLength: 1 },
          source: { type: 'string' },
        }),
      },
    },
    mysqlLive: {
      type: 'object',
      description:
        'What the running MySQL/MariaDB said (tune-lint probe --yaml writes it): version, variables, status counters, data per engine',
      required: ['server', 'uptime', 'variables', 'status'],
      additionalProperties: false,
      properties: {
        server: { type: 'string', description: 'mariadb=10.11.19, mysql=8.0.36', pattern: '^(mysql|mariadb)=\\d+(\\.\\d+){0,2}$' },
        uptime: { type: 'integer', minimum: 0, description: 'Seconds the counters cover' },
        variables: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
        status: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
        engines: {
          type: 'array',
          items: {
            type: 'object',
            required: ['engine', 'tables', 'dataBytes', 'indexBytes'],
            additionalProperties: false,
            properties: {
              engine: { type: 'string' },
              tables: { type: 'integer', minimum: 0 },
              dataBytes: { type: 'integer', minimum: 0 },
              indexBytes: { type: 'integer', minimum: 0 },
            },
          },
        },
        accounts: {
          type: 'array',
          description: 'The accounts as the live rules judge them; no password or hash',
          items: strictObject({
            user: { type: 'string' },
            host: { type: 'string' },
            plugin: { type: 'string' },
            passwordless: { type: 'boolean' },
            commonPassword: { type: 'boolean' },
            locked: { type: 'boolean' },
          }),
        },
        tables: {
          ...strictObject({
            total: { type: 'integer', minimum: 0 },
            myisam: TABLE_NAMES,
            withoutPrimaryKey: TABLE_NAMES,
            unread: { type: 'array', items: { type: 'string' } },
          }),
          description: 'Tables by name, read schema by schema within --live-read-time',
        },
        errorLog: {
          ...strictObject({
            file: { type: 'string' },
            bytesRead: { type: 'integer', minimum: 0 },
            errors: { type: 'integer', minimum: 0 },
            warnings: { type: 'integer', minimum: 0 },
            top: {
              type: 'array',
              items: strictObject({
                level: { enum: ['error', 'warning'] },
                message: { type: 'string' },
                count: { type: 'integer', minimum: 0 },
                last: { type: 'string' },
              }),
            },
          }),
          description: "The tail of the server's error log: errors, warnings and the most frequent messages",
        },
      },
    },
    apacheLive: {
      type: 'object',
      description: "What the running Apache said: its mod_status scoreboard and the error log's MaxRequestWorkers lines",
      additionalProperties: false,
      properties: {
        status: {
          type: 'object',
          required: ['url', 'busyWorkers', 'idleWorkers', 'scoreboardSlots'],
          additionalProperties: false,
          properties: {
            url: { type: 'string' },
            busyWorkers: { type: 'integer', minimum: 0 },
            idleWorkers: { type: 'integer', minimum: 0 },
            scoreboardSlots: { type: 'integer', minimum: 0 },
            totalAccesses: { type: 'integer', minimum: 0 },
            uptime: { type: 'integer', minimum: 0 },
            mpm: { type: 'string' },
          },
        },
        maxWorkersReached: {
          type: 'object',
          required: ['file', 'count', 'first', 'last'],
          additionalProperties: false,
          properties: {
            file: { type: 'string' },
            count: { type: 'integer', minimum: 0 },
            first: { type: 'string' },
            last: { type: 'string' },
          },
        },
      },
    },
    oomKills: {
      type: 'array',
      description: "Server processes the kernel's OOM killer ended, from the kernel log",
      items: {
        type: 'object',
        required: ['process', 'pid', 'secondsAgo'],
        additionalProperties: false,
        properties: {
          process: { type: 'string' },
          pid: { type: 'integer', minimum: 0 },
          secondsAgo: { type: 'number', minimum: 0, description: 'How long before the probe the kill was' },
        },
      },
    },
  };
}

/** An object with exactly these properties, all required. */
function strictObject(properties: Record<string, object>): object {
  return { type: 'object', required: Object.keys(properties), additionalProperties: false, properties };
}

const TABLE_NAMES = strictObject({ count: { type: 'integer', minimum: 0 }, names: { type: 'array', items: { type: 'string' } } });

function ruleSetting(rule: Rule, severity: object): object {
  const optionsSchema = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(rule.meta.options ?? {}).map(([key, spec]) => [
        key,
        { ...OPTION_SCHEMAS[spec.type], description: spec.description, default: spec.default },
      ]),
    ),
  };
  return {
    anyOf: [
      severity,
      { type: 'array', items: [severity], minItems: 1, additionalItems: false },
      { type: 'array', items: [severity, optionsSchema], minItems: 2, additionalItems: false },
    ],
  };
}

/** Each option type as the loader checks it (optionValue in src/engine/define-rule.ts). */
const OPTION_SCHEMAS: Readonly<Record<OptionType, object>> = {
  integer: { type: 'integer', minimum: 0 },
  seconds: { type: 'integer', minimum: 0 },
  number: { type: 'number' },
  share: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  size: { $ref: '#/definitions/size' },
  names: { type: 'array', items: { type: 'string' } },
};

/** The schema of each key, in the order the loader's table lists them; a key without one is a build error. */
function pick<Key extends string>(keys: readonly Key[], schemas: Record<Key, object>): Record<Key, object> {
  return Object.fromEntries(keys.map((key) => [key, schemas[key]])) as Record<Key, object>;
}

/** A regular expression's source without its anchors. */
function inner(pattern: RegExp): string {
  return pattern.source.replace(/^\^/, '').replace(/\$$/, '');
}

/**
 * The pattern matching `source` in any case: JSON Schema patterns have no
 * flags, and the loader compares rule ids, names, products and units
 * without case. Escapes (`\s`, `\d`) are kept as they are.
 */
function caseless(source: string): string {
  return source.replace(/\\.|[a-zA-Z]/g, (match) => (match.length === 2 ? match : `[${match.toLowerCase()}${match.toUpperCase()}]`));
}
