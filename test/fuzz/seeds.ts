import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoPath, REPO_ROOT } from '../helpers/paths.js';

/**
 * Real configs to mutate: every Apache and option file under fixtures/, and
 * the shared corpus when it is present (it lives outside the repository;
 * TUNE_LINT_CORPUS points elsewhere). Texts are byte strings: one char per
 * byte (latin1), so mutations can split UTF-8 sequences as a real file can.
 */
export interface Seeds {
  readonly apache: readonly string[];
  readonly mycnf: readonly string[];
  /** Where the seeds came from, for the test's report. */
  readonly sources: readonly string[];
}

const CORPUS_DIR = process.env.TUNE_LINT_CORPUS ?? path.resolve(REPO_ROOT, '..', 'shared', 'corpus');

/** Seeds larger than this are skipped: the fuzzer wants many short runs, the hostile tests cover size. */
const MAX_SEED_BYTES = 64 * 1024;

export function loadSeeds(): Seeds {
  const apache: string[] = [];
  const mycnf: string[] = [];
  const sources: string[] = [];
  for (const root of [repoPath('fixtures'), CORPUS_DIR]) {
    let count = 0;
    for (const file of regularFilesUnder(root)) {
      const kind = seedKind(file);
      if (kind === undefined) continue;
      const bytes = fs.readFileSync(file);
      if (bytes.length === 0 || bytes.length > MAX_SEED_BYTES) continue;
      (kind === 'apache' ? apache : mycnf).push(bytes.toString('latin1'));
      count++;
    }
    if (count > 0) sources.push(`${count} files from ${root}`);
  }
  return { apache, mycnf, sources };
}

function seedKind(file: string): 'apache' | 'mycnf' | undefined {
  const base = path.basename(file);
  if (/\.(cnf|cnf\.sh|cnf\.in|ini)$/.test(base) || (/(^|\/)(mysql|mycnf)\//.test(file) && !/\.(json|md|tsv)$/.test(base))) return 'mycnf';
  if (/\.(conf|load)$/.test(base) || base === '.htaccess' || base === 'envvars') return 'apache';
  return undefined;
}

function regularFilesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  walk(root);
  return out;
}
