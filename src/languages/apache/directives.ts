import { argumentCheck, argumentsError, refusesArguments } from './arguments.js';
import type { MpmName } from './names.js';

/**
 * What httpd 2.4 knows about the directives tune-lint reasons about: whether
 * httpd checks their words itself (how, and the help its error quotes, are
 * in the table generated from the installed apache2: arguments.ts), where
 * each may appear, and which MPM registers it. Every entry was read from
 * Debian's apache2 2.4.71 (`apache2 -L`, and `-t` on each directive inside
 * `<VirtualHost>` and `<Directory>`); test/oracle/apache-rules-oracle.test.ts
 * checks them all against the installed binary.
 */

type ArgumentShape =
  /**
   * httpd checks the words before the directive's code runs (config.c
   * `invoke_cmd`: TAKE1, TAKE12, FLAG...), as the generated table of the
   * installed apache2 says (directive-arguments.ts, through arguments.ts).
   */
  | { readonly kind: 'checked' }
  /** Listen checks its own count: `Listen requires 1 or 2 arguments.` */
  | { readonly kind: 'listen' }
  /**
   * The handler parses the words itself. `commentError` is its error for a
   * word starting with `#`, with `{word}` for that word, where it has one.
   */
  | { readonly kind: 'raw'; readonly commentError?: string };

/**
 * `server`: server config only (a `<VirtualHost>` or a directory-type section
 * is fatal); `virtualhost`: server config and `<VirtualHost>`;
 * `anywhere`: also inside `<Directory>`, `<Location>`, `<Files>`...;
 * `directory`: only inside a directory-type section.
 */
type DirectiveContext = 'server' | 'virtualhost' | 'anywhere' | 'directory';

export interface DirectiveSpec {
  /** httpd's spelling, which its error messages use whatever the case written. */
  readonly name: string;
  readonly args: ArgumentShape;
  readonly context: DirectiveContext;
  /** The module that registers it, when it is not built into Debian's apache2 (core, http, log_config, unixd...). */
  readonly module?: string;
  /** The MPMs whose command tables have it; under any other MPM it is `Invalid command`. */
  readonly mpms?: readonly MpmName[];
}

const CHECKED: ArgumentShape = { kind: 'checked' };
const LISTEN: ArgumentShape = { kind: 'listen' };
const RAW: ArgumentShape = { kind: 'raw' };
const NO_COMMENTS: ArgumentShape = { kind: 'raw', commentError: 'No comments are allowed here' };
const PREFORK: readonly MpmName[] = ['prefork'];
const THREADED: readonly MpmName[] = ['worker', 'event'];
const EVENT: readonly MpmName[] = ['event'];

/** Every directive in the table, in `apache2 -L` order. */
export const DIRECTIVES: readonly DirectiveSpec[] = [
  { name: 'AddDefaultCharset', args: CHECKED, context: 'anywhere' },
  { name: 'AcceptPathInfo', args: CHECKED, context: 'anywhere' },
  { name: 'Define', args: CHECKED, context: 'anywhere' },
  { name: 'UnDefine', args: CHECKED, context: 'anywhere' },
  { name: 'DocumentRoot', args: CHECKED, context: 'virtualhost' },
  { name: 'ErrorDocument', args: CHECKED, context: 'anywhere' },
  { name: 'DefaultType', args: CHECKED, context: 'anywhere' },
  { name: 'EnableMMAP', args: CHECKED, context: 'anywhere' },
  { name: 'EnableSendfile', args: CHECKED, context: 'anywhere' },
  { name: 'ReadBufferSize', args: CHECKED, context: 'anywhere' },
  { name: 'FlushMaxThreshold', args: CHECKED, context: 'virtualhost' },
  { name: 'FlushMaxPipelined', args: CHECKED, context: 'virtualhost' },
  { name: 'Protocol', args: CHECKED, context: 'virtualhost' },
  { name: 'AcceptFilter', args: CHECKED, context: 'server' },
  { name: 'HostnameLookups', args: CHECKED, context: 'anywhere' },
  { name: 'ServerAdmin', args: CHECKED, context: 'virtualhost' },
  { name: 'ServerName', args: CHECKED, context: 'virtualhost' },
  { name: 'ServerSignature', args: CHECKED, context: 'anywhere' },
  { name: 'DefaultRuntimeDir', args: CHECKED, context: 'anywhere' },
  { name: 'ErrorLog', args: CHECKED, context: 'virtualhost' },
  { name: 'ErrorLogFormat', args: CHECKED, context: 'virtualhost' },
  { name: 'Timeout', args: CHECKED, context: 'virtualhost' },
  { name: 'ContentDigest', args: CHECKED, context: 'anywhere' },
  { name: 'UseCanonicalName', args: CHECKED, context: 'anywhere' },
  { name: 'UseCanonicalPhysicalPort', args: CHECKED, context: 'anywhere' },
  { name: 'Include', args: CHECKED, context: 'anywhere' },
  { name: 'IncludeOptional', args: CHECKED, context: 'anywhere' },
  { name: 'NameVirtualHost', args: CHECKED, context: 'virtualhost' },
  { name: 'ServerTokens', args: CHECKED, context: 'server' },
  { name: 'LimitRequestLine', args: CHECKED, context: 'virtualhost' },
  { name: 'LimitRequestFieldsize', args: CHECKED, context: 'virtualhost' },
  { name: 'LimitRequestFields', args: CHECKED, context: 'virtualhost' },
  { name: 'LimitRequestBody', args: CHECKED, context: 'anywhere' },
  { name: 'LimitXMLRequestBody', args: CHECKED, context: 'anywhere' },
  { name: 'MaxRanges', args: CHECKED, context: 'anywhere' },
  { name: 'MaxRangeOverlaps', args: CHECKED, context: 'anywhere' },
  { name: 'MaxRangeReversals', args: CHECKED, context: 'anywhere' },
  { name: 'RLimitCPU', args: CHECKED, context: 'anywhere' },
  { name: 'RLimitMEM', args: CHECKED, context: 'anywhere' },
  { name: 'RLimitNPROC', args: CHECKED, context: 'anywhere' },
  { name: 'LimitInternalRecursion', args: CHECKED, context: 'virtualhost' },
  { name: 'CGIVar', args: CHECKED, context: 'anywhere' },
  { name: 'QualifyRedirectURL', args: CHECKED, context: 'anywhere' },
  { name: 'StrictHostCheck', args: CHECKED, context: 'virtualhost' },
  { name: 'ForceType', args: CHECKED, context: 'anywhere' },
  { name: 'SetHandler', args: CHECKED, context: 'anywhere' },
  { name: 'SetOutputFilter', args: CHECKED, context: 'anywhere' },
  { name: 'SetInputFilter', args: CHECKED, context: 'anywhere' },
  { name: 'AllowEncodedSlashes', args: CHECKED, context: 'virtualhost' },
  { name: 'ScoreBoardFile', args: CHECKED, context: 'server' },
  { name: 'ExtendedStatus', args: CHECKED, context: 'server' },
  { name: 'SeeRequestTail', args: CHECKED, context: 'server' },
  { name: 'PidFile', args: CHECKED, context: 'server' },
  { name: 'MaxRequestsPerChild', args: CHECKED, context: 'server' },
  { name: 'MaxConnectionsPerChild', args: CHECKED, context: 'server' },
  { name: 'CoreDumpDirectory', args: CHECKED, context: 'server' },
  { name: 'MaxMemFree', args: CHECKED, context: 'server' },
  { name: 'ThreadStackSize', args: CHECKED, context: 'server' },
  { name: 'TraceEnable', args: CHECKED, context: 'virtualhost' },
  { name: 'MergeTrailers', args: CHECKED, context: 'virtualhost' },
  { name: 'ProtocolsHonorOrder', args: CHECKED, context: 'virtualhost' },
  { name: 'MergeSlashes', args: CHECKED, context: 'virtualhost' },
  { name: 'LoadModule', args: CHECKED, context: 'anywhere' },
  { name: 'WatchdogInterval', args: CHECKED, context: 'server' },
  { name: 'KeepAliveTimeout', args: CHECKED, context: 'virtualhost' },
  { name: 'MaxKeepAliveRequests', args: CHECKED, context: 'virtualhost' },
  { name: 'KeepAlive', args: CHECKED, context: 'virtualhost' },
  { name: 'CustomLog', args: CHECKED, context: 'virtualhost' },
  { name: 'GlobalLog', args: CHECKED, context: 'server' },
  { name: 'TransferLog', args: CHECKED, context: 'virtualhost' },
  { name: 'LogFormat', args: CHECKED, context: 'virtualhost' },
  { name: 'BufferedLogs', args: CHECKED, context: 'virtualhost' },
  { name: 'LogIOTrackTTFB', args: CHECKED, context: 'anywhere' },
  { name: 'User', args: CHECKED, context: 'server' },
  { name: 'Group', args: CHECKED, context: 'server' },
  { name: 'ChrootDir', args: CHECKED, context: 'server' },
  { name: 'ListenBacklog', args: CHECKED, context: 'server' },
  { name: 'ListenCoresBucketsRatio', args: CHECKED, context: 'server' },
  { name: 'SendBufferSize', args: CHECKED, context: 'server' },
  { name: 'ReceiveBufferSize', args: CHECKED, context: 'server' },
  { name: 'ListenTCPDeferAccept', args: CHECKED, context: 'server' },
  { name: 'Listen', args: LISTEN, context: 'server' },
  { name: 'StartServers', args: CHECKED, context: 'server' },
  { name: 'MaxClients', args: CHECKED, context: 'server' },
  { name: 'MaxRequestWorkers', args: CHECKED, context: 'server' },
  { name: 'ServerLimit', args: CHECKED, context: 'server' },
  { name: 'GracefulShutdownTimeout', args: CHECKED, context: 'server' },
  { name: 'ThreadLimit', args: CHECKED, context: 'server', mpms: THREADED },
  { name: 'ThreadsPerChild', args: CHECKED, context: 'server', mpms: THREADED },
  { name: 'MinSpareThreads', args: CHECKED, context: 'server', mpms: THREADED },
  { name: 'MaxSpareThreads', args: CHECKED, context: 'server', mpms: THREADED },
  { name: 'AsyncRequestWorkerFactor', args: CHECKED, context: 'server', mpms: EVENT },
  { name: 'RewriteEngine', args: CHECKED, context: 'anywhere', module: 'rewrite_module' },
  { name: 'SSLEngine', args: CHECKED, context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLSessionCache', args: CHECKED, context: 'server', module: 'ssl_module' },
  { name: 'SSLSessionCacheTimeout', args: CHECKED, context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLUseStapling', args: CHECKED, context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLHonorCipherOrder', args: CHECKED, context: 'virtualhost', module: 'ssl_module' },
  { name: 'DirectorySlash', args: CHECKED, context: 'anywhere', module: 'dir_module' },
  { name: 'ExpiresActive', args: CHECKED, context: 'anywhere', module: 'expires_module' },
  { name: 'ExpiresDefault', args: CHECKED, context: 'anywhere', module: 'expires_module' },
  { name: 'ProxyRequests', args: CHECKED, context: 'virtualhost', module: 'proxy_module' },
  { name: 'ProxyPreserveHost', args: CHECKED, context: 'anywhere', module: 'proxy_module' },
  { name: 'ProxyTimeout', args: CHECKED, context: 'virtualhost', module: 'proxy_module' },
  { name: 'DeflateCompressionLevel', args: CHECKED, context: 'virtualhost', module: 'deflate_module' },
  { name: 'MinSpareServers', args: CHECKED, context: 'server', mpms: PREFORK },
  { name: 'MaxSpareServers', args: CHECKED, context: 'server', mpms: PREFORK },
  { name: 'Mutex', args: RAW, context: 'server' },
  { name: 'Options', args: { kind: 'raw', commentError: 'Illegal option {word}' }, context: 'anywhere' },
  // mod_access_compat registers these in lower case, and its messages say so.
  { name: 'order', args: CHECKED, context: 'directory', module: 'access_compat_module' },
  { name: 'allow', args: NO_COMMENTS, context: 'directory', module: 'access_compat_module' },
  { name: 'deny', args: NO_COMMENTS, context: 'directory', module: 'access_compat_module' },
  { name: 'Satisfy', args: CHECKED, context: 'directory', module: 'access_compat_module' },
];

const BY_NAME: ReadonlyMap<string, DirectiveSpec> = new Map(DIRECTIVES.map((spec) => [spec.name.toLowerCase(), spec]));

export function directiveSpec(lowerName: string): DirectiveSpec | undefined {
  return BY_NAME.get(lowerName);
}

/**
 * httpd's error for a directive given `given` arguments, or undefined when
 * the count is accepted (config.c `invoke_cmd`). FLAG directives only fail
 * on their first word, which `flagError` covers.
 */
export function argumentCountError(spec: DirectiveSpec, given: number, mpm: MpmName | undefined): string | undefined {
  const args = spec.args;
  if (args.kind === 'listen') return given >= 1 && given <= 2 ? undefined : 'Listen requires 1 or 2 arguments.';
  const check = args.kind === 'checked' ? argumentCheck(spec.name.toLowerCase()) : undefined;
  if (
    check === undefined ||
    check === 'FLAG' ||
    !refusesArguments(
      check,
      Array.from({ length: given }, () => 'x'),
    )
  )
    return undefined;
  return argumentsError(spec.name, check, mpm);
}

/** Whether httpd reads only On or Off as the first word (config.c `case FLAG`). */
export function isFlag(spec: DirectiveSpec): boolean {
  return spec.args.kind === 'checked' && argumentCheck(spec.name.toLowerCase()) === 'FLAG';
}

/** httpd's error for a word starting with `#`, for the directives that check their words themselves. */
export function commentError(spec: DirectiveSpec, word: string): string | undefined {
  return spec.args.kind === 'raw' ? spec.args.commentError?.replace('{word}', word) : undefined;
}

/** httpd's error when a FLAG directive's first word is not On or Off. */
export function flagError(spec: DirectiveSpec): string {
  return `${spec.name} must be On or Off`;
}

/**
 * Sections that give their contents a per-directory context, with the
 * spelling httpd uses in `X not allowed in <Directory> context`.
 */
export const DIRECTORY_SECTIONS: ReadonlyMap<string, string> = new Map(
  [
    'Directory',
    'DirectoryMatch',
    'Location',
    'LocationMatch',
    'Files',
    'FilesMatch',
    'If',
    'ElseIf',
    'Else',
    'Limit',
    'LimitExcept',
    'Proxy',
    'ProxyMatch',
  ].map((name) => [name.toLowerCase(), name]),
);

/**
 * httpd's error for a directive placed where it may not appear: `section` is
 * the innermost enclosing container (lower-case name), or undefined at server
 * level. Undefined when the placement is accepted.
 */
export function contextError(spec: DirectiveSpec, section: string | undefined): string | undefined {
  if (spec.context === 'anywhere') return undefined;
  const directoryType = section === undefined ? undefined : DIRECTORY_SECTIONS.get(section);
  if (spec.context === 'directory') {
    if (section === undefined) return `${spec.name} not allowed here`;
    return section === 'virtualhost' ? `${spec.name} not allowed in <VirtualHost> context` : undefined;
  }
  if (directoryType !== undefined) return `${spec.name} not allowed in <${directoryType}> context`;
  if (section === 'virtualhost' && spec.context === 'server') return `${spec.name} cannot occur within <VirtualHost> section`;
  return undefined;
}
