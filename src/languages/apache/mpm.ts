import { versionAtLeast } from '../../core/targets.js';
import type { ApacheDirectiveUse, DirectiveIndex, LoadedModule } from './uses.js';
import type { MpmName } from './names.js';
import { lookupTable } from '../../util/lookup.js';

export type MpmDirective =
  | 'ServerLimit'
  | 'MaxRequestWorkers'
  | 'StartServers'
  | 'MinSpareServers'
  | 'MaxSpareServers'
  | 'ThreadLimit'
  | 'ThreadsPerChild'
  | 'MinSpareThreads'
  | 'MaxSpareThreads'
  | 'MaxConnectionsPerChild';

export interface MpmValue {
  /** The number as written (httpd's atoi), undefined when the directive is absent. */
  readonly configured: number | undefined;
  /** What httpd runs with after its own adjustments. */
  readonly value: number;
  /** The line that set it; the last one at server scope. */
  readonly use: ApacheDirectiveUse | undefined;
}

export interface MpmAdjustment {
  readonly directive: MpmDirective;
  readonly from: number;
  readonly to: number;
  /** httpd's AH number when it prints a startup warning; undefined for the silent run-time adjustments. */
  readonly code: string | undefined;
  /** httpd's own warning text (or a description of the silent adjustment). */
  readonly text: string;
  /** `code: text`, as httpd logs it. */
  readonly message: string;
}

export interface MpmSettings {
  readonly name: MpmName | undefined;
  readonly module: LoadedModule | undefined;
  /** How many MPMs the config loads; httpd 2.4 refuses to start unless exactly one. */
  readonly loadedCount: number;
  readonly values: Readonly<Record<MpmDirective, MpmValue>>;
  readonly adjustments: readonly MpmAdjustment[];
  /** Worker threads per process: 1 for prefork. */
  readonly threadsPerChild: number;
  /** Processes at full load: MaxRequestWorkers / ThreadsPerChild. */
  readonly maxProcesses: number;
}

/** The 2.2 names set the same variables as the 2.4 ones; the last line of either wins. */
export const MPM_ALIASES: Readonly<Record<string, MpmDirective>> = lookupTable({
  maxclients: 'MaxRequestWorkers',
  maxrequestworkers: 'MaxRequestWorkers',
  maxrequestsperchild: 'MaxConnectionsPerChild',
  maxconnectionsperchild: 'MaxConnectionsPerChild',
  serverlimit: 'ServerLimit',
  startservers: 'StartServers',
  minspareservers: 'MinSpareServers',
  maxspareservers: 'MaxSpareServers',
  threadlimit: 'ThreadLimit',
  threadsperchild: 'ThreadsPerChild',
  minsparethreads: 'MinSpareThreads',
  maxsparethreads: 'MaxSpareThreads',
});

const PREFORK_DIRECTIVES: readonly MpmDirective[] = [
  'ServerLimit',
  'MaxRequestWorkers',
  'StartServers',
  'MinSpareServers',
  'MaxSpareServers',
  'MaxConnectionsPerChild',
];
const THREADED_DIRECTIVES: readonly MpmDirective[] = [
  'ServerLimit',
  'MaxRequestWorkers',
  'StartServers',
  'ThreadLimit',
  'ThreadsPerChild',
  'MinSpareThreads',
  'MaxSpareThreads',
  'MaxConnectionsPerChild',
];

/** Which MPM directives exist for an MPM (others are "Invalid command" under it). */
function mpmDirectives(mpm: MpmName): readonly MpmDirective[] {
  return mpm === 'prefork' ? PREFORK_DIRECTIVES : THREADED_DIRECTIVES;
}

/** Compiled-in defaults: each MPM's mpm_default.h and pre_config hook. */
export function mpmDefaults(mpm: MpmName, httpd: string): Record<MpmDirective, number> {
  const maxConnections = versionAtLeast(httpd, '2.4') ? 0 : 10000;
  if (mpm === 'prefork') {
    return {
      ServerLimit: 256,
      MaxRequestWorkers: 256,
      StartServers: 5,
      MinSpareServers: 5,
      MaxSpareServers: 10,
      ThreadLimit: 1,
      ThreadsPerChild: 1,
      MinSpareThreads: 0,
      MaxSpareThreads: 0,
      MaxConnectionsPerChild: maxConnections,
    };
  }
  return {
    ServerLimit: 16,
    MaxRequestWorkers: 400,
    StartServers: 3,
    MinSpareServers: 0,
    MaxSpareServers: 0,
    ThreadLimit: 64,
    ThreadsPerChild: 25,
    MinSpareThreads: 75,
    MaxSpareThreads: 250,
    MaxConnectionsPerChild: maxConnections,
  };
}

/** The largest value httpd's `int` settings hold. */
export const C_INT_MAX = 2147483647;

/** C `atoi`: leading blanks, a sign, digits; anything after is ignored; no digits is 0. */
export function atoi(text: string | undefined): number {
  const match = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(text ?? '');
  if (!match) return 0;
  const value = Number.parseInt(match[1] as string, 10);
  return Math.max(-C_INT_MAX - 1, Math.min(C_INT_MAX, value));
}

/** AH numbers of the worker/event startup checks, in the order of THREADED check_config. */
const THREADED_CODES: Record<'worker' | 'event', readonly string[]> = {
  worker: ['AH00300', 'AH00302', 'AH00305', 'AH00307', 'AH00310', 'AH00312', 'AH00314', 'AH00316', 'AH00318', 'AH00320', 'AH00322'],
  event: ['AH00497', 'AH00499', 'AH00502', 'AH00504', 'AH00507', 'AH00509', 'AH00511', 'AH00513', 'AH00515', 'AH00517', 'AH00519'],
};

const MAX_SERVER_LIMIT: Record<MpmName, number> = { prefork: 200000, worker: 20000, event: 20000 };
const MAX_THREAD_LIMIT: Record<MpmName, number> = { prefork: 1, worker: 20000, event: 100000 };

/**
 * The MPM in effect and its numbers after httpd's startup checks (2.4
 * `*_check_config`, in their order; 2.2 clamps MaxClients against the
 * ServerLimit known when its line is read).
 */
// eslint-disable-next-line complexity -- the MPMs' own start-up checks (prefork.c, worker.c, event.c *_check_config), in their order, with their messages
export function resolveMpm(config: DirectiveIndex): MpmSettings {
  const loaded = config.loadedMpms();
  const chosen = loaded.length === 1 ? loaded[0] : undefined;
  const name = chosen?.name;
  const mpm: MpmName = name ?? 'prefork';
  const defaults = mpmDefaults(mpm, config.httpd);
  const lines = lastServerUses(config, mpm);
  const configured = (directive: MpmDirective): number | undefined => {
    const use = lines.get(directive);
    return use === undefined ? undefined : atoi(use.args[0]);
  };
  const raw = {} as Record<MpmDirective, number>;
  for (const directive of Object.keys(defaults) as MpmDirective[]) raw[directive] = configured(directive) ?? defaults[directive];
  const adjustments: MpmAdjustment[] = [];
  const value = { ...raw };
  /** `code` is httpd's AH number for warnings it prints at startup; undefined for silent run-time adjustments. */
  const adjust = (directive: MpmDirective, to: number, code: string | undefined, text: string): void => {
    adjustments.push({ directive, from: value[directive], to, code, text, message: code === undefined ? text : `${code}: ${text}` });
    value[directive] = to;
  };

  if (!versionAtLeast(config.httpd, '2.4')) {
    const serverLimitAtLine = serverLimitBefore(config, lines.get('MaxRequestWorkers'), defaults.ServerLimit, mpm);
    value.ServerLimit = Math.min(value.ServerLimit, MAX_SERVER_LIMIT[mpm]);
    const limit = mpm === 'prefork' ? serverLimitAtLine : serverLimitAtLine * value.ThreadsPerChild;
    if (value.MaxRequestWorkers > limit) {
      adjust(
        'MaxRequestWorkers',
        limit,
        undefined,
        `WARNING: MaxClients of ${value.MaxRequestWorkers} exceeds ServerLimit value of ${serverLimitAtLine} servers, lowering MaxClients to ${limit}.  To increase, please see the ServerLimit directive.`,
      );
    }
  } else if (mpm === 'prefork') {
    if (value.ServerLimit > MAX_SERVER_LIMIT.prefork) {
      adjust(
        'ServerLimit',
        MAX_SERVER_LIMIT.prefork,
        'AH00175',
        `WARNING: ServerLimit of ${value.ServerLimit} exceeds compile-time limit of 200000 servers, decreasing to 200000.`,
      );
    } else if (value.ServerLimit < 1) {
      adjust('ServerLimit', 1, 'AH00177', `WARNING: ServerLimit of ${value.ServerLimit} not allowed, increasing to 1.`);
    }
    if (value.MaxRequestWorkers > value.ServerLimit) {
      adjust(
        'MaxRequestWorkers',
        value.ServerLimit,
        'AH00180',
        `WARNING: MaxRequestWorkers of ${value.MaxRequestWorkers} exceeds ServerLimit value of ${value.ServerLimit} servers, decreasing MaxRequestWorkers to ${value.ServerLimit}. To increase, please see the ServerLimit directive.`,
      );
    }
    if (value.MaxRequestWorkers < 1)
      adjust('MaxRequestWorkers', 1, 'AH00182', `WARNING: MaxRequestWorkers of ${value.MaxRequestWorkers} not allowed, increasing to 1.`);
    if (value.StartServers < 1)
      adjust('StartServers', 1, 'AH00184', `WARNING: StartServers of ${value.StartServers} not allowed, increasing to 1.`);
    if (value.MinSpareServers < 1) {
      adjust(
        'MinSpareServers',
        1,
        'AH00186',
        `WARNING: MinSpareServers of ${value.MinSpareServers} not allowed, increasing to 1 to avoid almost certain server failure. Please read the documentation.`,
      );
    }
    if (value.MaxSpareServers < value.MinSpareServers + 1) {
      adjust(
        'MaxSpareServers',
        value.MinSpareServers + 1,
        undefined,
        `MaxSpareServers of ${value.MaxSpareServers} is raised at run time to MinSpareServers + 1 = ${value.MinSpareServers + 1}`,
      );
    }
  } else {
    const codes = THREADED_CODES[mpm];
    if (value.ServerLimit > MAX_SERVER_LIMIT[mpm]) {
      adjust(
        'ServerLimit',
        MAX_SERVER_LIMIT[mpm],
        codes[0],
        `WARNING: ServerLimit of ${value.ServerLimit} exceeds compile-time limit of ${MAX_SERVER_LIMIT[mpm]} servers, decreasing to ${MAX_SERVER_LIMIT[mpm]}.`,
      );
    } else if (value.ServerLimit < 1) {
      adjust('ServerLimit', 1, codes[1], `WARNING: ServerLimit of ${value.ServerLimit} not allowed, increasing to 1.`);
    }
    if (value.ThreadLimit > MAX_THREAD_LIMIT[mpm]) {
      adjust(
        'ThreadLimit',
        MAX_THREAD_LIMIT[mpm],
        codes[2],
        `WARNING: ThreadLimit of ${value.ThreadLimit} exceeds compile-time limit of ${MAX_THREAD_LIMIT[mpm]} threads, decreasing to ${MAX_THREAD_LIMIT[mpm]}.`,
      );
    } else if (value.ThreadLimit < 1) {
      adjust('ThreadLimit', 1, codes[3], `WARNING: ThreadLimit of ${value.ThreadLimit} not allowed, increasing to 1.`);
    }
    if (value.ThreadsPerChild > value.ThreadLimit) {
      adjust(
        'ThreadsPerChild',
        value.ThreadLimit,
        codes[4],
        `WARNING: ThreadsPerChild of ${value.ThreadsPerChild} exceeds ThreadLimit of ${value.ThreadLimit} threads, decreasing to ${value.ThreadLimit}. To increase, please see the ThreadLimit directive.`,
      );
    } else if (value.ThreadsPerChild < 1) {
      adjust('ThreadsPerChild', 1, codes[5], `WARNING: ThreadsPerChild of ${value.ThreadsPerChild} not allowed, increasing to 1.`);
    }
    if (value.MaxRequestWorkers < value.ThreadsPerChild) {
      adjust(
        'MaxRequestWorkers',
        value.ThreadsPerChild,
        codes[6],
        `WARNING: MaxRequestWorkers of ${value.MaxRequestWorkers} is less than ThreadsPerChild of ${value.ThreadsPerChild}, increasing to ${value.ThreadsPerChild}. MaxRequestWorkers must be at least as large as the number of threads in a single server.`,
      );
    }
    const processes = Math.floor(value.MaxRequestWorkers / value.ThreadsPerChild);
    if (value.MaxRequestWorkers % value.ThreadsPerChild !== 0) {
      const rounded = processes * value.ThreadsPerChild;
      adjust(
        'MaxRequestWorkers',
        rounded,
        codes[7],
        `WARNING: MaxRequestWorkers of ${value.MaxRequestWorkers} is not an integer multiple of ThreadsPerChild of ${value.ThreadsPerChild}, decreasing to nearest multiple ${rounded}, for a maximum of ${processes} servers.`,
      );
    }
    if (processes > value.ServerLimit) {
      const capped = value.ServerLimit * value.ThreadsPerChild;
      adjust(
        'MaxRequestWorkers',
        capped,
        codes[8],
        `WARNING: MaxRequestWorkers of ${value.MaxRequestWorkers} would require ${processes} servers and would exceed ServerLimit of ${value.ServerLimit}, decreasing to ${capped}. To increase, please see the ServerLimit directive.`,
      );
    }
    if (value.StartServers < 1)
      adjust('StartServers', 1, codes[9], `WARNING: StartServers of ${value.StartServers} not allowed, increasing to 1.`);
    if (value.MinSpareThreads < 1) {
      adjust(
        'MinSpareThreads',
        1,
        codes[10],
        `WARNING: MinSpareThreads of ${value.MinSpareThreads} not allowed, increasing to 1 to avoid almost certain server failure. Please read the documentation.`,
      );
    }
    // Since 2.4.21 the floor is MinSpareThreads + ThreadsPerChild + 1 (measured on 2.4.71 by counting idle threads).
    const sparesFloor = value.MinSpareThreads + value.ThreadsPerChild + (versionAtLeast(config.httpd, '2.4.21') ? 1 : 0);
    if (value.MaxSpareThreads < sparesFloor) {
      adjust(
        'MaxSpareThreads',
        sparesFloor,
        undefined,
        `MaxSpareThreads of ${value.MaxSpareThreads} is raised at run time to ${sparesFloor}`,
      );
    }
  }

  const values = {} as Record<MpmDirective, MpmValue>;
  for (const directive of Object.keys(defaults) as MpmDirective[]) {
    values[directive] = { configured: configured(directive), value: value[directive], use: lines.get(directive) };
  }
  const threadsPerChild = mpm === 'prefork' ? 1 : value.ThreadsPerChild;
  return {
    name,
    module: chosen?.module,
    loadedCount: loaded.length,
    values,
    adjustments,
    threadsPerChild,
    maxProcesses: Math.ceil(value.MaxRequestWorkers / threadsPerChild),
  };
}

/** The last server-scope line of each MPM directive that exists for this MPM. */
function lastServerUses(config: DirectiveIndex, mpm: MpmName): Map<MpmDirective, ApacheDirectiveUse> {
  const valid = new Set(mpmDirectives(mpm));
  const found = new Map<MpmDirective, ApacheDirectiveUse>();
  for (const [name, directive] of Object.entries(MPM_ALIASES)) {
    if (!valid.has(directive)) continue;
    for (const use of config.named(name)) {
      if (config.container(use) !== undefined) continue;
      const previous = found.get(directive);
      if (previous === undefined || previous.order < use.order) found.set(directive, use);
    }
  }
  return found;
}

function serverLimitBefore(config: DirectiveIndex, maxClients: ApacheDirectiveUse | undefined, fallback: number, mpm: MpmName): number {
  let limit = fallback;
  let at = -1;
  for (const use of config.named('serverlimit')) {
    if (config.container(use) !== undefined) continue;
    if (maxClients !== undefined && use.order > maxClients.order) continue;
    if (use.order > at) {
      at = use.order;
      limit = Math.min(atoi(use.args[0]), MAX_SERVER_LIMIT[mpm]);
    }
  }
  return limit;
}
