/**
 * `npm run bench:live`: what asking the running database costs. A private
 * MariaDB (its own datadir and socket, stopped at the end) with Debian's
 * stock server settings; the same option file linted with `--no-live` and
 * live, side by side in rounds; then again with 20,000 tables, where
 * information_schema.TABLES is the slow part and is bounded.
 *
 *   node dist/bench/live.js [--reps 10] [--tables 20000]
 *
 * Targets (issue 24): at most +150 ms for the live lint of the stock server,
 * and at most 1 s in all with 20,000 tables.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, CLI_NODE } from '../test/helpers/cli.js';
import { startMariadb } from '../test/helpers/mariadb-server.js';
import { findTool } from '../test/helpers/tools.js';
import { measureRounds, median, Runner, scratchDirectory, type BenchCommand } from './measure.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '10' }, tables: { type: 'string', default: '20000' } } });
  const repetitions = Number(values.reps);
  const tables = Number(values.tables);
  const tools = { mariadbd: findTool('mariadbd'), installDb: findTool('mariadb-install-db'), client: findTool('mariadb') };
  if (tools.mariadbd === undefined || tools.installDb === undefined || tools.client === undefined) {
    throw new Error('bench:live needs mariadbd, mariadb-install-db and mariadb (apt-get install mariadb-server mariadb-client)');
  }
  const stops: (() => Promise<void>)[] = [];
  const scratch = scratchDirectory();
  try {
    const db = await startMariadb(
      { mariadbd: tools.mariadbd, installDb: tools.installDb, client: tools.client },
      ['innodb_file_per_table = 0', 'character-set-server = utf8mb4', 'collation-server = utf8mb4_general_ci'],
      (stop) => stops.push(stop),
    );
    const runner = new Runner(false, scratch, db.root);
    const lint = (id: string, extra: readonly string[]): BenchCommand => ({
      id,
      argv: [CLI_NODE, CLI, db.optionFile, '--host-ram', '4G', ...extra],
      okExitCodes: [0, 1],
    });
    const commands = [lint('offline', ['--no-live']), lint('live', [])];
    const rows: string[] = [];
    const round = async (label: string): Promise<void> => {
      await measureRounds(runner, commands, 1, () => undefined);
      const samples = await measureRounds(runner, commands, repetitions, () => process.stderr.write('.'));
      const offline = median((samples.get('offline') ?? []).map((sample) => sample.wallMs));
      const live = median((samples.get('live') ?? []).map((sample) => sample.wallMs));
      rows.push(`| ${label} | ${offline.toFixed(0)} ms | ${live.toFixed(0)} ms | +${(live - offline).toFixed(0)} ms |`);
    };
    await round('stock server');
    process.stderr.write(`\ncreating ${tables} tables\n`);
    const batch = 500;
    for (let first = 0; first < tables; first += batch) {
      const statements = Array.from({ length: Math.min(batch, tables - first) }, (_, index) => {
        const table = first + index;
        return `CREATE TABLE bench.t${table} (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=${table % 10 === 0 ? 'MyISAM' : 'InnoDB'}`;
      });
      db.sql(`${first === 0 ? 'CREATE DATABASE bench;' : ''}${statements.join(';')}`);
    }
    await round(`${tables} tables`);
    runner.close();
    const output = [
      '',
      `Live lint of a private MariaDB (${fs.readFileSync(path.join(db.root, 'my.cnf'), 'utf8').split('\n').length} option lines), median of ${repetitions} rounds:`,
      '',
      '| server | --no-live | live | cost |',
      '| --- | ---: | ---: | ---: |',
      ...rows,
      '',
    ];
    process.stdout.write(output.join('\n'));
  } finally {
    for (const stop of stops.reverse()) await stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
