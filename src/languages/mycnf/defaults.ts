import { compareVersions, type DatabaseTarget } from '../../core/targets.js';
import { lookupTable } from '../../util/lookup.js';

const K = 1024;
const M = 1024 * K;
const G = 1024 * M;

export type DefaultValue = number | boolean | string;
export type VariableUnit = 'bytes' | 'count' | 'seconds' | 'boolean' | 'enum';

/** Values of other variables some defaults are computed from (autosizing). */
export interface DefaultContext {
  readonly maxConnections: number;
  readonly tableOpenCache: number;
  readonly innodbBufferPoolSize: number;
}

type Rule = DefaultValue | null | ((context: DefaultContext) => DefaultValue);
/** [first version the value applies to, value]; null: the variable does not exist from that version on. */
type History = readonly (readonly [string, Rule])[];

interface VariableDefaults {
  readonly unit: VariableUnit;
  readonly mysql: History;
  readonly mariadb: History;
}

const always = (value: Rule): History => [['0', value]];

/**
 * Defaults of the memory and connection variables the sizing model reads.
 * MySQL values come from the manual's system-variable pages and its pages of
 * default changes; the version where a value changed is the release they name
 * (5.6.4, 5.6.6, 5.6.8, 5.7.6, 8.0.3, 8.0.30), otherwise the series. MariaDB
 * values are those of MariaDB 10.11, checked by test/oracle/mycnf-defaults.test.ts
 * against `mariadbd --no-defaults --help --verbose` (and against 11.8's, which
 * prints the same, by test/oracle/mariadb118-oracle.test.ts); they apply to every
 * MariaDB target except where MariaDB's system-variable pages record a change
 * (query cache off since 10.1.7, one 96M redo log since 10.5).
 */
export const VARIABLE_DEFAULTS: Readonly<Record<string, VariableDefaults>> = lookupTable({
  max_connections: { unit: 'count', mysql: always(151), mariadb: always(151) },
  innodb_buffer_pool_size: { unit: 'bytes', mysql: always(128 * M), mariadb: always(128 * M) },
  innodb_buffer_pool_instances: {
    unit: 'count',
    mysql: [
      ['0', 1],
      ['5.6', (c) => (c.innodbBufferPoolSize >= G ? 8 : 1)],
      ['8.4', null],
    ],
    mariadb: [
      ['0', (c) => (c.innodbBufferPoolSize >= G ? 8 : 1)],
      ['10.5', null],
    ],
  },
  key_buffer_size: { unit: 'bytes', mysql: always(8 * M), mariadb: always(128 * M) },
  aria_pagecache_buffer_size: { unit: 'bytes', mysql: always(null), mariadb: always(128 * M) },
  query_cache_size: {
    unit: 'bytes',
    mysql: [
      ['0', 0],
      ['5.6.8', M],
      ['8.0.3', null],
    ],
    mariadb: [
      ['0', 0],
      ['10.1.7', M],
    ],
  },
  query_cache_type: {
    unit: 'enum',
    mysql: [
      ['0', 'ON'],
      ['5.6.8', 'OFF'],
      ['8.0.3', null],
    ],
    mariadb: [
      ['0', 'ON'],
      ['10.1.7', 'OFF'],
    ],
  },
  query_cache_limit: {
    unit: 'bytes',
    mysql: [
      ['0', M],
      ['8.0.3', null],
    ],
    mariadb: always(M),
  },
  innodb_log_buffer_size: {
    unit: 'bytes',
    mysql: [
      ['0', 8 * M],
      ['5.7.6', 16 * M],
      ['8.4', 64 * M],
    ],
    mariadb: always(16 * M),
  },
  innodb_log_file_size: {
    unit: 'bytes',
    mysql: [
      ['0', 5 * M],
      ['5.6.8', 48 * M],
    ],
    mariadb: [
      ['0', 48 * M],
      ['10.5', 96 * M],
    ],
  },
  innodb_redo_log_capacity: {
    unit: 'bytes',
    mysql: [
      ['0', null],
      ['8.0.30', 100 * M],
    ],
    mariadb: always(null),
  },
  innodb_log_files_in_group: {
    unit: 'count',
    mysql: always(2),
    mariadb: [
      ['0', 2],
      ['10.5', null],
    ],
  },
  table_open_cache: {
    unit: 'count',
    mysql: [
      ['0', 400],
      ['5.6.8', 2000],
      ['8.0', 4000],
    ],
    mariadb: always(2000),
  },
  table_definition_cache: {
    unit: 'count',
    mysql: [
      ['0', 400],
      ['5.6.8', (c) => Math.min(2000, 400 + Math.floor(c.tableOpenCache / 2))],
    ],
    mariadb: always(400),
  },
  thread_cache_size: {
    unit: 'count',
    mysql: [
      ['0', 0],
      ['5.6.8', (c) => Math.min(100, 8 + Math.floor(c.maxConnections / 100))],
    ],
    mariadb: always((c) => Math.min(256, c.maxConnections)),
  },
  thread_stack: {
    unit: 'bytes',
    mysql: [
      ['0', 256 * K],
      ['8.0', M],
    ],
    mariadb: always(299008),
  },
  sort_buffer_size: {
    unit: 'bytes',
    mysql: [
      ['0', 2 * M],
      ['5.6.4', 256 * K],
    ],
    mariadb: always(2 * M),
  },
  join_buffer_size: {
    unit: 'bytes',
    mysql: [
      ['0', 128 * K],
      ['5.6.6', 256 * K],
    ],
    mariadb: always(256 * K),
  },
  read_buffer_size: { unit: 'bytes', mysql: always(128 * K), mariadb: always(128 * K) },
  read_rnd_buffer_size: { unit: 'bytes', mysql: always(256 * K), mariadb: always(256 * K) },
  tmp_table_size: { unit: 'bytes', mysql: always(16 * M), mariadb: always(16 * M) },
  max_heap_table_size: { unit: 'bytes', mysql: always(16 * M), mariadb: always(16 * M) },
  // The TempTable engine's shared memory (MySQL 8.0.2): 1 GiB; from 8.4 the manual gives 3 % of RAM within 1 to 4 GiB, of which 1 GiB is the floor.
  temptable_max_ram: {
    unit: 'bytes',
    mysql: [
      ['0', null],
      ['8.0.2', G],
    ],
    mariadb: always(null),
  },
  binlog_cache_size: { unit: 'bytes', mysql: always(32 * K), mariadb: always(32 * K) },
  binlog_stmt_cache_size: { unit: 'bytes', mysql: always(32 * K), mariadb: always(32 * K) },
  net_buffer_length: { unit: 'bytes', mysql: always(16 * K), mariadb: always(16 * K) },
  max_allowed_packet: {
    unit: 'bytes',
    mysql: [
      ['0', M],
      ['5.6.6', 4 * M],
      ['8.0', 64 * M],
    ],
    mariadb: always(16 * M),
  },
  bulk_insert_buffer_size: { unit: 'bytes', mysql: always(8 * M), mariadb: always(8 * M) },
  // MariaDB 10.11 prints 134216704 (128M - 1K), not the 128M the documentation gives.
  myisam_sort_buffer_size: { unit: 'bytes', mysql: always(8 * M), mariadb: always(134216704) },
  innodb_sort_buffer_size: {
    unit: 'bytes',
    mysql: [
      ['0', null],
      ['5.6', M],
    ],
    mariadb: always(M),
  },
  back_log: {
    unit: 'count',
    mysql: [
      ['0', 50],
      ['5.6.6', (c) => Math.min(900, 50 + Math.floor(c.maxConnections / 5))],
      ['8.0', (c) => c.maxConnections],
    ],
    mariadb: always((c) => Math.min(900, 50 + Math.floor(c.maxConnections / 5))),
  },
  performance_schema: {
    unit: 'boolean',
    mysql: [
      ['0', false],
      ['5.6.6', true],
    ],
    mariadb: always(false),
  },
  innodb_file_per_table: {
    unit: 'boolean',
    mysql: [
      ['0', false],
      ['5.6.6', true],
    ],
    mariadb: always(true),
  },
  wait_timeout: { unit: 'seconds', mysql: always(28800), mariadb: always(28800) },
  interactive_timeout: { unit: 'seconds', mysql: always(28800), mariadb: always(28800) },
  innodb_io_capacity: {
    unit: 'count',
    mysql: [
      ['0', 200],
      ['8.4', 10000],
    ],
    mariadb: always(200),
  },
  innodb_adaptive_hash_index: {
    unit: 'boolean',
    mysql: [
      ['0', true],
      ['8.4', false],
    ],
    mariadb: always(false),
  },
});

const BASE_CONTEXT: DefaultContext = { maxConnections: 151, tableOpenCache: 2000, innodbBufferPoolSize: 128 * M };

/** The default of a §2 variable on the target, or undefined when the target does not have it (or we do not know it). */
export function variableDefault(key: string, target: DatabaseTarget, context: Partial<DefaultContext> = {}): DefaultValue | undefined {
  const variable = VARIABLE_DEFAULTS[key];
  if (variable === undefined) return undefined;
  const history = target.product === 'mysql' ? variable.mysql : variable.mariadb;
  let rule: Rule | undefined;
  for (const [since, value] of history) if (compareVersions(target.version, since) >= 0) rule = value;
  if (rule === undefined || rule === null) return undefined;
  return typeof rule === 'function' ? rule({ ...BASE_CONTEXT, ...context }) : rule;
}

export function variableUnit(key: string): VariableUnit | undefined {
  return VARIABLE_DEFAULTS[key]?.unit;
}
