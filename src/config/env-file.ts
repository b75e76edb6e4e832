import * as path from 'node:path';
import { ConfigFileSystem, FileAccessError } from '../core/file-system.js';
import type { GivenEnvironment } from '../core/types.js';
import { ENVIRONMENT_NAME, parseEnvironmentFile } from '../util/environment-file.js';
import { ConfigError } from './types.js';

/** What `--env-file` (each in turn) and then `--env` give, later over earlier. */
export function givenEnvironment(options: { readonly env: readonly string[]; readonly envFile: readonly string[] }): GivenEnvironment[] {
  const fromFlags = environmentFromFlags(options.env);
  return [...options.envFile.map(environmentFromFile), ...(fromFlags === undefined ? [] : [fromFlags])];
}

/** `--env NAME=VALUE`, repeatable: the variables as one source. */
export function environmentFromFlags(pairs: readonly string[]): GivenEnvironment | undefined {
  if (pairs.length === 0) return undefined;
  const values: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (equals === -1 || !ENVIRONMENT_NAME.test(name))
      throw new ConfigError(`--env ${pair}: expected NAME=VALUE, e.g. --env APACHE_LOG_DIR=/var/log/apache2`);
    values[name] = pair.slice(equals + 1);
  }
  return { source: '--env', values };
}

/**
 * `--env-file FILE`: `KEY=VALUE` lines as Docker's `--env-file` and
 * systemd's `EnvironmentFile=` read them (`#` and `;` comment lines, blank
 * lines, an optional `export `, a value in matching quotes unquoted). A line
 * of anything else is an error at file:line.
 */
export function environmentFromFile(file: string): GivenEnvironment {
  let text: string;
  try {
    text = new ConfigFileSystem().read(path.resolve(file), file).text;
  } catch (error) {
    if (error instanceof FileAccessError) throw new ConfigError(`--env-file ${error.message}`);
    throw error;
  }
  const parsed = parseEnvironmentFile(text);
  if (parsed.badLine !== undefined)
    throw new ConfigError(
      `${file}:${parsed.badLine}: expected NAME=VALUE, as Docker's --env-file and systemd's EnvironmentFile= take them`,
    );
  const values = parsed.values;
  return { source: `--env-file ${file}`, values };
}
