/**
 * The real `apache2` binary as a test oracle: runs it on a config tree in
 * config-test mode only and parses what it prints, so differential tests can
 * compare tune-lint's reading of a tree with Apache's own.
 *
 * Safety: the binary is started with an argument array (never a shell), a
 * timeout, a clean environment and `-t` in every mode (`-v` aside), so it
 * reads and checks the configuration and exits; it never binds a port or
 * starts children.
 * Modules may still act while the config is read (mod_security, for one,
 * opens `SecAuditLog` at that point): keep such directives out of fixtures.
 *
 * Environment: the child gets `PATH`, `LANG=C`, the variables exported by the
 * tree's Debian `envvars` file (read, never executed: see {@link readEnvvars})
 * and `options.env`, nothing from the test process.
 *
 * Sysroot trees (`options.sysroot`): a config repository such as
 * `fixtures/apache/rhel`, whose files name absolute server paths
 * (`ServerRoot "/etc/httpd"`, `IncludeOptional /etc/modsecurity/*.conf`), as
 * tune-lint reads it with `--sysroot`. Apache has no sysroot, so the tree is
 * copied to a temporary directory and, in the copy only, the absolute paths of
 * the directives that decide which files are read (`ServerRoot`, `Include`,
 * `IncludeOptional`) are prefixed with the copy's location; every path in the
 * results is mapped back to the server path (`/etc/httpd/conf/httpd.conf`).
 * Limits of that emulation:
 * - only those three directives are mapped, and only when the path is written
 *   literally on the directive's own line (not through `${VAR}` or a
 *   continuation line); `<IfFile>`, `LoadModule`, `DocumentRoot`, `ErrorLog`,
 *   `DefaultRuntimeDir`... still name host paths, which is what lets the real
 *   binary load its modules and pass its directory checks;
 * - symlinks are copied verbatim: relative ones stay inside the copy,
 *   absolute ones point at the host (the RHEL fixture's `modules` link
 *   relies on that), whereas tune-lint resolves them inside the sysroot.
 * A tree with nothing to map (Debian's includes are relative to ServerRoot,
 * given with `-d`) is used in place, without a copy.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SERVER_TOOL_PATH } from '../../src/util/system-tools.js';
import { apacheEnvironment, parseApacheStderr, runTool, type ApacheStderr } from '../../src/verify/server-tools.js';
import { findTool } from './tools.js';

export { readEnvvars } from '../../src/languages/apache/envvars.js';

export interface ApacheOracleOptions {
  /**
   * ServerRoot, passed with `-d`. With `sysroot`, a server path inside it
   * (`/etc/apache2`); otherwise a host path (relative to the working directory).
   */
  serverRoot: string;
  /** The main config file, passed with `-f`: relative to serverRoot, or absolute (a server path with `sysroot`). */
  configFile: string;
  /** Root of a config repository whose absolute paths are server paths (see the module comment). */
  sysroot?: string;
  /**
   * Names passed with `-D`. Apache 2.4.71 takes the whole argument as the
   * name: `-D X=1` defines "X=1" (for `<IfDefine>`), not `${X}`.
   */
  defines?: readonly string[];
  /** Extra environment for the child; wins over envvars. */
  env?: Readonly<Record<string, string>>;
  /**
   * Debian `envvars` file to read: a host path (a server path with `sysroot`);
   * by default `<serverRoot>/envvars` when it exists; `null` for none.
   */
  envvars?: string | null;
  /** Directives processed before the config file (`-C`). */
  before?: readonly string[];
  /** Directives processed after the config file (`-c`). */
  after?: readonly string[];
  /** Startup log level (`-e`), e.g. `info` to see AH00188/AH00545. */
  logLevel?: string;
  /** The binary; by default `apache2` found on PATH or in the sbin directories. */
  binary?: string;
  /** mod_info, loaded with `-c` for DUMP_CONFIG when the config does not load it. */
  infoModule?: string;
  /** Default 20 s. */
  timeoutMs?: number;
}

/** One run of the binary, with sysroot copy paths already mapped back. */
interface ApacheRun {
  args: string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface ApacheConfigTestResult extends ApacheRun, ApacheStderr {}

export interface ApacheInclude {
  file: string;
  /** 0 for the main config file. */
  depth: number;
  /** Line of the Include in the including file; null for the main file. */
  includedFromLine: number | null;
}

export interface ApacheDumpedDirective {
  /** `-c/-C directives` for command-line directives. */
  file: string;
  /** null when mod_info printed no line number (line 0). */
  line: number | null;
  /**
   * As printed: Apache's canonical spelling of the name (`KeepAlive` for
   * `keepalive`), with `<` for a section (`<Directory`).
   */
  name: string;
  /** As printed, after `${VAR}` expansion; a section keeps its `>` (`"/var/www">`). */
  args: string;
  /** Nesting level; a directive inside `<Directory>` at top level has depth 1. */
  depth: number;
  /** The name starts with `<` (an empty section is printed without its close tag). */
  section: boolean;
}

export interface ApacheModule {
  name: string;
  kind: 'static' | 'shared';
}

export interface ApacheRunCfg {
  serverRoot: string | undefined;
  documentRoot: string | undefined;
  errorLog: string | undefined;
  pidFile: string | undefined;
  /**
   * `Define: NAME` gives null, `Define: NAME=value` the value; includes
   * DUMP_RUN_CFG itself. Apache prints `-D X=1` (a define named "X=1") the
   * same way as `Define X 1`, so such a name reads as X with value 1.
   */
  defines: Map<string, string | null>;
  user: { name: string; id: number } | undefined;
  group: { name: string; id: number } | undefined;
  /** Every line as printed, Mutex lines included. */
  lines: string[];
}

export class ApacheOracleError extends Error {
  constructor(
    message: string,
    readonly result: ApacheConfigTestResult,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_INFO_MODULE = '/usr/lib/apache2/modules/mod_info.so';

/** `apache2 -t`: exit code, `Syntax OK`, warnings and the error, if any. Never throws for a failing config. */
export async function apacheConfigTest(options: ApacheOracleOptions): Promise<ApacheConfigTestResult> {
  return withPreparedRun(options, (run) => run([]));
}

/** `apache2 -v`: the version, e.g. `Apache/2.4.71 (Debian)`. */
export async function apacheVersion(binary = findTool('apache2')): Promise<string> {
  if (binary === undefined) throw new Error('apache2 is not installed');
  const run = await runTool(binary, ['-v'], { PATH: SERVER_TOOL_PATH, LANG: 'C' }, DEFAULT_TIMEOUT_MS);
  const match = /^Server version: (.*)$/m.exec(run.stdout);
  if (run.exitCode !== 0 || match === null) throw new Error(`apache2 -v failed:\n${run.stderr}`);
  return match[1] as string;
}

/** The release in `apache2 -v`'s words, as a --target takes it: `Apache/2.4.71 (Debian)` -> `2.4.71`. */
export function releaseOf(serverVersion: string): string {
  const match = /^Apache\/(\d+\.\d+\.\d+)/.exec(serverVersion);
  if (match === null) throw new Error(`not an Apache server version: ${serverVersion}`);
  return match[1] as string;
}

/** `apache2 -t -D DUMP_INCLUDES`: every file read, in order. Throws ApacheOracleError when the config fails. */
export async function apacheDumpIncludes(options: ApacheOracleOptions): Promise<ApacheInclude[]> {
  const result = await withPreparedRun(options, (run) => run(['-D', 'DUMP_INCLUDES']));
  return parseDumpIncludes(succeeded(result, 'DUMP_INCLUDES').stdout);
}

/** `apache2 -t -D DUMP_MODULES` (what `-M` prints). Throws ApacheOracleError when the config fails. */
export async function apacheDumpModules(options: ApacheOracleOptions): Promise<ApacheModule[]> {
  const result = await withPreparedRun(options, (run) => run(['-D', 'DUMP_MODULES']));
  return parseDumpModules(succeeded(result, 'DUMP_MODULES').stdout);
}

/** `apache2 -t -D DUMP_RUN_CFG`. Throws ApacheOracleError when the config fails. */
export async function apacheDumpRunCfg(options: ApacheOracleOptions): Promise<ApacheRunCfg> {
  const result = await withPreparedRun(options, (run) => run(['-D', 'DUMP_RUN_CFG']));
  return parseDumpRunCfg(succeeded(result, 'DUMP_RUN_CFG').stdout);
}

/**
 * `apache2 -t -D DUMP_CONFIG`: the directives that survive reading, in order,
 * after `<IfModule>`/`<IfDefine>` evaluation and `${VAR}` expansion. Comments,
 * false conditionals, the conditional wrappers and the directives executed
 * while reading (Include, LoadModule, Define, ServerRoot, ...) are not listed.
 * mod_info is loaded with `-c` (after the config, so `<IfModule info_module>`
 * in the config is not affected) unless the config loads it already.
 * Throws ApacheOracleError when the config fails.
 */
export async function apacheDumpConfig(options: ApacheOracleOptions): Promise<ApacheDumpedDirective[]> {
  const result = await withPreparedRun(options, async (run) => {
    const modules = parseDumpModules(succeeded(await run(['-D', 'DUMP_MODULES']), 'DUMP_MODULES').stdout);
    const needsInfo = !modules.some((module) => module.name === 'info_module');
    const loadInfo = needsInfo ? ['-c', `LoadModule info_module ${options.infoModule ?? DEFAULT_INFO_MODULE}`] : [];
    return run([...loadInfo, '-D', 'DUMP_CONFIG']);
  });
  return parseDumpConfig(succeeded(result, 'DUMP_CONFIG').stdout);
}

function succeeded(result: ApacheConfigTestResult, mode: string): ApacheConfigTestResult {
  if (result.exitCode === 0 && !result.timedOut) return result;
  const why = result.timedOut ? 'timed out' : `exited with ${result.exitCode ?? result.signal ?? 'nothing'}`;
  throw new ApacheOracleError(`apache2 -t -D ${mode} ${why}:\n${result.stderr.trimEnd()}`, result);
}

type Runner = (modeArgs: string[]) => Promise<ApacheConfigTestResult>;

async function withPreparedRun<T>(options: ApacheOracleOptions, use: (run: Runner) => Promise<T>): Promise<T> {
  const binary = options.binary ?? findTool('apache2');
  if (binary === undefined) throw new Error('apache2 is not installed');
  if (options.sysroot === undefined) {
    const serverRoot = path.resolve(options.serverRoot);
    const envvarsFile = options.envvars === undefined ? path.join(serverRoot, 'envvars') : options.envvars;
    const env = childEnvironment(envvarsFile, options.envvars !== undefined, options.env);
    return use((modeArgs) => runApache(binary, serverRoot, options.configFile, env, options, modeArgs, (text) => text));
  }
  return withSysroot(options.sysroot, (copy) => {
    const serverRoot = copy.hostPath(options.serverRoot);
    const configFile = path.posix.isAbsolute(options.configFile) ? copy.hostPath(options.configFile) : options.configFile;
    const envvarsFile =
      options.envvars === undefined ? path.join(serverRoot, 'envvars') : options.envvars === null ? null : copy.hostPath(options.envvars);
    const env = childEnvironment(envvarsFile, options.envvars !== undefined, options.env);
    return use((modeArgs) => runApache(binary, serverRoot, configFile, env, options, modeArgs, (text) => copy.serverPaths(text)));
  });
}

function childEnvironment(
  envvarsFile: string | null,
  mustExist: boolean,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const read = envvarsFile !== null && (mustExist || fs.existsSync(envvarsFile));
  return apacheEnvironment(read ? fs.readFileSync(envvarsFile, 'latin1') : undefined, extra);
}

async function runApache(
  binary: string,
  serverRoot: string,
  configFile: string,
  env: Record<string, string>,
  options: ApacheOracleOptions,
  modeArgs: string[],
  toServerPaths: (text: string) => string,
): Promise<ApacheConfigTestResult> {
  const args = ['-d', serverRoot, '-f', configFile];
  for (const name of options.defines ?? []) args.push('-D', name);
  for (const directive of options.before ?? []) args.push('-C', directive);
  for (const directive of options.after ?? []) args.push('-c', directive);
  if (options.logLevel !== undefined) args.push('-e', options.logLevel);
  args.push('-t', ...modeArgs);

  const run = await runTool(binary, args, env, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const stdout = toServerPaths(run.stdout);
  const stderr = toServerPaths(run.stderr);
  return { ...run, args: args.map(toServerPaths), stdout, stderr, ...parseStderr(stderr) };
}

export interface SysrootCopy {
  /** The copy's root directory on this host. */
  root: string;
  /** Where a server path (`/etc/httpd`) is in the copy. */
  hostPath(serverPath: string): string;
  /** Replaces every path into the copy in `text` by its server path. */
  serverPaths(text: string): string;
}

/**
 * Copies a sysroot tree to a temporary directory, maps the absolute paths of
 * its ServerRoot/Include/IncludeOptional lines into the copy (nothing else is
 * changed, line numbers stay), calls `use`, and removes the copy.
 */
export async function withSysrootCopy<T>(sysroot: string, use: (copy: SysrootCopy) => Promise<T>): Promise<T> {
  const source = path.resolve(sysroot);
  if (!fs.statSync(source).isDirectory()) throw new Error(`sysroot ${sysroot} is not a directory`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-apache-oracle-'));
  const root = path.join(temp, 'root');
  try {
    copyTree(source, root);
    forEachFile(root, (file) => {
      // latin1 maps every byte to one char and back, so the rest of the file is untouched.
      const text = fs.readFileSync(file, 'latin1');
      const mapped = mapApacheServerPaths(text, root);
      if (mapped !== text) fs.writeFileSync(file, mapped, 'latin1');
    });
    return await use(sysrootView(root));
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** The tree itself when nothing in it needs mapping (Debian trees), else a mapped copy. */
async function withSysroot<T>(sysroot: string, use: (copy: SysrootCopy) => Promise<T>): Promise<T> {
  const source = path.resolve(sysroot);
  let needsMapping = false;
  forEachFile(source, (file) => {
    needsMapping ||= fs
      .readFileSync(file, 'latin1')
      .split('\n')
      .some((line) => APACHE_PATH_DIRECTIVE.test(line));
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the callback above
  return needsMapping ? withSysrootCopy(source, use) : use(sysrootView(source));
}

function sysrootView(root: string): SysrootCopy {
  return {
    root,
    hostPath: (serverPath) => path.join(root, path.posix.resolve('/', serverPath)),
    serverPaths: (text) => text.split(`${root}/`).join('/').split(root).join('/'),
  };
}

/** Directories, regular files and symlinks (verbatim); other entries are left out. */
function copyTree(source: string, target: string): void {
  fs.mkdirSync(target);
  for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory()) copyTree(from, to);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else if (entry.isFile()) fs.copyFileSync(from, to);
  }
}

/** Regular files below `directory`, symlinks not followed. */
function forEachFile(directory: string, visit: (file: string) => void): void {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) forEachFile(entryPath, visit);
    else if (entry.isFile()) visit(entryPath);
  }
}

/** The stderr of any mode: `Syntax OK`, each warning, and the fatal error with its include chain. */
export const parseStderr = parseApacheStderr;

/** `Included configuration files:` then `  (*) /main`, `    (146) /included`: two spaces per level, the main file at level 1. */
export function parseDumpIncludes(stdout: string): ApacheInclude[] {
  const includes: ApacheInclude[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^( +)\((\*|\d+)\) (.*)$/.exec(line);
    if (match === null) continue;
    const indent = (match[1] as string).length;
    includes.push({
      file: match[3] as string,
      depth: indent / 2 - 1,
      includedFromLine: match[2] === '*' ? null : Number(match[2]),
    });
  }
  return includes;
}

/** `Loaded Modules:` then ` core_module (static)` lines. */
export function parseDumpModules(stdout: string): ApacheModule[] {
  const modules: ApacheModule[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^ (\S+) \((static|shared)\)$/.exec(line);
    if (match !== null) modules.push({ name: match[1] as string, kind: match[2] as 'static' | 'shared' });
  }
  return modules;
}

/**
 * mod_info's dump: `# In file: PATH` when the file changes, then per
 * directive `#   N:` (line right-aligned in four columns) and `Name args`,
 * both indented two spaces per nesting level; a section's close tag has no
 * line number and is not returned.
 */
export function parseDumpConfig(stdout: string): ApacheDumpedDirective[] {
  const directives: ApacheDumpedDirective[] = [];
  let file = '*UNKNOWN*';
  let line: number | null = null;
  for (const text of stdout.split('\n')) {
    const fileHeader = /^# In file: (.*)$/.exec(text);
    if (fileHeader !== null) {
      file = fileHeader[1] as string;
      continue;
    }
    const lineComment = /^(?: {2})*# *(\d+):$/.exec(text);
    if (lineComment !== null) {
      line = Number(lineComment[1]);
      continue;
    }
    const entry = /^((?: {2})*)(\S+)(?: (.*))?$/.exec(text);
    if (entry === null) continue;
    const name = entry[2] as string;
    if (name.startsWith('</')) continue;
    directives.push({
      file,
      line,
      name,
      args: entry[3] ?? '',
      depth: (entry[1] as string).length / 2,
      section: name.startsWith('<'),
    });
    line = null;
  }
  return directives;
}

/** `ServerRoot: "..."`, `Define: NAME[=value]`, `User: name="www-data" id=33`, ... */
export function parseDumpRunCfg(stdout: string): ApacheRunCfg {
  const lines = stdout.split('\n').filter((line) => line !== '');
  const quoted = (label: string): string | undefined => {
    for (const line of lines) {
      const match = new RegExp(`^${label}: "(.*)"$`).exec(line);
      if (match !== null) return match[1];
    }
    return undefined;
  };
  const account = (label: string): { name: string; id: number } | undefined => {
    for (const line of lines) {
      const match = new RegExp(`^${label}: name="(.*)" id=(\\d+)$`).exec(line);
      if (match !== null) return { name: match[1] as string, id: Number(match[2]) };
    }
    return undefined;
  };
  const defines = new Map<string, string | null>();
  for (const line of lines) {
    const match = /^Define: ([^=]*)(?:=(.*))?$/.exec(line);
    if (match !== null) defines.set(match[1] as string, match[2] ?? null);
  }
  return {
    serverRoot: quoted('ServerRoot'),
    documentRoot: quoted('Main DocumentRoot'),
    errorLog: quoted('Main ErrorLog'),
    pidFile: quoted('PidFile'),
    defines,
    user: account('User'),
    group: account('Group'),
    lines,
  };
}

/**
 * Apache has no sysroot: in a copy of a tree whose configs name absolute
 * server paths, the directives that decide which files are read
 * (`ServerRoot`, `Include`, `IncludeOptional`, written literally on their own
 * line) get the copy's root in front. Nothing else changes, so line numbers stay.
 */
function mapApacheServerPaths(text: string, root: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(APACHE_PATH_DIRECTIVE, (_match, head: string) => `${head}${root}/`))
    .join('\n');
}

/** A line {@link mapApacheServerPaths} changes. */
const APACHE_PATH_DIRECTIVE = /^([ \t]*(?:ServerRoot|Include|IncludeOptional)[ \t]+["']?)(\/)/i;
