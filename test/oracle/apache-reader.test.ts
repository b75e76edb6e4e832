import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { loadApache, type ApacheConfig } from '../../src/languages/apache/model.js';
import { parseApache } from '../../src/languages/apache/parser.js';
import { apacheDumpConfig, apacheDumpIncludes, apacheDumpModules, apacheVersion, releaseOf } from '../helpers/apache-oracle.js';
import { flattenLikeDumpConfig, relativeTo } from '../helpers/apache-flat.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';

const CORPUS = '/work/shared/corpus/apache';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

function readLossless(file: string): string {
  return fs.readFileSync(file).toString('latin1');
}

describe('Apache parser round trip', () => {
  it('every Apache fixture prints back byte for byte', () => {
    const files = filesUnder(repoPath('fixtures', 'apache')).concat(
      filesUnder(repoPath('fixtures', 'rules')).filter((f) => f.endsWith('.conf')),
    );
    assert.ok(files.length > 50);
    for (const file of files) assert.equal(parseApache(readLossless(file)).toString(), readLossless(file), file);
  });

  it('every file of the shared corpus prints back byte for byte', (t) => {
    const files = filesUnder(CORPUS);
    if (files.length === 0) {
      t.skip(`${CORPUS} is not present (it lives outside the repository)`);
      return;
    }
    for (const file of files) assert.equal(parseApache(readLossless(file)).toString(), readLossless(file), file);
  });

  it('the installed /etc/apache2 tree prints back byte for byte', (t) => {
    const files = filesUnder('/etc/apache2');
    if (files.length === 0) {
      requireTool(t, 'apache2');
      t.skip('/etc/apache2 is not installed');
      return;
    }
    for (const file of files) assert.equal(parseApache(readLossless(file)).toString(), readLossless(file), file);
  });

  it('any text prints back and parsing never throws (property)', () => {
    const pieces = [
      '\n',
      '\r\n',
      '\\',
      '\\\n',
      '#',
      '<',
      '>',
      '</',
      '<Directory /x>',
      '</Directory>',
      '<IfModule m>',
      '</IfModule>',
      '"',
      "'",
      ' ',
      '\t',
      'KeepAlive',
      'On',
      '${X}',
      '\u0000',
      '\ufeff',
      'é',
      'Include x',
    ];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 4 })), {
        maxLength: 60,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (input) => {
        assert.equal(parseApache(input).toString(), input);
      }),
      { numRuns: 1500 },
    );
  });

  it('mutated real configs print back (property)', () => {
    const seeds = filesUnder(repoPath('fixtures', 'apache', 'debian')).map(readLossless);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: seeds.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(6), fc.string({ maxLength: 5 })), { maxLength: 8 }),
        (index, edits) => {
          let text = seeds[index] as string;
          for (const [at, remove, insert] of edits) {
            const position = at % (text.length + 1);
            text = text.slice(0, position) + insert + text.slice(position + remove);
          }
          assert.equal(parseApache(text).toString(), text);
        },
      ),
      { numRuns: 500 },
    );
  });
});

interface RecordedCase {
  readonly exitCode: number;
  readonly error: { readonly message: string } | null;
  readonly defines?: readonly string[];
  readonly includes?: readonly { file: string; depth: number; includedFromLine: number | null }[];
  readonly directives?: readonly { file: string; line: number; name: string; args: string; depth: number }[];
  readonly messages: readonly { code: string | null; text: string }[];
}

interface Recorded {
  /** The apache2 that recorded the cases, `Apache/2.4.71 (Debian)`: the target they are read for. */
  readonly apache: string;
  readonly before: readonly string[];
  readonly cases: Readonly<Record<string, RecordedCase>>;
}

function loadCase(dir: string, name: string, recorded: Recorded, caseData: RecordedCase, httpd = releaseOf(recorded.apache)): ApacheConfig {
  const fs = new ConfigFileSystem({ cwd: dir });
  return loadApache(path.join(dir, name), {
    fs,
    httpd,
    serverRoot: dir,
    before: recorded.before,
    defines: caseData.defines ?? [],
    env: {},
  });
}

/** Structural problems the reader itself must find (rules cover the rest: see the lint test below). */
const READER_ERRORS =
  /was not closed|without matching|Expected <\/|missing closing '>'|No matches for the wildcard|Could not open|Exceeded maximum include depth|include cycle|unrecognized operator|Version appears to be invalid|Missing delimiting \/|takes one, two or three arguments/;

for (const [area, file] of [
  ['parser', 'fixtures/apache/parser/expected.json'],
  ['mpm', 'fixtures/apache/mpm/expected.json'],
] as const) {
  describe(`Apache reader against apache2's recorded verdicts (${area})`, () => {
    const dir = repoPath(...path.dirname(file).split('/'));
    const recorded = JSON.parse(fs.readFileSync(repoPath(...file.split('/')), 'utf8')) as Recorded;
    for (const [name, caseData] of Object.entries(recorded.cases)) {
      it(name, () => {
        const config = loadCase(dir, name, recorded, caseData);
        if (caseData.exitCode === 0) {
          const ours = config.files.map((entry) => ({
            file: relativeTo(dir)(entry.source.path),
            depth: entry.depth,
            includedFromLine:
              entry.includedFrom === undefined ? null : entry.includedFrom.file.position(entry.includedFrom.node.line.end - 1).line,
          }));
          assert.deepEqual(ours, caseData.includes, 'include order as apache2 -D DUMP_INCLUDES');
          const flat = flattenLikeDumpConfig(config, relativeTo(dir)).map((entry) => ({
            ...entry,
            args: entry.args.split(dir).join('{dir}'),
          }));
          const theirs = (caseData.directives ?? []).map((entry) => ({ ...entry, name: entry.name.toLowerCase() }));
          for (const [index, entry] of flat.entries()) {
            const recordedEntry = caseData.directives?.[index] as { argsLength?: number; argsSha256?: string } | undefined;
            if (recordedEntry?.argsSha256 !== undefined) {
              (theirs[index] as { args?: string }).args =
                entry.args.length === recordedEntry.argsLength && sha256(entry.args) === recordedEntry.argsSha256
                  ? entry.args
                  : '(different long arguments)';
              delete (theirs[index] as { argsLength?: number }).argsLength;
              delete (theirs[index] as { argsSha256?: string }).argsSha256;
            }
          }
          assert.deepEqual(flat, theirs, 'directives in effect as apache2 -D DUMP_CONFIG');
          if (name.startsWith('ifversion-')) {
            // The default target, "a current 2.4", holds what the newest 2.4 does, regular expressions included.
            const current = flattenLikeDumpConfig(loadCase(dir, name, recorded, caseData, '2.4'), relativeTo(dir));
            assert.deepEqual(current, flat, 'the same directives in effect for the target "2.4"');
          }
          assert.deepEqual(
            config.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.message),
            [],
            'no reader error where apache2 accepts the file',
          );
        } else if (READER_ERRORS.test(caseData.error?.message ?? '')) {
          const messages = config.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.message);
          assert.ok(messages.length > 0, `apache2 refuses it (${caseData.error?.message}); the reader must report an error`);
          // mod_version's refusals are quoted as httpd words them; the others name paths as given, or the cause.
          if (name.startsWith('ifversion-')) {
            assert.ok(
              messages.some((message) => message.endsWith(`: ${caseData.error?.message ?? ''}`)),
              `apache2's words (${caseData.error?.message}) among the reader's: ${messages.join(' | ')}`,
            );
          }
        }
        const warnings = caseData.messages.filter((message) => message.text.startsWith('WARNING:'));
        if (area === 'mpm' && caseData.exitCode === 0) {
          const ours = (config.mpm?.adjustments ?? [])
            .filter((adjustment) => adjustment.code !== undefined)
            .map((adjustment) => ({ code: adjustment.code, text: adjustment.text }));
          assert.deepEqual(
            ours,
            warnings.map((message) => ({ code: message.code, text: message.text })),
            'MPM clamps as httpd warns',
          );
        }
      });
    }
  });
}

interface Tree {
  readonly label: string;
  readonly sysroot: string | undefined;
  readonly configFile: string;
  readonly serverRoot: string;
  readonly modules: readonly string[];
}

const MODULE_DIR = '/usr/lib/apache2/modules';
const TREES: readonly Tree[] = [
  { label: 'installed /etc/apache2', sysroot: undefined, configFile: '/etc/apache2/apache2.conf', serverRoot: '/etc/apache2', modules: [] },
  { label: 'fixtures/apache/debian', sysroot: 'debian', configFile: '/etc/apache2/apache2.conf', serverRoot: '/etc/apache2', modules: [] },
  {
    label: 'fixtures/apache/rhel',
    sysroot: 'rhel',
    configFile: '/etc/httpd/conf/httpd.conf',
    serverRoot: '/etc/httpd',
    modules: ['libphp8.2.so'],
  },
  {
    label: 'story-drupal-500mb',
    sysroot: 'story-drupal-500mb',
    configFile: '/etc/apache2/apache2.conf',
    serverRoot: '/etc/apache2',
    modules: ['libphp8.2.so'],
  },
  {
    label: 'story-stock-prefork',
    sysroot: 'story-stock-prefork',
    configFile: '/etc/apache2/apache2.conf',
    serverRoot: '/etc/apache2',
    modules: ['libphp8.2.so'],
  },
  {
    label: 'story-fat-apache',
    sysroot: 'story-fat-apache',
    configFile: '/etc/apache2/apache2.conf',
    serverRoot: '/etc/apache2',
    modules: ['mod_security2.so'],
  },
];

describe('Apache reader against the live apache2 (differential)', { concurrency: true }, () => {
  for (const tree of TREES) {
    it(tree.label, async (t) => {
      const binary = requireTool(t, 'apache2');
      if (binary === undefined) return;
      const missing = tree.modules.filter((module) => !fs.existsSync(path.join(MODULE_DIR, module)));
      if (missing.length > 0) {
        if (process.env.CI === 'true') assert.fail(`CI=true but ${missing.join(', ')} is not installed`);
        t.skip(`${missing.join(', ')} not installed`);
        return;
      }
      const sysroot = tree.sysroot === undefined ? undefined : repoPath('fixtures', 'apache', tree.sysroot);
      const oracle = {
        ...(sysroot === undefined ? {} : { sysroot }),
        serverRoot: tree.serverRoot,
        configFile: path.posix.relative(tree.serverRoot, tree.configFile),
        binary,
      };
      const [includes, modules, dumped, release] = await Promise.all([
        apacheDumpIncludes(oracle),
        apacheDumpModules(oracle),
        apacheDumpConfig(oracle),
        apacheVersion(binary),
      ]);
      const theirs = dumped
        .filter((entry) => entry.file !== '-c/-C directives')
        .map((entry) => ({
          file: entry.file,
          line: entry.line ?? 0,
          name: entry.name.toLowerCase(),
          args: entry.args,
          depth: entry.depth,
        }));
      // The default target ("a current 2.4") and the installed release exactly, as a user pins it (--target httpd=2.4.71).
      for (const httpd of ['2.4', releaseOf(release)]) {
        const fsView = new ConfigFileSystem({ sysroot, cwd: sysroot ?? '/' });
        const config = loadApache(sysroot === undefined ? tree.configFile : path.join(sysroot, tree.configFile), { fs: fsView, httpd });
        assert.deepEqual(
          config.files.map((entry) => fsView.serverPath(entry.source.path)),
          includes.map((include) => include.file),
          `include order as apache2 -D DUMP_INCLUDES (target ${httpd})`,
        );
        assert.deepEqual(
          [...config.modules.keys()].sort(),
          modules.map((module) => module.name).sort(),
          `loaded modules as apache2 -M (target ${httpd})`,
        );
        assert.deepEqual(
          flattenLikeDumpConfig(config, (file) => file),
          theirs,
          `directives in effect as apache2 -D DUMP_CONFIG (target ${httpd})`,
        );
      }
    });
  }
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
