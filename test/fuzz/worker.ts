import { parentPort, workerData } from 'node:worker_threads';
import { runProperty, type PropertyName, type PropertyRun, type WorkerMessage } from './properties.js';
import { loadSeeds } from './seeds.js';

/* One fuzz property in a worker thread (see runPropertyInWorker): it reports each scenario before running it, then the totals or the failure. */

const { name, run } = workerData as { name: PropertyName; run: Omit<PropertyRun, 'onRun'> };
const post = (message: WorkerMessage): void => parentPort?.postMessage(message);
try {
  const totals = await runProperty(name, loadSeeds(), {
    ...run,
    onRun: (scenario) => post({ kind: 'run', scenario: JSON.stringify(scenario) }),
  });
  post({ kind: 'done', totals });
} catch (error) {
  post({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
}
