import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { linesAtPath, overrideSectionsAtPath } from '../../src/languages/apache/docroots.js';
import { loadApache, type ApacheConfig } from '../../src/languages/apache/model.js';
import { virtualHosts } from '../../src/languages/apache/vhosts.js';

/*
 * Which `<Directory>` sections apply to a directory (docroots.ts). A server
 * with a few plain paths compares each with the directory; one with many looks
 * the directory's levels up. Sections for paths elsewhere must change nothing,
 * whichever way the lookup goes.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-docroots-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let written = 0;

function load(lines: readonly string[]): ApacheConfig {
  const file = path.join(scratch, `httpd-${written++}.conf`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return loadApache(file, { fs: new ConfigFileSystem({ cwd: scratch }), httpd: '2.4.71' });
}

/** A `<Directory>` section marking itself with `SetEnv MARK <mark>`. */
function section(written: string, mark: string, indent = ''): string[] {
  return [`${indent}<Directory ${written}>`, `${indent}    SetEnv MARK ${mark}`, `${indent}</Directory>`];
}

/** The marks of the sections whose lines apply to `directory`, in the order httpd merges them. */
function marks(config: ApacheConfig, directory: string, inVhost: boolean): string[] {
  const vhost = inVhost ? virtualHosts(config)[0] : undefined;
  return linesAtPath(config, 'setenv', directory, vhost, { scopeLines: false }).map((use) => use.args[1] as string);
}

/** Paths as they are written, some not normalised, some with wildcards. */
const WRITTEN = ['/', '/srv', '/srv/', '/srv/www', '/srv//www/site', '/srv/www/../www/site', '/srv/*/site', '/var/www', '/srv/w?w'];
const ASKED = ['/', '/srv', '/srv/www', '/srv/www/site', '/srv/www/site/htdocs', '/srv/www2', '/var/www/html', '/opt'];
/** Enough paths elsewhere to make a server look its directories up by level. */
const ELSEWHERE = Array.from({ length: 12 }, (_, index) => `/elsewhere/${index}`);

describe('the <Directory> sections that apply to a directory', () => {
  it('are the same with or without sections for other paths, at server level and in a vhost', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...WRITTEN), fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...ASKED),
        (sections, asked) => {
          const build = (padding: readonly string[]): ApacheConfig => {
            const main = sections.flatMap(([at, inVhost], index) => (inVhost ? [] : section(at, `s${index}`)));
            const own = sections.flatMap(([at, inVhost], index) => (inVhost ? section(at, `v${index}`, '    ') : []));
            const elsewhere = padding.flatMap((at, index) => section(at, `e${index}`));
            return load([...main, ...elsewhere, '<VirtualHost *:80>', '    ServerName a.example', ...own, '</VirtualHost>']);
          };
          const few = build([]);
          const many = build(ELSEWHERE);
          for (const inVhost of [false, true]) assert.deepEqual(marks(many, asked, inVhost), marks(few, asked, inVhost));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('in httpd order: fewer components first, the server before the vhost, wildcards by depth', () => {
    for (const padding of [[], ELSEWHERE]) {
      const config = load([
        ...section('/srv/www/site/', 'deep'),
        ...section('/', 'root'),
        ...section('/srv/*/site', 'wild'),
        ...section('/srv//www', 'www'),
        ...padding.flatMap((at, index) => section(at, `e${index}`)),
        '<VirtualHost *:80>',
        ...section('/srv', 'vhost-srv', '    '),
        ...section('/srv/www/site/htdocs/..', 'vhost-site', '    '),
        '</VirtualHost>',
      ]);
      assert.deepEqual(marks(config, '/srv/www/site/htdocs', false), ['root', 'www', 'deep', 'wild']);
      assert.deepEqual(marks(config, '/srv/www/site/htdocs', true), ['root', 'vhost-srv', 'www', 'deep', 'wild', 'vhost-site']);
      assert.deepEqual(marks(config, '/srv/www2', true), ['root', 'vhost-srv']);
    }
  });

  it('a directory asked for with a trailing slash, a doubled one or none in front is the directory', () => {
    const config = load([...section('/srv/www', 'www'), ...section('/srv/www/site', 'site')]);
    for (const asked of ['/srv/www/site/', '/srv//www/site', 'srv/www/site'])
      assert.deepEqual(marks(config, asked, false), ['www', 'site'], asked);
    assert.deepEqual(marks(config, '/srv/www-old', false), []);
  });

  it('AllowOverride in a regex section counts before every plain one', () => {
    const config = load([
      '<Directory /srv/www>',
      '    AllowOverride None',
      '</Directory>',
      '<DirectoryMatch "^/srv/">',
      '    AllowOverride All',
      '</DirectoryMatch>',
    ]);
    assert.deepEqual(
      overrideSectionsAtPath(config, '/srv/www/site', undefined).map((use) => `${use.name} ${use.args.join(' ')}`),
      ['directorymatch ^/srv/', 'directory /srv/www'],
    );
  });
});
