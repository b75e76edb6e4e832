import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import type { SourceFile } from '../../src/core/source-file.js';
import type { ApacheNode } from '../../src/languages/apache/cst.js';
import { ApacheConfig, loadApache, type ApacheLoadOptions } from '../../src/languages/apache/model.js';
import { repoPath } from '../helpers/paths.js';
import { dumpApacheConfig } from '../../src/languages/apache/dump.js';

/*
 * A fix pass rebases the Apache config of the pass before instead of walking
 * the tree again (ApacheConfig.rebased). The oracle is the walk itself: for
 * every edit, the rebased config must be the one loadApache gives on the
 * edited files, or the rebase must decline.
 */

interface Tree {
  readonly label: string;
  /** Where the main file is on this disk. */
  readonly main: string;
  readonly fs: () => ConfigFileSystem;
  readonly options: Omit<ApacheLoadOptions, 'fs'>;
}

const SYSROOT_TREES: readonly Tree[] = [
  ['debian', '/etc/apache2/apache2.conf'],
  ['rhel', '/etc/httpd/conf/httpd.conf'],
  ['story-drupal-500mb', '/etc/apache2/apache2.conf'],
  ['story-stock-prefork', '/etc/apache2/apache2.conf'],
  ['story-fat-apache', '/etc/apache2/apache2.conf'],
].map(([name, configFile]) => {
  const sysroot = repoPath('fixtures', 'apache', name as string);
  return {
    label: `fixtures/apache/${name}`,
    main: path.join(sysroot, configFile as string),
    fs: () => new ConfigFileSystem({ sysroot, cwd: sysroot }),
    options: { httpd: '2.4' },
  };
});

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-rebase-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Includes inside sections, `${...}`, conditionals and `-C` lines: what a rebase has to carry over. */
const NESTED_FILES: Readonly<Record<string, string>> = {
  'main.conf': [
    `ServerRoot "${scratch}"`,
    'Define SITE example',
    'Timeout 300',
    'LoadModule ssl_module modules/mod_ssl.so',
    'KeepAlive On',
    '<IfModule mpm_prefork_module>',
    '    MaxRequestWorkers 150',
    '    Include conf.d/inner.conf',
    '</IfModule>',
    '<VirtualHost *:80>',
    '    ServerName ${SITE}.org',
    '    DocumentRoot /var/www/html',
    '    Include conf.d/vhost-extra.conf',
    '    <Directory /var/www/html>',
    '        AllowOverride None',
    '    </Directory>',
    '</VirtualHost>',
    'IncludeOptional sites/*.conf',
    '<IfDefine !NOPE>',
    '    MaxKeepAliveRequests 100',
    '</IfDefine>',
    '',
  ].join('\n'),
  'conf.d/inner.conf': 'StartServers 5\nMaxSpareServers 10\n<IfModule mod_ssl.c>\n    SSLRandomSeed startup builtin\n</IfModule>\n',
  'conf.d/vhost-extra.conf': 'ErrorLog /var/log/x.log\n<Location /status>\n    Require local\n</Location>\n',
  // Read a second time, under another section.
  'sites/a.conf':
    '<VirtualHost *:80>\n    ServerName a.example\r\n    KeepAliveTimeout 5\n    Include conf.d/vhost-extra.conf\n</VirtualHost>\n',
  'sites/b.conf':
    '# b\n<VirtualHost *:443>\n    ServerName b.example\n    <IfDefine FROM_C>\n        LogLevel warn\n    </IfDefine>\n</VirtualHost>\n',
  // httpd decides <IfDirective> itself; the reader assumes it true and says so (TL0007), a problem with a range in this file.
  'sites/c.conf': 'MaxKeepAliveRequests 99\n<IfDirective SSLEngine>\n    LogLevel info\n</IfDirective>\n',
};
for (const [name, text] of Object.entries(NESTED_FILES)) {
  fs.mkdirSync(path.dirname(path.join(scratch, name)), { recursive: true });
  fs.writeFileSync(path.join(scratch, name), text);
}
const NESTED: Tree = {
  label: 'includes inside sections',
  main: path.join(scratch, 'main.conf'),
  fs: () => new ConfigFileSystem({ cwd: scratch }),
  // ServerRoot's line moves it away from where httpd starts.
  options: {
    httpd: '2.4',
    env: {},
    serverRoot: '/',
    before: ['Define FROM_C', 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so'],
  },
};

function load(tree: Tree, view: ConfigFileSystem): ApacheConfig {
  return loadApache(tree.main, { ...tree.options, fs: view });
}

/** Everything the rules can read of a config, with objects named by read order so two configs compare by value. */
function describeConfig(config: ApacheConfig): object {
  const file = (source: SourceFile) => [source.path, source.displayPath, source.patchPath, source.realPath, source.encoding, source.text];
  const names = new Set(config.uses.map((use) => use.name));
  return {
    root: file(config.root),
    files: config.files.map((entry) => ({
      source: file(entry.source),
      document: entry.document.toString(),
      depth: entry.depth,
      includedFrom: entry.includedFrom?.order ?? null,
    })),
    uses: config.uses.map((use) => ({
      order: use.order,
      name: use.name,
      args: use.args,
      argsText: use.argsText,
      variables: use.variables,
      unresolved: use.unresolved,
      include: use.include ?? null,
      parent: use.parent?.order ?? null,
      file: file(use.file),
      range: use.range,
      line: use.node.line.text,
      context: config.context(use),
    })),
    sections: config.sections.map((section) => ({
      order: section.order,
      name: section.name,
      args: section.args,
      argsText: section.argsText,
      conditional: section.conditional,
      parent: section.parent?.order ?? null,
      file: file(section.file),
      range: section.range,
    })),
    conditionals: config.conditionals.map((evaluation) => ({
      ...evaluation,
      section: [evaluation.section.order, file(evaluation.section.file), evaluation.section.range],
    })),
    modules: [...config.modules].map(([identifier, module]) => [
      identifier,
      module.sourceName,
      module.path ?? null,
      module.use?.order ?? null,
    ]),
    problems: config.problems.map((problem) => ({ ...problem, file: file(problem.file) })),
    defines: [...config.defines],
    serverRoot: config.serverRoot,
    named: [...names].sort().map((name) => [name, config.named(name).map((use) => use.order)]),
    directiveNames: [...config.directiveNames()].sort(),
    referencing: {
      uses: config.referencing.uses.map((use) => use.order),
      sections: config.referencing.sections.map((section) => section.order),
    },
    dump: JSON.parse(JSON.stringify(dumpApacheConfig(config))) as unknown,
  };
}

/** Every use and section points into its own file's document and to sections of the same config, not the pass before. */
function assertConsistent(config: ApacheConfig): void {
  const nodesOf = new Map<SourceFile, Set<ApacheNode>>();
  const collect = (nodes: readonly ApacheNode[], into: Set<ApacheNode>): void => {
    for (const node of nodes) {
      into.add(node);
      if (node.kind === 'section') collect(node.children, into);
    }
  };
  for (const entry of config.files) {
    const set = nodesOf.get(entry.source) ?? new Set<ApacheNode>();
    collect(entry.document.nodes, set);
    nodesOf.set(entry.source, set);
  }
  const sections = new Set([...config.sections, ...config.conditionals.map((evaluation) => evaluation.section)]);
  for (const item of [...config.uses, ...sections]) {
    const nodes = nodesOf.get(item.file);
    if (nodes !== undefined) assert.ok(nodes.has(item.node), `${item.file.displayPath}: a node of another reading of the file`);
    if (item.parent !== undefined) assert.ok(sections.has(item.parent), `${item.file.displayPath}: a parent section of another config`);
  }
  const uses = new Set(config.uses);
  for (const entry of config.files)
    if (entry.includedFrom !== undefined) assert.ok(uses.has(entry.includedFrom), 'includedFrom is a use of this config');
  for (const module of config.modules.values())
    if (module.use !== undefined) assert.ok(uses.has(module.use), `${module.identifier}: LoadModule is a use of this config`);
  for (const use of config.referencing.uses) assert.ok(uses.has(use), `${use.file.displayPath}: a line with \${ of another config`);
  for (const section of config.referencing.sections)
    assert.ok(sections.has(section), `${section.file.displayPath}: a section with \${ of another config`);
}

/** Plain values (not on a line that steers the walk, no `${...}`) changed in place, as a fix does; at most 40, spread over the tree. */
function valueEdits(config: ApacheConfig): { file: SourceFile; at: number; end: number; text: string }[] {
  const edits = [];
  for (const use of config.uses) {
    const last = use.node.args.at(-1);
    if (last === undefined || last.quote !== undefined || use.node.line.text.includes('${')) continue;
    if (['include', 'includeoptional', 'serverroot', 'define', 'undefine', 'loadmodule'].includes(use.name)) continue;
    edits.push({
      file: use.file,
      at: last.range[0],
      end: last.range[1],
      text: /^\d+$/.test(last.value) ? String(Number(last.value) + 1) : `${last.value}x`,
    });
  }
  const step = Math.max(1, Math.ceil(edits.length / 40));
  return edits.filter((_, index) => index % step === 0);
}

function edited(file: SourceFile, at: number, end: number, text: string): Map<string, string> {
  return new Map([[file.realPath, file.text.slice(0, at) + text + file.text.slice(end)]]);
}

describe('a fix pass rebases the Apache config it read before', () => {
  for (const tree of [...SYSROOT_TREES, NESTED]) {
    it(`${tree.label}: every value edit gives the config a fresh walk gives`, () => {
      const disk = tree.fs();
      const before = load(tree, disk);
      const edits = valueEdits(before);
      assert.ok(edits.length >= 5, `${tree.label} has values to edit`);
      for (const edit of edits) {
        const view = disk.withOverlay(edited(edit.file, edit.at, edit.end, edit.text));
        const rebased = ApacheConfig.rebased(before, view);
        const where = `${edit.file.displayPath} at ${edit.at}: ${edit.text}`;
        // A reader problem's range in a changed file would move with the edit: there the rebase may decline.
        const withProblems = before.problems.some((problem) => problem.file === edit.file);
        if (rebased === undefined) {
          assert.ok(withProblems, `${where}: declined`);
          continue;
        }
        assertConsistent(rebased);
        assert.deepEqual(describeConfig(rebased), describeConfig(load(tree, view)), where);
      }
    });
  }

  it('a rebased config rebases again, as the third fix pass does', () => {
    const disk = NESTED.fs();
    const first = load(NESTED, disk);
    const main = first.root;
    const secondText = main.text.replace('Timeout 300', 'Timeout 60');
    const second = ApacheConfig.rebased(first, disk.withOverlay(new Map([[main.realPath, secondText]])));
    assert.ok(second !== undefined);
    const inner = first.files.find((entry) => entry.source.displayPath.endsWith('inner.conf'));
    assert.ok(inner !== undefined);
    const overlay = new Map([
      [main.realPath, secondText.replace('MaxRequestWorkers 150', 'MaxRequestWorkers 15')],
      [inner.source.realPath, inner.source.text.replace('StartServers 5', 'StartServers 2')],
    ]);
    const view = disk.withOverlay(overlay);
    const third = ApacheConfig.rebased(second, view);
    assert.ok(third !== undefined);
    assertConsistent(third);
    assert.deepEqual(describeConfig(third), describeConfig(load(NESTED, view)));
  });

  it('declines an edit that changes what httpd reads next', () => {
    const disk = NESTED.fs();
    const before = load(NESTED, disk);
    const main = before.root;
    for (const [from, to] of [
      ['Define SITE example', 'Define SITE other'],
      ['Include conf.d/inner.conf', 'Include conf.d/vhost-extra.conf'],
      ['ServerName ${SITE}.org', 'ServerName ${SITE}.net'],
      ['KeepAlive On', '<IfModule x>\nKeepAlive On\n</IfModule>'],
      ['KeepAlive On', '# KeepAlive On'],
      ['<IfDefine !NOPE>', '<IfDefine NOPE>'],
      ['</VirtualHost>', ''],
    ] as const) {
      assert.ok(main.text.includes(from));
      const view = disk.withOverlay(new Map([[main.realPath, main.text.replace(from, to)]]));
      assert.equal(ApacheConfig.rebased(before, view), undefined, `${from} -> ${to}`);
    }
  });

  it("declines when Debian's envvars reads differently (${APACHE_*} would expand to other values)", () => {
    const [debian] = SYSROOT_TREES as [Tree];
    const disk = debian.fs();
    const before = load(debian, disk);
    const envvars = disk.read(path.join(path.dirname(debian.main), 'envvars'));
    const view = disk.withOverlay(
      new Map([[envvars.realPath, envvars.text.replace('APACHE_RUN_USER=www-data', 'APACHE_RUN_USER=apache')]]),
    );
    const fresh = load(debian, view);
    assert.deepEqual(
      fresh.named('user').map((use) => use.args),
      [['apache']],
    );
    assert.equal(ApacheConfig.rebased(before, view), undefined);
  });

  it('any edits: the rebase gives the fresh walk or declines (fast-check)', () => {
    const disk = NESTED.fs();
    const before = load(NESTED, disk);
    const sources = [...new Set(before.files.map((entry) => entry.source))];
    const lines = [
      'Timeout 7',
      'KeepAlive Off',
      'MaxRequestWorkers 9',
      'Include conf.d/inner.conf',
      'Define NOPE',
      'UnDefine SITE',
      'LoadModule ssl_module modules/mod_ssl.so',
      `ServerRoot ${scratch}/conf.d`,
      '<IfModule mod_ssl.c>',
      '</IfModule>',
      '<VirtualHost *:80>',
      '</VirtualHost>',
      'ServerName ${SITE}',
      '# a comment',
      '',
      '<IfDefine NOPE>',
      '</IfDefine>',
      'Listen "8080"',
      'Timeout 300 \\',
    ];
    const edit = fc.record({
      file: fc.nat({ max: sources.length - 1 }),
      line: fc.nat({ max: 40 }),
      kind: fc.constantFrom('replace', 'insert', 'delete', 'value'),
      text: fc.constantFrom(...lines),
    });
    let rebasedCount = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        const texts = new Map<string, string>();
        for (const { file, line, kind, text } of edits) {
          const source = sources[file] as SourceFile;
          const split = (texts.get(source.realPath) ?? source.text).split('\n');
          const at = line % split.length;
          if (kind === 'replace') split[at] = text;
          else if (kind === 'insert') split.splice(at, 0, text);
          else if (kind === 'delete') split.splice(at, 1);
          else split[at] = (split[at] as string).replace(/\d+/, (digits) => String(Number(digits) + 1));
          texts.set(source.realPath, split.join('\n'));
        }
        const view = disk.withOverlay(texts);
        const rebased = ApacheConfig.rebased(before, view);
        if (rebased === undefined) return;
        rebasedCount++;
        assertConsistent(rebased);
        assert.deepEqual(describeConfig(rebased), describeConfig(load(NESTED, view)));
      }),
      { numRuns: 300, seed: 20261130 },
    );
    assert.ok(rebasedCount > 30, `only ${rebasedCount} of 300 edits were rebased`);
  });
});
