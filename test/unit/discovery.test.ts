import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { systemConfigs } from '../../src/commands/paths.js';

/*
 * With no path, the main configs each distribution keeps: Debian's, RHEL's
 * and Arch's, openSUSE's and FreeBSD's, found in real trees of
 * fixtures/real-world used as the sysroot.
 */

const REAL_WORLD = path.join(process.cwd(), 'fixtures', 'real-world');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-discovery-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A copy of real-world trees with files written over it; the main configs found in it, as server paths. */
function found(trees: readonly string[], files: Readonly<Record<string, string>> = {}): string[] {
  const root = fs.mkdtempSync(path.join(scratch, 'root-'));
  for (const tree of trees) fs.cpSync(path.join(REAL_WORLD, tree), root, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return systemConfigs(root, undefined).map((file) => `/${path.relative(root, file)}`);
}

describe('discovery of the main configs', () => {
  it("finds openSUSE's /etc/apache2/httpd.conf and /etc/php8/fpm/php-fpm.conf", () => {
    assert.deepEqual(found(['opensuse-vicibox'], { 'etc/php8/fpm/php-fpm.conf': '[global]\n' }), [
      '/etc/apache2/httpd.conf',
      '/etc/php8/fpm/php-fpm.conf',
    ]);
  });

  it("finds FreeBSD's files under /usr/local/etc", () => {
    assert.deepEqual(found(['freebsd-famp'], { 'usr/local/etc/php-fpm.conf': '[global]\n', 'usr/local/etc/mysql/my.cnf': '[mysqld]\n' }), [
      '/usr/local/etc/apache24/httpd.conf',
      '/usr/local/etc/mysql/my.cnf',
      '/usr/local/etc/php-fpm.conf',
    ]);
  });

  it("does not take old Debian's httpd.conf, which apache2.conf includes, for a main config", () => {
    // Debian 6's apache2 package ships an empty /etc/apache2/httpd.conf for the admin's lines.
    assert.deepEqual(found(['debian6-kamipo-apache'], { 'etc/apache2/httpd.conf': '' }), ['/etc/apache2/apache2.conf']);
  });

  it("finds RHEL's and Arch's /etc/httpd/conf/httpd.conf", () => {
    assert.deepEqual(found(['arch-alyptik']), ['/etc/httpd/conf/httpd.conf']);
  });
});
