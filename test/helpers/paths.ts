import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

/** The repository root, from the compiled test under dist/test/. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export function repoPath(...parts: string[]): string {
  return path.join(REPO_ROOT, ...parts);
}
