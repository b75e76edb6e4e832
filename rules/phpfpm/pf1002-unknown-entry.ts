import { defineRule } from '../../src/engine/define-rule.js';
import { ARRAY_ENTRIES, GLOBAL_ENTRIES, POOL_ENTRIES } from '../../src/languages/phpfpm/entries.js';
import type { PhpFpmEntryUse } from '../../src/languages/phpfpm/model.js';
import { asciiLowerCase, codePointsBeyondAscii } from '../../src/util/ascii.js';
import { NearestName } from '../../src/util/nearest-name.js';

const GLOBAL: ReadonlySet<string> = new Set(GLOBAL_ENTRIES);
const POOL: ReadonlySet<string> = new Set(POOL_ENTRIES);
const ARRAYS: ReadonlySet<string> = new Set(ARRAY_ENTRIES);

export default defineRule('phpfpm', {
  meta: {
    id: 'PF1002',
    name: 'unknown-entry',
    category: 'correctness',
    description: 'An entry php-fpm does not know, or an array entry where it takes none, stops it from starting',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      unknown: {
        message: '{{where}} {{key}} is no entry php-fpm knows there, so it does not start; expected {{expected}}',
        detail: 'php-fpm says "{{said}}" and stops at the line',
      },
      hash: {
        message: '{{where}} {{key}}: a # does not start a comment, so php-fpm reads an entry it refuses and does not start; expected ;',
        detail: 'php-fpm says "{{said}}"; ";" starts a comment in php-fpm\'s files, and "#" no longer does since PHP 7',
      },
      unknownArray: {
        message: '{{where}} {{key}}: {{name}} is no array entry php-fpm knows, so it does not start; expected {{expected}}',
        detail: `php-fpm says "{{said}}"; it takes ${ARRAY_ENTRIES.join(', ')}, written so`,
      },
      arrayInGlobal: {
        message: '[global] {{key}}: php-fpm takes no array entry in [global], so it does not start; expected it in a pool',
        detail: 'php-fpm says "{{said}}"',
      },
      missingKey: {
        message: '{{where}} {{key}}: {{name}} needs a key between the brackets, so php-fpm does not start; expected {{name}}[name]',
        detail: 'php-fpm says "{{said}}"',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const { global, pools } = ctx.config;
        for (const pool of [global, ...pools]) {
          for (const use of pool.uses) {
            const refusal = refusalOf(use, pool === global);
            if (refusal === undefined) continue;
            const where = pool === global ? '[global]' : `[${use.section}]`;
            const data = { ...refusal.data, where, key: use.line.key, said: refusal.said };
            if (!use.line.key.startsWith('#')) {
              ctx.report({ at: use, messageId: refusal.messageId, data });
              continue;
            }
            // A line put out of use with #, as in a shell's files: what was meant is a comment.
            const at = use.line.keyRange[0];
            ctx.report({ at: use, messageId: 'hash', data, fix: () => ({ file: use.file, range: [at, at + 1], text: ';' }) });
          }
        }
      },
    };
  },
});

interface Refusal {
  readonly messageId: 'unknown' | 'unknownArray' | 'arrayInGlobal' | 'missingKey';
  /** php-fpm's own words. */
  readonly said: string;
  readonly data: Readonly<Record<string, string>>;
}

/** fpm_conf_ini_parser_entry and fpm_conf_ini_parser_array, in their order: the first check that fails is what php-fpm says. */
function refusalOf(use: PhpFpmEntryUse, inGlobal: boolean): Refusal | undefined {
  const written = use.line.key;
  const open = written.indexOf('[');
  if (open === -1) {
    if ((inGlobal ? GLOBAL : POOL).has(use.key)) return undefined;
    const beyond = codePointsBeyondAscii(written);
    const note = beyond.length === 0 ? '' : ` (${beyond.join(', ')} in the name: no entry name has a character beyond ASCII)`;
    return { messageId: 'unknown', said: `unknown entry '${written}'`, data: { expected: `${expectedFor(use.key, inGlobal)}${note}` } };
  }
  const name = written.slice(0, open);
  if (written.length === open + 2 && name !== 'access.suppress_path')
    return { messageId: 'missingKey', said: `You must provide a key for field '${name}'`, data: { name } };
  if (inGlobal) return { messageId: 'arrayInGlobal', said: 'Array are not allowed in the global section', data: {} };
  if (ARRAYS.has(name)) return undefined;
  const lower = asciiLowerCase(name);
  const near = ARRAYS.has(lower) ? undefined : arrays.find(lower);
  const expected = ARRAYS.has(lower)
    ? `${lower}, in lower case`
    : near === undefined
      ? `one of ${ARRAY_ENTRIES.join(', ')}`
      : `${near}, the nearest array entry php-fpm knows`;
  return { messageId: 'unknownArray', said: `unknown directive '${name}'`, data: { name, expected } };
}

const globalNames = nearestAmong(GLOBAL_ENTRIES);
const poolNames = nearestAmong(POOL_ENTRIES);
const arrays = nearestAmong(ARRAY_ENTRIES);

function nearestAmong(names: readonly string[]): NearestName {
  return new NearestName(names, (name) => Math.min(3, Math.floor((name.length - 1) / 3)));
}

/** What the line was likely meant to be: `include` as written, an entry of the other section, or the nearest name. */
function expectedFor(key: string, inGlobal: boolean): string {
  if (key === 'include') return 'include, in lower case: php-fpm takes include as written';
  if (inGlobal && POOL.has(key)) return `${key} in a pool section: it is a pool's entry, not [global]'s`;
  if (!inGlobal && GLOBAL.has(key)) return `${key} in [global]: it is not a pool's entry`;
  const near = (inGlobal ? globalNames : poolNames).find(key);
  if (near !== undefined) return `${near}, the nearest entry php-fpm knows`;
  return `an entry of ${inGlobal ? '[global]' : 'a pool'} (the PHP manual's FPM configuration lists them)`;
}
