import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { argumentCheck, argumentsError, refusesArguments, refusesPlainLine } from '../../src/languages/apache/arguments.js';
import { DIRECTIVE_ARGUMENTS, type ArgumentCheck } from '../../src/languages/apache/directive-arguments.js';
import { DIRECTIVES } from '../../src/languages/apache/directives.js';
import { splitWords, wordValues } from '../../src/languages/apache/lexer.js';

/*
 * invoke_cmd's argument checks (server/config.c) over word lists as
 * ap_getword_conf gives them: `""` is an empty word, missing where a word is
 * required. test/oracle/apache-rules-oracle.test.ts holds the rule to apache2 itself.
 */
describe('argument checks of httpd directives', () => {
  const cases: readonly [ArgumentCheck, readonly (readonly string[])[], readonly (readonly string[])[]][] = [
    ['NO_ARGS', [[]], [['x'], ['']]],
    ['TAKE1', [['a']], [[], [''], ['a', 'b']]],
    ['TAKE2', [['a', 'b']], [[], ['a'], ['a', ''], ['', 'b'], ['a', 'b', 'c']]],
    ['TAKE12', [['a'], ['a', 'b'], ['a', '']], [[], [''], ['a', 'b', 'c']]],
    [
      'TAKE3',
      [['a', 'b', 'c']],
      [
        ['a', 'b'],
        ['a', 'b', ''],
        ['a', 'b', 'c', 'd'],
      ],
    ],
    [
      'TAKE23',
      [
        ['a', 'b'],
        ['a', 'b', 'c'],
        ['a', 'b', ''],
      ],
      [['a'], ['a', ''], ['a', 'b', 'c', 'd']],
    ],
    ['TAKE123', [['a'], ['a', 'b'], ['a', 'b', 'c']], [[], [''], ['a', 'b', 'c', 'd']]],
    ['TAKE13', [['a'], ['a', 'b', 'c'], ['a', '']], [[], ['a', 'b'], ['a', 'b', 'c', 'd']]],
    [
      'ITERATE2',
      [
        ['a', 'b'],
        ['a', 'b', 'c'],
        ['a', ''],
      ],
      [[], ['a'], ['', 'b']],
    ],
    ['FLAG', [['On'], ['off'], ['OFF', 'ignored']], [[], [''], ['yes'], ['1']]],
  ];
  for (const [check, taken, refused] of cases) {
    it(`${check} takes ${taken.map((words) => JSON.stringify(words)).join(', ')} and refuses ${refused.map((words) => JSON.stringify(words)).join(', ')}`, () => {
      for (const words of taken) assert.equal(refusesArguments(check, words), false, JSON.stringify(words));
      for (const words of refused) assert.equal(refusesArguments(check, words), true, JSON.stringify(words));
    });
  }

  it('counts the words of a plain line as splitting them does (random lines, every check)', () => {
    const checks = cases.map(([check]) => check);
    const piece = fc.constantFrom('a', 'On', 'off', '/x', ' ', '  ', '\t', '\v', '\f', '"', "'", '""', '\\', '#', '\xa0', '=', '1');
    const line = fc.array(piece, { maxLength: 12 }).map((pieces) => `Directive ${pieces.join('')}`.trim());
    fc.assert(
      fc.property(line, fc.constantFrom(...checks), (text, check) => {
        const plain = refusesPlainLine(check, text);
        if (plain === undefined) return;
        const words = splitWords(text)
          .slice(1)
          .map((word) => word.value);
        assert.equal(plain, refusesArguments(check, words), `${check} ${JSON.stringify(text)}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the values of a line as splitting it into words does (random lines and starts)', () => {
    const piece = fc.constantFrom('a', 'On', '/x', ' ', '  ', '\t', '\v', '"', "'", '""', "''", '\\', '\\"', "\\'", '#', '\xa0');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.nat(6), (pieces, from) => {
        const text = pieces.join('');
        assert.deepEqual(
          wordValues(text, from),
          splitWords(text, from).map((word) => word.value),
          JSON.stringify(text),
        );
      }),
      { numRuns: 3000, seed: 20261203 },
    );
  });

  it("words httpd's error as httpd does, with the help its MPM gives", () => {
    assert.equal(argumentsError('Timeout', 'TAKE1', 'event'), 'Timeout takes one argument, Timeout duration (sec)');
    assert.equal(
      argumentsError('MaxRequestWorkers', 'TAKE1', 'prefork'),
      'MaxRequestWorkers takes one argument, Maximum number of children alive at the same time',
    );
    assert.equal(
      argumentsError('MaxRequestWorkers', 'TAKE1', 'event'),
      'MaxRequestWorkers takes one argument, Maximum number of threads alive at the same time',
    );
    assert.equal(argumentsError('RewriteEngine', 'FLAG', 'event'), 'RewriteEngine must be On or Off');
  });

  it('has a check for every directive tune-lint reasons about that httpd checks (src/languages/apache/directives.ts takes them from it)', () => {
    let compared = 0;
    for (const spec of DIRECTIVES) {
      const check = argumentCheck(spec.name.toLowerCase());
      if (spec.args.kind === 'checked') assert.ok(check !== undefined && check !== 'ITERATE2' && check !== 'NO_ARGS', spec.name);
      // 'raw' there means the handler judges the words, which may come after a count check (Allow is ITERATE2).
      if (spec.args.kind === 'listen') assert.equal(check, undefined, spec.name);
      compared++;
    }
    assert.ok(compared > 100 && Object.keys(DIRECTIVE_ARGUMENTS).length > 500);
  });
});
