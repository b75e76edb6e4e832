// Writes a generated file, or with --check on the command line exits 1 when
// the file on disk differs from what would be written (CI and the conventions
// test run the checks).
import { readFileSync, writeFileSync } from 'node:fs';

export function writeOrCheck(target, text, command) {
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = '';
  }
  if (current !== text) {
    console.error(`${target} is stale: run \`${command}\``);
    process.exit(1);
  }
}

/** Words joined by spaces into lines of at most `width` characters, for long name lists in generated tables. */
export function wrapWords(words, width = 110) {
  const lines = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}
