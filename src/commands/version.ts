import * as fs from 'node:fs';

/** The package version, read once from package.json beside dist/. */
export function readVersion(): string {
  const manifest = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
}
