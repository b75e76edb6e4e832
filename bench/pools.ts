/**
 * `npm run bench:pools`: what php-fpm's pools add to a host's lint. The stock
 * Debian tree (Apache, MariaDB) copied from this machine, linted with and
 * without a php-fpm.conf that includes 20 pools of Debian's stock size, side
 * by side in rounds. Target (issue 25): at most 1.2x the time without pools.
 *
 *   node dist/bench/pools.js [--reps 10] [--pools 20]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, CLI_NODE } from '../test/helpers/cli.js';
import { measureRounds, median, Runner, scratchDirectory, type BenchCommand } from './measure.js';
import { copyDebianTree } from './trees.js';

/** Debian's stock pool (php8.2-fpm's www.conf without its comments), one per site. */
function pool(name: string): string {
  return [
    `[${name}]`,
    'user = www-data',
    'group = www-data',
    `listen = /run/php/php8.2-fpm-$pool.sock`,
    'listen.owner = www-data',
    'listen.group = www-data',
    'pm = dynamic',
    'pm.max_children = 5',
    'pm.start_servers = 2',
    'pm.min_spare_servers = 1',
    'pm.max_spare_servers = 3',
    'pm.max_requests = 500',
    'request_terminate_timeout = 60s',
    `php_admin_value[error_log] = /var/log/php/${name}.log`,
    'php_admin_value[memory_limit] = 128M',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '10' }, pools: { type: 'string', default: '20' } } });
  const repetitions = Number(values.reps);
  const pools = Number(values.pools);
  const scratch = scratchDirectory();
  try {
    const tree = copyDebianTree(scratch);
    const fpm = path.join(tree.root, 'etc', 'php', '8.2', 'fpm');
    fs.mkdirSync(path.join(fpm, 'pool.d'), { recursive: true });
    fs.writeFileSync(
      path.join(fpm, 'php-fpm.conf'),
      '[global]\npid = /run/php/php8.2-fpm.pid\nerror_log = /var/log/php8.2-fpm.log\ninclude=/etc/php/8.2/fpm/pool.d/*.conf\n',
    );
    for (let index = 0; index < pools; index++) fs.writeFileSync(path.join(fpm, 'pool.d', `site${index}.conf`), pool(`site${index}`));
    const runner = new Runner(false, scratch, tree.root);
    const common = [
      CLI_NODE,
      CLI,
      '--no-probe',
      '--host-ram',
      '4G',
      '--sysroot',
      tree.root,
      '/etc/apache2/apache2.conf',
      '/etc/mysql/my.cnf',
    ];
    const commands: BenchCommand[] = [
      { id: 'without', argv: common, okExitCodes: [0, 1] },
      { id: 'with', argv: [...common, '/etc/php/8.2/fpm/php-fpm.conf'], okExitCodes: [0, 1] },
    ];
    await measureRounds(runner, commands, 1, () => undefined);
    const samples = await measureRounds(runner, commands, repetitions, () => process.stderr.write('.'));
    runner.close();
    const without = median((samples.get('without') ?? []).map((sample) => sample.wallMs));
    const withPools = median((samples.get('with') ?? []).map((sample) => sample.wallMs));
    process.stdout.write(
      [
        '',
        `Debian's Apache and MariaDB trees with and without php-fpm.conf and ${pools} pools, median of ${repetitions} rounds:`,
        '',
        '| tree | wall | ratio |',
        '| --- | ---: | ---: |',
        `| without pools | ${without.toFixed(0)} ms | 1.00x |`,
        `| with ${pools} pools | ${withPools.toFixed(0)} ms | ${(withPools / without).toFixed(2)}x |`,
        '',
      ].join('\n'),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
