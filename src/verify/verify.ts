import { apacheVerifyHazards, mycnfVerifyHazards, phpFpmVerifyHazards, type GuardedFile, type TrustedLibrary } from './guard.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApacheConfig } from '../languages/apache/model.js';
import type { StartLayout } from '../languages/apache/start-layout.js';
import type { GivenEnvironment } from '../core/types.js';
import { visitApacheNodes } from '../languages/apache/cst.js';
import { parseApache } from '../languages/apache/parser.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import { parseMyCnf } from '../languages/mycnf/parser.js';
import type { PhpFpmConfig } from '../languages/phpfpm/model.js';
import type { FileFix, LintResult } from '../engine/result.js';
import { withoutFix } from '../fix/apply.js';
import { compareDiagnostics } from '../engine/linter.js';
import { handOver, prepareRoot, Sandbox, underSystemDirs } from './sandbox.js';
import { findServerTool, SERVER_TOOL_PATH } from '../util/system-tools.js';
import { apacheEnvironment, parseApacheStderr, type ToolRun } from './server-tools.js';
import { ConfigFileSystem } from '../core/file-system.js';
import { isSystemFile } from '../host/trust.js';
import type { SourceFile } from '../core/source-file.js';
import type { Diagnostic } from '../engine/types.js';

/**
 * `--verify`: before a patch is printed or written, the real servers read the
 * patched configuration: `apache2 -t` for Apache, `my_print_defaults` (the
 * option-file reader) and, for MariaDB targets, `mariadbd --help --verbose`
 * (every option name and value, without starting a server) for option files.
 * Each tool runs twice, on the configuration as it is and as patched; what
 * matters is a problem the patch adds, so a configuration that already fails
 * does not count against the patch. A check that does not finish in time
 * fails.
 *
 * The configuration may be someone else's, and tune-lint often runs as root,
 * so the servers run in a sandbox ({@link Sandbox}): a root of their own
 * that holds a copy of the files the lint read, at their server paths, with
 * the patched ones in their new text, and the system's program directories;
 * no network, no host files, an environment tune-lint builds, an unprivileged
 * user. Paths the configuration names that the server only checks for
 * (certificates, runtime directories) are stood in for by empty placeholders,
 * so no file's content but the configuration's enters the sandbox. The guard
 * ({@link apacheVerifyHazards}) is the second line: on what the patched files
 * would make the server load or run, the server is not run at all. No server
 * message that quotes a file outside the configuration is shown.
 *
 * A patch that adds a problem is dropped file by file (each file's fix is
 * tried alone, then the files that pass are tried together) and reported as
 * {@link VERIFY_RULE}; it is never printed or written. A missing tool, or no
 * sandbox on this host, is said once and the check skipped.
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
  /** Variables given with --env and --env-file, which apache2 gets too, less those that steer the loader or the C library. */
  readonly env?: readonly GivenEnvironment[];
  /** The only directories the binaries are looked for in (default: PATH, then the system directories). */
  readonly searchPath?: readonly string[];
  readonly timeoutMs?: number;
  /** Called once per distinct note: a tool that is missing, a check that could not judge. */
  readonly onNote?: (note: string) => void;
}

/** What a check found on one tree: one line per problem, with server paths. */
type Problems = readonly string[];

/** What the sandbox's root holds besides the configuration's files. */
interface Extras {
  /** Trusted libraries the configuration reaches through its own symlinks, linked to the system file. */
  readonly links: readonly TrustedLibrary[];
  /** Server paths of files and directories the server checks for, stood in for by empty ones. */
  readonly files: readonly string[];
  readonly directories: readonly string[];
  /** Server paths of logs the server opens for writing while it checks (php-fpm's error_log and access.log): empty files it may write. */
  readonly writable?: readonly string[];
}

interface Subject {
  /** `apache2 -t` on etc/apache2/apache2.conf */
  readonly label: string;
  /** Every file the server reads for this config. */
  readonly files: readonly SourceFile[];
  /** Why the servers must not read these files (the configuration as it is, or as patched), if anything. */
  hazards(files: readonly GuardedFile[]): string[];
  extras(files: readonly GuardedFile[]): Extras;
  check(tree: SandboxTree): Promise<Problems | undefined>;
}

export class FixVerifier {
  private readonly notes = new Set<string>();
  private sandbox: Sandbox | string | undefined = undefined;
  /** Server paths of the run's files, as the lint's reader mapped them. */
  private readonly paths: ConfigFileSystem;

  constructor(private readonly options: VerifyOptions) {
    this.paths = new ConfigFileSystem({ sysroot: options.sysroot, sysrootAt: options.sysrootAt, cwd: options.cwd });
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
      diagnostic.fix?.edits.some((edit) => rejected.has(edit.file.realPath)) === true ? withoutFix(diagnostic) : diagnostic,
    );
    for (const { fix, reason } of rejected.values()) diagnostics.push(rejection(fix, reason));
    diagnostics.sort(compareDiagnostics);
    return {
      ...result,
      diagnostics,
      fixes: result.fixes.filter((fix) => !rejected.has(fix.file.realPath)),
      sizingAfter: undefined,
      verifiedBy,
    };
  }

  /** Real paths of the fixes to drop, with the problem each adds; undefined when the check could not run. */
  private async judge(subject: Subject, fixes: readonly FileFix[]): Promise<Map<string, string> | undefined> {
    const sandbox = this.openSandbox();
    if (sandbox === undefined) return undefined;
    const before = this.guarded(subject, new Map());
    const after = this.guarded(subject, new Map(fixes.map((fix) => [fix.file.realPath, fix])));
    const hazards = [...new Set([...subject.hazards(before), ...subject.hazards(after)])];
    if (hazards.length > 0) {
      this.note(
        `${subject.label} is not run: the configuration or the patch would make the server run code or open files it names (${hazards[0]}); not verified`,
      );
      return undefined;
    }
    const extras = subject.extras([...before, ...after]);
    const run = (subset: readonly FileFix[]): Promise<Problems | undefined> => this.run(sandbox, subject, subset, extras);
    const drop = new Map<string, string>();
    const baseline = await run([]);
    if (baseline === undefined) return undefined;
    if (baseline.includes(this.timedOut)) {
      for (const fix of fixes) drop.set(fix.file.realPath, `${subject.label}: ${this.timedOut} on the configuration as it is`);
      return drop;
    }
    if (baseline.length > 0)
      this.note(
        `${subject.label} already reports a problem without the patch (${baseline[0]}); only problems the patch adds are held against it`,
      );
    const added = async (subset: readonly FileFix[]): Promise<string | undefined> => {
      const problems = await run(subset);
      return problems?.find((problem) => problem === this.timedOut || !baseline.includes(problem));
    };
    const whole = await added(fixes);
    if (whole === undefined) return drop;
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

  /** The subject's files as a check with these fixes reads them. */
  private guarded(subject: Subject, patched: ReadonlyMap<string, FileFix>): GuardedFile[] {
    return subject.files.map((file) => ({ displayPath: file.displayPath, text: patched.get(file.realPath)?.after ?? file.text }));
  }

  private async run(sandbox: Sandbox, subject: Subject, fixes: readonly FileFix[], extras: Extras): Promise<Problems | undefined> {
    const patched = new Map(fixes.map((fix) => [fix.file.realPath, fix]));
    const tree = new SandboxTree(sandbox, (hostPath) => this.serverPath(hostPath), subject.files, patched, extras, this.timeout);
    try {
      return await subject.check(tree);
    } finally {
      tree.dispose();
    }
  }

  private openSandbox(): Sandbox | undefined {
    this.sandbox ??= Sandbox.open();
    if (typeof this.sandbox !== 'string') return this.sandbox;
    this.note(`the servers are run only in a sandbox, and there is none here: ${this.sandbox}; the patch is not verified`);
    return undefined;
  }

  private get timeout(): number {
    return this.options.timeoutMs ?? 60_000;
  }

  /** The problem a check that does not finish in time reports: never one the configuration "already has". */
  private get timedOut(): string {
    return `did not finish in ${this.timeout / 1000} s`;
  }

  private subjects(result: LintResult): Subject[] {
    const { configs } = result;
    const subjects: Subject[] = configs.of('apache').map((config) => this.apacheSubject(config));
    for (const config of configs.of('mycnf')) subjects.push(this.mycnfSubject(config));
    for (const config of configs.of('phpfpm')) subjects.push(this.phpFpmSubject(config));
    return subjects;
  }

  private apacheSubject(config: ApacheConfig): Subject {
    const serverRoot = config.serverRoot;
    const main = this.serverPath(config.root.path);
    const label = `apache2 -t on ${config.root.displayPath}`;
    const envvarsFile = config.fs.locate('envvars', serverRoot);
    const env = apacheEnvironment(
      fs.existsSync(envvarsFile) ? fs.readFileSync(envvarsFile, 'latin1') : undefined,
      givenVariables(this.options.env ?? []),
    );
    const files = config.files.map((entry) => entry.source);
    const ownPaths = new Set(files.map((file) => this.serverPath(file.path)));
    const inSysroot =
      this.paths.sysroot === undefined
        ? undefined
        : (serverPath: string): boolean => this.paths.kind(this.paths.locate(serverPath)) !== 'missing';
    const guardContext = { env, serverRoot, inSysroot };
    return {
      label,
      files,
      hazards: (texts) => apacheVerifyHazards(texts, guardContext).hazards,
      extras: (texts) => ({
        links: apacheVerifyHazards(texts, guardContext).libraries.filter((library) => !underSystemDirs(library.serverPath)),
        ...this.apacheStandIns(texts, env, serverRoot),
      }),
      check: async (tree) => {
        const binary = this.tool(['apache2', 'httpd'], 'the Apache patch is not verified');
        if (binary === undefined) return undefined;
        const defines = (this.options.defines ?? []).flatMap((name) => ['-D', name]);
        const run = await tree.run(binary, ['-d', serverRoot, ...startArguments(config.start), '-f', main, ...defines, '-t'], env, '/');
        if (run.timedOut) return [this.timedOut];
        const stderr = parseApacheStderr(run.stderr);
        if (run.exitCode === 0 && stderr.syntaxOk) return [];
        const { error } = stderr;
        if (error === undefined) return [oneLine(lastLine(run.stderr) ?? describeExit(run))];
        if (!quotedFiles(error.file).every((file) => ownPaths.has(file)))
          return [`an error at ${error.file}:${error.line}, which is not one of the configuration's files (not shown)`];
        return [oneLine(`${error.message} (${error.file}:${error.line})`)];
      },
    };
  }

  /**
   * Paths in the directives' arguments that exist (for this run: inside the
   * sysroot when there is one) and that the check may look for: each becomes
   * an empty file or directory in the sandbox. The directories httpd checks
   * for at start that the package or the init system makes on a real host
   * (`DefaultRuntimeDir`, the directory of each `ErrorLog`) are made even
   * when they do not exist here, as for a repository's tree.
   */
  private apacheStandIns(
    texts: readonly GuardedFile[],
    env: Readonly<Record<string, string>>,
    serverRoot: string,
  ): Pick<Extras, 'files' | 'directories'> {
    const files = new Set<string>();
    const directories = new Set<string>();
    const consider = (value: string, always: boolean): void => {
      const expanded = value.replace(/\$\{([^}]*)\}/g, (whole, name: string) => env[name] ?? whole);
      if (expanded.includes('${') || expanded.startsWith('|') || expanded.startsWith('syslog') || expanded === '') return;
      const literal = expanded.split('/');
      const wildcard = literal.findIndex((part) => /[*?[]/.test(part));
      const candidate = path.posix.resolve(serverRoot, wildcard === -1 ? expanded : literal.slice(0, wildcard).join('/') || '/');
      if (!standsIn(candidate)) return;
      if (always) {
        directories.add(candidate);
        return;
      }
      const kind = this.paths.kind(this.paths.locate(candidate));
      if (kind === 'file') files.add(candidate);
      else if (kind === 'directory') directories.add(candidate);
    };
    for (const file of texts) {
      visitApacheNodes(parseApache(file.text).nodes, (node) => {
        if (node.nameLower === 'loadmodule' || node.nameLower === 'loadfile') return;
        const made = MADE_ON_A_REAL_HOST.get(node.nameLower);
        if (made !== undefined && node.args[0] !== undefined) consider(made(node.args[0].value), true);
        else for (const arg of node.args) consider(arg.value, false);
      });
    }
    return { files: [...files], directories: [...directories] };
  }

  private mycnfSubject(config: MycnfConfig): Subject {
    const main = this.serverPath(config.root.path);
    const base =
      this.options.includeBase === undefined
        ? this.paths.sysroot === undefined
          ? this.options.cwd
          : '/'
        : this.serverPath(this.options.includeBase);
    return {
      label: `the option files of ${config.root.displayPath}`,
      files: config.files.map((entry) => entry.source),
      hazards: () => [],
      extras: (texts) => {
        const directories = new Set([base]);
        for (const file of texts) {
          for (const line of parseMyCnf(file.text).lines) {
            if (line.kind !== 'includedir' || line.path === '') continue;
            const dir = path.posix.resolve(base, line.path);
            if (standsIn(dir) && this.paths.kind(this.paths.locate(dir)) === 'directory') directories.add(dir);
          }
        }
        return { links: [], files: [], directories: [...directories] };
      },
      check: async (tree) => {
        const reader = this.tool(['my_print_defaults'], 'the option-file patch is not verified');
        if (reader === undefined) return undefined;
        const env = { PATH: SERVER_TOOL_PATH, LANG: 'C' };
        const read = await tree.run(reader, [`--defaults-file=${main}`, '--mysqld'], env, base);
        if (read.timedOut) return [this.timedOut];
        if (read.exitCode !== 0) return [oneLine(`my_print_defaults: ${read.stderr.trim() || describeExit(read)}`)];
        if (config.target.product !== 'mariadb') {
          this.note(
            `the option names and values are checked with mariadbd only for MariaDB targets; for ${config.target.product} ${config.target.version} only the reader (my_print_defaults) checked the patch`,
          );
          return [];
        }
        const hazards = mycnfVerifyHazards(tree.files);
        if (hazards.length > 0) {
          this.note(
            `mariadbd is not run on ${config.root.displayPath}: it would load libraries the options name (${hazards[0]}); only the reader (my_print_defaults) checked the option-file patch`,
          );
          return [];
        }
        const server = this.tool(['mariadbd', 'mysqld'], 'only the reader (my_print_defaults) checked the option-file patch');
        if (server === undefined) return [];
        const help = await tree.run(server, [`--defaults-file=${main}`, '--help', '--verbose'], env, base);
        if (help.timedOut) return [this.timedOut];
        const errors = help.stderr
          .split('\n')
          .filter((line) => line.includes('[ERROR]'))
          .map((line) => oneLine(`${path.basename(server)}: ${line.replace(/^\d{4}-\d\d-\d\d\s+\d\d?:\d\d:\d\d\s+\d+\s+/, '')}`));
        if (help.exitCode !== 0 && errors.length === 0) errors.push(`${path.basename(server)}: ${describeExit(help)}`);
        return errors;
      },
    };
  }

  /**
   * `php-fpm -n -t -y MAIN`: php-fpm reads the pools and checks them as it
   * would at start, without php.ini (-n), so no `extension=` it names loads;
   * a pool that names an extension for its workers is not run at all. It
   * opens error_log and each pool's access.log for writing and checks that
   * chdir and chroot are directories: those are stood in for.
   */
  private phpFpmSubject(config: PhpFpmConfig): Subject {
    const main = this.serverPath(config.root.path);
    const pools = [config.global, ...config.pools];
    return {
      label: `php-fpm -t on ${config.root.displayPath}`,
      files: config.files.map((entry) => entry.source),
      hazards: (texts) => phpFpmVerifyHazards(texts),
      extras: () => {
        const absolute = (key: string) =>
          pools.flatMap((pool) => pool.effective(key)?.value ?? []).filter((value) => path.posix.isAbsolute(value) && standsIn(value));
        const logs = [...absolute('error_log'), ...absolute('access.log'), ...absolute('slowlog')];
        const directories = [...absolute('chdir'), ...absolute('chroot'), ...logs.map((log) => path.posix.dirname(log)).filter(standsIn)];
        return { links: [], files: [], directories, writable: logs };
      },
      check: async (tree) => {
        const versioned = /\/php\/(\d+\.\d+)\/fpm\//.exec(main)?.[1];
        const names = [...(versioned === undefined ? [] : [`php-fpm${versioned}`]), ...PHP_FPM_BINARIES];
        const binary = this.tool(names, 'the php-fpm patch is not verified');
        if (binary === undefined) return undefined;
        const run = await tree.run(binary, ['-n', '-t', '-y', main], { PATH: SERVER_TOOL_PATH, LANG: 'C' }, '/');
        if (run.timedOut) return [this.timedOut];
        if (run.exitCode === 0) return [];
        const said = run.stderr
          .split('\n')
          .map((line) => line.replace(/^\[[^\]]*\]\s*/, ''))
          .filter((line) => /^(ALERT|ERROR): /.test(line) && !PHP_FPM_SUMMARY.test(line))
          .map((line) => oneLine(`${path.basename(binary)}: ${line}`));
        return said.length > 0 ? said : [`${path.basename(binary)}: ${describeExit(run)}`];
      },
    };
  }

  private serverPath(hostPath: string): string {
    return this.paths.serverPath(hostPath);
  }

  /**
   * The first of these binaries that is installed in the system directories
   * the sandbox shows, as root's file that no one else may change; when none
   * is, says once what that means.
   */
  private tool(names: readonly string[], consequence: string): string | undefined {
    for (const name of names) {
      const found = findServerTool(name, this.options.searchPath);
      if (found !== undefined && underSystemDirs(fs.realpathSync(found)) && isSystemFile(found)) return found;
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

/** php-fpm's binaries, newest first: Debian's and Ubuntu's carry the PHP version, RHEL's and the upstream build's do not. */
const PHP_FPM_BINARIES = ['php-fpm8.4', 'php-fpm8.3', 'php-fpm8.2', 'php-fpm8.1', 'php-fpm8.0', 'php-fpm7.4', 'php-fpm'];
/** The lines php-fpm -t ends every refusal with; the line before them says what it refused. */
const PHP_FPM_SUMMARY = /^ERROR: (failed to post process the configuration|FPM initialization failed)$/;

/** The files an error's location names: mod_macro names the file of the definition and of the use. */
function quotedFiles(location: string): string[] {
  const macro = /^macro '.*' \(defined on line \d+ of "(.*)"\) used on line \d+ of "(.*)"$/s.exec(location);
  return macro === null ? [location] : [macro[1] as string, macro[2] as string];
}

/** Directives whose directory httpd checks for at start, and where that directory is in their argument. */
const MADE_ON_A_REAL_HOST = new Map<string, (value: string) => string>([
  ['defaultruntimedir', (value) => value],
  ['errorlog', (value) => path.posix.dirname(value)],
]);

/**
 * What glibc drops from the environment of a set-id program (its
 * UNSECURE_ENVVARS), and PATH and the locale, which tune-lint sets: a
 * variable given for `${NAME}` never steers the loader or the C library, even
 * from an `--env-file` the repository holds.
 */
const NOT_GIVEN =
  /^(LD_[A-Z_]*|GCONV_PATH|GETCONF_DIR|GLIBC_TUNABLES|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_[A-Z_]*|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TMPDIR|TZDIR|PATH|LANG|LANGUAGE|LC_[A-Z_]*)$/;

function givenVariables(given: readonly GivenEnvironment[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const source of given) for (const [name, value] of Object.entries(source.values)) if (!NOT_GIVEN.test(name)) values[name] = value;
  return values;
}

/** Paths the sandbox's root may hold a file at: not the system directories it shows from the host, nor its own `/proc` and `/dev`. */
function standsIn(serverPath: string): boolean {
  return (
    serverPath !== '/' &&
    serverPath !== '/tmp' &&
    !underSystemDirs(serverPath) &&
    !['/proc', '/dev'].some((dir) => serverPath === dir || serverPath.startsWith(`${dir}/`))
  );
}

/**
 * One check's root: the files the server reads, each a regular file at its
 * server path, the patched ones with their new text; the stand-ins and
 * library links of {@link Extras}; what {@link prepareRoot} adds. Written
 * under a temporary directory of tune-lint's own and removed after the run.
 */
class SandboxTree {
  private readonly dir: string;
  private readonly root: string;
  /** The files as the check reads them. */
  readonly files: GuardedFile[] = [];
  /** Empty files of tune-lint's bound writable over their stand-ins. */
  private readonly writable: { hostPath: string; serverPath: string }[] = [];

  constructor(
    private readonly sandbox: Sandbox,
    serverPathOf: (hostPath: string) => string,
    sources: readonly SourceFile[],
    patched: ReadonlyMap<string, FileFix>,
    extras: Extras,
    private readonly timeoutMs: number,
  ) {
    this.dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'tune-lint-verify-'));
    this.root = path.join(this.dir, 'root');
    fs.mkdirSync(this.root);
    const written = new Set<string>();
    for (const file of sources) {
      if (!path.isAbsolute(file.path)) continue;
      const serverPath = path.posix.resolve('/', serverPathOf(file.path));
      if (written.has(serverPath) || !standsIn(serverPath)) continue;
      written.add(serverPath);
      const fix = patched.get(file.realPath);
      this.files.push({ displayPath: file.displayPath, text: fix?.after ?? file.text });
      const target = this.at(serverPath);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, fix === undefined ? file.encode() : fix.file.encode(fix.after), { flag: 'wx', mode: modeOf(file.realPath) });
    }
    for (const link of extras.links) this.place(link.serverPath, (target) => fs.symlinkSync(link.systemPath, target));
    for (const file of extras.files) this.place(file, (target) => fs.writeFileSync(target, '\n', { flag: 'wx', mode: 0o600 }));
    for (const dir of extras.directories) this.place(dir, (target) => fs.mkdirSync(target, { recursive: true }));
    const logs = path.join(this.dir, 'writable');
    fs.mkdirSync(logs);
    for (const [index, serverPath] of (extras.writable ?? []).entries()) {
      const hostPath = path.join(logs, String(index));
      fs.writeFileSync(hostPath, '', { mode: 0o600 });
      this.place(serverPath, (target) => fs.writeFileSync(target, '', { flag: 'wx', mode: 0o600 }));
      if (fs.statSync(this.at(serverPath)).isFile()) this.writable.push({ hostPath, serverPath });
    }
    prepareRoot(this.root);
    handOver(this.dir);
  }

  run(binary: string, args: readonly string[], env: Readonly<Record<string, string>>, cwd: string): Promise<ToolRun> {
    return this.sandbox.run(this.root, { binary, args, env, cwd, timeoutMs: this.timeoutMs, writable: this.writable });
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private at(serverPath: string): string {
    return path.join(this.root, serverPath);
  }

  /** Makes an extra at a server path unless the configuration's files are there already (they win) or a file is in its way. */
  private place(serverPath: string, make: (target: string) => void): void {
    const target = this.at(serverPath);
    if (fs.existsSync(target)) return;
    try {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      make(target);
    } catch (error) {
      if (!isPathInTheWay(error)) throw error;
    }
  }
}

function isPathInTheWay(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'ENOTDIR';
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

/** The `-D`, `-C` and `-c` arguments the distribution's start gives httpd for this main file. */
function startArguments(start: StartLayout | undefined): string[] {
  if (start === undefined) return [];
  return [
    ...start.defines.flatMap((name) => ['-D', name]),
    ...start.before.flatMap((directive) => ['-C', directive]),
    ...start.after.flatMap((directive) => ['-c', directive]),
  ];
}
