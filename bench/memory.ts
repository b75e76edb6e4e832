/**
 * `npm run bench:memory`: how tune-lint's memory grows with its input. One
 * large single Apache file (virtual hosts as a new user writes them) and one
 * large my.cnf (option groups as configuration managers write them), each
 * linted beside a small file of the same kind; the growth per input byte is
 * (peak RSS of the large − peak RSS of the small) / (their size difference).
 * Target (issue 28): at most 12 bytes per input byte at 60 MB.
 *
 *   node dist/bench/memory.js [--megabytes 60] [--reps 3]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, CLI_NODE } from '../test/helpers/cli.js';
import { gnuTimeAvailable, measureRounds, median, runMain, Runner, scratchDirectory, type BenchCommand } from './measure.js';
import { smallVhost } from './trees.js';

/** `head`, then the blocks `block` makes for 1, 2, 3... until the text holds `bytes`. */
function filled(bytes: number, head: string, block: (index: number) => string): string {
  const parts = [head];
  let size = head.length;
  for (let index = 1; size < bytes; index++) {
    const text = block(index);
    parts.push(text);
    size += text.length;
  }
  return parts.join('');
}

/** Apache's main settings, then the sites of the bench's small-files shape. */
function apacheFile(bytes: number): string {
  const head = 'ServerRoot "/etc/apache2"\nListen 80\nServerName localhost\nDocumentRoot /var/www/html\n\n';
  return filled(bytes, head, (index) => `${smallVhost(`site${index}`, { webRoot: '/srv/www' })}\n`);
}

/** Option groups with comments, as for one mysqld_multi instance each. */
function myCnfFile(bytes: number): string {
  return filled(bytes, '', (index) =>
    [
      `# instance ${index}`,
      `[mysqld${index}]`,
      `port                    = ${3306 + (index % 1000)}`,
      `socket                  = /run/mysqld/mysqld${index}.sock`,
      `datadir                 = /var/lib/mysql${index}`,
      'innodb_buffer_pool_size = 128M',
      'max_connections         = 151',
      'key_buffer_size         = 16M',
      'tmp_table_size          = 32M',
      'max_heap_table_size     = 32M',
      '',
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { megabytes: { type: 'string', default: '60' }, reps: { type: 'string', default: '3' } } });
  const megabytes = Number(values.megabytes);
  const repetitions = Number(values.reps);
  if (!(megabytes > 0) || !Number.isInteger(repetitions) || repetitions < 1)
    throw new Error('usage: memory.js [--megabytes 60] [--reps 3]');
  if (!gnuTimeAvailable()) throw new Error('needs GNU time (/usr/bin/time, apt-get install time) for peak RSS');
  const scratch = scratchDirectory();
  try {
    const bytes = Math.round(megabytes * 1024 * 1024);
    const files = {
      apache: { large: apacheFile(bytes), small: apacheFile(64 * 1024), name: 'apache2.conf' },
      mycnf: { large: myCnfFile(bytes), small: myCnfFile(64 * 1024), name: 'my.cnf' },
    };
    const commands: BenchCommand[] = [];
    const sizes = new Map<string, number>();
    for (const [language, { large, small, name }] of Object.entries(files)) {
      for (const [size, text] of [
        ['large', large],
        ['small', small],
      ] as const) {
        const dir = path.join(scratch, `${language}-${size}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, name), text);
        const id = `${language}/${size}`;
        sizes.set(id, Buffer.byteLength(text));
        const lines = text.split('\n').length;
        commands.push({
          id,
          argv: [CLI_NODE, CLI, '--no-probe', '--no-live', '--max-lines', String(lines + 1), '--format', 'json', path.join(dir, name)],
          okExitCodes: [0, 1],
        });
      }
    }
    const runner = new Runner(true, scratch, scratch);
    const samples = await measureRounds(runner, commands, repetitions, (round) => process.stderr.write(`round ${round}/${repetitions}\n`));
    runner.close();
    const rssBytes = (id: string): number => median((samples.get(id) ?? []).map((sample) => (sample.maxRssKiB ?? Number.NaN) * 1024));
    process.stdout.write(`| File | Bytes | Peak RSS (MiB) | Bytes of memory per input byte |\n|---|---:|---:|---:|\n`);
    for (const language of Object.keys(files)) {
      const large = `${language}/large`;
      const small = `${language}/small`;
      const growth = (rssBytes(large) - rssBytes(small)) / ((sizes.get(large) ?? 0) - (sizes.get(small) ?? 0));
      for (const id of [small, large]) {
        const cell = id === large ? growth.toFixed(1) : '—';
        process.stdout.write(
          `| ${id} | ${(sizes.get(id) ?? 0).toLocaleString('en-US')} | ${(rssBytes(id) / 2 ** 20).toFixed(1)} | ${cell} |\n`,
        );
      }
    }
    process.stdout.write(`\nTarget: at most 12 bytes of memory per input byte (median of ${repetitions} rounds).\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await runMain(main);
