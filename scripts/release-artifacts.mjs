#!/usr/bin/env node
// What a release attaches, in dist/release/: the .deb and, where rpmbuild
// is installed, the .rpm that `node scripts/package.mjs` built, the npm
// tarball `npm pack` makes of this build, the VS Code extension that
// `npm run package` in editors/vscode made, and SHA256SUMS over them, in the
// format `sha256sum -c` checks. The release workflow runs it on a version
// tag, and .ci/run on every change, so the steps a release takes are run
// before a release needs them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const release = join(root, 'dist', 'release');
const packages = join(root, 'dist', 'package');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(release, { recursive: true, force: true });
mkdirSync(release, { recursive: true });
const built = readdirSync(packages).filter((name) => name.includes(`-${version}`) || name.includes(`_${version}_`));
if (!built.some((name) => name.endsWith('.deb')))
  throw new Error(`no .deb of ${version} in dist/package: run node scripts/package.mjs first`);
for (const name of built.filter((file) => /\.(deb|rpm)$/.test(file))) copyFileSync(join(packages, name), join(release, name));
// No prepare: it would build again, and a build starts by removing dist/, this directory with it; the
// tarball holds the build the packages were made from.
const extension = join(root, 'editors', 'vscode');
const { version: extensionVersion } = JSON.parse(readFileSync(join(extension, 'package.json'), 'utf8'));
if (extensionVersion !== version) throw new Error(`editors/vscode/package.json is version ${extensionVersion}, the package ${version}`);
copyFileSync(join(extension, 'tune-lint.vsix'), join(release, `tune-lint-vscode-${version}.vsix`));
const tarball = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', release], {
  cwd: root,
  encoding: 'utf8',
}).trim();
if (tarball !== `tune-lint-${version}.tgz`) throw new Error(`npm pack made ${tarball}, expected tune-lint-${version}.tgz`);
const files = readdirSync(release).sort();
const sums = files.map(
  (name) =>
    `${createHash('sha256')
      .update(readFileSync(join(release, name)))
      .digest('hex')}  ${name}`,
);
writeFileSync(join(release, 'SHA256SUMS'), `${sums.join('\n')}\n`);
console.log(`dist/release: ${[...files, 'SHA256SUMS'].join(', ')}`);
