import { PROPERTY_NAMES, runPropertyInWorker, seedFrom, type PropertyName } from './properties.js';
import { loadSeeds } from './seeds.js';

/*
 * `npm run fuzz`: the suite's fuzz properties, run much longer, for local use.
 *
 *   TUNE_LINT_FUZZ_RUNS=20000       runs per property (default 5000)
 *   TUNE_LINT_FUZZ_MINUTES=30       stop each property after this long instead
 *   TUNE_LINT_FUZZ_SEED=123         replay a failure (fast-check prints the seed)
 *   TUNE_LINT_FUZZ_ONLY=apache,pair properties to run (apache, mycnf, pair)
 *   TUNE_LINT_CORPUS=/path          more seeds (default ../shared/corpus)
 *
 * Each property runs in a worker thread: a run that has not ended after two
 * minutes stops it, and the scenario it was running is printed.
 */

const STALL_MS = 120_000;

function numberFrom(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return value;
}

async function main(): Promise<number> {
  const minutes = numberFrom('TUNE_LINT_FUZZ_MINUTES');
  const runs = numberFrom('TUNE_LINT_FUZZ_RUNS') ?? (minutes === undefined ? 5000 : Number.MAX_SAFE_INTEGER);
  const seed = seedFrom(process.env.TUNE_LINT_FUZZ_SEED);
  const only = (process.env.TUNE_LINT_FUZZ_ONLY ?? '').split(',').filter((name) => name !== '');
  const unknown = only.filter((name) => !PROPERTY_NAMES.includes(name as PropertyName));
  if (unknown.length > 0) throw new Error(`TUNE_LINT_FUZZ_ONLY: unknown ${unknown.join(', ')}; expected ${PROPERTY_NAMES.join(', ')}`);
  const names = only.length === 0 ? PROPERTY_NAMES : (only as PropertyName[]);
  const seeds = loadSeeds();
  process.stdout.write(`seeds: ${seeds.sources.join('; ')}\n`);
  let failed = 0;
  for (const name of names) {
    const started = Date.now();
    try {
      const run = {
        numRuns: runs,
        ...(seed === undefined ? {} : { seed }),
        ...(minutes === undefined ? {} : { interruptAfterMs: minutes * 60_000 }),
      };
      const totals = await runPropertyInWorker(name, run, STALL_MS);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `${name}: ok, ${totals.runs} runs in ${seconds} s (${totals.withRuleDiagnostics} with rule findings, ${totals.withFixes} with fixes, at most ${totals.maxPasses} fix passes)\n`,
      );
    } catch (error) {
      failed++;
      process.stdout.write(`${name}: FAILED\n${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
