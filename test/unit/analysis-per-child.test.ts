import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import type { ChildMemory, Fact } from '../../src/host/facts.js';
import { lint } from '../../src/lint.js';

/*
 * Measured children count for the config they run: an event
 * Apache without PHP still running while the disk says prefork with mod_php
 * gave "3.1 MiB per child" and no error.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-per-child-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(
  path.join(dir, 'prefork-php.conf'),
  'LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nLoadModule php_module /usr/lib/apache2/modules/libphp8.2.so\nMaxRequestWorkers 150\n',
);
const MIB = 1024 * 1024;

async function perChildUsed(measuredOn: ChildMemory['measuredOn']): Promise<Fact<ChildMemory>> {
  const perChild: Fact<ChildMemory> = {
    value: { median: 3.1 * MIB, max: 4 * MIB, count: 5, metric: 'pss', ...(measuredOn === undefined ? {} : { measuredOn }) },
    source: 'probe (apache2 children)',
  };
  const result = await lint({
    paths: ['prefork-php.conf'],
    cwd: dir,
    host: { ram: { value: 2048 * MIB, source: 'flag --host-ram' }, perChild },
    rules: selectRules(builtinRules, 'recommended', new Map()),
  });
  return result.sizing.apache[0]?.perChild as Fact<ChildMemory>;
}

describe('the per-child size measured on running children', () => {
  it("is used when the children run the config's MPM and PHP", async () => {
    assert.equal((await perChildUsed({ mpm: 'prefork', php: true })).source, 'probe (apache2 children)');
    assert.equal((await perChildUsed(undefined)).source, 'probe (apache2 children)', 'nothing known of them: as measured');
    assert.equal(
      (await perChildUsed({ mpm: undefined, php: true })).source,
      'probe (apache2 children)',
      'an MPM built in: only PHP is compared',
    );
  });

  it('is not used when they run another MPM or no PHP: the estimate, saying why', async () => {
    const used = await perChildUsed({ mpm: 'event', php: false });
    assert.equal(used.value.median, 64 * MIB);
    assert.match(
      used.source,
      /^estimate \(prefork with mod_php: 64 MiB per process; .*; the running Apache's children \(event without PHP\) are not this config's \(prefork with mod_php\), so their 3\.1 MiB was not used\)$/,
    );
    assert.equal((await perChildUsed({ mpm: 'prefork', php: false })).value.median, 64 * MIB);
  });
});
