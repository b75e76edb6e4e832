import * as fs from 'node:fs';
import * as path from 'node:path';
import { EMPTY_CONFIG, findConfig, loadConfig } from '../config/load.js';
import { hostGroupOf } from '../config/resolve.js';
import type { ResolvedConfig } from '../config/types.js';
import { languageOfFile } from '../core/language-of-file.js';
import { builtinRules } from '../../rules/index.js';
import { configEnvironment, groupByHost, selectionOf, targetsOf, type HostUnit } from '../commands/lint.js';
import { systemConfigs } from '../commands/paths.js';
import type { HostFacts } from '../host/facts.js';
import { ProbeCache, resolveHostFacts } from '../host/resolve.js';
import { lint, type LintResult } from '../lint.js';
import type { FixType } from '../fix/apply.js';
import { builtinLanguages } from '../languages/index.js';

/** What the editor may set in `initializationOptions` (docs/editors.md). */
export interface EditorSettings {
  /**
   * Read this machine's RAM and CPUs for the sizing rules. Off unless set:
   * the workspace is most often a repository of another host's files, whose
   * facts `.tune-lint.yaml`'s `host:` or a profile gives.
   */
  readonly probe: boolean;
  /** A host profile (`tune-lint probe --yaml`), relative to the workspace. */
  readonly profile?: string;
  /** `mysql=8.0`, `httpd=2.4`: as --target. */
  readonly target?: string;
  /** How long after the last keystroke a file is linted again. */
  readonly debounceMs: number;
}

export const DEFAULT_EDITOR_SETTINGS: EditorSettings = { probe: false, debounceMs: 100 };

/** One lint unit of the workspace: a host's main configs, what they read when last linted, and the result. */
export interface EditorUnit {
  readonly unit: HostUnit;
  /** The server's `/` the unit is read in: the workspace, or none for a file opened from outside it (read where it is). */
  readonly sysroot: string | undefined;
  /** Real paths of every file the unit read, main files first. */
  files: ReadonlySet<string>;
  result: LintResult | undefined;
}

/**
 * The workspace as the CLI would lint it with `--sysroot <workspace>`: the
 * usual main configs under it (`etc/apache2/apache2.conf`, `etc/mysql/my.cnf`,
 * the php-fpm ones), grouped by host as `.tune-lint.yaml` says, with its rules,
 * targets and host facts. A file none of them reads is linted as a main
 * config of its own when its language is known. Nothing runs but the linter:
 * no server is asked and nothing is executed.
 */
export class EditorWorkspace {
  private config: ResolvedConfig = EMPTY_CONFIG;
  private readonly units: EditorUnit[] = [];
  private readonly hosts = new Map<EditorUnit, Promise<HostFacts>>();
  private readonly probeCache = new ProbeCache();

  constructor(
    /** The sysroot, or undefined without a workspace folder: files are then read where they are. */
    readonly root: string | undefined,
    readonly settings: EditorSettings,
  ) {}

  /**
   * Reads `.tune-lint.yaml` and finds the main configs. A wrong
   * `.tune-lint.yaml` is thrown (a UserError the server shows) once the
   * configs are found, which are then linted as without one.
   */
  async open(): Promise<void> {
    if (this.root === undefined) return;
    const file = findConfig(this.root);
    let wrong: Error | undefined;
    try {
      this.config = file === undefined ? EMPTY_CONFIG : await loadConfig(file, builtinRules, this.root);
    } catch (error) {
      wrong = error instanceof Error ? error : new Error(String(error));
    }
    for (const unit of groupByHost(systemConfigs(this.root, undefined), this.config))
      this.units.push({ unit, sysroot: this.root, files: new Set(), result: undefined });
    if (wrong !== undefined) throw wrong;
  }

  /** The unit that reads a file: the first whose last lint read it, else a new one with the file as its main config, else none. */
  unitOf(file: string, text: string): EditorUnit | undefined {
    const real = realPath(file);
    const reading = this.units.find((entry) => entry.files.has(real) || entry.unit.paths.includes(file));
    if (reading !== undefined) return reading;
    if (!isConfig(file, text)) return undefined;
    const inside = this.root !== undefined && !path.relative(this.root, file).startsWith('..');
    const own: EditorUnit = {
      unit: { group: hostGroupOf(this.config, file), paths: [file] },
      sysroot: inside ? this.root : undefined,
      files: new Set([real]),
      result: undefined,
    };
    this.units.push(own);
    return own;
  }

  /** Every unit known so far. */
  all(): readonly EditorUnit[] {
    return this.units;
  }

  /** Lints a unit with the editor's buffers in place of the files on disk, and remembers what it read. */
  async lint(entry: EditorUnit, buffers: ReadonlyMap<string, string>, fixType: FixType | 'none'): Promise<LintResult> {
    const { unit } = entry;
    const host = await this.hostOf(entry);
    const overlay = new Map([...buffers].map(([file, text]) => [realPath(file), text]));
    const env = configEnvironment(this.config);
    const result = await lint({
      paths: unit.paths,
      cwd: this.root ?? process.cwd(),
      ...(entry.sysroot === undefined ? {} : { sysroot: entry.sysroot }),
      ...(env.length === 0 ? {} : { readers: { apache: { env } } }),
      targets: targetsOf(unit.group, this.settings.target, host),
      host,
      budget: unit.group.budget,
      rules: selectionOf(this.config),
      fixType,
      overlay,
    });
    if (fixType === 'none') {
      entry.files = new Set(result.files.map((file) => file.realPath));
      entry.result = result;
    }
    return result;
  }

  /**
   * A unit's host facts, resolved once: a profile read or this machine probed
   * at every keystroke would cost more than the lint. A change on disk reads
   * the workspace again (the server's reopen), facts with it.
   */
  private hostOf(entry: EditorUnit): Promise<HostFacts> {
    let facts = this.hosts.get(entry);
    if (facts === undefined) {
      const { group } = entry.unit;
      facts = resolveHostFacts({
        ...(this.settings.profile === undefined ? {} : { profilePath: path.resolve(this.root ?? process.cwd(), this.settings.profile) }),
        ...(group.host === undefined ? {} : { config: group.host }),
        probe: this.settings.probe,
        probeCache: this.probeCache,
        linted: entry.unit.paths,
      });
      this.hosts.set(entry, facts);
    }
    return facts;
  }
}

/** A file whose name says it is a config of one of the languages (`.conf`, `.cnf`, a pool) and that none refuses (php.ini): not any file the editor opens. */
function isConfig(file: string, text: string): boolean {
  const choice = languageOfFile(builtinLanguages, file, text.slice(0, 64 * 1024));
  return 'language' in choice && choice.byName !== undefined;
}

/** The file behind any symlinks, what the linter's overlay and its files are keyed by; the path itself when it does not exist. */
export function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
