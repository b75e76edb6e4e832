import type { ApacheLive, MysqlLive, OomKill } from './facts.js';
import { HostFactsError } from './facts.js';
import type { Located } from './located.js';

/**
 * The live facts as a profile carries them (`tune-lint probe --yaml` writes
 * them from a live host), read back with the same care as the other facts:
 * each wrong key or type is one error naming file:line:col and the key path.
 */
type Shape =
  | 'text'
  | 'value'
  | 'count'
  | 'seconds'
  | 'flag'
  | 'text map'
  | { readonly list: Shape }
  | { readonly fields: Readonly<Record<string, Shape>>; readonly required: readonly string[] };

const ENGINE: Shape = {
  fields: { engine: 'text', tables: 'count', dataBytes: 'count', indexBytes: 'count' },
  required: ['engine', 'tables', 'dataBytes', 'indexBytes'],
};

const ACCOUNT: Shape = {
  fields: { user: 'text', host: 'text', plugin: 'text', passwordless: 'flag', commonPassword: 'flag', locked: 'flag' },
  required: ['user', 'host', 'plugin', 'passwordless', 'commonPassword', 'locked'],
};

const TABLE_NAMES: Shape = { fields: { count: 'count', names: { list: 'text' } }, required: ['count', 'names'] };

const TABLES: Shape = {
  fields: { total: 'count', myisam: TABLE_NAMES, withoutPrimaryKey: TABLE_NAMES, unread: { list: 'text' } },
  required: ['total', 'myisam', 'withoutPrimaryKey', 'unread'],
};

const ERROR_LOG: Shape = {
  fields: {
    file: 'text',
    bytesRead: 'count',
    errors: 'count',
    warnings: 'count',
    top: {
      list: { fields: { level: 'text', message: 'text', count: 'count', last: 'text' }, required: ['level', 'message', 'count', 'last'] },
    },
  },
  required: ['file', 'bytesRead', 'errors', 'warnings', 'top'],
};

const MYSQL_LIVE: Shape = {
  fields: {
    server: 'text',
    uptime: 'count',
    variables: 'text map',
    status: 'text map',
    engines: { list: ENGINE },
    accounts: { list: ACCOUNT },
    tables: TABLES,
    errorLog: ERROR_LOG,
  },
  required: ['server', 'uptime', 'variables', 'status'],
};

const APACHE_LIVE: Shape = {
  fields: {
    status: {
      fields: {
        url: 'text',
        busyWorkers: 'count',
        idleWorkers: 'count',
        scoreboardSlots: 'count',
        totalAccesses: 'count',
        uptime: 'count',
        mpm: 'text',
      },
      required: ['url', 'busyWorkers', 'idleWorkers', 'scoreboardSlots'],
    },
    maxWorkersReached: {
      fields: { file: 'text', count: 'count', first: 'text', last: 'text' },
      required: ['file', 'count', 'first', 'last'],
    },
  },
  required: [],
};

const OOM_KILLS: Shape = {
  list: { fields: { process: 'text', pid: 'count', secondsAgo: 'seconds' }, required: ['process', 'pid', 'secondsAgo'] },
};

export function readMysqlLive(node: Located, keyPath: string): MysqlLive {
  const live = read(node, MYSQL_LIVE, keyPath) as MysqlLive;
  if (!/^(mysql|mariadb)=\d+(\.\d+){0,2}$/.test(live.server))
    throw new HostFactsError(
      `${node.where}: ${keyPath}.server: expected mariadb=10.11.19 or mysql=8.0.36, got ${JSON.stringify(live.server)}`,
    );
  return live;
}

export function readApacheLive(node: Located, keyPath: string): ApacheLive {
  return read(node, APACHE_LIVE, keyPath) as ApacheLive;
}

export function readOomKills(node: Located, keyPath: string): OomKill[] {
  return read(node, OOM_KILLS, keyPath) as OomKill[];
}

type Scalar = 'text' | 'value' | 'count' | 'seconds' | 'flag';

/** Each scalar shape: what it takes, as it reaches the facts, and what the error expects. */
const SCALARS: Readonly<Record<Scalar, { readonly take: (value: unknown) => unknown; readonly expected: string }>> = {
  text: { take: (value) => (typeof value === 'string' ? value : undefined), expected: 'text' },
  value: {
    take: (value) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined),
    expected: 'text or a number',
  },
  count: {
    take: (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined),
    expected: 'a whole number, 0 or more',
  },
  seconds: {
    take: (value) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined),
    expected: 'a number of seconds',
  },
  flag: { take: (value) => (typeof value === 'boolean' ? value : undefined), expected: 'true or false' },
};

function read(node: Located, shape: Shape, keyPath: string): unknown {
  const wrong = (expected: string): HostFactsError =>
    new HostFactsError(`${node.where}: ${keyPath}: expected ${expected}, got ${describe(node.value, node)}`);
  if (typeof shape === 'string' && shape !== 'text map') {
    const taken = SCALARS[shape].take(node.value);
    if (taken === undefined) throw wrong(SCALARS[shape].expected);
    return taken;
  }
  if (shape === 'text map') {
    if (node.entries === undefined) throw wrong('a mapping of names to values');
    return Object.fromEntries(
      node.entries.map((entry) => [entry.key.toLowerCase(), read(entry.value, 'value', `${keyPath}.${entry.key}`)]),
    );
  }
  if ('list' in shape) {
    if (node.items === undefined) throw wrong('a list');
    return node.items.map((item, index) => read(item, shape.list, `${keyPath}[${index}]`));
  }
  if (node.entries === undefined) throw wrong(`a mapping with ${shape.required.join(', ')}`);
  const out: Record<string, unknown> = {};
  for (const entry of node.entries) {
    const field = shape.fields[entry.key];
    if (field === undefined)
      throw new HostFactsError(
        `${entry.keyWhere}: ${keyPath}.${entry.key}: unknown key; expected one of ${Object.keys(shape.fields).join(', ')}`,
      );
    out[entry.key] = read(entry.value, field, `${keyPath}.${entry.key}`);
  }
  const missing = shape.required.find((key) => !(key in out));
  if (missing !== undefined) throw new HostFactsError(`${node.where}: ${keyPath}: missing ${missing}`);
  return out;
}

function describe(value: unknown, node: Located): string {
  if (node.entries !== undefined) return 'a mapping';
  if (node.items !== undefined) return 'a list';
  return value === null || value === undefined ? 'nothing' : JSON.stringify(value);
}
