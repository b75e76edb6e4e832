import type { MpmName } from './names.js';

/**
 * What httpd 2.4 knows about the directives tune-lint reasons about: how many
 * arguments each takes, whether it is a FLAG (httpd reads the first word and
 * ignores the rest), where it may appear, and which MPM registers it.
 * Every entry was read from Debian's apache2 2.4.71 (`apache2 -L`, and `-t`
 * on each directive with too many arguments and inside `<VirtualHost>` and
 * `<Directory>`); test/apache-rules-oracle.test.ts checks them all against
 * the installed binary. The help texts are httpd's own, because its
 * argument-count error quotes them.
 */

export type ArgumentShape =
  /** `On` or `Off` (any case) as the first word; further words are ignored (config.c `case FLAG`). */
  | { readonly kind: 'flag' }
  /** TAKE1, TAKE2, TAKE12, TAKE23: a fixed range, else `<Name> takes one argument, <help>`. */
  | { readonly kind: 'count'; readonly min: number; readonly max: number; readonly help: string | { readonly prefork: string; readonly threaded: string } }
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
export type DirectiveContext = 'server' | 'virtualhost' | 'anywhere' | 'directory';

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

const FLAG: ArgumentShape = { kind: 'flag' };
const LISTEN: ArgumentShape = { kind: 'listen' };
const RAW: ArgumentShape = { kind: 'raw' };
const NO_COMMENTS: ArgumentShape = { kind: 'raw', commentError: 'No comments are allowed here' };
const PREFORK: readonly MpmName[] = ['prefork'];
const THREADED: readonly MpmName[] = ['worker', 'event'];
const EVENT: readonly MpmName[] = ['event'];

function count(min: number, max: number, help: string | { readonly prefork: string; readonly threaded: string }): ArgumentShape {
  return { kind: 'count', min, max, help };
}

/** Every directive in the table, in `apache2 -L` order. */
export const DIRECTIVES: readonly DirectiveSpec[] = [
  { name: 'AddDefaultCharset', args: count(1, 1, 'The name of the default charset to add to any Content-Type without one or \'Off\' to disable'), context: 'anywhere' },
  { name: 'AcceptPathInfo', args: count(1, 1, 'Set to on or off for PATH_INFO to be accepted by handlers, or default for the per-handler preference'), context: 'anywhere' },
  { name: 'Define', args: count(1, 2, 'Define a variable, optionally to a value.  Same as passing -D to the command line.'), context: 'anywhere' },
  { name: 'UnDefine', args: count(1, 1, 'Undefine the existence of a variable. Undo a Define.'), context: 'anywhere' },
  { name: 'DocumentRoot', args: count(1, 1, 'Root directory of the document tree'), context: 'virtualhost' },
  { name: 'ErrorDocument', args: count(2, 2, 'Change responses for HTTP errors'), context: 'anywhere' },
  { name: 'DefaultType', args: count(1, 1, 'the default media type for otherwise untyped files (DEPRECATED)'), context: 'anywhere' },
  { name: 'EnableMMAP', args: count(1, 1, 'Controls whether memory-mapping may be used to read files'), context: 'anywhere' },
  { name: 'EnableSendfile', args: count(1, 1, 'Controls whether sendfile may be used to transmit files'), context: 'anywhere' },
  { name: 'ReadBufferSize', args: count(1, 1, 'Size (in bytes) of the memory buffers used to read data'), context: 'anywhere' },
  { name: 'FlushMaxThreshold', args: count(1, 1, 'Maximum threshold above which pending data are flushed to the network'), context: 'virtualhost' },
  { name: 'FlushMaxPipelined', args: count(1, 1, 'Maximum number of pipelined responses (pending) above which they are flushed to the network'), context: 'virtualhost' },
  { name: 'Protocol', args: count(1, 1, 'Set the Protocol for httpd to use.'), context: 'virtualhost' },
  { name: 'AcceptFilter', args: count(2, 2, 'Set the Accept Filter to use for a protocol'), context: 'server' },
  { name: 'HostnameLookups', args: count(1, 1, '"on" to enable, "off" to disable reverse DNS lookups, or "double" to enable double-reverse DNS lookups'), context: 'anywhere' },
  { name: 'ServerAdmin', args: count(1, 1, 'The email address of the server administrator'), context: 'virtualhost' },
  { name: 'ServerName', args: count(1, 1, 'The hostname and port of the server'), context: 'virtualhost' },
  { name: 'ServerSignature', args: count(1, 1, 'En-/disable server signature (on|off|email)'), context: 'anywhere' },
  { name: 'DefaultRuntimeDir', args: count(1, 1, 'Common directory for run-time files (shared memory, locks, etc.)'), context: 'anywhere' },
  { name: 'ErrorLog', args: count(1, 1, 'The filename of the error log'), context: 'virtualhost' },
  { name: 'ErrorLogFormat', args: count(1, 2, 'Format string for the ErrorLog'), context: 'virtualhost' },
  { name: 'Timeout', args: count(1, 1, 'Timeout duration (sec)'), context: 'virtualhost' },
  { name: 'ContentDigest', args: FLAG, context: 'anywhere' },
  { name: 'UseCanonicalName', args: count(1, 1, 'How to work out the ServerName : Port when constructing URLs'), context: 'anywhere' },
  { name: 'UseCanonicalPhysicalPort', args: count(1, 1, 'Whether to use the physical Port when constructing URLs'), context: 'anywhere' },
  { name: 'Include', args: count(1, 1, 'Name(s) of the config file(s) to be included; fails if the wildcard does not match at least one file'), context: 'anywhere' },
  { name: 'IncludeOptional', args: count(1, 1, 'Name or pattern of the config file(s) to be included; ignored if the file does not exist or the pattern does not match any files'), context: 'anywhere' },
  { name: 'NameVirtualHost', args: count(1, 1, 'A numeric IP address:port, or the name of a host'), context: 'virtualhost' },
  { name: 'ServerTokens', args: count(1, 1, 'Determine tokens displayed in the Server: header - Min(imal), Major, Minor, Prod(uctOnly), OS, or Full'), context: 'server' },
  { name: 'LimitRequestLine', args: count(1, 1, 'Limit on maximum size of an HTTP request line'), context: 'virtualhost' },
  { name: 'LimitRequestFieldsize', args: count(1, 1, 'Limit on maximum size of an HTTP request header field'), context: 'virtualhost' },
  { name: 'LimitRequestFields', args: count(1, 1, 'Limit (0 = unlimited) on max number of header fields in a request message'), context: 'virtualhost' },
  { name: 'LimitRequestBody', args: count(1, 1, 'Limit (in bytes) on maximum size of request message body'), context: 'anywhere' },
  { name: 'LimitXMLRequestBody', args: count(1, 1, 'Limit (in bytes) on maximum size of an XML-based request body'), context: 'anywhere' },
  { name: 'MaxRanges', args: count(1, 1, 'Maximum number of Ranges in a request before returning the entire resource, or 0 for unlimited'), context: 'anywhere' },
  { name: 'MaxRangeOverlaps', args: count(1, 1, 'Maximum number of overlaps in Ranges in a request before returning the entire resource, or 0 for unlimited'), context: 'anywhere' },
  { name: 'MaxRangeReversals', args: count(1, 1, 'Maximum number of reversals in Ranges in a request before returning the entire resource, or 0 for unlimited'), context: 'anywhere' },
  { name: 'RLimitCPU', args: count(1, 2, 'Soft/hard limits for max CPU usage in seconds'), context: 'anywhere' },
  { name: 'RLimitMEM', args: count(1, 2, 'Soft/hard limits for max memory usage per process'), context: 'anywhere' },
  { name: 'RLimitNPROC', args: count(1, 2, 'soft/hard limits for max number of processes per uid'), context: 'anywhere' },
  { name: 'LimitInternalRecursion', args: count(1, 2, 'maximum recursion depth of internal redirects and subrequests'), context: 'virtualhost' },
  { name: 'CGIVar', args: count(2, 2, 'Controls how some CGI variables are set'), context: 'anywhere' },
  { name: 'QualifyRedirectURL', args: FLAG, context: 'anywhere' },
  { name: 'StrictHostCheck', args: FLAG, context: 'virtualhost' },
  { name: 'ForceType', args: count(1, 1, 'a mime type that overrides other configured type'), context: 'anywhere' },
  { name: 'SetHandler', args: count(1, 1, 'a handler name that overrides any other configured handler'), context: 'anywhere' },
  { name: 'SetOutputFilter', args: count(1, 1, 'filter (or ; delimited list of filters) to be run on the request content'), context: 'anywhere' },
  { name: 'SetInputFilter', args: count(1, 1, 'filter (or ; delimited list of filters) to be run on the request body'), context: 'anywhere' },
  { name: 'AllowEncodedSlashes', args: count(1, 1, 'Allow URLs containing \'/\' encoded as \'%2F\''), context: 'virtualhost' },
  { name: 'ScoreBoardFile', args: count(1, 1, 'A file for Apache to maintain runtime process management information'), context: 'server' },
  { name: 'ExtendedStatus', args: FLAG, context: 'server' },
  { name: 'SeeRequestTail', args: FLAG, context: 'server' },
  { name: 'PidFile', args: count(1, 1, 'A file for logging the server process ID'), context: 'server' },
  { name: 'MaxRequestsPerChild', args: count(1, 1, 'Maximum number of connections a particular child serves before dying. (DEPRECATED, use MaxConnectionsPerChild)'), context: 'server' },
  { name: 'MaxConnectionsPerChild', args: count(1, 1, 'Maximum number of connections a particular child serves before dying.'), context: 'server' },
  { name: 'CoreDumpDirectory', args: count(1, 1, 'The location of the directory Apache changes to before dumping core'), context: 'server' },
  { name: 'MaxMemFree', args: count(1, 1, 'Maximum number of 1k blocks a particular child\'s allocator may hold.'), context: 'server' },
  { name: 'ThreadStackSize', args: count(1, 1, 'Size in bytes of stack used by threads handling client connections'), context: 'server' },
  { name: 'TraceEnable', args: count(1, 1, '\'on\' (default), \'off\' or \'extended\' to trace request body content'), context: 'virtualhost' },
  { name: 'MergeTrailers', args: FLAG, context: 'virtualhost' },
  { name: 'ProtocolsHonorOrder', args: count(1, 1, '\'off\' (default) or \'on\' to respect given order of protocols, by default the client specified order determines selection'), context: 'virtualhost' },
  { name: 'MergeSlashes', args: FLAG, context: 'virtualhost' },
  { name: 'LoadModule', args: count(2, 2, 'a module name and the name of a shared object file to load it from'), context: 'anywhere' },
  { name: 'WatchdogInterval', args: count(1, 1, 'Watchdog interval in seconds'), context: 'server' },
  { name: 'KeepAliveTimeout', args: count(1, 1, 'Keep-Alive timeout duration (sec)'), context: 'virtualhost' },
  { name: 'MaxKeepAliveRequests', args: count(1, 1, 'Maximum number of Keep-Alive requests per connection, or 0 for infinite'), context: 'virtualhost' },
  { name: 'KeepAlive', args: FLAG, context: 'virtualhost' },
  { name: 'CustomLog', args: count(2, 3, 'a file name, a custom log format string or format name, and an optional "env=" or "expr=" clause (see docs)'), context: 'virtualhost' },
  { name: 'GlobalLog', args: count(2, 3, 'Same as CustomLog, but forces virtualhosts to inherit the log'), context: 'server' },
  { name: 'TransferLog', args: count(1, 1, 'the filename of the access log'), context: 'virtualhost' },
  { name: 'LogFormat', args: count(1, 2, 'a log format string (see docs) and an optional format name'), context: 'virtualhost' },
  { name: 'BufferedLogs', args: FLAG, context: 'virtualhost' },
  { name: 'LogIOTrackTTFB', args: FLAG, context: 'anywhere' },
  { name: 'User', args: count(1, 1, 'Effective user id for this server'), context: 'server' },
  { name: 'Group', args: count(1, 1, 'Effective group id for this server'), context: 'server' },
  { name: 'ChrootDir', args: count(1, 1, 'The directory to chroot(2) into'), context: 'server' },
  { name: 'ListenBacklog', args: count(1, 1, 'Maximum length of the queue of pending connections, as used by listen(2)'), context: 'server' },
  { name: 'ListenCoresBucketsRatio', args: count(1, 1, 'Ratio between the number of CPU cores (online) and the number of listeners buckets'), context: 'server' },
  { name: 'SendBufferSize', args: count(1, 1, 'Send buffer size in bytes'), context: 'server' },
  { name: 'ReceiveBufferSize', args: count(1, 1, 'Receive buffer size in bytes'), context: 'server' },
  { name: 'ListenTCPDeferAccept', args: count(1, 1, 'Value set for the socket option TCP_DEFER_ACCEPT if it is set'), context: 'server' },
  { name: 'Listen', args: LISTEN, context: 'server' },
  { name: 'StartServers', args: count(1, 1, 'Number of child processes launched at server startup'), context: 'server' },
  { name: 'MaxClients', args: count(1, 1, 'Deprecated name of MaxRequestWorkers'), context: 'server' },
  { name: 'MaxRequestWorkers', args: count(1, 1, { prefork: 'Maximum number of children alive at the same time', threaded: 'Maximum number of threads alive at the same time' }), context: 'server' },
  { name: 'ServerLimit', args: count(1, 1, { prefork: 'Maximum value of MaxRequestWorkers for this run of Apache', threaded: 'Maximum number of child processes for this run of Apache' }), context: 'server' },
  { name: 'GracefulShutdownTimeout', args: count(1, 1, 'Maximum time in seconds to wait for child processes to complete transactions during shutdown'), context: 'server' },
  { name: 'ThreadLimit', args: count(1, 1, 'Maximum number of worker threads per child process for this run of Apache - Upper limit for ThreadsPerChild'), context: 'server', mpms: THREADED },
  { name: 'ThreadsPerChild', args: count(1, 1, 'Number of threads each child creates'), context: 'server', mpms: THREADED },
  { name: 'MinSpareThreads', args: count(1, 1, 'Minimum number of idle threads, to handle request spikes'), context: 'server', mpms: THREADED },
  { name: 'MaxSpareThreads', args: count(1, 1, 'Maximum number of idle threads'), context: 'server', mpms: THREADED },
  { name: 'AsyncRequestWorkerFactor', args: count(1, 1, 'How many additional connects will be accepted per idle worker thread'), context: 'server', mpms: EVENT },
  { name: 'RewriteEngine', args: FLAG, context: 'anywhere', module: 'rewrite_module' },
  { name: 'SSLEngine', args: count(1, 1, 'SSL switch for the protocol engine (\'on\', \'off\')'), context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLSessionCache', args: count(1, 1, 'SSL Session Cache storage (\'none\', \'nonenotnull\', \'dbm:/path/to/file\')'), context: 'server', module: 'ssl_module' },
  { name: 'SSLSessionCacheTimeout', args: count(1, 1, 'SSL Session Cache object lifetime (\'N\' - number of seconds)'), context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLUseStapling', args: FLAG, context: 'virtualhost', module: 'ssl_module' },
  { name: 'SSLHonorCipherOrder', args: FLAG, context: 'virtualhost', module: 'ssl_module' },
  { name: 'DirectorySlash', args: FLAG, context: 'anywhere', module: 'dir_module' },
  { name: 'ExpiresActive', args: FLAG, context: 'anywhere', module: 'expires_module' },
  { name: 'ExpiresDefault', args: count(1, 1, 'an expiry date code'), context: 'anywhere', module: 'expires_module' },
  { name: 'ProxyRequests', args: FLAG, context: 'virtualhost', module: 'proxy_module' },
  { name: 'ProxyPreserveHost', args: FLAG, context: 'anywhere', module: 'proxy_module' },
  { name: 'ProxyTimeout', args: count(1, 1, 'Set the timeout (in seconds) for a proxied connection. This overrides the server timeout'), context: 'virtualhost', module: 'proxy_module' },
  { name: 'DeflateCompressionLevel', args: count(1, 1, 'Set the Deflate Compression Level (1-9)'), context: 'virtualhost', module: 'deflate_module' },
  { name: 'MinSpareServers', args: count(1, 1, 'Minimum number of idle children, to handle request spikes'), context: 'server', mpms: PREFORK },
  { name: 'MaxSpareServers', args: count(1, 1, 'Maximum number of idle children'), context: 'server', mpms: PREFORK },
  { name: 'Mutex', args: RAW, context: 'server' },
  { name: 'Options', args: { kind: 'raw', commentError: 'Illegal option {word}' }, context: 'anywhere' },
  // mod_access_compat registers these in lower case, and its messages say so.
  { name: 'order', args: count(1, 1, "'allow,deny', 'deny,allow', or 'mutual-failure'"), context: 'directory', module: 'access_compat_module' },
  { name: 'allow', args: NO_COMMENTS, context: 'directory', module: 'access_compat_module' },
  { name: 'deny', args: NO_COMMENTS, context: 'directory', module: 'access_compat_module' },
  { name: 'Satisfy', args: count(1, 1, "access policy if both allow and require used ('all' or 'any')"), context: 'directory', module: 'access_compat_module' },
];

const BY_NAME: ReadonlyMap<string, DirectiveSpec> = new Map(DIRECTIVES.map((spec) => [spec.name.toLowerCase(), spec]));

export function directiveSpec(lowerName: string): DirectiveSpec | undefined {
  return BY_NAME.get(lowerName);
}

const COUNT_WORDS: Readonly<Record<string, string>> = {
  '1-1': 'takes one argument',
  '2-2': 'takes two arguments',
  '1-2': 'takes 1-2 arguments',
  '2-3': 'takes two or three arguments',
};

/**
 * httpd's error for a directive given `given` arguments, or undefined when
 * the count is accepted (config.c `invoke_cmd`). FLAG directives only fail
 * on their first word, which `flagError` covers.
 */
export function argumentCountError(spec: DirectiveSpec, given: number, mpm: MpmName | undefined): string | undefined {
  const args = spec.args;
  if (args.kind === 'listen') return given >= 1 && given <= 2 ? undefined : 'Listen requires 1 or 2 arguments.';
  if (args.kind !== 'count' || (given >= args.min && given <= args.max)) return undefined;
  const help = typeof args.help === 'string' ? args.help : mpm === 'prefork' ? args.help.prefork : args.help.threaded;
  return `${spec.name} ${COUNT_WORDS[`${args.min}-${args.max}`] ?? `takes ${args.min}-${args.max} arguments`}, ${help}`;
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
  ['Directory', 'DirectoryMatch', 'Location', 'LocationMatch', 'Files', 'FilesMatch', 'If', 'ElseIf', 'Else', 'Limit', 'LimitExcept', 'Proxy', 'ProxyMatch'].map(
    (name) => [name.toLowerCase(), name],
  ),
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
