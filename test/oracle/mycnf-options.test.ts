import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MARIADB_OPTIONS_RELEASE, mariadbOptionNames } from '../../src/languages/mycnf/mariadb-options.js';
import { PLUGIN_OPTIONS, PLUGIN_OPTIONS_RELEASE } from '../../src/languages/mycnf/mariadb-plugin-options.js';
import { temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { serverSeries } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

/** Option names `mariadbd --help --verbose` lists: the option lines and the variables table. */
function listedNames(help: string): Set<string> {
  const names = new Set<string>();
  const lines = help.split('\n');
  const table = lines.findIndex((line) => /^-{20,} -{10,}$/.test(line));
  for (const line of lines.slice(0, table)) {
    const match = /^ {2}(?:-\S, )?--([A-Za-z0-9_-]+)/.exec(line);
    if (match) names.add((match[1] as string).replaceAll('-', '_').toLowerCase());
  }
  for (const line of lines.slice(table + 1)) {
    if (line.trim() === '') break;
    names.add((line.split(/\s+/)[0] as string).replaceAll('-', '_').toLowerCase());
  }
  return names;
}

/** The installed release, `10.11.19`. */
function serverRelease(tool: string): string | undefined {
  return /Ver (\d+\.\d+\.\d+)/.exec(spawnSync(tool, ['--version'], { encoding: 'utf8' }).stdout)?.[1];
}

describe('mycnf: the MariaDB option list', () => {
  it('holds every option mariadbd 10.11 lists, and only options it accepts; another point release is compared, not failed', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
    const release = serverRelease(tool);
    const help = spawnSync(tool, ['--no-defaults', '--help', '--verbose'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(help.status, 0, help.stderr);
    const listed = listedNames(help.stdout);
    const ours = new Set(mariadbOptionNames());
    const missing = [...listed].filter((name) => !ours.has(name));
    t.diagnostic(`checked against mariadbd ${release ?? '?'}; the list is from ${MARIADB_OPTIONS_RELEASE}`);
    if (release !== MARIADB_OPTIONS_RELEASE) {
      // Debian moves the point release: what both define must agree; the few names one release adds are named.
      t.diagnostic(`only in ${release ?? 'the installed mariadbd'}: ${missing.join(', ') || 'none'}`);
      assert.ok(missing.length < listed.size / 50, `${missing.length} of ${listed.size} listed names are not in the list`);
      return;
    }
    assert.deepEqual(missing, [], 'names mariadbd lists that the list lacks');
    const unlisted = [...ours].filter((name) => !listed.has(name));
    assert.ok(
      unlisted.length > 50 && unlisted.includes('innodb_buffer_pool_instances'),
      `${unlisted.length} accepted but unlisted options`,
    );
    const { dir, cleanup } = temporaryDirectory('options');
    try {
      // loose- turns an unknown option into a warning naming it, so one run checks them all.
      const file = path.join(dir, 'unlisted.cnf');
      fs.writeFileSync(file, `[mysqld]\n${unlisted.map((name) => `loose-${name}=1`).join('\n')}\n`);
      const run = spawnSync(tool, [`--defaults-file=${file}`, '--help', '--verbose'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const unknown = [...run.stderr.matchAll(/unknown (?:variable|option) '(?:--)?loose-([^=']+)/g)].map((match) => match[1]);
      assert.deepEqual(unknown, [], 'unlisted names mariadbd does not know');
      assert.ok([0, 7].includes(run.status ?? -1), run.stderr);
      assert.ok(run.stdout.includes('Variables (--variable-name=value)'), 'mariadbd processed every line');
    } finally {
      cleanup();
    }
  });

  it('is sorted, lower case and unique, as the prefix search needs', () => {
    const names = mariadbOptionNames();
    assert.deepEqual([...names], [...new Set(names)].sort());
    assert.ok(names.every((name) => /^[a-z0-9_]+$/.test(name)));
  });
});

describe('mycnf: the MariaDB plugin option table', () => {
  it('lists the options each installed plugin library adds once plugin_load_add loads it', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    const pluginDir = '/usr/lib/mysql/plugin';
    const release = serverRelease(tool);
    const names = (extra: readonly string[]): Set<string> => {
      const run = spawnSync(
        tool,
        ['--no-defaults', `--plugin-dir=${pluginDir}`, '--plugin-maturity=unknown', ...extra, '--help', '--verbose'],
        {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      return new Set(
        [...run.stdout.matchAll(/^ {2}(?:-\S, )?--([A-Za-z0-9_-]+)/gm)].map((match) =>
          (match[1] as string).replaceAll('-', '_').toLowerCase(),
        ),
      );
    };
    const base = names([]);
    const installed = Object.keys(PLUGIN_OPTIONS).filter((library) => fs.existsSync(path.join(pluginDir, `${library}.so`)));
    t.diagnostic(
      `checked ${installed.length} of ${Object.keys(PLUGIN_OPTIONS).length} libraries against mariadbd ${release ?? '?'}; the table is from ${PLUGIN_OPTIONS_RELEASE}`,
    );
    // mariadb-server alone ships these: the check never passes by finding no library.
    for (const library of ['server_audit', 'disks', 'ha_archive', 'metadata_lock_info'])
      assert.ok(installed.includes(library), `${library}.so is installed`);
    for (const library of installed) {
      const added = [...names([`--plugin-load-add=${library}`])].filter((name) => !base.has(name)).sort();
      const listed = (PLUGIN_OPTIONS[library] as string).split(' ');
      if (release === PLUGIN_OPTIONS_RELEASE) assert.deepEqual(added, listed, library);
      else
        assert.ok(
          listed.every((name) => added.includes(name)),
          `${library}: every option the table lists is still there`,
        );
    }
  });
});
