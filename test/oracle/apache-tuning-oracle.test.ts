import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { apacheConfigTest, type ApacheConfigTestResult } from '../helpers/apache-oracle.js';
import { copyCase, ruleCases, runCase } from '../helpers/rule-fixtures.js';
import { requireTool } from '../helpers/tools.js';

/** The tuning rules whose fixes rewrite Apache configs. */
const FIXING_RULES = ['AP1014', 'AP2002', 'AP2003', 'AP2005', 'AP2006', 'AP2007', 'AP2008', 'AP2009', 'AP2010', 'AP2011', 'AP2013'];
const MODULES = '/usr/lib/apache2/modules';
/** Modules a fixture snippet may use without loading them, with the directive that needs each. */
const IMPLIED_MODULES: readonly { readonly uses: RegExp | undefined; readonly loads: RegExp; readonly line: string }[] = [
  { uses: undefined, loads: /^\s*LoadModule\s+mpm_/im, line: `LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so` },
  {
    uses: /^\s*Require\s/im,
    loads: /^\s*LoadModule\s+authz_core_module/im,
    line: `LoadModule authz_core_module ${MODULES}/mod_authz_core.so`,
  },
  { uses: /^\s*(Script)?Alias\s/im, loads: /^\s*LoadModule\s+alias_module/im, line: `LoadModule alias_module ${MODULES}/mod_alias.so` },
];
/** Served paths of the fixtures, moved under the scratch copy so DocumentRoot and Alias targets can exist. */
const SERVED_PATH = /(?<=[\s"'^])\/(srv|var\/www|mnt)(?=[\/\s"'>$]|$)/gm;

function filesBelow(directory: string): string[] {
  return fs
    .readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * `apache2 -t` on a fixture copy. Snippets name directories that do not exist
 * here and use modules they do not load; the copy is made checkable the same
 * way before and after the fix: served paths are moved under the copy and
 * created, and an MPM (event, Debian's default), mod_authz_core and mod_alias
 * are loaded when the snippet uses them without loading them.
 */
async function configTest(binary: string, root: string, configFile: string): Promise<ApacheConfigTestResult> {
  const texts = filesBelow(root).map((file) => {
    const text = fs.readFileSync(file, 'latin1');
    const moved = text.replace(SERVED_PATH, (whole) => `${root}${whole}`);
    if (moved !== text) fs.writeFileSync(file, moved, 'latin1');
    return moved;
  });
  const all = texts.join('\n');
  for (const match of all.matchAll(/^\s*(?:DocumentRoot\s+|(?:Script)?Alias\s+\S+\s+)["']?([^"'\s]+)/gim)) {
    const served = match[1] as string;
    if (served.startsWith(root)) fs.mkdirSync(served, { recursive: true });
  }
  const implied = IMPLIED_MODULES.filter((module) => (module.uses === undefined || module.uses.test(all)) && !module.loads.test(all));
  return apacheConfigTest({
    serverRoot: root,
    configFile,
    envvars: null,
    binary,
    before: ['ErrorLog /dev/null', 'ServerName localhost', ...implied.map((module) => module.line)],
  });
}

const codes = (result: ApacheConfigTestResult): string[] => result.messages.map((message) => message.code ?? message.text).sort();

/*
 * Every fixed output of the tuning rules' bad fixtures still passes
 * `apache2 -t`, without a warning the input did not have, whenever the input
 * itself passes (fixtures for httpd 2.2, or naming modules this host lacks,
 * are left to the per-rule harness).
 */
describe('tuning rules: fixed fixtures pass apache2 -t', () => {
  for (const rule of builtinRules.filter((candidate) => FIXING_RULES.includes(candidate.meta.id))) {
    for (const testCase of ruleCases(rule).filter((candidate) => candidate.kind === 'bad' && !candidate.sysroot)) {
      it(`${rule.meta.id} ${testCase.name}`, async (t) => {
        const binary = requireTool(t, 'apache2');
        if (binary === undefined) return;
        const result = await runCase(testCase);
        if (result.fixes.length === 0) {
          t.skip('no fix for this case');
          return;
        }
        const scratch = copyCase(testCase);
        try {
          const main = testCase.paths[0] as string;
          const before = await configTest(binary, scratch, main);
          if (before.exitCode !== 0) {
            t.skip(`the input itself does not pass apache2 -t here: ${before.error?.message ?? before.stderr.trim()}`);
            return;
          }
          for (const fix of result.fixes)
            fs.writeFileSync(path.join(scratch, path.relative(testCase.cwd, fix.file.realPath)), fix.file.encode(fix.after));
          const after = await configTest(binary, scratch, main);
          assert.equal(after.exitCode, 0, after.stderr);
          assert.ok(after.syntaxOk, after.stderr);
          assert.deepEqual(
            codes(after).filter((code) => !codes(before).includes(code)),
            [],
            `new warnings after the fix:\n${after.stderr}`,
          );
        } finally {
          fs.rmSync(scratch, { recursive: true, force: true });
        }
      });
    }
  }
});
