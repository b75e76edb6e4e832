import type { ChildMemory, Fact } from '../../core/host-facts.js';
import { isPhpModule } from './names.js';
import { MIB } from '../../util/units.js';

/*
 * Profile constants (heuristic):
 * prefork + mod_php 64 MiB per process, from a stock Debian prefork+PHP that
 * measured 68-71 MB RSS (ChrisTitusTech/website,
 * content/posts/2018/2018-09-26-apache-mpm-prefork.md); prefork without PHP
 * 16 MiB; a worker/event process with 25 threads and no PHP 32 MiB. They are
 * RSS-based figures, so they err on the large side, which is the safe side.
 */
const PREFORK_WITH_PHP = 64 * MIB;
const PREFORK_WITHOUT_PHP = 16 * MIB;
const THREADED_PROCESS = 32 * MIB;

/**
 * Per-child memory when nothing was measured and nobody said: a figure from
 * the MPM and whether mod_php is loaded, labelled as an estimate with the
 * reasoning, so every message built on it says so.
 */
export function estimatePerChild(mpm: 'prefork' | 'worker' | 'event', modules: readonly string[]): Fact<ChildMemory> {
  const php = modules.some(isPhpModule);
  let bytes: number;
  let reasoning: string;
  if (mpm === 'prefork') {
    bytes = php ? PREFORK_WITH_PHP : PREFORK_WITHOUT_PHP;
    reasoning = php ? 'prefork with mod_php: 64 MiB per process' : 'prefork without PHP: 16 MiB per process';
  } else if (php) {
    // No measured figure exists for a thread-safe mod_php build; add one PHP process's worth to the threaded process.
    bytes = THREADED_PROCESS + PREFORK_WITH_PHP;
    reasoning = `${mpm} with mod_php: 32 MiB per 25-thread process plus 64 MiB for PHP`;
  } else {
    bytes = THREADED_PROCESS;
    reasoning = `${mpm} without PHP: 32 MiB per process of 25 threads`;
  }
  return {
    value: { median: bytes, max: bytes, count: 0, metric: 'rss' },
    source: `estimate (${reasoning}; a probe of running children, --per-child or perChild in .tune-lint.yaml gives a real figure)`,
  };
}
