import * as path from 'node:path';
import type { ConfigFileSystem } from '../../core/file-system.js';
import { versionAtLeast } from '../../core/targets.js';
import { parseEnvironmentFile } from '../../util/environment-file.js';
import { lookupTable } from '../../util/lookup.js';
import type { MpmName } from './names.js';
import { readText } from './service-environment.js';
import { visitApacheNodes } from './cst.js';
import type { ApacheDocument } from './parser.js';

/**
 * How a distribution's start script runs httpd for its main file, where the
 * command line carries part of the configuration: the binary (and so the MPM
 * compiled into it), `-D` names, and `-C`/`-c` directives read before and
 * after the main file. Read from the tree's own files; nothing is executed.
 *
 * - openSUSE/SLES: `/etc/sysconfig/apache2` names the MPM (`APACHE_MPM`; the
 *   binary `/usr/sbin/httpd-<mpm>` has it compiled in; where it is empty the
 *   script picks one of the installed binaries, which a tree does not show:
 *   the MPM whose module directory loadmodule.conf was written with, else
 *   prefork, as SUSE's Uyuni reads it), and httpd is started as `httpd-<mpm>
 *   -DSYSCONFIG <APACHE_SERVER_FLAGS> -C 'Include
 *   /etc/apache2/sysconfig.d/loadmodule.conf' -C 'Include
 *   /etc/apache2/sysconfig.d/global.conf' -f /etc/apache2/httpd.conf -c
 *   'Include /etc/apache2/sysconfig.d/include.conf'`; the start script writes
 *   those three files from the sysconfig file at every start.
 * - RHEL/CentOS 5 and 6 (httpd 2.2): `HTTPD=` in `/etc/sysconfig/httpd`
 *   chooses `/usr/sbin/httpd` (prefork), `httpd.worker` or `httpd.event`;
 *   on every RHEL, `OPTIONS=` adds its `-D` names.
 */
export interface StartLayout {
  /** Whose start this is, for the notes. */
  readonly distribution: string;
  /** `-D` names the start gives. */
  readonly defines: readonly string[];
  /** Directives read before the main file (`-C`). */
  readonly before: readonly string[];
  /** Directives read after the main file (`-c`). */
  readonly after: readonly string[];
  /** The MPM compiled into the binary the start runs, if it is chosen that way. */
  readonly staticMpm?: MpmName;
  /** Modules the start script would load where the file it writes is not in the tree (openSUSE's APACHE_MODULES). */
  readonly modules: readonly { readonly identifier: string; readonly path: string }[];
  /** What was read and assumed, one sentence each. */
  readonly notes: readonly string[];
}

const SUSE_SYSCONFIG = '/etc/sysconfig/apache2';
const SUSE_MAIN = '/etc/apache2/httpd.conf';
const SUSE_GENERATED = '/etc/apache2/sysconfig.d';
const INCLUDES: ReadonlySet<string> = new Set(['include', 'includeoptional']);
/** What openSUSE's start script writes from the sysconfig file at every start, in the order httpd reads them. */
const GENERATED_FILES = ['loadmodule.conf', 'global.conf', 'include.conf'];
const MPM_NAMES: Readonly<Record<string, MpmName>> = lookupTable({ prefork: 'prefork', worker: 'worker', event: 'event' });
/** RHEL 5/6's httpd binaries, each with its MPM compiled in. */
const RHEL_BINARIES: Readonly<Record<string, MpmName>> = lookupTable({
  httpd: 'prefork',
  'httpd.worker': 'worker',
  'httpd.event': 'event',
});

/**
 * The start of the main file at this server path, given the environment the
 * service manager gives httpd (which holds RHEL's `/etc/sysconfig/httpd`) and
 * the main file's parse (undefined when it cannot be read), or undefined where
 * the command line carries nothing the files do not say.
 */
export function startLayout(
  fs: ConfigFileSystem,
  rootServerPath: string,
  httpd: string,
  serviceEnv: ReadonlyMap<string, string>,
  main: () => ApacheDocument | undefined,
): StartLayout | undefined {
  if (rootServerPath === SUSE_MAIN) return suseStart(fs, main);
  if (rootServerPath === '/etc/httpd/conf/httpd.conf') return rhelStart(httpd, serviceEnv);
  return undefined;
}

function suseStart(fs: ConfigFileSystem, main: () => ApacheDocument | undefined): StartLayout | undefined {
  const sysconfig = fs.locate(SUSE_SYSCONFIG);
  const hasSysconfig = fs.kind(sysconfig) === 'file';
  if (!hasSysconfig && fs.kind(fs.locate(SUSE_GENERATED)) !== 'directory') return undefined;
  // An unreadable sysconfig file leaves its defaults, which the notes name.
  const values = hasSysconfig ? parseEnvironmentFile(readText(fs, sysconfig) ?? '').values : {};
  const where = hasSysconfig ? fs.display(sysconfig) : `${SUSE_SYSCONFIG} (not in the tree)`;
  const { staticMpm, note } = suseMpm(fs, (values.APACHE_MPM ?? '').trim(), where);
  const notes = [note];
  // "It does not matter if you write flag1, -D flag1 or -Dflag1", says the sysconfig file.
  const flags = optionDefines(values.APACHE_SERVER_FLAGS ?? '', true);
  // Older openSUSE httpd.conf files include the written files themselves; the start script then gives no -C for them.
  const ownIncludes = new Set<string>();
  visitApacheNodes(main()?.nodes ?? [], (node) => {
    if (node.kind === 'directive' && INCLUDES.has(node.nameLower)) ownIncludes.add(node.args[0]?.value ?? '');
  });
  const ownInclude = (name: string): boolean => ownIncludes.has(`${SUSE_GENERATED}/${name}`);
  const written = (name: string): boolean => fs.kind(fs.locate(`${SUSE_GENERATED}/${name}`)) === 'file';
  const commandLine = (name: string): string[] => (!ownInclude(name) && written(name) ? [`Include ${SUSE_GENERATED}/${name}`] : []);
  const missing = GENERATED_FILES.filter((name) => !ownInclude(name) && !written(name));
  const modules = missing.includes('loadmodule.conf') ? modulesNamed(values.APACHE_MODULES ?? '') : [];
  if (modules.length > 0) {
    notes.push(
      `${SUSE_GENERATED}/loadmodule.conf, which the start script writes from APACHE_MODULES, is not in the tree: the modules APACHE_MODULES names were taken as loaded`,
    );
  }
  const unread = missing.filter((name) => name !== 'loadmodule.conf');
  if (unread.length > 0) {
    notes.push(
      `${unread.map((name) => `${SUSE_GENERATED}/${name}`).join(' and ')}, which the start script writes from ${SUSE_SYSCONFIG}, ${unread.length === 1 ? 'is' : 'are'} not in the tree and ${unread.length === 1 ? 'was' : 'were'} not read`,
    );
  }
  return {
    distribution: 'openSUSE',
    defines: ['SYSCONFIG', ...flags],
    before: [...commandLine('loadmodule.conf'), ...commandLine('global.conf')],
    after: commandLine('include.conf'),
    ...(staticMpm === undefined ? {} : { staticMpm }),
    modules,
    notes,
  };
}

/** The modules of APACHE_MODULES: "you can use mod_xyz or just xyz syntax. You may also name an absolute path." */
function modulesNamed(list: string): StartLayout['modules'] {
  return list
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => {
      const name = path.posix.basename(word).replace(/^mod_/, '').replace(/\.so$/, '');
      return { identifier: `${name}_module`, path: word.startsWith('/') ? word : `/usr/lib64/apache2/mod_${name}.so` };
    });
}

/** The MPM openSUSE's start runs, and how that was read. */
function suseMpm(fs: ConfigFileSystem, named: string, where: string): { staticMpm: MpmName | undefined; note: string } {
  if (named !== '') {
    const staticMpm = MPM_NAMES[named];
    return staticMpm === undefined
      ? {
          staticMpm,
          note: `APACHE_MPM="${named}" in ${where} names an MPM tune-lint does not size (prefork, worker, event): the MPM was not read`,
        }
      : { staticMpm, note: `the MPM is ${staticMpm}, compiled into /usr/sbin/httpd-${staticMpm} (APACHE_MPM in ${where})` };
  }
  const written = mpmOfWrittenModules(fs);
  if (written !== undefined) {
    return {
      staticMpm: written,
      note: `APACHE_MPM is empty in ${where}; the start script wrote ${SUSE_GENERATED}/loadmodule.conf with the modules of /usr/lib64/apache2-${written}, so the MPM is ${written} (/usr/sbin/httpd-${written})`,
    };
  }
  return {
    staticMpm: 'prefork',
    note: `APACHE_MPM is empty in ${where}, so the start script runs one of the installed httpd-<mpm> binaries: prefork assumed, as SUSE's Uyuni reads it; set APACHE_MPM to say which`,
  };
}

/** The MPM whose module directory (`/usr/lib64/apache2-<mpm>/`) the start script wrote loadmodule.conf with, if one. */
function mpmOfWrittenModules(fs: ConfigFileSystem): MpmName | undefined {
  const text = readText(fs, fs.locate(`${SUSE_GENERATED}/loadmodule.conf`));
  if (text === undefined) return undefined;
  const found = new Set([...text.matchAll(/\/apache2-(prefork|worker|event)\//g)].map((match) => match[1] as MpmName));
  return found.size === 1 ? [...found][0] : undefined;
}

function rhelStart(httpd: string, serviceEnv: ReadonlyMap<string, string>): StartLayout | undefined {
  const defines = optionDefines(serviceEnv.get('OPTIONS') ?? '', false);
  const binary = serviceEnv.get('HTTPD');
  // httpd 2.4 (RHEL 7 and later) loads its MPM as a module; the binary is always /usr/sbin/httpd.
  if (versionAtLeast(httpd, '2.4') || binary === undefined || binary === '') {
    return defines.length === 0 ? undefined : { distribution: 'RHEL', defines, before: [], after: [], modules: [], notes: [] };
  }
  const staticMpm = RHEL_BINARIES[path.posix.basename(binary)];
  const notes =
    staticMpm === undefined
      ? [`HTTPD=${binary} in /etc/sysconfig/httpd is none of RHEL's binaries (httpd, httpd.worker, httpd.event): prefork assumed`]
      : [`the MPM is ${staticMpm}, compiled into ${binary} (HTTPD in /etc/sysconfig/httpd)`];
  return { distribution: 'RHEL', defines, before: [], after: [], staticMpm: staticMpm ?? 'prefork', modules: [], notes };
}

/** The `-D NAME` and `-DNAME` words of a start script's options, and bare `NAME`s where the script takes those as defines. */
function optionDefines(options: string, bareNames: boolean): string[] {
  const words = options.split(/\s+/).filter((word) => word !== '');
  const defines: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (word === '-D') {
      const name = words[++index];
      if (name !== undefined) defines.push(name);
    } else if (word.startsWith('-D')) defines.push(word.slice(2));
    else if (bareNames && !word.startsWith('-')) defines.push(word);
  }
  return defines;
}
