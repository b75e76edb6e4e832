/*
 * Environment files: `KEY=VALUE` lines, as `--env-file`, Docker's
 * `--env-file` and systemd's `EnvironmentFile=` (the one httpd's unit reads)
 * take them.
 */

/** A variable name as sh, Docker and systemd take it. */
export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `KEY=VALUE` lines as Docker's `--env-file` and systemd's `EnvironmentFile=`
 * read them: `#` and `;` comment lines, blank lines, an optional `export `, a
 * value in matching quotes unquoted. `badLine` is the first line (1-based)
 * that is none of these; the lines after it are read all the same, as
 * systemd does ("Ignoring invalid environment assignment"), so a caller that
 * takes the file as systemd does keeps them, and one that refuses it says where.
 */
export function parseEnvironmentFile(text: string): { values: Record<string, string>; badLine?: number } {
  const values: Record<string, string> = {};
  let badLine: number | undefined;
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const assignment = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (assignment === null || !ENVIRONMENT_NAME.test(assignment[1] as string)) {
      badLine ??= index + 1;
      continue;
    }
    const value = assignment[2] as string;
    const quoted = /^(["'])(.*)\1$/s.exec(value);
    values[assignment[1] as string] = quoted === null ? value : (quoted[2] as string);
  }
  return badLine === undefined ? { values } : { values, badLine };
}
