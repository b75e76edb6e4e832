/**
 * Reads the `export NAME=value` lines of Debian's `/etc/apache2/envvars`,
 * which apache2ctl sources before starting httpd, so `${APACHE_LOG_DIR}` and
 * friends resolve as they do on a real start. Only that subset of sh is
 * understood: top-level assignments, `$NAME`/`${NAME}` references to earlier
 * assignments (unknown ones are empty, as in sh) and simple quotes; anything
 * conditional or computed is ignored, so multi-instance suffixes read as empty.
 */
export function parseEnvvars(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    const name = match[1] as string;
    values.set(name, shellValue((match[2] as string).trim(), values));
  }
  return values;
}

function shellValue(raw: string, known: ReadonlyMap<string, string>): string {
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1);
  const unquoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw.split(/\s/)[0] ?? '';
  return unquoted.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced: string | undefined, bare: string | undefined) =>
    known.get((braced ?? bare) as string) ?? '',
  );
}
