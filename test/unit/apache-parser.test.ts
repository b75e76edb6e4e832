import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ApacheNode } from '../../src/languages/apache/cst.js';
import { mayContinue } from '../../src/languages/apache/lexer.js';
import { parseApache } from '../../src/languages/apache/parser.js';

/*
 * The parser reads the common lines (blank, comment, `</Name>`, a directive
 * with a plain-word name) straight from their offsets and every other line
 * through the general path. A line continued onto an empty line has the same
 * logical text and always takes the general path: both must read it alike.
 */

/** What a node says about its line, without its source positions (which differ by the continuation). */
function reading(node: ApacheNode | undefined): unknown {
  if (node === undefined) return undefined;
  switch (node.kind) {
    case 'directive':
      return {
        kind: node.kind,
        name: node.name,
        nameLower: node.nameLower,
        argsText: node.argsText,
        args: node.args.map(({ value, quote, unterminated }) => ({ value, quote, unterminated })),
        text: node.line.text,
      };
    case 'section':
      return { kind: node.kind, name: node.name, argsText: node.argsText, children: node.children.map(reading) };
    case 'error':
      return { kind: node.kind, message: node.message };
    default:
      return { kind: node.kind, text: node.line.text };
  }
}

/** Lines as configs write them, and the odd ones: quotes, escapes, tabs, close tags with blanks; none continued. */
const LINE = fc
  .oneof(
    fc.stringMatching(/^[ \t]{0,3}[A-Za-z][A-Za-z0-9_\\]{0,12}([ \t]{1,2}[A-Za-z0-9_./:"'\\#*${}-]{0,10}){0,4}[ \t]{0,2}$/),
    fc.stringMatching(/^[ \t]{0,2}(#[ -~]{0,20}|<\/?[A-Za-z]{1,10}[ >]?[ -~]{0,6}|"[A-Za-z \\]{0,8}"?[ -~]{0,6}|[ \t]{0,3})$/),
  )
  .filter((line) => !line.endsWith('\\'));

describe('Apache parser: a line read from its offsets and through the general path', () => {
  it('reads the same either way (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(LINE, { minLength: 1, maxLength: 6 }), fc.nat(5), (lines, at) => {
        const continued = at % lines.length;
        const plain = lines.map((line) => `${line}\n`).join('');
        const joined = lines.map((line, index) => (index === continued ? `${line}\\\n\n` : `${line}\n`)).join('');
        const read = (text: string): { nodes: unknown; problems: string[] } => {
          const document = parseApache(text);
          assert.equal(document.toString(), text);
          // The empty line the continuation swallowed is part of the joined line, not a node of its own.
          return { nodes: document.nodes.map(reading), problems: document.problems.map((problem) => problem.message) };
        };
        assert.deepEqual(read(joined), read(plain));
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps each of thousands of names of one length apart, as its table of spellings grows', () => {
    const names = Array.from({ length: 3000 }, (_, index) => `Name${index.toString(36).padStart(3, '0')}`);
    const written = [...names, ...names.slice().reverse()];
    const read = parseApache(written.map((name) => `${name} x\n`).join('')).nodes.map((node) =>
      node.kind === 'directive' ? node.name : node.kind,
    );
    assert.deepEqual(read, written);
  });

  it('keeps names apart that a file made collide in the table, many more than a lookup looks at', () => {
    // FNV-1a, as the parser hashes a name: 200 names whose hashes agree in their low 12 bits, so they
    // share a slot in every table up to 4,096 slots and most of them cannot be placed near it.
    const fnv = (name: string): number => {
      let hash = 0x811c9dc5;
      for (let index = 0; index < name.length; index++) hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
      return hash & 0xfff;
    };
    const colliding: string[] = [];
    for (let index = 0; colliding.length < 200; index++) {
      const name = `Set${index.toString(36)}`;
      if (fnv(name) === fnv('Set0')) colliding.push(name);
    }
    const written = [...colliding, ...colliding, 'KeepAlive'];
    const read = parseApache(written.map((name) => `${name} x\n`).join('')).nodes.map((node) =>
      node.kind === 'directive' ? [node.name, node.nameLower] : node.kind,
    );
    assert.deepEqual(
      read,
      written.map((name) => [name, name.toLowerCase()]),
    );
  });

  it('knows a name spelled with different case as its own spelling, with one lower case', () => {
    const document = parseApache('KeepAlive On\nkeepalive Off\nKEEPALIVE On\nKeepAlive Off\n');
    const names = document.nodes.map((node) => (node.kind === 'directive' ? [node.name, node.nameLower] : []));
    assert.deepEqual(names, [
      ['KeepAlive', 'keepalive'],
      ['keepalive', 'keepalive'],
      ['KEEPALIVE', 'keepalive'],
      ['KeepAlive', 'keepalive'],
    ]);
  });

  it('lower-cases names in ASCII alone, as httpd compares them: a KELVIN SIGN is not a K', () => {
    const document = parseApache('\u212AeepAlive On\n<\u212AeepAliveSection x>\n</\u212AEEPALIVESECTION>\nÉcole On\n');
    const names = document.nodes.map((node) => (node.kind === 'directive' || node.kind === 'section' ? node.nameLower : node.kind));
    assert.deepEqual(names, ['\u212Aeepalive', '\u212Aeepalivesection', 'École']);
    assert.deepEqual(document.problems, []);
  });
});

describe('mayContinue', () => {
  it('finds what the regular expression for a line-ending backslash finds (fast-check)', () => {
    const piece = fc.constantFrom('\\', ' ', '\t', '\r', '\n', '\0', 'a', '#');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        assert.equal(mayContinue(text), /\\(?:[ \t]*\r*(?:\n|$)|\0)/.test(text), JSON.stringify(text));
      }),
      { numRuns: 5000, seed: 20261203 },
    );
  });
});
