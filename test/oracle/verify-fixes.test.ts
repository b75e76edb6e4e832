import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { defineRule } from '../../src/engine/define-rule.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { selectRules } from '../../src/engine/selection.js';
import type { Rule } from '../../src/engine/types.js';
import { FixVerifier, VERIFY_RULE, type VerifyOptions } from '../../src/verify/verify.js';
import { insertApacheLineAfter } from '../../src/languages/apache/edits.js';
import { insertMycnfOption, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import { lint, type LintInput, type LintResult } from '../../src/lint.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';
import { snapshotTree } from '../helpers/trees.js';

/*
 * --verify against the real servers: fixes apache2 -t, my_print_defaults or
 * mariadbd reject are dropped file by file and reported as TL0008, the others
 * stay; with a sysroot and without one, always in the sandbox; a configuration
 * that already fails does not count against a patch; missing binaries are
 * said once.
 */

const TOOL_RULES = builtinRules.filter((rule) => rule.meta.language === 'tool');

/** Gives `MaxSpareServers` two arguments, which apache2 refuses ("takes one argument"): a fix the parser accepts and the server does not. */
const badApacheFix = defineRule('apache', {
  meta: {
    id: 'AP9101',
    name: 'test-bad-fix',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: { m: 'bad' },
  },
  create: (ctx) => ({
    directive: {
      maxspareservers: (use) => {
        const arg = use.node.args[0];
        if (use.args.length === 1 && arg !== undefined)
          ctx.report({ at: use, messageId: 'm', fix: () => ({ file: use.file, range: arg.range, text: '10 20' }) });
      },
    },
  }),
});

/** Adds a harmless comment after `Listen`, once: a fix in another file that apache2 accepts. */
const goodApacheFix = defineRule('apache', {
  meta: {
    id: 'AP9102',
    name: 'test-good-fix',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: { m: 'good' },
  },
  create: (ctx) => ({
    directive: {
      listen: (use) => {
        if (!use.file.text.includes('# verified'))
          ctx.report({ at: use, messageId: 'm', fix: () => insertApacheLineAfter(use, '# verified') });
      },
    },
  }),
});

/** `innodb_buffer_pool_size = 1.5G`: mariadbd refuses the value (and disables InnoDB) but still exits 0. */
const badMycnfValue = defineRule('mycnf', {
  meta: {
    id: 'MY9101',
    name: 'test-bad-value',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: { m: 'bad' },
  },
  create: (ctx) => ({
    option: { innodb_buffer_pool_size: (use) => ctx.report({ at: use, messageId: 'm', fix: () => replaceMycnfValue(use, '1.5G') }) },
  }),
});

/** Inserts `max_connections = 15` into [mysqld] when it is missing. */
const goodMycnfInsert = defineRule('mycnf', {
  meta: {
    id: 'MY9102',
    name: 'test-good-insert',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: { m: 'good' },
  },
  create: (ctx) => ({
    end: () => {
      const mycnf = ctx.config;
      if (mycnf.effective('max_connections') !== undefined) return;
      const plan = insertMycnfOption(mycnf, 'max_connections', '15');
      if (plan !== null) ctx.report({ at: { file: plan.edit.file, range: [0, 0] }, messageId: 'm', fix: () => plan.edit });
    },
  }),
});

/** `pm.max_children = 1` in a dynamic pool whose spare servers are 1 to 3: php-fpm refuses it ("cannot be greater than pm.max_children"). */
const badPoolFix = defineRule('phpfpm', {
  meta: {
    id: 'PF9101',
    name: 'test-bad-pool-fix',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: { m: 'bad' },
  },
  create: (ctx) => ({
    end: () => {
      for (const pool of ctx.config.pools) {
        const use = pool.effective('pm.max_children');
        if (use !== undefined && use.value !== '1') ctx.report({ at: use, messageId: 'm', fix: () => replacePhpFpmValue(use, '1') });
      }
    },
  }),
});

/** `pm.max_requests = 500`: a value php-fpm accepts. */
const goodPoolFix = defineRule('phpfpm', {
  meta: {
    id: 'PF9102',
    name: 'test-good-pool-fix',
    category: 'style',
    description: 'test',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: { m: 'good' },
  },
  create: (ctx) => ({
    end: () => {
      for (const pool of ctx.config.pools) {
        const use = pool.effective('pm.max_requests');
        if (use?.value === '0') ctx.report({ at: use, messageId: 'm', fix: () => replacePhpFpmValue(use, '500') });
      }
    },
  }),
});

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-verify-test-'));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

async function run(input: Omit<LintInput, 'rules'>, rules: readonly Rule[]): Promise<LintResult> {
  return lint({ ...input, rules: selectRules([...TOOL_RULES, ...rules] as Rule[], 'all', new Map()) });
}

function verifier(options: Partial<VerifyOptions> & Pick<VerifyOptions, 'cwd'>, notes: string[] = []): FixVerifier {
  return new FixVerifier({ ...options, onNote: (note) => notes.push(note) });
}

/** A copy of a story tree, so that nothing under fixtures/ is at risk. */
function storyCopy(name: string): string {
  const target = fs.mkdtempSync(path.join(scratch, `${name}-`));
  fs.cpSync(repoPath('fixtures', 'apache', name), target, { recursive: true, verbatimSymlinks: true });
  return target;
}

function rejections(result: LintResult): string[] {
  return result.diagnostics.filter((d) => d.ruleId === VERIFY_RULE.id).map((d) => `${d.file.displayPath}:${d.start.line} ${d.message}`);
}

describe('FixVerifier with apache2 -t', () => {
  it("story tree under --sysroot (a temporary copy): drops the fix apache2 rejects, keeps the other file's fix", async (t) => {
    if (requireTool(t, 'apache2') === undefined || requireTool(t, 'bwrap') === undefined) return;
    const root = storyCopy('story-stock-prefork');
    const before = snapshotTree(root);
    const result = await run({ paths: ['etc/apache2/apache2.conf'], cwd: root, sysroot: root }, [badApacheFix, goodApacheFix]);
    assert.deepEqual(result.fixes.map((fix) => fix.file.patchPath).sort(), [
      'etc/apache2/mods-available/mpm_prefork.conf',
      'etc/apache2/ports.conf',
    ]);
    const notes: string[] = [];
    const checked = await verifier({ cwd: root, sysroot: root }, notes).verify(result);
    assert.deepEqual(
      checked.fixes.map((fix) => fix.file.patchPath),
      ['etc/apache2/ports.conf'],
    );
    const rejected = rejections(checked);
    assert.equal(rejected.length, 1);
    assert.match(
      rejected[0] as string,
      /^etc\/apache2\/mods-enabled\/mpm_prefork\.conf:13 the fix for this file is left out of the patch and not written: apache2 -t on etc\/apache2\/apache2\.conf: MaxSpareServers takes one argument, Maximum number of idle children \(\/etc\/apache2\/mods-enabled\/mpm_prefork\.conf:13\)$/,
    );
    assert.ok(!(rejected[0] as string).includes(os.tmpdir()), 'the message names server paths, not the temporary copy');
    const stillFixable = checked.diagnostics.filter((d) => d.ruleId === 'AP9101');
    assert.ok(stillFixable.length > 0 && stillFixable.every((d) => d.fix === undefined), 'the rejected fix is no longer offered');
    assert.deepEqual(notes, []);
    assert.equal(checked.verifiedBy?.length, 0, 'a check that rejected a fix is not named as having accepted the patch');
    assert.deepEqual(snapshotTree(root), before, 'verification writes nothing into the tree');
  });

  it('keeps a patch apache2 accepts, and names the check that read it', async (t) => {
    if (requireTool(t, 'apache2') === undefined || requireTool(t, 'bwrap') === undefined) return;
    const root = storyCopy('story-drupal-500mb');
    const result = await run({ paths: ['etc/apache2/apache2.conf'], cwd: root, sysroot: root }, [goodApacheFix]);
    assert.equal(result.fixes.length, 1);
    assert.deepEqual(await verifier({ cwd: root, sysroot: root }).verify(result), {
      ...result,
      verifiedBy: ['apache2 -t on etc/apache2/apache2.conf'],
    });
  });

  it('the installed /etc/apache2, copied, without --sysroot', async (t) => {
    if (requireTool(t, 'apache2') === undefined || requireTool(t, 'bwrap') === undefined) return;
    if (!fs.existsSync('/etc/apache2/apache2.conf')) {
      t.skip('no installed Debian Apache configuration in /etc/apache2');
      return;
    }
    const root = fs.mkdtempSync(path.join(scratch, 'etc-apache2-'));
    fs.cpSync('/etc/apache2', root, { recursive: true, verbatimSymlinks: true });
    const before = snapshotTree(root);
    const result = await run({ paths: [path.join(root, 'apache2.conf')], cwd: scratch }, [badApacheFix, goodApacheFix]);
    assert.equal(result.fixes.length, 2);
    const notes: string[] = [];
    const checked = await verifier({ cwd: scratch }, notes).verify(result);
    assert.deepEqual(
      checked.fixes.map((fix) => path.basename(fix.file.realPath)),
      ['ports.conf'],
    );
    assert.match(rejections(checked)[0] ?? '', /MaxSpareServers takes one argument/);
    assert.deepEqual(snapshotTree(root), before, 'the sandbox copy does not leak into the real files');
    assert.deepEqual(notes, [], 'the stock tree passes apache2 -t in the sandbox: runtime directory and envvars as apache2ctl gives them');
  });

  it('does not hold against a patch a problem the configuration already has', async (t) => {
    if (requireTool(t, 'apache2') === undefined || requireTool(t, 'bwrap') === undefined) return;
    const root = storyCopy('story-stock-prefork');
    // A directive apache2 does not know: the unpatched tree already fails.
    fs.appendFileSync(path.join(root, 'etc/apache2/apache2.conf'), 'NoSuchDirective on\n');
    const result = await run({ paths: ['etc/apache2/apache2.conf'], cwd: root, sysroot: root }, [goodApacheFix]);
    const notes: string[] = [];
    const checked = await verifier({ cwd: root, sysroot: root }, notes).verify(result);
    assert.equal(checked.fixes.length, 1);
    assert.deepEqual(checked.verifiedBy, ['apache2 -t on etc/apache2/apache2.conf']);
    assert.equal(notes.length, 1);
    assert.match(
      notes[0] as string,
      /^--verify: apache2 -t on etc\/apache2\/apache2\.conf already reports a problem without the patch \(.*NoSuchDirective.*\); only problems the patch adds are held against it$/,
    );
  });

  it('says once that apache2 is missing and keeps the patch unverified', async (t) => {
    const root = storyCopy('story-stock-prefork');
    const result = await run({ paths: ['etc/apache2/apache2.conf'], cwd: root, sysroot: root }, [goodApacheFix]);
    const empty = fs.mkdtempSync(path.join(scratch, 'no-tools-'));
    const notes: string[] = [];
    const check = verifier({ cwd: root, sysroot: root, searchPath: [empty] }, notes);
    assert.equal(await check.verify(result), result);
    assert.equal(await check.verify(result), result);
    assert.deepEqual(notes, ['--verify: apache2 or httpd not installed: the Apache patch is not verified']);
    t.diagnostic('no oracle needed: this case is about the oracle being absent');
  });
});

describe('FixVerifier with my_print_defaults and mariadbd', () => {
  function mycnfTree(t: TestContext, text: string): string | undefined {
    if (
      requireTool(t, 'my_print_defaults') === undefined ||
      requireTool(t, 'mariadbd') === undefined ||
      requireTool(t, 'bwrap') === undefined
    )
      return undefined;
    const dir = fs.mkdtempSync(path.join(scratch, 'mycnf-'));
    fs.writeFileSync(path.join(dir, 'my.cnf'), text);
    fs.chmodSync(path.join(dir, 'my.cnf'), 0o644);
    return dir;
  }

  it('drops a value mariadbd refuses although it exits 0, keeps the rest', async (t) => {
    const dir = mycnfTree(t, '[client-server]\nsocket = /run/mysqld/mysqld.sock\n!include conf.d/server.cnf\n');
    if (dir === undefined) return;
    fs.mkdirSync(path.join(dir, 'conf.d'));
    fs.writeFileSync(path.join(dir, 'conf.d', 'server.cnf'), '[mysqld]\ninnodb_buffer_pool_size = 256M\n');
    fs.chmodSync(path.join(dir, 'conf.d', 'server.cnf'), 0o644);
    const before = snapshotTree(dir);
    const result = await run({ paths: ['my.cnf'], cwd: dir, readers: { mycnf: { includeBase: dir } } }, [badMycnfValue, goodMycnfInsert]);
    assert.equal(result.fixes.length, 1, 'both fixes are in conf.d/server.cnf');
    const checked = await verifier({ cwd: dir, includeBase: dir }).verify(result);
    assert.deepEqual(checked.fixes, []);
    const rejected = rejections(checked);
    assert.equal(rejected.length, 1);
    assert.match(
      rejected[0] as string,
      /^conf\.d\/server\.cnf:2 .*: mariadbd: \[ERROR\] Unknown suffix '\.' used for variable 'innodb[-_]buffer[-_]pool[-_]size' \(value '1\.5G'\)/,
    );
    assert.deepEqual(snapshotTree(dir), before);
  });

  it('keeps a patch the reader and the server accept', async (t) => {
    const dir = mycnfTree(t, '[mysqld]\nport = 3306\n');
    if (dir === undefined) return;
    const result = await run({ paths: ['my.cnf'], cwd: dir }, [goodMycnfInsert]);
    assert.equal(result.fixes[0]?.after, '[mysqld]\nport = 3306\nmax_connections = 15\n');
    assert.deepEqual(await verifier({ cwd: dir }).verify(result), { ...result, verifiedBy: ['the option files of my.cnf'] });
  });

  it('checks only the reader for a MySQL target, and says so once', async (t) => {
    const dir = mycnfTree(t, '[mysqld]\nport = 3306\n');
    if (dir === undefined) return;
    const result = await run({ paths: ['my.cnf'], cwd: dir, targets: { httpd: '2.4', db: { product: 'mysql', version: '8.0' } } }, [
      goodMycnfInsert,
    ]);
    const notes: string[] = [];
    assert.deepEqual(await verifier({ cwd: dir }, notes).verify(result), { ...result, verifiedBy: ['the option files of my.cnf'] });
    assert.deepEqual(notes, [
      '--verify: the option names and values are checked with mariadbd only for MariaDB targets; for mysql 8.0 only the reader (my_print_defaults) checked the patch',
    ]);
  });
});

describe('FixVerifier with php-fpm -t', () => {
  /** Debian's layout under a sysroot: php-fpm.conf with its error_log, a pool that logs access and changes directory. */
  function fpmTree(t: TestContext, pool: string): string | undefined {
    if (requireTool(t, 'php-fpm8.2') === undefined || requireTool(t, 'bwrap') === undefined) return undefined;
    const root = fs.mkdtempSync(path.join(scratch, 'fpm-'));
    const fpm = path.join(root, 'etc/php/8.2/fpm');
    fs.mkdirSync(path.join(fpm, 'pool.d'), { recursive: true });
    fs.mkdirSync(path.join(root, 'srv/www'), { recursive: true });
    fs.writeFileSync(
      path.join(fpm, 'php-fpm.conf'),
      '[global]\npid = /run/php/php8.2-fpm.pid\nerror_log = /var/log/php8.2-fpm.log\ninclude = /etc/php/8.2/fpm/pool.d/*.conf\n',
    );
    fs.writeFileSync(path.join(fpm, 'pool.d/www.conf'), pool);
    return root;
  }
  const POOL =
    '[www]\nuser = www-data\ngroup = www-data\nlisten = /run/php/php8.2-fpm.sock\npm = dynamic\npm.max_children = 5\npm.start_servers = 2\n' +
    'pm.min_spare_servers = 1\npm.max_spare_servers = 3\npm.max_requests = 0\nchdir = /srv/www\naccess.log = /var/log/php-fpm-www.access.log\n';

  it('drops a pool fix php-fpm refuses, keeps one it accepts, in the sandbox with its logs stood in for', async (t) => {
    const root = fpmTree(t, POOL);
    if (root === undefined) return;
    const before = snapshotTree(root);
    const input = { paths: [path.join(root, 'etc/php/8.2/fpm/php-fpm.conf')], cwd: root, sysroot: root };
    const bad = await run(input, [badPoolFix]);
    assert.equal(bad.fixes.length, 1);
    const checked = await verifier({ cwd: root, sysroot: root }).verify(bad);
    assert.deepEqual(checked.fixes, []);
    assert.match(
      rejections(checked)[0] ?? '',
      /^etc\/php\/8\.2\/fpm\/pool\.d\/www\.conf:\d+ .*php-fpm -t on etc\/php\/8\.2\/fpm\/php-fpm\.conf: php-fpm8\.2: ALERT: \[pool www\] pm\.min_spare_servers\(1\) and pm\.max_spare_servers\(3\) cannot be greater than pm\.max_children\(1\)/,
    );
    const good = await run(input, [goodPoolFix]);
    assert.deepEqual(await verifier({ cwd: root, sysroot: root }).verify(good), {
      ...good,
      verifiedBy: ['php-fpm -t on etc/php/8.2/fpm/php-fpm.conf'],
    });
    assert.deepEqual(snapshotTree(root), before);
  });

  it('a pool that names an extension for its workers is not run, and the patch is said to be unverified', async (t) => {
    const root = fpmTree(t, `${POOL}php_admin_value[extension] = /srv/www/evil.so\n`);
    if (root === undefined) return;
    const result = await run({ paths: [path.join(root, 'etc/php/8.2/fpm/php-fpm.conf')], cwd: root, sysroot: root }, [goodPoolFix]);
    const notes: string[] = [];
    const checked = await verifier({ cwd: root, sysroot: root }, notes).verify(result);
    assert.equal(checked.verifiedBy, undefined);
    assert.equal(checked.fixes.length, 1);
    assert.match(
      notes[0] ?? '',
      /^--verify: php-fpm -t on .* is not run: .*php_admin_value\[extension\] = \/srv\/www\/evil\.so .*php-fpm loads the library it names\); not verified$/,
    );
  });
});
