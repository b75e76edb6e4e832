import { parseEnvironmentFile } from '../../util/environment-file.js';
import type { ConfigFileSystem } from '../../core/file-system.js';

/**
 * The environment a service manager gives httpd, read from the files of the
 * tree (the host's own, or a --sysroot's): the systemd unit's `Environment=`
 * and `EnvironmentFile=` lines ([Service], the unit file then its drop-ins in
 * name order; an `EnvironmentFile=` overrides `Environment=`, as systemd
 * documents), and RHEL's `/etc/sysconfig/httpd` when no unit is there to name
 * it. Nothing is executed.
 */
export interface ServiceEnvironment {
  readonly values: Record<string, string>;
  /** The files read, as shown to the user. */
  readonly sources: string[];
}

/** Where systemd looks for a unit, most local first; the first that has the unit wins. */
const UNIT_DIRS = ['/etc/systemd/system', '/run/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system'];

/** The units httpd runs under: RHEL/Fedora's httpd, Debian's apache2. */
export function serviceEnvironment(fs: ConfigFileSystem, unit: 'httpd.service' | 'apache2.service'): ServiceEnvironment {
  const result: ServiceEnvironment = { values: {}, sources: [] };
  const unitFile = UNIT_DIRS.map((dir) => fs.locate(`${dir}/${unit}`)).find((file) => fs.kind(file) === 'file');
  const dropIns = UNIT_DIRS.flatMap((dir) => {
    const directory = fs.locate(`${dir}/${unit}.d`);
    if (fs.kind(directory) !== 'directory') return [];
    try {
      return fs
        .readDirectory(directory)
        .filter((name) => name.endsWith('.conf'))
        .map((name) => ({ name, file: `${directory}/${name}` }));
    } catch {
      return [];
    }
  });
  // A drop-in of the same name in a more local directory masks the others.
  const byName = new Map<string, string>();
  for (const { name, file } of dropIns) if (!byName.has(name)) byName.set(name, file);
  const files = [
    ...(unitFile === undefined ? [] : [unitFile]),
    ...[...byName].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, file]) => file),
  ];
  const environmentFiles: string[] = [];
  for (const file of files) {
    const text = readText(fs, file);
    if (text === undefined) continue;
    result.sources.push(fs.display(file));
    for (const { key, value } of serviceSettings(text)) {
      if (key === 'Environment') Object.assign(result.values, parseEnvironmentLine(value));
      else if (key === 'EnvironmentFile') {
        if (value === '') environmentFiles.length = 0;
        else environmentFiles.push(value.replace(/^-/, ''));
      }
    }
  }
  if (unitFile === undefined && unit === 'httpd.service') environmentFiles.push('/etc/sysconfig/httpd');
  for (const path of environmentFiles) {
    const located = fs.locate(path);
    const text = fs.kind(located) === 'file' ? readText(fs, located) : undefined;
    if (text === undefined) continue;
    result.sources.push(fs.display(located));
    Object.assign(result.values, parseEnvironmentFile(text).values);
  }
  return result;
}

/** A file's text, undefined when it cannot be read: a start script's files are read where they are, and skipped where not. */
export function readText(fs: ConfigFileSystem, file: string): string | undefined {
  try {
    return fs.read(file).text;
  } catch {
    return undefined;
  }
}

/** `Key=Value` lines of the [Service] section, continuation lines joined. */
function serviceSettings(text: string): { key: string; value: string }[] {
  const settings: { key: string; value: string }[] = [];
  let section = '';
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = pending + raw.replace(/\r$/, '');
    if (line.endsWith('\\')) {
      pending = `${line.slice(0, -1)} `;
      continue;
    }
    pending = '';
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(trimmed);
    if (header !== null) {
      section = header[1] as string;
      continue;
    }
    const equals = trimmed.indexOf('=');
    if (section === 'Service' && equals > 0)
      settings.push({ key: trimmed.slice(0, equals).trim(), value: trimmed.slice(equals + 1).trim() });
  }
  return settings;
}

/** `Environment="A=1" B=2 "C=with space"`: space-separated assignments, each optionally in double or single quotes. */
function parseEnvironmentLine(value: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of value.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const assignment = match[1] ?? match[2] ?? match[3] ?? '';
    const equals = assignment.indexOf('=');
    if (equals > 0) values[assignment.slice(0, equals)] = assignment.slice(equals + 1);
  }
  return values;
}
