import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { PROPERTY_NAMES, runPropertyInWorker, seedFrom } from './properties.js';
import { loadSeeds } from './seeds.js';

/*
 * Bounded fuzzing in the suite: generated and mutated configs (fixtures, and
 * the shared corpus when present) through read, lint with every rule (with
 * and without host facts), the fix passes and every formatter, for Apache,
 * my.cnf and both on one host. The properties are in test/fuzz/pipeline.ts;
 * `npm run fuzz` runs them much longer. TUNE_LINT_FUZZ_SEED replays a failure.
 */

const RUNS: Record<(typeof PROPERTY_NAMES)[number], number> = { apache: 250, mycnf: 250, pair: 200 };
const seed = seedFrom(process.env.TUNE_LINT_FUZZ_SEED);

describe('fuzz: read, lint, fix and print never fail', () => {
  const seeds = loadSeeds();

  it('has seeds from the fixtures', (t) => {
    assert.ok(seeds.apache.length > 50 && seeds.mycnf.length > 10, `${seeds.apache.length} Apache and ${seeds.mycnf.length} my.cnf seeds`);
    t.diagnostic(`seeds: ${seeds.sources.join('; ')}`);
  });

  for (const name of PROPERTY_NAMES) {
    it(`${name} configs (property)`, async (t) => {
      // In a worker: a run that never ends is stopped after a minute and named, instead of blocking the suite.
      const totals = await runPropertyInWorker(name, { numRuns: RUNS[name], ...(seed === undefined ? {} : { seed }) }, 60_000);
      t.diagnostic(
        `${totals.runs} runs: ${totals.withRuleDiagnostics} with rule findings, ${totals.withFixes} with fixes, at most ${totals.maxPasses} fix passes`,
      );
      const languages = name === 'pair' ? ['apache', 'mycnf', 'host'] : [name];
      const rules = builtinRules.filter((rule) => languages.includes(rule.meta.language));
      if (rules.length > 0) assert.ok(totals.withRuleDiagnostics > totals.runs / 10, 'the generators reach the rules');
      if (rules.some((rule) => rule.meta.fix !== undefined)) assert.ok(totals.withFixes > 0, 'the generators reach the fixer');
    });
  }
});
