import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { childMemoryFrom, measureChildren, probeHost } from '../../src/host/probe.js';
import { apacheProcesses } from '../../src/host/running.js';
import { listProcesses, ProcReader } from '../../src/host/proc.js';
import { startApache } from '../helpers/host-apache.js';
import { NOBODY, probeInChildProcess, unreadableByNobody } from '../helpers/host-probe-runner.js';
import { runCli } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

const KIB = 1024;

/** The kernel's own figures for one process, read the simplest way. */
function kernelFigures(pid: number): { rss: number; pss: number } {
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  const pss = /^Pss:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
  assert.ok(rss !== undefined && pss !== undefined, `figures of PID ${pid}`);
  return { rss: Number(rss) * KIB, pss: Number(pss) * KIB };
}

/** Two reads a moment apart: equal but for pages touched or shared in between. */
function near(actual: number, expected: number, share: number, floor: number, what: string): void {
  const allowed = Math.max(expected * share, floor);
  assert.ok(Math.abs(actual - expected) <= allowed, `${what}: ${actual} vs ${expected} (allowed ${allowed})`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : Math.round(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}

function get(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/index.html' }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe(
  'per-child memory of a real apache2 (prefork)',
  { skip: fs.existsSync('/proc/self/smaps_rollup') ? false : 'no /proc/self/smaps_rollup' },
  () => {
    test('the probe measures its children, not its parent, as the kernel reports them', async (t) => {
      const apache2 = requireTool(t, 'apache2');
      if (apache2 === undefined) return;
      const apache = await startApache(apache2, (stop) => t.after(stop));
      assert.equal(await get(apache.port), 200);
      const ours = new Set(apache.children());
      assert.equal(ours.size, 3, 'StartServers 3');

      const reader = new ProcReader();
      const processes = listProcesses(reader) ?? [];
      const split = apacheProcesses(reader, processes);
      assert.ok(
        split.parents.some((process) => process.pid === apache.pid),
        'the parent is a parent',
      );
      assert.ok(!split.children.some((process) => process.pid === apache.pid), 'the parent is not measured');
      const children = split.children.filter((process) => ours.has(process.pid));
      assert.deepEqual(children.map((process) => process.pid).sort(), [...ours].sort());

      const samples = measureChildren(reader, children);
      const kernel = new Map(children.map((process) => [process.pid, kernelFigures(process.pid)]));
      assert.equal(samples.length, 3);
      for (const sample of samples) {
        const figures = kernel.get(sample.pid);
        assert.ok(figures);
        near(sample.rss, figures.rss, 0.01, 64 * KIB, `RSS of PID ${sample.pid}`);
        near(sample.pss ?? -1, figures.pss, 0.05, 64 * KIB, `PSS of PID ${sample.pid}`);
        assert.ok((sample.pss ?? Infinity) < sample.rss, 'PSS splits the pages shared with the parent and siblings');
      }
      const notes: string[] = [];
      const summary = childMemoryFrom(samples, notes);
      const pss = [...kernel.values()].map((figures) => figures.pss);
      assert.equal(summary?.metric, 'pss');
      assert.equal(summary.count, 3);
      near(summary.median, median(pss), 0.05, 64 * KIB, 'median PSS');
      near(summary.max, Math.max(...pss), 0.05, 64 * KIB, 'max PSS');
      assert.deepEqual(notes, []);

      // The whole probe sees every Apache on the machine, ours among them.
      const facts = await probeHost();
      assert.equal(facts.apacheRunning?.value, true);
      assert.equal(facts.perChild?.value.metric, 'pss');
      assert.ok(facts.perChild.value.count >= 3);

      await t.test("a user who may not read the children's smaps_rollup gets RSS and a note saying why", async (t) => {
        const unreadable = unreadableByNobody();
        if (unreadable !== undefined) {
          t.skip(unreadable);
          return;
        }
        const asNobody = await probeInChildProcess({ uid: NOBODY });
        assert.equal(asNobody.facts.perChild?.value.metric, 'rss');
        assert.ok(asNobody.facts.perChild.value.count >= 3);
        assert.ok(
          asNobody.facts.notes?.some((note) => /^smaps_rollup of PID \d+ unreadable \(EACCES\); used RSS/.test(note)),
          `notes: ${JSON.stringify(asNobody.facts.notes)}`,
        );
      });
    });
  },
);

describe('two real apache2 instances on one host (issue 47, item 7)', () => {
  test('the probe measures the one started with the config linted; the other MPM is no AP1017', async (t) => {
    const apache2 = requireTool(t, 'apache2');
    if (apache2 === undefined) return;
    const prefork = await startApache(apache2, (stop) => t.after(stop), 'prefork');
    const event = await startApache(apache2, (stop) => t.after(stop), 'event');
    const preforkChildren = new Set(prefork.children());
    const eventChildren = new Set(event.children());

    const forPrefork = await probeHost({ linted: [prefork.config] });
    assert.equal(forPrefork.perChild?.value.measuredOn?.mpm, 'prefork', JSON.stringify(forPrefork.notes));
    assert.equal(forPrefork.perChild.value.count, preforkChildren.size);
    assert.ok(
      forPrefork.notes?.some(
        (note) =>
          note.includes(`PID ${prefork.pid}: ${prefork.config}`) &&
          note.endsWith(`measured only PID ${prefork.pid}, started with the config linted`),
      ),
      JSON.stringify(forPrefork.notes),
    );

    const forEvent = await probeHost({ linted: [event.config] });
    assert.equal(forEvent.perChild?.value.measuredOn?.mpm, 'event', JSON.stringify(forEvent.notes));
    assert.equal(forEvent.perChild.value.count, eventChildren.size);

    // A config neither was started with: both measured, and said.
    const neither = await probeHost({ linted: [path.join(prefork.root, 'htdocs', 'index.html')] });
    assert.ok((neither.perChild?.value.count ?? 0) >= preforkChildren.size + eventChildren.size);
    assert.ok(neither.notes?.some((note) => note.endsWith('none was started with a config linted here, so all are measured')));

    // The CLI on the prefork config: its running MPM is prefork, whichever Apache the process list shows first.
    const run = runCli([prefork.config, '--host-ram', '4G', '--no-live', '--format', 'json'], { cwd: prefork.root });
    const report = JSON.parse(run.stdout) as { results: { diagnostics: { ruleId: string }[] }[] };
    assert.deepEqual(
      report.results.flatMap((file) => file.diagnostics).filter((diagnostic) => diagnostic.ruleId === 'AP1017'),
      [],
    );
    const onEvent = runCli([event.config, '--host-ram', '4G', '--no-live', '--format', 'json'], { cwd: event.root });
    assert.ok(!onEvent.stdout.includes('"AP1017"'), 'the event config is measured on the event children');
  });
});
