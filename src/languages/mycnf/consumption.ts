import type { MemoryConsumer } from '../../core/language.js';
import { formatBytes } from '../../util/units.js';
import { remembered } from '../../util/remembered.js';
import type { MycnfConfig } from './model.js';

interface MysqlTerm {
  readonly name: string;
  readonly bytes: number;
  /** `set in FILE:LINE` or `default for mariadb 10.11`. */
  readonly from: string;
}

export interface MysqlUsage {
  readonly globals: readonly MysqlTerm[];
  readonly perConnection: readonly MysqlTerm[];
  readonly maxConnections: { readonly value: number; readonly from: string };
  readonly globalBytes: number;
  readonly perConnectionBytes: number;
  /** The worst case: globals + per-connection buffers x max_connections (the temporary-table term once, among the globals). */
  readonly peak: number;
}

/** Memory variables of the worst-case formula (docs/rules/MY2001.md says which, and how MySQLTuner's `calculations` differ). */
const GLOBAL_BUFFERS = [
  'key_buffer_size',
  'innodb_buffer_pool_size',
  'innodb_additional_mem_pool_size',
  'innodb_log_buffer_size',
  'query_cache_size',
  'aria_pagecache_buffer_size',
] as const;
const PER_CONNECTION_BUFFERS = [
  'read_buffer_size',
  'read_rnd_buffer_size',
  'sort_buffer_size',
  'thread_stack',
  'join_buffer_size',
] as const;

/** By config: a fix pass that changed no option file lints the same config again. */
const mysqlUsages = new WeakMap<MycnfConfig, MysqlUsage>();

function mysqlUsage(config: MycnfConfig): MysqlUsage {
  const term = (name: string): MysqlTerm | undefined => {
    const size = config.size(name);
    if (size === undefined) return undefined;
    return {
      name,
      bytes: size.bytes,
      from: size.from === 'default' ? `default for ${config.target.product} ${config.target.version}` : `set in ${where(size.from)}`,
    };
  };
  const globals = GLOBAL_BUFFERS.flatMap((name) => term(name) ?? []);
  const tmp = term('tmp_table_size');
  const heap = term('max_heap_table_size');
  // MySQL 8.0's internal temporary tables live in the TempTable engine, whose memory all connections share up to temptable_max_ram.
  const tempTable = term('temptable_max_ram');
  if (tempTable !== undefined) globals.push(tempTable);
  else if (tmp !== undefined && heap !== undefined) {
    const smaller = tmp.bytes <= heap.bytes ? tmp : heap;
    globals.push({ name: 'min(tmp_table_size, max_heap_table_size)', bytes: smaller.bytes, from: smaller.from });
  }
  const perConnection = PER_CONNECTION_BUFFERS.flatMap((name) => term(name) ?? []);
  const connections = term('max_connections');
  const maxConnections = {
    value: connections?.bytes ?? 151,
    from: connections?.from ?? `default for ${config.target.product} ${config.target.version}`,
  };
  const globalBytes = globals.reduce((sum, t) => sum + t.bytes, 0);
  const perConnectionBytes = perConnection.reduce((sum, t) => sum + t.bytes, 0);
  return {
    globals,
    perConnection,
    maxConnections,
    globalBytes,
    perConnectionBytes,
    peak: globalBytes + perConnectionBytes * maxConnections.value,
  };
}

function where(use: {
  readonly file: { readonly displayPath: string; position(offset: number): { line: number } };
  readonly range: readonly [number, number];
}): string {
  return `${use.file.displayPath}:${use.file.position(use.range[0]).line}`;
}

/** The server's worst case, as the host budget counts it. */
export function mysqlConsumers(config: MycnfConfig): MemoryConsumer[] {
  const usage = mysqlUsageOf(config);
  const limit = config.effective('max_connections');
  return [
    {
      language: 'mycnf',
      config,
      role: 'database',
      label: 'MySQL',
      bytes: usage.peak,
      detail: `${formatBytes(usage.globalBytes)} global buffers + max_connections ${usage.maxConnections.value} x ${formatBytes(usage.perConnectionBytes)}`,
      limits: [{ name: 'max_connections', value: usage.maxConnections.value, setAt: limit, from: usage.maxConnections.from }],
    },
  ];
}

/** The usage of a config, once per config: a fix pass that changed no option file reads the same config again. */
export function mysqlUsageOf(config: MycnfConfig): MysqlUsage {
  return remembered(mysqlUsages, config, () => mysqlUsage(config));
}
