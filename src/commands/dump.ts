import * as path from 'node:path';
import { ConfigFileSystem } from '../core/file-system.js';
import { DEFAULT_TARGETS, parseTargetSpec } from '../core/targets.js';
import type { AnyLanguageDefinition, LanguageDefinition, LanguageId, LanguageReaderOptions } from '../core/language.js';
import { languageOfFile } from '../core/language-of-file.js';
import { builtinLanguages } from '../languages/index.js';
import { givenEnvironment } from '../config/env-file.js';
import { ConfigError } from '../config/types.js';
import { writeJson, writeLines } from '../util/streamed-output.js';
import { dumpTextLines } from './dump-text.js';
import { checkReadingFlags, mainPath } from './paths.js';
import { stdout } from '../util/stdio.js';

export interface DumpOptions {
  readonly json: boolean;
  readonly sysroot?: string;
  readonly sysrootAt?: string;
  readonly target?: string;
  readonly lang?: LanguageId;
  readonly serverRoot?: string;
  readonly includeBase?: string;
  readonly env: readonly string[];
  readonly envFile: readonly string[];
}

/** `tune-lint dump PATH`: the effective config as the server would read it, like `apache2 -D DUMP_*` or `my_print_defaults`. */
export async function runDump(file: string, options: DumpOptions): Promise<number> {
  const cwd = process.cwd();
  checkReadingFlags(options, cwd);
  const fs = new ConfigFileSystem({ sysroot: options.sysroot, sysrootAt: options.sysrootAt, cwd });
  let targets = DEFAULT_TARGETS;
  if (options.target !== undefined) {
    try {
      targets = parseTargetSpec(options.target);
    } catch (error) {
      throw new ConfigError(`--target: ${(error as Error).message}`);
    }
  }
  const hostPath = mainPath(file, options, cwd);
  const language = dumpLanguage(hostPath, fs.read(hostPath).text.slice(0, 64 * 1024), options.lang);
  const readers: Partial<LanguageReaderOptions> = {
    apache: { env: givenEnvironment(options), ...(options.serverRoot === undefined ? {} : { serverRoot: options.serverRoot }) },
    mycnf: options.includeBase === undefined ? {} : { includeBase: path.resolve(cwd, options.includeBase) },
  };
  // Each definition reads and dumps configs of its own id.
  const definition = language as LanguageDefinition;
  const config = definition.load(hostPath, { fs, targets, options: (readers as Readonly<Record<string, unknown>>)[language.id] as never });
  const dump = definition.dump(config);
  const write = (chunk: string): void => stdout.write(chunk);
  if (options.json) {
    writeJson(dump, write);
    write('\n');
  } else {
    writeLines(dumpTextLines(dump as Record<string, unknown>), write);
  }
  return 0;
}

/** The language the file is dumped as: --lang, else what it says of itself, as the lint reads it (php.ini is read as what its name says). */
function dumpLanguage(hostPath: string, head: string, lang: LanguageId | undefined): AnyLanguageDefinition {
  const forced = lang === undefined ? undefined : builtinLanguages.find((language) => language.id === lang);
  if (forced !== undefined) return forced;
  const choice = languageOfFile(builtinLanguages, hostPath, head);
  if (!('refused' in choice)) return choice.language;
  // The kind lint refuses (php.ini) is dumped as what its name says: a dump reads, it judges nothing.
  return (languageOfFile(builtinLanguages, hostPath, undefined) as { language: AnyLanguageDefinition }).language;
}
