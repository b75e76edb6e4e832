import { apacheVerifyHazards, mycnfVerifyHazards } from './verify-guard.js';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApacheConfig } from '../languages/apache/model.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import type { FileFix, LintResult } from '../lint.js';
import { withoutFix } from './fix.js';
import { compareDiagnostics } from './linter.js';
import { apacheEnvironment, findServerTool, mapApacheServerPaths, mapMycnfServerPaths, parseApacheStderr, runTool, SERVER_TOOL_PATH, type ToolRun } from './server-tools.js';
import { ConfigFileSystem } from './files.js';
import type { SourceFile } from './source-file.js';
import type { Diagnostic } from './types.js';

/**
 * `--verify`: before a patch is printed or written, the real servers read the
 * patched configuration: `apache2 -t` for Apache, `my_print_defaults` (the
 * option-file reader) and, for MariaDB targets, `mariadbd --help --verbose`
 * (every option name and value, without starting a server) for option files.
 * Each tool runs twice, on the configuration as it is and as patched; what
 * matters is a problem the patch adds, so a configuration that already fails
 * does not count against the patch.
 *
 * Where the patched files are:
 * - without --sysroot, in a private mount namespace (`unshare --mount`) in
 *   which each patched file is bind-mounted over the original, so the server
 *   reads the real tree, by its real paths, with only the patched files
 *   replaced; nothing is visible outside the namespace;
 * - with --sysroot, or where no namespace can be made, in a temporary copy of
 *   the files the server reads, at their server paths under the copy, with
 *   the paths that decide what is read (ServerRoot/Include/IncludeOptional,
 *   !include/!includedir) pointed into the copy.
 *
 * A patch that adds a problem is dropped file by file (each file's fix is
 * tried alone, then the files that pass are tried together) and reported as
 * {@link VERIFY_RULE}; it is never printed or written. A missing tool is said
 * once and its check skipped.
 */

export const VERIFY_RULE = { id: 'TL0008', name: 'fix-rejected-by-server' } as const;

export interface VerifyOptions {
  /** The sysroot of the run, when there is one. */
  readonly sysroot?: string | undefined;
  /** The server path the sysroot holds (--sysroot-at); `/` when not given. */
  readonly sysrootAt?: string | undefined;
  /** The working directory of the run: where relative `!include` paths resolve unless `includeBase` says otherwise. */
  readonly cwd: string;
  readonly includeBase?: string | undefined;
  /** Names passed to apache2 with `-D`, as given to tune-lint with --define. */
  readonly defines?: readonly string[];
  /** The only directories the binaries are looked for in (default: PATH, then the system directories). */
  readonly searchPath?: readonly string[];
  /** `copy` never tries a mount namespace. */
  readonly isolation?: 'auto' | 'copy';
  readonly timeoutMs?: number;
  /** Called once per distinct note: a tool that is missing, a check that could not judge. */
  readonly onNote?: (note: string) => void;
}

/** What a check found on one tree: one line per problem, with server paths. */
type Problems = readonly string[];

interface Subject {
  /** `apache2 -t` on etc/apache2/apache2.conf */
  readonly label: string;
  readonly language: 'apache' | 'mycnf';
  /** Every file the server reads for this config. */
  readonly files: readonly SourceFile[];
  check(tree: Tree): Promise<Problems | undefined>;
}

export class FixVerifier {
  private readonly notes = new Set<string>();
  private namespace: boolean | undefined;
  private readonly sysroot: string | undefined;
  /** Server paths of the run's files, as the lint's reader mapped them. */
  private readonly paths: ConfigFileSystem;

  constructor(private readonly options: VerifyOptions) {
    this.paths = new ConfigFileSystem({ sysroot: options.sysroot, sysrootAt: options.sysrootAt, cwd: options.cwd });
    this.sysroot = this.paths.sysroot;
  }

  /** The result with the fixes the servers accept; rejected ones are gone from `fixes` and reported as TL0008. */
  async verify(result: LintResult): Promise<LintResult> {
    if (result.fixes.length === 0) return result;
    const rejected = new Map<string, { fix: FileFix; reason: string }>();
    const verifiedBy: string[] = [];
    for (const subject of this.subjects(result)) {
      const reals = new Set(subject.files.map((file) => file.realPath));
      const fixes = result.fixes.filter((fix) => reals.has(fix.file.realPath) && !rejected.has(fix.file.realPath));
      if (fixes.length === 0) continue;
      const judged = await this.judge(subject, fixes);
      if (judged === undefined) continue;
      if (judged.size === 0) verifiedBy.push(subject.label);
      for (const [real, reason] of judged) {
        rejected.set(real, { fix: fixes.find((fix) => fix.file.realPath === real) as FileFix, reason });
      }
    }
    if (rejected.size === 0) return verifiedBy.length === 0 ? result : { ...result, verifiedBy };
    const diagnostics = result.diagnostics.map((diagnostic) =>
      diagnostic.fix !== undefined && diagnostic.fix.edits.some((edit) => rejected.has(edit.file.realPath)) ? withoutFix(diagnostic) : diagnostic,
    );
    for (const { fix, reason } of rejected.values()) diagnostics.push(rejection(fix, reason));
    diagnostics.sort(compareDiagnostics);
    return { ...result, diagnostics, fixes: result.fixes.filter((fix) => !rejected.has(fix.file.realPath)), sizingAfter: undefined, verifiedBy };
  }

  /** Real paths of the fixes to drop, with the problem each adds; undefined when the check could not run. */
  private async judge(subject: Subject, fixes: readonly FileFix[]): Promise<Map<string, string> | undefined> {
    const baseline = await this.run(subject, []);
    if (baseline === undefined) return undefined;
    if (baseline.length > 0) this.note(`${subject.label} already reports a problem without the patch (${baseline[0]}); only problems the patch adds are held against it`);
    const added = async (subset: readonly FileFix[]): Promise<string | undefined> => {
      const problems = await this.run(subject, subset);
      return problems?.find((problem) => !baseline.includes(problem));
    };
    const whole = await added(fixes);
    if (whole === undefined) return new Map();
    const drop = new Map<string, string>();
    if (fixes.length > 1) {
      const alone = new Map<FileFix, string | undefined>();
      for (const fix of fixes) alone.set(fix, await added([fix]));
      const passing = fixes.filter((fix) => alone.get(fix) === undefined);
      if (passing.length > 0 && passing.length < fixes.length && (await added(passing)) === undefined) {
        for (const fix of fixes) if (alone.get(fix) !== undefined) drop.set(fix.file.realPath, `${subject.label}: ${alone.get(fix)}`);
        return drop;
      }
    }
    for (const fix of fixes) drop.set(fix.file.realPath, `${subject.label}: ${whole}`);
    return drop;
  }

  private async run(subject: Subject, fixes: readonly FileFix[]): Promise<Problems | undefined> {
    const patched = new Map(fixes.map((fix) => [fix.file.realPath, fix]));
    if (this.sysroot === undefined && this.options.isolation !== 'copy' && this.namespaceWorks()) {
      const tree = new NamespaceTree(patched, this.timeout);
      try {
        return await subject.check(tree);
      } catch (error) {
        if (!(error instanceof NamespaceUnavailable)) throw error;
        this.namespace = false;
        this.note(`no private mount namespace (${error.message}); checking a temporary copy of the configuration instead`);
      } finally {
        tree.dispose();
      }
    }
    const tree = new CopyTree((hostPath) => this.serverPath(hostPath), subject.files, patched, subject.language, this.timeout);
    try {
      return await subject.check(tree);
    } finally {
      tree.dispose();
    }
  }

  private get timeout(): number {
    return this.options.timeoutMs ?? 60_000;
  }

  private namespaceWorks(): boolean {
    if (this.namespace === undefined) {
      const unshare = findServerTool('unshare', this.options.searchPath);
      const probe = unshare === undefined ? undefined : spawnSync(unshare, ['--mount', '--propagation', 'private', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
      this.namespace = probe !== undefined && probe.status === 0;
    }
    return this.namespace;
  }

  private subjects(result: LintResult): Subject[] {
    const subjects: Subject[] = result.configs.apache.map((config) => this.apacheSubject(config));
    if (result.configs.mycnf !== undefined) subjects.push(this.mycnfSubject(result.configs.mycnf));
    return subjects;
  }

  private apacheSubject(config: ApacheConfig): Subject {
    const serverRoot = config.serverRoot;
    const main = this.serverPath(config.root.path);
    const label = `apache2 -t on ${config.root.displayPath}`;
    const envvarsFile = config.fs.locate('envvars', serverRoot);
    const envvars = fs.existsSync(envvarsFile) ? fs.readFileSync(envvarsFile, 'latin1') : undefined;
    return {
      label,
      language: 'apache',
      files: config.files.map((entry) => entry.source),
      check: async (tree) => {
        const hazards = apacheVerifyHazards(config);
        if (hazards.length > 0) {
          this.note(`${label} is not run: it would run code or write files the configuration names (${hazards[0]}); the Apache patch is not verified`);
          return undefined;
        }
        const binary = this.tool(['apache2', 'httpd'], 'the Apache patch is not verified');
        if (binary === undefined) return undefined;
        const defines = (this.options.defines ?? []).flatMap((name) => ['-D', name]);
        const run = await tree.run(binary, ['-d', tree.at(serverRoot), '-f', tree.at(main), ...defines, '-t'], apacheEnvironment(envvars), '/');
        const stderr = parseApacheStderr(run.stderr);
        if (run.exitCode === 0 && stderr.syntaxOk) return [];
        const error = stderr.error === undefined ? lastLine(run.stderr) : `${stderr.error.message} (${stderr.error.file}:${stderr.error.line})`;
        return [oneLine(error ?? describeExit(run))];
      },
    };
  }

  private mycnfSubject(config: MycnfConfig): Subject {
    const main = this.serverPath(config.root.path);
    const base = this.options.includeBase === undefined ? (this.sysroot === undefined ? this.options.cwd : '/') : this.serverPath(this.options.includeBase);
    return {
      label: `the option files of ${config.root.displayPath}`,
      language: 'mycnf',
      files: config.files.map((entry) => entry.source),
      check: async (tree) => {
        const reader = this.tool(['my_print_defaults'], 'the option-file patch is not verified');
        if (reader === undefined) return undefined;
        const env = { PATH: SERVER_TOOL_PATH, LANG: 'C' };
        const read = await tree.run(reader, [`--defaults-file=${tree.at(main)}`, '--mysqld'], env, tree.at(base));
        if (read.exitCode !== 0) return [oneLine(`my_print_defaults: ${read.stderr.trim() || describeExit(read)}`)];
        if (config.target.product !== 'mariadb') {
          this.note(`the option names and values are checked with mariadbd only for MariaDB targets; for ${config.target.product} ${config.target.version} only the reader (my_print_defaults) checked the patch`);
          return [];
        }
        const hazards = mycnfVerifyHazards(config);
        if (hazards.length > 0) {
          this.note(`mariadbd is not run on ${config.root.displayPath}: it would load libraries the options name (${hazards[0]}); only the reader (my_print_defaults) checked the option-file patch`);
          return [];
        }
        const server = this.tool(['mariadbd', 'mysqld'], 'only the reader (my_print_defaults) checked the option-file patch');
        if (server === undefined) return [];
        const help = await tree.run(server, [`--defaults-file=${tree.at(main)}`, '--help', '--verbose'], env, tree.at(base));
        const errors = help.stderr
          .split('\n')
          .filter((line) => /\[ERROR\]/.test(line))
          .map((line) => oneLine(`${path.basename(server)}: ${line.replace(/^\d{4}-\d\d-\d\d\s+\d\d?:\d\d:\d\d\s+\d+\s+/, '')}`));
        if (help.exitCode !== 0 && errors.length === 0) errors.push(`${path.basename(server)}: ${describeExit(help)}`);
        return errors;
      },
    };
  }

  private serverPath(hostPath: string): string {
    return this.paths.serverPath(hostPath);
  }

  /** The first of these binaries that is installed; when none is, says once what that means. */
  private tool(names: readonly string[], consequence: string): string | undefined {
    for (const name of names) {
      const found = findServerTool(name, this.options.searchPath);
      if (found !== undefined) return found;
    }
    this.note(`${names.join(' or ')} not installed: ${consequence}`);
    return undefined;
  }

  private note(text: string): void {
    if (this.notes.has(text)) return;
    this.notes.add(text);
    this.options.onNote?.(`--verify: ${text}`);
  }
}

/** Runs the servers' tools on a tree in which some files are patched; server paths go through `at`. */
interface Tree {
  at(serverPath: string): string;
  run(binary: string, args: readonly string[], env: Record<string, string>, cwd: string): Promise<ToolRun>;
  dispose(): void;
}

class NamespaceUnavailable extends Error {}

/** `unshare` runs this with pairs `patched original` up to `--`, then the command. */
const BIND_AND_EXEC = 'while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"';
const BIND_FAILED = 125;

class NamespaceTree implements Tree {
  private readonly dir: string | undefined;
  private readonly mounts: string[] = [];

  constructor(
    patched: ReadonlyMap<string, FileFix>,
    private readonly timeoutMs: number,
  ) {
    if (patched.size === 0) return;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-verify-'));
    let index = 0;
    for (const [real, fix] of patched) {
      const file = path.join(this.dir, `${index++}${path.extname(real)}`);
      fs.writeFileSync(file, fix.file.encode(fix.after), { mode: fs.statSync(real).mode & 0o777 });
      this.mounts.push(file, real);
    }
  }

  at(serverPath: string): string {
    return serverPath;
  }

  async run(binary: string, args: readonly string[], env: Record<string, string>, cwd: string): Promise<ToolRun> {
    if (this.mounts.length === 0) return runTool(binary, args, env, this.timeoutMs, cwd);
    const unshare = findServerTool('unshare') as string;
    const run = await runTool(unshare, ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', BIND_AND_EXEC, 'sh', ...this.mounts, '--', binary, ...args], env, this.timeoutMs, cwd);
    if (run.exitCode === BIND_FAILED) throw new NamespaceUnavailable(lastLine(run.stderr) ?? 'mount --bind failed');
    return run;
  }

  dispose(): void {
    if (this.dir !== undefined) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The files the server reads, each written as a regular file at its server
 * path under a temporary root (symlinks are never followed or created, so
 * nothing outside the copy is written); the patched ones with their new text.
 */
class CopyTree implements Tree {
  private readonly root: string;
  private readonly dir: string;

  constructor(
    serverPathOf: (hostPath: string) => string,
    files: readonly SourceFile[],
    patched: ReadonlyMap<string, FileFix>,
    language: 'apache' | 'mycnf',
    private readonly timeoutMs: number,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-verify-'));
    this.root = path.join(this.dir, 'root');
    const map = language === 'apache' ? mapApacheServerPaths : mapMycnfServerPaths;
    const written = new Set<string>();
    for (const file of files) {
      if (!path.isAbsolute(file.path)) continue;
      const target = this.at(serverPathOf(file.path));
      if (written.has(target)) continue;
      written.add(target);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const fix = patched.get(file.realPath);
      const bytes = fix === undefined ? file.encode() : fix.file.encode(fix.after);
      // latin1 maps every byte to one char and back, so only the mapped paths change.
      const mapped = Buffer.from(map(bytes.toString('latin1'), this.root), 'latin1');
      fs.writeFileSync(target, mapped, { flag: 'wx', mode: modeOf(file.realPath) });
    }
  }

  at(serverPath: string): string {
    return path.join(this.root, path.posix.resolve('/', serverPath));
  }

  async run(binary: string, args: readonly string[], env: Record<string, string>, cwd: string): Promise<ToolRun> {
    fs.mkdirSync(cwd, { recursive: true });
    const run = await runTool(binary, args, env, this.timeoutMs, cwd);
    const unmap = (text: string): string => text.split(`${this.root}/`).join('/').split(this.root).join('/');
    return { ...run, stdout: unmap(run.stdout), stderr: unmap(run.stderr) };
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The original's permission bits (the MySQL reader ignores world-writable files, so they must stay so). */
function modeOf(realPath: string): number {
  try {
    return fs.statSync(realPath).mode & 0o777;
  } catch {
    return 0o644;
  }
}

function rejection(fix: FileFix, reason: string): Diagnostic {
  let at = 0;
  while (at < fix.before.length && fix.before[at] === fix.after[at]) at++;
  const start = fix.file.lines.lineStart(fix.file.position(at).line);
  return {
    ruleId: VERIFY_RULE.id,
    ruleName: VERIFY_RULE.name,
    severity: 'error',
    message: `the fix for this file is left out of the patch and not written: ${reason}`,
    file: fix.file,
    range: [start, start],
    start: fix.file.position(start),
    end: fix.file.position(start),
    context: [],
  };
}

function lastLine(text: string): string | undefined {
  return text.trim().split('\n').pop();
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function describeExit(run: ToolRun): string {
  if (run.timedOut) return 'timed out';
  return run.signal === null ? `exited with ${run.exitCode}` : `killed by ${run.signal}`;
}
