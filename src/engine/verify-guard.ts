import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApacheConfig } from '../languages/apache/model.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';

/** Where distributions install shared libraries and server modules; only root-owned files there may be loaded. */
const SYSTEM_LIBRARY_DIRS = ['/usr/lib/', '/usr/lib64/', '/lib/', '/lib64/', '/usr/local/lib/'];

/**
 * mod_security opens these files while httpd reads the config, even under
 * `apache2 -t` (a piped one starts its program): verifying such a config
 * would write where the config says.
 */
const OPENED_WHILE_READING = new Set(['secauditlog', 'secauditlog2', 'secdebuglog', 'secguardianlog']);

/** Options by which mariadbd loads plugins (shared libraries) while it reads its options, even for --help. */
const PLUGIN_OPTIONS = new Set(['plugin_load', 'plugin_load_add', 'plugin_dir', 'early_plugin_load']);

/**
 * What in an Apache config would make `apache2 -t` run code or write files
 * the config chooses: a module or library outside the system's library
 * directories (or one that is not root's alone), a piped program anywhere,
 * mod_security's logs. --verify does not run the server on such a config.
 */
export function apacheVerifyHazards(config: ApacheConfig): string[] {
  const hazards: string[] = [];
  for (const use of config.uses) {
    const where = `${use.file.displayPath}:${use.file.position(use.range[0]).line}`;
    if (use.name === 'loadmodule' || use.name === 'loadfile') {
      const library = use.name === 'loadmodule' ? use.args[1] : use.args[0];
      const problem = library === undefined ? undefined : untrustedLibrary(path.posix.resolve(config.serverRoot, library));
      if (problem !== undefined) hazards.push(`${use.node.name} ${library} (${where}): ${problem}`);
    } else if (OPENED_WHILE_READING.has(use.name)) {
      hazards.push(`${use.node.name} ${use.args[0] ?? ''} (${where}): mod_security opens it while the config is read`);
    }
    if (use.args.some((arg) => arg.startsWith('|'))) hazards.push(`${use.node.name} ${use.argsText} (${where}): a piped program`);
  }
  return hazards;
}

/** What in option files would make `mariadbd --help --verbose` load a library the files choose. */
export function mycnfVerifyHazards(config: MycnfConfig): string[] {
  return config.uses
    .filter((use) => PLUGIN_OPTIONS.has(use.name.key))
    .map((use) => `${use.name.raw}${use.value === undefined ? '' : `=${use.value}`} (${use.file.displayPath}:${use.file.position(use.range[0]).line}): mariadbd loads plugins while it reads its options`);
}

/**
 * A library path is trusted when it resolves (on this machine, where the
 * server loads it from) to a regular file under a system library directory
 * that neither the file nor any directory above it lets anyone but root
 * change.
 */
function untrustedLibrary(file: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return undefined;
  }
  if (!SYSTEM_LIBRARY_DIRS.some((dir) => real.startsWith(dir))) return `outside ${SYSTEM_LIBRARY_DIRS.join(', ')}`;
  for (let current = real; current !== path.dirname(current); current = path.dirname(current)) {
    const stat = fs.statSync(current);
    if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) return `${current} may be changed by someone other than root`;
  }
  return undefined;
}
