import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { HostFactsError, ProbeCache, resolveHostFacts, withSlowNotice } from '../../src/host/resolve.js';
import { locatePlain } from '../../src/host/values.js';
import { configHostSection, hostFixture } from '../helpers/host-fixtures.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

const sourceOf = (facts: object) =>
  Object.fromEntries(
    Object.entries(facts)
      .filter(([key]) => key !== 'notes')
      .map(([key, fact]) => [key, (fact as { source: string }).source]),
  );

describe('resolveHostFacts: precedence', () => {
  test('flag > profile > Ansible facts > .tune-lint.yaml, per fact; a profile or facts file means this machine is not probed', async () => {
    const profile = path.relative(process.cwd(), hostFixture('profiles/minimal.yaml'));
    const factsFile = path.relative(process.cwd(), hostFixture('ansible/web01.json'));
    const facts = await resolveHostFacts({
      flags: { cpus: '4' },
      profilePath: profile,
      factsPath: factsFile,
      config: await configHostSection('host:\n  ram: 1G\n  swap: 2G\n  somaxconn: 128\n', '.tune-lint.yaml'),
      probe: true,
    });
    assert.deepEqual(sourceOf(facts), {
      ram: `profile ${profile}`,
      cpus: 'flag --host-cpus',
      swap: `ansible facts ${factsFile}`,
      perChild: `profile ${profile}`,
      somaxconn: '.tune-lint.yaml',
      mounts: `ansible facts ${factsFile}`,
    });
    assert.equal(facts.ram?.value, 2 * GIB);
    assert.equal(facts.cpus?.value, 4);
    assert.equal(facts.swap?.value, 1023 * MIB);
    assert.deepEqual(facts.notes, [`this machine was not probed: --profile ${profile} describes the host the config is for`]);
  });

  test('.tune-lint.yaml over the probe, which fills in the rest', async () => {
    const facts = await resolveHostFacts({
      config: await configHostSection('host: { ram: 500M, perChild: 20M }\n', '.tune-lint.yaml'),
      probe: true,
    });
    assert.deepEqual(facts.ram, { value: 500 * MIB, source: '.tune-lint.yaml' });
    assert.equal(facts.perChild?.source, '.tune-lint.yaml');
    assert.match(facts.cpus?.source ?? '', /^probe \(/);
    assert.match(facts.mounts?.source ?? '', /^probe \(/);
  });

  test('--no-probe: only what was given, never this machine', async () => {
    const facts = await resolveHostFacts({
      flags: { ram: '512M' },
      config: { located: locatePlain({ cpus: 2 }, 'hosts/.tune-lint.yaml'), source: 'hosts/.tune-lint.yaml' },
      probe: false,
    });
    assert.deepEqual(facts, { ram: { value: 512 * MIB, source: 'flag --host-ram' }, cpus: { value: 2, source: 'hosts/.tune-lint.yaml' } });
    assert.deepEqual(await resolveHostFacts({ probe: false }), {});
  });

  test('nothing left to probe when a profile gives every fact', async () => {
    const facts = await resolveHostFacts({ profilePath: hostFixture('profiles/web01.yaml'), probe: true });
    assert.equal(facts.notes, undefined);
    assert.ok(Object.values(sourceOf(facts)).every((source) => source.startsWith('profile ')));
  });

  test('host units of one run share one probe, each under its own config', async () => {
    const probeCache = new ProbeCache();
    const web = await resolveHostFacts({
      config: await configHostSection('host: { ram: 2G }\n', '.tune-lint.yaml'),
      probe: true,
      probeCache,
    });
    const db = await resolveHostFacts({
      config: await configHostSection('host: { ram: 16G, cpus: 8 }\n', '.tune-lint.yaml'),
      probe: true,
      probeCache,
    });
    const plain = await resolveHostFacts({ probe: true, probeCache });
    assert.equal(web.ram?.value, 2 * GIB);
    assert.equal(db.ram?.value, 16 * GIB);
    assert.equal(db.cpus?.value, 8);
    assert.match(web.cpus?.source ?? '', /^probe \(/);
    assert.match(plain.ram?.source ?? '', /^probe \(/);
    assert.ok(
      web.mounts !== undefined && web.mounts === db.mounts && db.mounts === plain.mounts,
      'the same probe result, not three probes',
    );
  });

  test('bad input anywhere is a HostFactsError, before any probing', async () => {
    await assert.rejects(
      resolveHostFacts({ flags: { ram: 'lots' }, probe: true }),
      (error: unknown) => error instanceof HostFactsError && error.message === '--host-ram: expected a size such as 512M or 2G, got "lots"',
    );
    await assert.rejects(
      resolveHostFacts({ factsPath: 'missing.json', probe: false }),
      /^HostFactsError: --facts missing\.json: no such file$/,
    );
    await assert.rejects(
      resolveHostFacts({
        config: await configHostSection('extends: recommended\nhost:\n  cpus: 2\n  ram: true\n', '.tune-lint.yaml'),
        probe: true,
      }),
      /^HostFactsError: \.tune-lint\.yaml:4:8: host\.ram: expected a size such as 512M or 2G, got true$/,
    );
  });
});

describe('withSlowNotice (the probe spinner)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('quick work never starts the spinner', async () => {
    let started = 0;
    assert.equal(
      await withSlowNotice(
        async () => 'done',
        () => (started++, () => undefined),
        100,
      ),
      'done',
    );
    await sleep(150);
    assert.equal(started, 0);
  });

  test('slow work starts it once and stops it when done, also on failure', async () => {
    const events: string[] = [];
    const spinner = () => (events.push('start'), () => events.push('stop'));
    assert.equal(await withSlowNotice(async () => (await sleep(120), 7), spinner, 20), 7);
    assert.deepEqual(events, ['start', 'stop']);
    await assert.rejects(
      withSlowNotice(async () => (await sleep(120), Promise.reject(new Error('boom'))), spinner, 20),
      /boom/,
    );
    assert.deepEqual(events, ['start', 'stop', 'start', 'stop']);
  });

  test('no spinner given, no timer left behind', async () => {
    assert.equal(await withSlowNotice(async () => 1, undefined), 1);
  });
});
