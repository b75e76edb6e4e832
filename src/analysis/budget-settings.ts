import { GIB, MIB } from '../util/units.js';

/** Every number of the sizing model; `.tune-lint.yaml` `budget:` overrides them. */
export interface Budget {
  /** Share of RAM for Apache when a database runs on the same host (the classic "50% of RAM to Apache"). */
  readonly apacheShare: number;
  /** OS reserve: this share of RAM, clamped to [osReserveMin, osReserveMax]. */
  readonly osReserveShare: number;
  readonly osReserveMin: number;
  readonly osReserveMax: number;
  /** MySQLTuner's alarm: worst-case MySQL memory above this share of RAM on a dedicated host. */
  readonly mysqlMaxShare: number;
  /** Connections kept free for cron, CLI and admin on top of the web tier's. */
  readonly adminConnections: number;
  /** Over the Apache budget by up to this share is a note; beyond it, an error with a fix. */
  readonly overcommitTolerance: number;
  /** The buffer pool the InnoDB data asks: the data and indexes times this. */
  readonly poolDataHeadroom: number;
  /** PHP children a CPU runs at once for a CPU-bound page: pools above CPUs x this are cut, pools far below it raised. */
  readonly phpChildrenPerCpu: number;
  /** Apache threads (event, worker) in front of php-fpm for each PHP child they feed: the rest serve static files and keep-alive. */
  readonly threadsPerPhpChild: number;
  /** A limit is raised only to this multiple of its value or more: the plan never moves a limit by a little. */
  readonly raiseThreshold: number;
  /** What other services on the host take at their peak (Redis, memcached, Varnish, a JVM): set aside with the OS reserve. */
  readonly otherServices: number;
}

export const DEFAULT_BUDGET: Budget = {
  apacheShare: 0.5,
  osReserveShare: 0.1,
  osReserveMin: 64 * MIB,
  osReserveMax: 1 * GIB,
  mysqlMaxShare: 0.85,
  adminConnections: 10,
  overcommitTolerance: 0.1,
  poolDataHeadroom: 1.5,
  phpChildrenPerCpu: 4,
  threadsPerPhpChild: 4,
  raiseThreshold: 1.5,
  otherServices: 0,
};
