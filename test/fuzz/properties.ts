import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { apacheText, hostFacts, mutatedApache, mutatedMycnf, mycnfText, targets } from './arbitraries.js';
import { checkScenario, Workspace, type ConfigSet, type RunStats, type Scenario } from './pipeline.js';
import type { Seeds } from './seeds.js';

export type PropertyName = 'apache' | 'mycnf' | 'pair';

export const PROPERTY_NAMES: readonly PropertyName[] = ['apache', 'mycnf', 'pair'];

function configSet(generated: fc.Arbitrary<string>, mutatedSeed: fc.Arbitrary<string>): fc.Arbitrary<ConfigSet> {
  const text = fc.oneof(generated, mutatedSeed);
  return fc.record({ main: text, included: fc.array(text, { maxLength: 2 }) });
}

/** Scenarios for one property: an Apache tree, a my.cnf tree, or both on one host (the cross-service rules). */
function scenarios(name: PropertyName, seeds: Seeds): fc.Arbitrary<Scenario> {
  const apache = configSet(apacheText, mutatedApache(seeds));
  const mycnf = configSet(mycnfText, mutatedMycnf(seeds));
  const common = { host: hostFacts, targets };
  switch (name) {
    case 'apache':
      return fc.record({ apache, ...common });
    case 'mycnf':
      return fc.record({ mycnf, ...common });
    case 'pair':
      return fc.record({ apache, mycnf, ...common });
  }
}

/** TUNE_LINT_FUZZ_SEED: fast-check seeds are 32-bit integers and may be negative. */
export function seedFrom(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`TUNE_LINT_FUZZ_SEED=${raw}: expected the integer seed fast-check printed`);
  return value;
}

export interface PropertyRun {
  readonly numRuns: number;
  readonly seed?: number;
  readonly budgetMs?: number;
  /** Stops early (successfully) after this long; fast-check's own interruption, for the long run. */
  readonly interruptAfterMs?: number;
  /** Called with each scenario before it runs, so that a run that never ends can be named. */
  readonly onRun?: (scenario: Scenario) => void;
}

export interface PropertyTotals {
  runs: number;
  withRuleDiagnostics: number;
  withFixes: number;
  maxPasses: number;
}

/** Runs one property; throws fast-check's report (seed, path, counterexample) on the first failure. */
export async function runProperty(name: PropertyName, seeds: Seeds, run: PropertyRun): Promise<PropertyTotals> {
  const workspace = new Workspace();
  const totals: PropertyTotals = { runs: 0, withRuleDiagnostics: 0, withFixes: 0, maxPasses: 0 };
  const record = (stats: RunStats): void => {
    totals.runs++;
    if (stats.ruleDiagnostics > 0) totals.withRuleDiagnostics++;
    if (stats.fixedFiles > 0) totals.withFixes++;
    totals.maxPasses = Math.max(totals.maxPasses, stats.passes);
  };
  try {
    await fc.assert(
      fc.asyncProperty(scenarios(name, seeds), async (scenario) => {
        run.onRun?.(scenario);
        record(await checkScenario(workspace, scenario, run.budgetMs));
      }),
      {
        numRuns: run.numRuns,
        includeErrorInReport: true,
        ...(run.seed === undefined ? {} : { seed: run.seed }),
        ...(run.interruptAfterMs === undefined ? {} : { plugins: [fc.interruptAfterTimeLimit(run.interruptAfterMs)] }),
      },
    );
  } finally {
    workspace.remove();
  }
  return totals;
}

/**
 * Runs a property in a worker thread, so that a run stuck in a loop (which
 * no timer in the same thread can interrupt) is stopped and named: when no
 * new run has started for `stallMs`, the worker is terminated and the
 * scenario it was running is the error.
 */
export function runPropertyInWorker(name: PropertyName, run: Omit<PropertyRun, 'onRun'>, stallMs: number): Promise<PropertyTotals> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { name, run } });
    let current = 'no scenario yet';
    let lastStart = Date.now();
    const watchdog = setInterval(() => {
      if (Date.now() - lastStart < stallMs) return;
      clearInterval(watchdog);
      void worker.terminate();
      reject(new Error(`${name}: a run did not end within ${stallMs / 1000} s: ${current}`));
    }, 1000);
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'run') {
        current = message.scenario;
        lastStart = Date.now();
        return;
      }
      clearInterval(watchdog);
      void worker.terminate();
      if (message.kind === 'done') resolve(message.totals);
      else reject(new Error(message.error));
    });
    worker.on('error', (error) => {
      clearInterval(watchdog);
      reject(error);
    });
  });
}

export type WorkerMessage =
  | { readonly kind: 'run'; readonly scenario: string }
  | { readonly kind: 'done'; readonly totals: PropertyTotals }
  | { readonly kind: 'failed'; readonly error: string };
