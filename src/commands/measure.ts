import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { HostFacts } from '../core/host-facts.js';
import { formatBytes } from '../util/units.js';
import { PeakSampler, parseAbReport, refusedTarget, type LoadSummary } from '../host/measure.js';
import { probeHost } from '../host/probe.js';
import { hostFactsToProfileYaml } from '../host/profile.js';
import { isSystemFile } from '../host/trust.js';
import { perChildLine } from '../host/format.js';
import { stderr, stdout } from '../util/stdio.js';
import { UserError } from '../util/user-error.js';
import * as path from 'node:path';

/** ApacheBench as Debian's apache2-utils installs it: a fixed path, never one found by name. */
const AB = '/usr/bin/ab';
/** How often the servers' children are sampled while the load runs. */
const SAMPLE_EVERY_MS = 250;

export interface MeasureCommandOptions {
  readonly requests: number;
  readonly concurrency: number;
  readonly timeLimit: number;
  readonly out?: string;
}

/**
 * `tune-lint measure URL`: the way the tuning story measured. A bounded load
 * (at most `requests`, `concurrency` at once, `timeLimit` seconds) from the
 * installed ab at the user's heaviest page on this host, the servers'
 * children sampled throughout and kept at their peak; it reports requests/s,
 * p99 and failures, and writes a profile (host facts plus the sizes at the
 * peak) that the lint and the plan read with --profile.
 */
export async function runMeasure(target: string, options: MeasureCommandOptions): Promise<number> {
  const url = parseTarget(target);
  if (!fs.existsSync(AB)) throw new UserError(`${AB} not found: install apache2-utils (Debian, Ubuntu) or httpd-tools (RHEL)`);
  // Run as root on a shared host: only a binary no local user could have put there.
  if (!isSystemFile(AB)) throw new UserError(`${AB} is not a system file (owned by root, writable by no one else): not run`);
  for (const [name, value, max] of [
    ['--requests', options.requests, 1_000_000],
    ['--concurrency', options.concurrency, 1000],
    ['--time-limit', options.timeLimit, 3600],
  ] as const) {
    if (value < 1 || value > max) throw new UserError(`${name} must be between 1 and ${max}, not ${value}`);
  }
  if (options.concurrency > options.requests) throw new UserError('--concurrency cannot be above --requests (ab refuses it)');

  const sampler = new PeakSampler();
  sampler.sample();
  const report = await runAb(url, options, () => sampler.sample());
  sampler.sample();
  const load = parseAbReport(report.stdout);
  if (load === undefined)
    throw new UserError(`ab did not measure ${url.href}: ${report.stderr.trim().split('\n').at(-1) ?? `exit ${report.code}`}`);

  const notes: string[] = [];
  const sizes = sampler.sizes(notes);
  const source = `measure (peak of ${sampler.rounds} samples, ab -c ${options.concurrency} ${url.href})`;
  const probed = await probeHost();
  const facts: HostFacts = {
    ...probed,
    ...(sizes.apache === undefined
      ? {}
      : {
          perChild: {
            value: withMapping(sizes.apache, sizes.apachePid === undefined ? undefined : sampler.measuredOn(sizes.apachePid)),
            source,
          },
        }),
    ...(sizes.php === undefined ? {} : { phpPerChild: { value: sizes.php, source } }),
    notes: [...(probed.notes ?? []), ...notes],
  };
  const lines = summaryLines(url, options, load, facts);
  // Two rounds are the ones before and after the load: none ran while it did.
  if (sampler.rounds <= 2)
    lines.push(
      `the load ended within ${SAMPLE_EVERY_MS} ms, before the children were sampled under it: give more --requests for sizes at the peak`,
    );
  stderr.write(`${lines.join('\n')}\n`);
  const profile = await hostFactsToProfileYaml(facts);
  if (options.out === undefined) stdout.write(profile);
  else writeProfile(options.out, profile);
  return load.failed > 0 || load.non2xx > 0 ? 1 : 0;
}

function parseTarget(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UserError(`not a URL: ${target} (expected like http://127.0.0.1/heaviest-page.php)`);
  }
  const refused = refusedTarget(url);
  if (refused !== undefined) throw new UserError(refused);
  return url;
}

function withMapping(child: NonNullable<HostFacts['perChild']>['value'], measuredOn: ReturnType<PeakSampler['measuredOn']>) {
  return measuredOn === undefined ? child : { ...child, measuredOn };
}

/** ab with the bounds given (-t before -n: -t alone would imply 50,000 requests), sampling while it runs. */
function runAb(
  url: URL,
  options: MeasureCommandOptions,
  sample: () => void,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const args = [
    '-q',
    '-r',
    '-s',
    '30',
    '-t',
    String(options.timeLimit),
    '-n',
    String(options.requests),
    '-c',
    String(options.concurrency),
    url.href,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(AB, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C' } });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setInterval(sample, SAMPLE_EVERY_MS);
    child.once('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearInterval(timer);
      resolve({ stdout: out, stderr: err, code });
    });
  });
}

function summaryLines(url: URL, options: MeasureCommandOptions, load: LoadSummary, facts: HostFacts): string[] {
  const failed = load.failed + load.non2xx;
  const lines = [
    `${url.href}: ${load.complete} requests at ${options.concurrency} at once, ${load.perSecond.toFixed(1)} requests/s, p99 ${load.p99 === undefined ? 'n/a' : `${load.p99} ms`}, ${failed} failed (${load.non2xx} not 2xx)`,
  ];
  lines.push(facts.perChild === undefined ? 'Apache: no children of a running Apache seen' : `Apache: ${perChildLine(facts.perChild)}`);
  lines.push(
    facts.phpPerChild === undefined ? 'php-fpm: no children of a running php-fpm seen' : `php-fpm: ${perChildLine(facts.phpPerChild)}`,
  );
  if (facts.ram !== undefined) lines.push(`RAM ${formatBytes(facts.ram.value)} (${facts.ram.source})`);
  return lines;
}

/** The profile written whole or not at all: a temporary file beside it, then a rename. */
function writeProfile(file: string, text: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tune-lint-${process.pid}`);
  try {
    fs.writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UserError(`${file}: could not write the profile (${code})`);
  }
}
