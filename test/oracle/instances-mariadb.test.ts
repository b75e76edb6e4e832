import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probeHost } from '../../src/host/probe.js';
import { startMariadb } from '../helpers/mariadb-server.js';
import { findTool, inCI } from '../helpers/tools.js';

/*
 * Two private MariaDB servers on one host, each started with its own
 * --defaults-file: the probe counts the memory of the one whose option file
 * is linted, and names both (issue 47, item 7).
 */
const tools = { mariadbd: findTool('mariadbd'), installDb: findTool('mariadb-install-db'), client: findTool('mariadb') };
const missing = Object.entries(tools).find(([, found]) => found === undefined)?.[0];
if (missing !== undefined && inCI) throw new Error(`CI=true but the oracle is missing: ${missing} is not installed (.ci/run installs it)`);

describe('two private MariaDB servers on one host', { skip: missing === undefined ? false : `${missing} is not installed` }, () => {
  it('the probe measures the one started with the option file linted', async (t) => {
    const given = tools as { mariadbd: string; installDb: string; client: string };
    const first = await startMariadb(given, ['max_connections = 10'], (stop) => t.after(stop));
    const second = await startMariadb(given, ['max_connections = 20'], (stop) => t.after(stop));

    const probed = await probeHost({ linted: [first.optionFile] });
    assert.match(
      probed.mysqlRss?.source ?? '',
      new RegExp(`^probe \\(VmRSS of mariadbd PID ${first.pid}\\)$`),
      JSON.stringify(probed.notes),
    );
    assert.ok(
      probed.notes?.some(
        (note) =>
          note.includes(`PID ${first.pid}: ${first.optionFile}`) &&
          note.includes(`PID ${second.pid}: ${second.optionFile}`) &&
          note.endsWith(`measured only PID ${first.pid}, started with the config linted`),
      ),
      JSON.stringify(probed.notes),
    );
    const both = await probeHost({ linted: ['/nonexistent/my.cnf'] });
    assert.match(both.mysqlRss?.source ?? '', new RegExp(`PIDs .*${first.pid}|PIDs .*${second.pid}`));
  });
});
