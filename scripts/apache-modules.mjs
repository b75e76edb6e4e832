// What the generators of Apache tables share: the installed apache2, the
// modules Debian's apache2-bin ships, and a load order of all of them that
// httpd accepts under a given MPM.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const APACHE = process.env.APACHE2 ?? '/usr/sbin/apache2';
export const MODULES = '/usr/lib/apache2/modules';
export const MPMS = ['event', 'prefork', 'worker'];
export const APACHE_ENV = { PATH: '/usr/sbin:/usr/bin:/bin', LANG: 'C' };

/** The modules Debian's apache2-bin ships (not a module package's), by LoadModule identifier and file. */
export function shippedModules() {
  const owned = new Set(
    execFileSync('dpkg', ['-L', 'apache2-bin'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => file.startsWith(`${MODULES}/`) && file.endsWith('.so')),
  );
  const modules = [];
  for (const file of readdirSync(MODULES).sort()) {
    const path = `${MODULES}/${file}`;
    if (!owned.has(path) || /^mod_mpm_/.test(file)) continue;
    // The identifier is the module record's symbol, which Debian's .load files give; the few modules
    // without one (examples and debugging aids: bucketeer, case_filter...) are left out.
    const loadFile = `/etc/apache2/mods-available/${file.replace(/^mod_/, '').replace(/\.so$/, '')}.load`;
    if (!existsSync(loadFile)) continue;
    const identifier = /LoadModule\s+(\S+)/.exec(readFileSync(loadFile, 'utf8'))?.[1];
    if (identifier === undefined) throw new Error(`no LoadModule in ${loadFile}`);
    modules.push({ identifier, line: `LoadModule ${identifier} ${path}` });
  }
  return modules;
}

/** The lines every generated config starts with: the MPM and what httpd needs to parse a config in `dir`. */
export function configHead(mpm, dir) {
  return [
    `LoadModule mpm_${mpm}_module ${MODULES}/mod_mpm_${mpm}.so`,
    `PidFile ${dir}/pid`,
    `ErrorLog ${dir}/error.log`,
    `Mutex file:${dir} default`,
  ];
}

/**
 * The LoadModule lines of `modules` in an order httpd takes under `mpm`
 * (a module that needs another is moved after it), checked with `apache2 -t`.
 */
export function loadOrder(mpm, modules) {
  const dir = mkdtempSync(join(tmpdir(), 'tune-lint-modules-'));
  const order = modules.map((module) => module.line);
  try {
    const head = configHead(mpm, dir);
    for (let attempt = 0; attempt <= order.length * order.length; attempt++) {
      writeFileSync(join(dir, 'httpd.conf'), `${[...head, ...order].join('\n')}\n`);
      const result = spawnSync(APACHE, ['-d', dir, '-f', 'httpd.conf', '-t'], { encoding: 'utf8', env: APACHE_ENV });
      if (result.status === 0) return order;
      const line = Number(/Syntax error on line (\d+)/.exec(result.stderr)?.[1]);
      if (!(line > head.length)) throw new Error(`apache2 -t under ${mpm}: ${result.stderr}`);
      order.push(...order.splice(line - head.length - 1, 1));
    }
    throw new Error(`apache2 -t under ${mpm}: no load order works`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `apache2 -L` with the MPM and every module loaded. */
export function listDirectives(mpm, modules) {
  const dir = mkdtempSync(join(tmpdir(), 'tune-lint-directives-'));
  try {
    writeFileSync(join(dir, 'httpd.conf'), `${[...configHead(mpm, dir), ...loadOrder(mpm, modules)].join('\n')}\n`);
    const result = spawnSync(APACHE, ['-d', dir, '-f', 'httpd.conf', '-L'], { encoding: 'utf8', env: APACHE_ENV });
    if (result.status !== 0) throw new Error(`apache2 -L under ${mpm}: ${result.stderr}`);
    return result.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each directive `apache2 -L` lists under every MPM, with the source file of its module (`<Directory` for sections). */
export function directivesByModule(modules) {
  const byModule = new Map();
  for (const mpm of MPMS) {
    for (const [, name, module] of listDirectives(mpm, modules).matchAll(/^(<?[A-Za-z][\w-]*) \(([\w.]+)\)$/gm)) {
      if (!byModule.has(module)) byModule.set(module, new Set());
      byModule.get(module).add(name);
    }
  }
  return byModule;
}
