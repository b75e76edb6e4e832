import * as path from 'node:path';
import { ConfigFileSystem } from '../core/file-system.js';
import { DEFAULT_TARGETS, parseTargetSpec } from '../core/targets.js';
import { detectLanguage, languageFromName } from '../languages/detect.js';
import { phpConfigKind } from '../languages/foreign.js';
import { loadApache } from '../languages/apache/model.js';
import { loadMycnf } from '../languages/mycnf/model.js';
import { loadPhpFpm } from '../languages/phpfpm/model.js';
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
  readonly lang?: 'apache' | 'mycnf' | 'phpfpm';
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
  const start = fs.read(hostPath).text.slice(0, 4096);
  const php = phpConfigKind(start);
  const language =
    options.lang ??
    (php !== undefined && 'language' in php ? php.language : undefined) ??
    languageFromName(hostPath) ??
    detectLanguage(hostPath, start);
  const dump =
    language === 'phpfpm'
      ? loadPhpFpm(hostPath, fs).toDump()
      : language === 'apache'
        ? loadApache(hostPath, {
            fs,
            httpd: targets.httpd,
            givenEnv: givenEnvironment(options),
            ...(options.serverRoot === undefined ? {} : { serverRoot: options.serverRoot }),
          }).toDump()
        : loadMycnf(hostPath, {
            fs,
            target: targets.db,
            ...(options.includeBase === undefined ? {} : { includeBase: fs.serverPath(path.resolve(cwd, options.includeBase)) }),
          }).toDump();
  const write = (chunk: string): void => stdout.write(chunk);
  if (options.json) {
    writeJson(dump, write);
    write('\n');
  } else {
    writeLines(dumpTextLines(dump as Record<string, unknown>), write);
  }
  return 0;
}
