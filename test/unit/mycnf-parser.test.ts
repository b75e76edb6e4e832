import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBytes } from '../../src/core/source-file.js';
import {
  parseMyCnf,
  READ_LIMIT_BYTES,
  type MycnfDocument,
  type MycnfLine,
  type MycnfOptionLine,
} from '../../src/languages/mycnf/parser.js';
import { CORPUS, FIXTURES, filesUnder } from '../helpers/mycnf-fixtures.js';

/** Lines tile the text exactly, in order, and numbering counts reads. */
function assertTiles(document: MycnfDocument): void {
  let at = 0;
  document.lines.forEach((line, index) => {
    assert.equal(line.range[0], at, `line ${index + 1} starts where the previous one ended`);
    assert.ok(line.range[1] > line.range[0] || document.text.length === 0, `line ${index + 1} is not empty`);
    assert.equal(line.number, index + 1);
    const text = document.text.slice(line.range[0], line.range[1]);
    assert.ok(line.eol === '' || text.endsWith(line.eol), `line ${index + 1} ends with its eol`);
    at = line.range[1];
  });
  assert.equal(at, document.text.length);
  assert.equal(document.toString(), document.text);
}

function roundTrip(file: string): void {
  const { text, encoding } = decodeBytes(fs.readFileSync(file));
  const document = parseMyCnf(text, { encoding });
  assertTiles(document);
  assert.equal(Buffer.compare(Buffer.from(document.toString(), encoding), fs.readFileSync(file)), 0, `${file} prints back byte for byte`);
}

function only<K extends MycnfLine['kind']>(text: string, kind: K): (MycnfLine & { kind: K })[] {
  return parseMyCnf(text).lines.filter((line): line is MycnfLine & { kind: K } => line.kind === kind);
}

function option(text: string): MycnfOptionLine {
  const found = only(`[mysqld]\n${text}`, 'option');
  assert.equal(found.length, 1, `one option in ${JSON.stringify(text)}`);
  return found[0] as MycnfOptionLine;
}

describe('mycnf parser: round trip', () => {
  it('prints every fixture back byte for byte', () => {
    const files = filesUnder(FIXTURES);
    assert.ok(files.length > 40, `found ${files.length} fixture files`);
    for (const file of files) roundTrip(file);
  });

  it('prints every file of the shared corpus back byte for byte', (t) => {
    if (!fs.existsSync(CORPUS)) {
      t.skip(`${CORPUS} is not present (it lives outside the repository)`);
      return;
    }
    const files = filesUnder(CORPUS);
    assert.ok(files.length > 10);
    for (const file of files) roundTrip(file);
  });

  it('prints the installed /etc/mysql tree back byte for byte', (t) => {
    if (!fs.existsSync('/etc/mysql')) {
      t.skip('/etc/mysql is not installed');
      return;
    }
    const files = filesUnder('/etc/mysql').filter((file) => {
      try {
        fs.accessSync(file, fs.constants.R_OK);
        return true;
      } catch {
        return false;
      }
    });
    assert.ok(files.length > 0);
    for (const file of files) roundTrip(file);
  });

  it('never throws and always prints back, for random and mutated option files', () => {
    const piece = fc.constantFrom(
      '[mysqld]',
      '[ mysqld ]',
      '[client',
      ']',
      '[MYSQLD] junk',
      '!include ',
      '!includedir ',
      '!INCLUDE x',
      '! include',
      '=',
      ' = ',
      '#',
      ';',
      '"',
      "'",
      '\\',
      '\\s',
      '\\"',
      ' ',
      '\t',
      '\r',
      '\n',
      '\r\n',
      '\0',
      '\uFEFF',
      '\u00A0',
      'à',
      '€',
      '😀',
      'key_buffer_size',
      'skip-name-resolve',
      '16M',
      'a',
      'b',
      'x'.repeat(5000),
    );
    const fixtures = filesUnder(FIXTURES).map((file) => decodeBytes(fs.readFileSync(file)).text);
    // A real fixture with pieces spliced in and cut out at random places.
    const mutated = fc
      .tuple(fc.constantFrom(...fixtures), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 20 }), piece), { maxLength: 8 }))
      .map(([original, edits]) =>
        edits.reduce((text, [at, cut, insert]) => {
          const where = text.length === 0 ? 0 : at % text.length;
          return text.slice(0, where) + insert + text.slice(where + cut);
        }, original),
      );
    const text = fc.oneof(
      fc.array(piece, { maxLength: 60 }).map((parts) => parts.join('')),
      fc.string({ unit: 'binary', maxLength: 300 }),
      mutated,
    );
    fc.assert(
      fc.property(text, fc.constantFrom('utf8' as const, 'latin1' as const), (input, encoding) => {
        const source = encoding === 'latin1' ? Buffer.from(input, 'utf8').toString('latin1') : input;
        const document = parseMyCnf(source, { encoding });
        assertTiles(document);
        for (const line of document.lines) {
          if (line.kind === 'option') assert.ok(line.contentRange[0] >= line.range[0] && line.contentRange[1] <= line.range[1]);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('mycnf parser: lines as the server reads them', () => {
  it('classifies comments, blanks, groups, options and directives', () => {
    const document = parseMyCnf('# a\n; b\n   # c\n\n  \t\n[mysqld]\nx=1\n!include /etc/x.cnf\n!includedir /etc/x.d\n!INCLUDE /y\n!foo\n');
    assert.deepEqual(
      document.lines.map((line) => line.kind),
      ['comment', 'comment', 'comment', 'blank', 'blank', 'group', 'option', 'include', 'includedir', 'other', 'other'],
    );
    assert.deepEqual(
      document.lines.filter((line) => line.kind === 'comment').map((line) => line.marker),
      ['#', ';', '#'],
    );
  });

  it('reads group names like the server: text after ] ignored, blanks before ] trimmed, blanks after [ kept', () => {
    const groups = only('[mysqld] junk\n[ mysqld ]\n[MYSQLD]\n[mysqld]]\n[mariadb-10.11]\n[]\n[client\n', 'group');
    assert.deepEqual(
      groups.map((group) => [group.name, group.closed]),
      [
        ['mysqld', true],
        [' mysqld', true],
        ['MYSQLD', true],
        ['mysqld', true],
        ['mariadb-10.11', true],
        ['', true],
        ['client', false],
      ],
    );
    const first = groups[0];
    assert.equal('[mysqld] junk\n'.slice(...(first?.nameRange ?? [0, 0])), 'mysqld');
  });

  it('splits name and value at the first = and trims blanks around both', () => {
    const line = option('  key_buffer_size  =  16M  \n');
    assert.equal(line.rawName, 'key_buffer_size');
    assert.equal(line.value, '16M');
    assert.equal(line.hasEquals, true);
    assert.equal(option('set-variable = max_connections=15\n').value, 'max_connections=15');
    assert.equal(option('skip-name-resolve\n').value, undefined);
    assert.equal(option('empty =\n').value, '');
    assert.equal(option('o p q\n').rawName, 'o p q');
  });

  it('treats # as a comment anywhere outside quotes, but ; only at the start of a line', () => {
    assert.equal(option('a=1#x\n').value, '1');
    assert.equal(option('a=200;note\n').value, '200;note');
    assert.equal(option('a = "x # y" # real\n').value, 'x # y');
    assert.equal(option('a = "esc\\"aped" # cmt\n').value, 'esc"aped');
    assert.equal(option('a = "unterminated # kept\n').value, '"unterminated # kept');
    const commented = option('a = 1 # note\n');
    assert.equal('[mysqld]\na = 1 # note\n'.slice(...(commented.commentRange ?? [0, 0])), '# note');
  });

  it('removes one pair of matching quotes and processes escapes with or without quotes', () => {
    assert.deepEqual([option('a="x y"\n').value, option('a="x y"\n').quote], ['x y', '"']);
    assert.equal(option("a='it''s'\n").value, "it''s");
    assert.equal(option('a="a"b\n').value, '"a"b');
    assert.equal(option('a="\n').value, '"');
    assert.equal(option('a=""\n').value, '');
    assert.equal(option('a=x\\sy\\tz\\\\w\\qv\\"u\\\n').value, 'x y\tz\\w\\qv"u\\');
    assert.equal(option("a='single'\n").value, 'single');
  });

  it('keeps the raw value text and the content range for edits', () => {
    const text = '[mysqld]\n  init_connect = "SET NAMES utf8" # c\n';
    const line = parseMyCnf(text).lines[1] as MycnfOptionLine;
    assert.equal(text.slice(...(line.valueRange ?? [0, 0])), '"SET NAMES utf8"');
    assert.equal(text.slice(...line.contentRange), 'init_connect = "SET NAMES utf8"');
    assert.equal(text.slice(...line.nameRange), 'init_connect');
  });

  it('reads !include paths with get_argument, which drops the last byte of a line without newline', () => {
    const [withNewline, withoutNewline] = [only('!include /etc/a.cnf  \n', 'include')[0], only('!include /etc/a.cnf', 'include')[0]];
    assert.equal(withNewline?.path, '/etc/a.cnf');
    assert.equal(withoutNewline?.path, '/etc/a.cn');
    assert.equal(only('!include x', 'include')[0]?.path, '');
    assert.equal(only('!include\n', 'include')[0]?.path, '');
    assert.equal(only('!   includedir\t/etc/d/ \r\n', 'includedir')[0]?.path, '/etc/d/');
    assert.equal(only('!includedirx /etc/d\n', 'other').length, 1);
  });

  it('cuts a line longer than the read limit into several lines, as fgets does', () => {
    const long = `x=${'a'.repeat(READ_LIMIT_BYTES)}b=2\n`;
    const document = parseMyCnf(`[mysqld]\n${long}next=1\n`);
    const options = document.lines.filter((line): line is MycnfOptionLine => line.kind === 'option');
    assert.deepEqual(
      options.map((line) => [line.rawName, line.value?.length]),
      [
        ['x', READ_LIMIT_BYTES - 2],
        ['aab', 1],
        ['next', 1],
      ],
    );
    assert.equal(document.lines[1]?.cutAtReadLimit, true);
    assert.equal(document.lines[2]?.continuesCutLine, true);
    assert.equal(document.lines[3]?.number, 4);
    const exact = parseMyCnf(`[mysqld]\nx=${'a'.repeat(READ_LIMIT_BYTES - 2)}\nnext=1\n`);
    assert.deepEqual(
      exact.lines.map((line) => line.kind),
      ['group', 'option', 'blank', 'option'],
    );
  });

  it('counts the read limit in bytes of the file encoding', () => {
    const value = 'é'.repeat(2100);
    assert.equal(parseMyCnf(`[mysqld]\nx=${value}\n`, { encoding: 'utf8' }).lines.length, 3);
    assert.equal(parseMyCnf(`[mysqld]\nx=${value}\n`, { encoding: 'latin1' }).lines.length, 2);
  });

  it('ends a line at a NUL byte, like the C string the reader works on', () => {
    const line = option('a=1\0junk\n');
    assert.equal(line.value, '1');
    assert.equal(line.nulAt, '[mysqld]\na=1'.length);
    assert.equal(only('\0 text after a NUL\n', 'other')[0]?.reason, 'after-nul');
  });

  it('sees a byte order mark as part of line 1 and treats 0xA0 as a blank', () => {
    const document = parseMyCnf('\uFEFF[mysqld]\nx=1\n');
    assert.equal(document.bom, true);
    assert.equal(document.lines[0]?.kind, 'option');
    const latin1 = parseMyCnf('[mysqld]\n\xA0key=v\xA0\n', { encoding: 'latin1' }).lines[1] as MycnfOptionLine;
    assert.deepEqual([latin1.rawName, latin1.value], ['key', 'v']);
    const utf8 = parseMyCnf('[mysqld]\ndatadir = /srv/voilà\n').lines[1] as MycnfOptionLine;
    assert.equal(utf8.splitsCharacter, true);
    assert.deepEqual([...Buffer.from(utf8.argument.slice(-2), 'latin1')], [0x6c, 0xc3]);
    assert.equal((parseMyCnf('[mysqld]\ndatadir = "/srv/voilà"\n').lines[1] as MycnfOptionLine).splitsCharacter, false);
  });

  it('copies the rest of the line as the name when an indented line starts with =, as strnmov does', () => {
    const line = option('   =x\n');
    assert.equal(line.argument, '--=x\n=x');
    assert.equal(Buffer.from(option('=x\n').argument).toString('latin1'), '--=x');
  });

  it('records line endings per line', () => {
    const document = parseMyCnf('[mysqld]\r\na=1\nb=2');
    assert.deepEqual(
      document.lines.map((line) => line.eol),
      ['\r\n', '\n', ''],
    );
    const crOnly = option('a=1\rb=2\r');
    assert.equal(crOnly.value, '1\rb=2');
  });

  it('parses the fixtures of odd syntax into the lines their names promise', () => {
    const read = (name: string): MycnfDocument => {
      const { text, encoding } = decodeBytes(fs.readFileSync(path.join(FIXTURES, 'parser', name)));
      return parseMyCnf(text, { encoding });
    };
    assert.equal(
      read('crlf.cnf').lines.every((line) => line.eol === '\r\n'),
      true,
    );
    assert.equal(read('no-final-newline.cnf').lines.at(-1)?.eol, '');
    assert.equal(read('empty.cnf').lines.length, 0);
    assert.equal(read('latin1.cnf').encoding, 'latin1');
    assert.equal(
      read('long-line.cnf').lines.some((line) => line.cutAtReadLimit),
      true,
    );
  });
});
