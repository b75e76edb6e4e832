#!/usr/bin/env node
// `npm run package`: the packages a sysadmin installs where tune-lint tunes,
// from the build in dist/ (run after `npm run build`):
//
//   dist/package/tune-lint_<version>_all.deb     Depends: nodejs (>= 18)
//   dist/package/tune-lint-<version>-1.noarch.rpm (when rpmbuild is installed) Requires: nodejs >= 18
//
// Both hold the same tree: /usr/bin/tune-lint, the bundle and its runtime
// modules under /usr/share/tune-lint/, tune-lint(1), the bash completion, and
// the usage and rule pages under /usr/share/doc/tune-lint/. The man page and
// the completion are generated here from the CLI's own definitions
// (scripts/man-and-completion.mjs), so they cannot drift.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bashCompletion, generate, manPage } from './man-and-completion.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'package');
const stage = join(out, 'root');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { version } = manifest;
const MAINTAINER = 'tune-lint developers <tune-lint@users.noreply.github.com>';
const SUMMARY = 'linter and auto-tuner for Apache httpd, MySQL/MariaDB and php-fpm configs';
/** The date of the last commit: the same sources give the same packages. */
const date = execFileSync('git', ['log', '-1', '--format=%cs'], { cwd: root, encoding: 'utf8' }).trim() || '1970-01-01';
const epoch = Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' }).trim() || '0');

function write(path, content, mode = 0o644) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, mode);
}

/** Files npm packs for its own use, and tsc's type declarations (for the library's users), which a system package does not ship. */
const PACKAGING_LEFTOVERS = /\/\.(npmignore|eslintrc[^/]*|travis\.yml|editorconfig|github)$|\.d\.ts$/;

function copy(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true, dereference: true, filter: (source) => !PACKAGING_LEFTOVERS.test(source) });
}

/** 0755 for scripts (a `#!` line: the bin, the modules' own), 0644 for every other file: npm keeps whatever modes the authors' machines had. */
function normaliseModes(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = join(entry.parentPath, entry.name);
    if (entry.isFile()) chmodSync(file, readFileSync(file).subarray(0, 2).toString('latin1') === '#!' ? 0o755 : 0o644);
    else if (entry.isDirectory()) chmodSync(file, 0o755);
  }
}

/** The modules the bin loads at run time (package.json `dependencies` and theirs), as npm installed them. */
function runtimeModules() {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8' });
  return listed
    .split('\n')
    .filter((line) => line.includes(`${join(root, 'node_modules')}/`))
    .map((line) => relative(join(root, 'node_modules'), line));
}

function stageTree() {
  rmSync(out, { recursive: true, force: true });
  const share = join(stage, 'usr', 'share', 'tune-lint');
  copy(join(root, 'package.json'), join(share, 'package.json'));
  copy(join(root, 'bin', 'tune-lint.cjs'), join(share, 'bin', 'tune-lint.cjs'));
  copy(join(root, 'dist', 'bundle'), join(share, 'dist', 'bundle'));
  // The module build the bundle is made from: `--debug` runs it, so that a stack trace names the sources (bin/tune-lint.cjs).
  copy(join(root, 'dist', 'src'), join(share, 'dist', 'src'));
  copy(join(root, 'dist', 'rules'), join(share, 'dist', 'rules'));
  copy(join(root, 'schema'), join(share, 'schema'));
  const modules = runtimeModules();
  for (const module of modules) copy(join(root, 'node_modules', module), join(share, 'node_modules', module));
  normaliseModes(share);
  mkdirSync(join(stage, 'usr', 'bin'), { recursive: true });
  symlinkSync('../share/tune-lint/bin/tune-lint.cjs', join(stage, 'usr', 'bin', 'tune-lint'));
  return modules;
}

async function stageDocs(modules) {
  const generated = await generate(root);
  write(
    join(stage, 'usr', 'share', 'man', 'man1', 'tune-lint.1.gz'),
    gzipSync(manPage(generated.program, generated.usage, version, date), { level: 9 }),
  );
  write(join(stage, 'usr', 'share', 'bash-completion', 'completions', 'tune-lint'), bashCompletion(generated.program, generated.ruleIds));
  const doc = join(stage, 'usr', 'share', 'doc', 'tune-lint');
  copy(join(root, 'docs', 'usage.md'), join(doc, 'usage.md'));
  copy(join(root, 'docs', 'rules'), join(doc, 'rules'));
  write(join(doc, 'CHANGELOG.md.gz'), gzipSync(readFileSync(join(root, 'CHANGELOG.md')), { level: 9 }));
  write(join(doc, 'changelog.gz'), gzipSync(debianChangelog(), { level: 9 }));
  write(join(doc, 'copyright'), copyright(modules));
}

/** A native package's changelog in Debian's format, pointing at the project's own. */
function debianChangelog() {
  const stamp = new Date(epoch * 1000).toUTCString().replace('GMT', '+0000');
  return `tune-lint (${version}) unstable; urgency=medium\n\n  * Release ${version}; what changed is in /usr/share/doc/tune-lint/CHANGELOG.md.gz.\n\n -- ${MAINTAINER}  ${stamp}\n`;
}

/** DEP-5: tune-lint's license, and each bundled module's as its package.json declares it. */
function copyright(modules) {
  const parts = [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: tune-lint',
    `Source: ${manifest.homepage}`,
    '',
    'Files: *',
    `Copyright: ${date.slice(0, 4)} tune-lint developers`,
    `License: ${manifest.license}`,
    ' On Debian systems, the full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.',
  ];
  for (const module of modules) {
    const info = JSON.parse(readFileSync(join(root, 'node_modules', module, 'package.json'), 'utf8'));
    parts.push(
      '',
      `Files: usr/share/tune-lint/node_modules/${module}/*`,
      `Copyright: the authors of ${info.name}`,
      `License: ${info.license ?? 'see the package'}`,
    );
  }
  return `${parts.join('\n')}\n`;
}

function installedKiB(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return Math.ceil(bytes / 1024);
}

function buildDeb() {
  const control = [
    'Package: tune-lint',
    `Version: ${version}`,
    'Architecture: all',
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedKiB(stage)}`,
    'Depends: nodejs (>= 18)',
    'Section: admin',
    'Priority: optional',
    `Homepage: ${manifest.homepage}`,
    `Description: ${SUMMARY}`,
    ' tune-lint reads the configs the way the servers read them, works out the',
    ' effective settings, learns the host (RAM, CPUs, the running servers) and',
    ' prints a diagnosis with the arithmetic and a patch it can write.',
    '',
  ].join('\n');
  const debRoot = join(out, 'deb');
  cpSync(stage, debRoot, { recursive: true, verbatimSymlinks: true });
  write(join(debRoot, 'DEBIAN', 'control'), control);
  const deb = join(out, `tune-lint_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', debRoot, deb], {
    stdio: 'inherit',
    env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
  });
  return deb;
}

function buildRpm() {
  const spec = join(out, 'tune-lint.spec');
  const top = join(out, 'rpmbuild');
  const files = readdirSync(stage, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => `/${relative(stage, join(entry.parentPath, entry.name))}`)
    .filter((file) => !file.startsWith('/usr/share/doc/'));
  write(
    spec,
    [
      'Name: tune-lint',
      `Version: ${version}`,
      'Release: 1',
      `Summary: ${SUMMARY}`,
      `License: ${manifest.license}`,
      `URL: ${manifest.homepage}`,
      'BuildArch: noarch',
      'Requires: nodejs >= 18',
      '%define __os_install_post %{nil}',
      '%define __requires_exclude_from ^/usr/share/tune-lint/.*$',
      '%define __provides_exclude_from ^/usr/share/tune-lint/.*$',
      '%description',
      'tune-lint reads the configs the way the servers read them, works out the effective',
      'settings, learns the host and prints a diagnosis with the arithmetic and a patch.',
      '%install',
      `cp -a ${stage}/. %{buildroot}/`,
      '%files',
      '%doc /usr/share/doc/tune-lint',
      ...files,
      '',
    ].join('\n'),
  );
  execFileSync('rpmbuild', ['--define', `_topdir ${top}`, '-bb', spec], {
    stdio: 'inherit',
    env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
  });
  const built = join(top, 'RPMS', 'noarch', `tune-lint-${version}-1.noarch.rpm`);
  const rpm = join(out, `tune-lint-${version}-1.noarch.rpm`);
  cpSync(built, rpm);
  return rpm;
}

function has(tool) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

if (!existsSync(join(root, 'dist', 'bundle', 'cli', 'cli.js'))) throw new Error('package: no build; run npm run build first');
const modules = stageTree();
await stageDocs(modules);
const built = [buildDeb()];
if (has('rpmbuild')) built.push(buildRpm());
else process.stderr.write('package: rpmbuild not installed (apt-get install rpm): no .rpm this time\n');
for (const file of built) process.stdout.write(`${relative(root, file)}\n`);
