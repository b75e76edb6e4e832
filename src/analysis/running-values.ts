import type { MysqlLive } from '../host/facts.js';
import type { MycnfConfig, MycnfOptionUse } from '../languages/mycnf/model.js';
import { booleanValue } from '../languages/mycnf/names.js';
import { optionType } from '../languages/mycnf/option-types.js';
import type { OptionStatus } from '../languages/mycnf/options.js';
import { parseServerSize } from '../languages/mycnf/sizes.js';
import { variableDefault, variableUnit, type VariableUnit } from '../languages/mycnf/defaults.js';

/** Sizes the server rounds to its block size (sort buffers, key cache blocks) differ by less than this from what was written. */
const BLOCK_ROUNDING = 64 * 1024;

/** Names the server takes as written or as an abbreviation of one option; the rest are other rules' findings. */
const JUDGED_STATUS: ReadonlySet<OptionStatus> = new Set(['exact', 'abbreviation', 'plugin']);

/** An option of the files whose value the running server does not have. */
export interface NotInEffect {
  readonly use: MycnfOptionUse;
  readonly running: string;
}

/**
 * Each effective option of the server groups that the running server has as a
 * variable of the same name, and whose value it does not run with. Values are
 * compared as the server reads them: sizes in bytes (`16M` is 16777216),
 * booleans as ON/OFF whatever the spelling, decimals as numbers (`10` is
 * `10.000000`), words without case. Paths and lists are left out: the server
 * rewrites them (a trailing slash, a default directory), so a difference says
 * nothing for sure. innodb_buffer_pool_size is rounded up to whole chunks and
 * block sizes round other sizes; both are the same setting.
 */
export function settingsNotInEffect(mycnf: MycnfConfig, live: MysqlLive): NotInEffect[] {
  const found: NotInEffect[] = [];
  const seen = new Set<string>();
  for (let index = mycnf.uses.length - 1; index >= 0; index--) {
    const use = mycnf.uses[index] as MycnfOptionUse;
    const key = use.name.key;
    if (seen.has(key) || use.name.maximum || !JUDGED_STATUS.has(use.status)) continue;
    seen.add(key);
    const running = live.variables[key];
    if (running === undefined) continue;
    const same = sameValue(mycnf, use, running, live);
    if (same === false) found.push({ use, running });
  }
  return found.reverse();
}

function sameValue(mycnf: MycnfConfig, use: MycnfOptionUse, running: string, live: MysqlLive): boolean | undefined {
  const key = use.name.key;
  const type = optionType(key) ?? unitType(key);
  const value = use.value;
  if (type === 'boolean' || use.name.implied !== undefined) {
    const written = booleanValue(use.name, value);
    const runs = runningBoolean(running);
    return written === undefined || runs === undefined ? undefined : written === runs;
  }
  if (value === undefined) return undefined;
  if (type === 'integer') {
    const parsed = parseServerSize(value, mycnf.target, key);
    if ('error' in parsed || !/^\d+$/.test(running)) return undefined;
    const written = parsed.bytes;
    const runs = Number(running);
    if (written === runs) return true;
    if (key === 'innodb_buffer_pool_size') return runs >= written && runs - written < chunkBytes(live);
    return Math.abs(written - runs) < BLOCK_ROUNDING && written > BLOCK_ROUNDING;
  }
  if (type === 'decimal') {
    const written = Number(value);
    const runs = Number(running);
    return Number.isFinite(written) && Number.isFinite(runs) ? written === runs : undefined;
  }
  // A single word (an enum, a character set, a collation): compared without case. Paths and lists are not judged.
  if (!/^[A-Za-z0-9_-]+$/.test(value) || !/^[A-Za-z0-9_-]+$/.test(running)) return undefined;
  return value.toLowerCase() === running.toLowerCase();
}

/** SHOW VARIABLES prints booleans as ON/OFF (and a few as YES/NO or 1/0). */
function runningBoolean(running: string): boolean | undefined {
  const upper = running.toUpperCase();
  if (upper === 'ON' || upper === 'YES' || upper === '1' || upper === 'TRUE') return true;
  if (upper === 'OFF' || upper === 'NO' || upper === '0' || upper === 'FALSE') return false;
  return undefined;
}

function unitType(key: string): 'integer' | 'boolean' | undefined {
  const unit = variableUnit(key);
  if (unit === 'bytes' || unit === 'count' || unit === 'seconds') return 'integer';
  return unit === 'boolean' ? 'boolean' : undefined;
}

/**
 * The unit innodb_buffer_pool_size is rounded up to: chunk size times
 * instances (one instance since MariaDB 10.5). MariaDB 10.8+ prints a chunk
 * size of 0, "autosized": then only block rounding is allowed for.
 */
function chunkBytes(live: MysqlLive): number {
  const chunk = Number(live.variables.innodb_buffer_pool_chunk_size ?? 134_217_728);
  const instances = Number(live.variables.innodb_buffer_pool_instances ?? 1);
  if (!Number.isFinite(chunk) || chunk <= 0) return BLOCK_ROUNDING;
  return chunk * (Number.isFinite(instances) && instances > 0 ? instances : 1);
}

/** A memory or connection variable the running server has at another value than the files and defaults give it at the next start. */
export interface RuntimeOnly {
  readonly key: string;
  readonly running: string;
  readonly atRestart: string;
}

/**
 * The variables of the sizing model (defaults.ts: memory and connections)
 * that no file sets and that the server runs with at another value than its
 * default: a SET GLOBAL that the next restart undoes.
 */
export function runtimeOnlyValues(mycnf: MycnfConfig, live: MysqlLive): RuntimeOnly[] {
  const found: RuntimeOnly[] = [];
  for (const [key, running] of Object.entries(live.variables)) {
    const unit = variableUnit(key);
    if (unit === undefined || unit === 'enum' || mycnf.effective(key) !== undefined) continue;
    const fallback = mycnf.defaultOf(key) ?? variableDefault(key, mycnf.target);
    if (fallback === undefined || typeof fallback === 'string') continue;
    const atRestart = typeof fallback === 'boolean' ? (fallback ? 'ON' : 'OFF') : String(fallback);
    const same =
      typeof fallback === 'boolean'
        ? (runningBoolean(running) ?? fallback) === fallback
        : !/^\d+$/.test(running) || sameNumber(key, unit, fallback, Number(running), live);
    if (!same) found.push({ key, running, atRestart });
  }
  return found;
}

/**
 * A number the server runs with against the one the files and defaults give:
 * sizes within the server's rounding (block sizes, the buffer pool's chunks),
 * counts and times exactly (`SET GLOBAL max_connections = 300` against 151).
 */
function sameNumber(key: string, unit: VariableUnit, expected: number, running: number, live: MysqlLive): boolean {
  if (unit !== 'bytes') return running === expected;
  return Math.abs(running - expected) < (key === 'innodb_buffer_pool_size' ? chunkBytes(live) : BLOCK_ROUNDING);
}
