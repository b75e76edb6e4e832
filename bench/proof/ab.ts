import { PAGE_PATH } from './apache.js';
import { runCommand } from './processes.js';

export const AB = '/usr/bin/ab';

export interface AbLoad {
  concurrency: number;
  requests: number;
  timeLimitSeconds: number;
}

export interface AbResult {
  seconds: number;
  complete: number;
  failed: number;
  failedBy: { connect: number; receive: number; length: number; exceptions: number };
  non2xx: number;
  requestsPerSecond: number;
  /** Responses that arrived whole with a 2xx status, per second: ab's own rate counts truncated ones too. */
  goodPerSecond: number;
  meanMs: number;
  p99Ms: number | undefined;
}

function field(output: string, label: string): number | undefined {
  const match = new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(output);
  return match ? Number(match[1]) : undefined;
}

/** Reads ab 2.3's report. Returns a reason instead when the report is not there. */
function parseAbReport(output: string): AbResult | string {
  const seconds = field(output, 'Time taken for tests');
  const complete = field(output, 'Complete requests');
  const failed = field(output, 'Failed requests');
  if (seconds === undefined || complete === undefined || failed === undefined) return 'ab printed no report';
  const reasons = /\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/.exec(output);
  const non2xx = field(output, 'Non-2xx responses') ?? 0;
  const totalRow = /^Total:\s+(\d+)\s+(\d+)/m.exec(output);
  const p99 = /^\s+99%\s+(\d+)/m.exec(output);
  // ab derives its rate from the unrounded time; "Time taken" is printed to the millisecond.
  const requestsPerSecond = field(output, 'Requests per second') ?? (seconds > 0 ? complete / seconds : 0);
  return {
    seconds,
    complete,
    failed,
    failedBy: {
      connect: Number(reasons?.[1] ?? 0),
      receive: Number(reasons?.[2] ?? 0),
      length: Number(reasons?.[3] ?? 0),
      exceptions: Number(reasons?.[4] ?? 0),
    },
    non2xx,
    requestsPerSecond,
    goodPerSecond: complete > 0 ? (requestsPerSecond * Math.max(0, complete - failed - non2xx)) / complete : 0,
    meanMs: totalRow ? Number(totalRow[2]) : Number.NaN,
    p99Ms: p99 ? Number(p99[1]) : undefined,
  };
}

/**
 * ab against the page on loopback. `-r` keeps going after a receive error (a
 * killed child), `-s 30` bounds a silent socket, and `-t` comes BEFORE `-n`
 * because `-t` sets the request count to 50000 and a later `-n` overrides it.
 */
export async function runAb(port: number, load: AbLoad): Promise<{ result: AbResult | string; rawOutput: string }> {
  const args = [
    '-r',
    '-s',
    '30',
    '-t',
    String(load.timeLimitSeconds),
    '-n',
    String(load.requests),
    '-c',
    String(load.concurrency),
    `http://127.0.0.1:${port}${PAGE_PATH}`,
  ];
  const run = await runCommand(AB, args, { timeoutMs: (load.timeLimitSeconds + 60) * 1000 });
  const rawOutput = `${run.stdout}${run.stderr}`;
  const report = parseAbReport(run.stdout);
  if (typeof report !== 'string') return { result: report, rawOutput };
  const why = run.timedOut
    ? 'ab was killed after its time limit'
    : `ab exited with ${run.code ?? run.signal}: ${run.stderr.trim().split('\n').pop() ?? ''}`;
  return { result: `${report} (${why})`, rawOutput };
}
