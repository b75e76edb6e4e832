import * as path from 'node:path';
import type { ConfigProblem } from '../../src/core/problem.js';
import type { LanguageDefinition, MemoryConsumer } from '../../src/core/language.js';
import type { SourceFile } from '../../src/core/source-file.js';
import type { Located } from '../../src/core/types.js';
import { InputBudget } from '../../src/core/file-system.js';

/*
 * A fourth language, the smallest that is real: a cache daemon's INI file
 * (`[cache]`, `memory = 64M`, `;` comments), read losslessly, with what the
 * daemon consumes on the host. It lives in this folder alone: the test that
 * lints it edits nothing outside it (the engine, the linter and the public
 * API reach it through core/language.ts and LintInput.languages).
 */

/** One `key = value` line in effect. */
interface ToyEntry extends Located {
  readonly section: string;
  readonly key: string;
  readonly value: string;
  /** Where the value is, for an edit. */
  readonly valueRange: readonly [number, number];
}

interface ToyConfig {
  readonly root: SourceFile;
  readonly files: readonly { readonly source: SourceFile }[];
  readonly problems: readonly ConfigProblem[];
  readonly entries: readonly ToyEntry[];
}

declare module '../../src/core/language.js' {
  interface LanguageConfigs {
    toy: ToyConfig;
  }
}

/** `64M` as bytes; undefined for what is not a size. */
export function toySize(text: string): number | undefined {
  const match = /^(\d+)([KMG]?)$/i.exec(text.trim());
  if (match === null) return undefined;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? '').toLowerCase()] ?? 1;
  return Number(match[1]) * unit;
}

export const toyLanguage: LanguageDefinition<'toy'> = {
  id: 'toy',
  server: 'toy cache',
  files: 'toy cache configs',
  guessedAs: 'a toy cache config',
  rules: { prefix: 'TY', title: 'Toy cache', sample: { fence: 'ini', extension: 'toy', comment: ';' } },
  detect: { byName: (hostPath) => (path.extname(hostPath) === '.toy' ? 'exact' : undefined) },
  systemConfigs: () => ['/etc/toy/cache.toy'],
  load(hostPath, { fs }) {
    const source = fs.read(hostPath);
    new InputBudget(fs.limits).chargeMain(source);
    const entries: ToyEntry[] = [];
    const problems: ConfigProblem[] = [];
    let section = '';
    let start = 0;
    for (const line of source.text.split(/(?<=\n)/)) {
      const body = line.replace(/\r?\n$/, '');
      const header = /^\s*\[([^\]]+)\]\s*$/.exec(body);
      const entry = /^(\s*)([\w.]+)(\s*=\s*)(.*?)\s*$/.exec(body);
      const range: [number, number] = [start, start + line.length];
      if (header !== null) section = header[1] as string;
      else if (entry !== null) {
        const valueStart = start + (entry[1] as string).length + (entry[2] as string).length + (entry[3] as string).length;
        entries.push({
          file: source,
          range,
          section,
          key: entry[2] as string,
          value: entry[4] as string,
          valueRange: [valueStart, valueStart + (entry[4] as string).length],
        });
      } else if (body.trim() !== '' && !body.trim().startsWith(';')) {
        problems.push({
          ruleId: 'TL0001',
          severity: 'error',
          message: 'not a [section], a key = value or a ; comment',
          file: source,
          range,
        });
      }
      start += line.length;
    }
    return { root: source, files: [{ source }], problems, entries };
  },
  dump: (config) => ({ language: 'toy', entries: config.entries.map(({ section, key, value }) => ({ section, key, value })) }),
  consumers(config): MemoryConsumer[] {
    const memory = config.entries.find((entry) => entry.key === 'memory');
    const bytes = memory === undefined ? undefined : toySize(memory.value);
    if (memory === undefined || bytes === undefined) return [];
    return [
      {
        language: 'toy',
        config,
        role: 'database',
        label: 'toy cache',
        bytes,
        detail: `memory ${memory.value}`,
        limits: [{ name: 'memory', value: bytes, setAt: memory, from: `set in ${config.root.displayPath}` }],
      },
    ];
  },
  api: {},
};
