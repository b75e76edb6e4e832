import fc from 'fast-check';
import type { HostFacts } from '../../src/host/facts.js';
import type { Targets } from '../../src/core/targets.js';
import type { Seeds } from './seeds.js';

/** A JS string as the byte string of its UTF-8 encoding (one char per byte). */
function bytesOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

const NUMBERS = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map(String),
  fc.integer({ min: 0, max: 100_000 }).map(String),
  fc.constantFrom('0', '-1', '1e9', '99999999999999999999', '0x10', '15 ', 'abc', '', '150', '2500', '10000', '256', '5'),
);
const SIZES = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 4096 }), fc.constantFrom('', 'K', 'M', 'G', 'k', 'm', 'g', 'T', 'MB', '.5G', 'X'))
    .map(([n, unit]) => `${n}${unit}`),
  fc.constantFrom('1.5G', '512MB', '-1', '18446744073709551616', '0', '16M', '128M', '2G', ''),
);
const EOL = fc.constantFrom('\n', '\n', '\n', '\r\n', '\\\n', '', '\r');
const NOISE = fc.oneof(
  fc.string({ maxLength: 12 }).map(bytesOf),
  fc.string({ unit: 'binary', maxLength: 6 }).map(bytesOf),
  fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.constantFrom(
    '\0',
    '\ufeff',
    '\t',
    '"',
    "'",
    '\\',
    '#',
    '<',
    '>',
    '</',
    '${',
    '}',
    '[',
    ']',
    '!',
    '=',
    ';',
    bytesOf('é'),
    '\xe9',
    '\xc3',
    bytesOf('\u00a0'),
  ),
);

const MPM_DIRECTIVES = [
  'StartServers',
  'MinSpareServers',
  'MaxSpareServers',
  'MaxClients',
  'MaxRequestWorkers',
  'ServerLimit',
  'ThreadsPerChild',
  'ThreadLimit',
  'MinSpareThreads',
  'MaxSpareThreads',
  'MaxRequestsPerChild',
  'MaxConnectionsPerChild',
  'KeepAliveTimeout',
  'MaxKeepAliveRequests',
  'Timeout',
  'ListenBacklog',
  'AsyncRequestWorkerFactor',
];
const SECTIONS = [
  ['<IfModule mpm_prefork_module>', '</IfModule>'],
  ['<IfModule mpm_event_module>', '</IfModule>'],
  ['<IfModule mpm_worker_module>', '</IfModule>'],
  ['<IfModule !mod_php.c>', '</IfModule>'],
  ['<IfModule prefork.c>', '</IfModule>'],
  ['<IfDefine X>', '</IfDefine>'],
  ['<IfDefine !X>', '</IfDefine>'],
  ['<IfVersion >= 2.4>', '</IfVersion>'],
  ['<IfVersion ~ ^2\\.(2|4)>', '</IfVersion>'],
  ['<VirtualHost *:80>', '</VirtualHost>'],
  ['<Directory /var/www>', '</Directory>'],
  ['<Directory "/srv/${X}">', '</Directory>'],
  ['<Location />', '</Location>'],
  ['<IfFile conf.d>', '</IfFile>'],
  ['<IfDirective Foo>', '</IfDirective>'],
] as const;

const apacheLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...MPM_DIRECTIVES), NUMBERS).map(([name, value]) => `${name} ${value}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so',
      'LoadModule mpm_event_module modules/mod_mpm_event.so',
      'LoadModule mpm_worker_module modules/mod_mpm_worker.so',
      'LoadModule php_module modules/libphp.so',
      'LoadModule php7_module modules/libphp7.so',
      'LoadModule security2_module modules/mod_security2.so',
      'LoadModule deflate_module modules/mod_deflate.so',
      'KeepAlive On',
      'KeepAlive Off',
      'KeepAlive',
      'EnableSendfile On',
      'EnableMMAP On',
      'HostnameLookups On',
      'AllowOverride All',
      'AllowOverride None',
      'ServerName www.example.org',
      'ServerRoot ${X}',
      'ServerRoot .',
      'Define X conf.d',
      'Define X',
      'UnDefine X',
      'Define Y ${X}/a.conf',
      'Include conf.d/*.conf',
      'IncludeOptional conf.d/*.conf',
      'Include conf.d/a.conf',
      'Include ${Y}',
      'Include missing.conf',
      'IncludeOptional nowhere/*/x.conf',
      'Include',
      'Include conf.d',
      'Include conf.d/[ab].conf',
      'SetOutputFilter DEFLATE',
      'SecRuleEngine On',
      'DocumentRoot /var/www/html',
      'php_value memory_limit 256M',
      'MaxRequestWorkers 150 # trailing comment',
      'KeepAliveTimeout 5 #',
      '# tune-lint-disable-next-line',
      '# tune-lint-disable-next-line AP2001',
      '# tune-lint-disable AP4001',
      '# tune-lint-enable',
      '# a comment',
    ),
  },
  { weight: 1, arbitrary: NOISE },
);

/** Apache text: lines and sections nested a few levels, with noise, odd line endings, BOM and NUL. */
export const apacheText: fc.Arbitrary<string> = fc
  .letrec<{ block: string[] }>((tie) => ({
    block: fc
      .array(
        fc.oneof(
          { weight: 5, arbitrary: fc.tuple(apacheLine, EOL).map(([line, eol]) => [`${line}${eol}`]) },
          {
            weight: 1,
            arbitrary: fc
              .tuple(fc.constantFrom(...SECTIONS), tie('block'), fc.boolean(), EOL)
              .map(([[open, close], inner, closed, eol]) => [`${open}\n`, ...inner, closed ? `${close}${eol}` : '']),
          },
        ),
        { maxLength: 12, depthIdentifier: 'apache' },
      )
      .map((parts) => parts.flat()),
  }))
  .block.chain((lines) => fc.tuple(fc.constant(lines), fc.constantFrom('', '', '', '\xef\xbb\xbf', '  ')))
  .map(([lines, prefix]) => `${prefix}${lines.map((line) => (/[\u0100-\uffff]/.test(line) ? bytesOf(line) : line)).join('')}`);

const MYCNF_OPTIONS = [
  'max_connections',
  'max-connections',
  'max_user_connections',
  'innodb_buffer_pool_size',
  'innodb-buffer-pool-size',
  'key_buffer_size',
  'key_buffer',
  'query_cache_size',
  'query_cache_limit',
  'query_cache_type',
  'sort_buffer_size',
  'read_buffer_size',
  'join_buffer_size',
  'thread_cache_size',
  'table_open_cache',
  'table_cache',
  'tmp_table_size',
  'max_heap_table_size',
  'innodb_log_file_size',
  'thread_stack',
  'binlog_cache_size',
  'max_allowed_packet',
  'loose-max_connections',
  'maximum-max_connections',
  'max_conn',
  'innodb_buffer',
  'performance_schema',
  'skip-name-resolve',
  'skip_external_locking',
  'set-variable',
];

const mycnfLine: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...MYCNF_OPTIONS), fc.constantFrom('=', ' = ', '\t=\t', '='), fc.oneof(SIZES, NUMBERS))
      .map(([name, eq, value]) => `${name}${eq}${value}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '[mysqld]',
      '[mysqld]',
      '[mariadb]',
      '[server]',
      '[client]',
      '[mysqld-8.0]',
      '[mariadb-10.11]',
      '[ mysqld ]',
      '[mysqld',
      '[mysqld.1]',
      '[galera]',
      '[client-server]',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '!include conf.d/a.cnf',
      '!includedir conf.d',
      '!include missing.cnf',
      '!includedir nowhere',
      '!include',
      '!INCLUDE x',
      '!includedir',
      'set-variable=max_connections=15',
      'set-variable = query_cache_size=64M',
      'skip-name-resolve',
      'query_cache_type=1',
      'max_connections="1000"',
      "innodb_buffer_pool_size='1G'",
      'max_connections = 200 # comment',
      'max_connections=\\"x\\"',
      '# a comment',
      '; a comment',
      'key_buffer_size=16M ; not a comment',
      'max_connections=',
      '=1',
    ),
  },
  { weight: 1, arbitrary: NOISE },
);

/** my.cnf text: groups, options, includes and noise. */
export const mycnfText: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.tuple(mycnfLine, EOL), { maxLength: 24 }), fc.constantFrom('', '', '[mysqld]\n', '\xef\xbb\xbf[mysqld]\n'))
  .map(([lines, prefix]) => prefix + lines.map(([line, eol]) => `${line}${eol === '\\\n' ? '\n' : eol}`).join(''));

/** A seed with a few byte-level edits: insertions of tokens or noise, deletions, duplicated ranges. */
function mutated(seeds: readonly string[], tokens: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (seeds.length === 0) return fc.constant('');
  const edit = fc.tuple(
    fc.nat(),
    fc.nat(40),
    fc.oneof(
      tokens.map((t) => `${t}\n`),
      NOISE,
      fc.constant(''),
    ),
    fc.boolean(),
  );
  return fc.tuple(fc.integer({ min: 0, max: seeds.length - 1 }), fc.array(edit, { maxLength: 6 })).map(([index, edits]) => {
    let text = seeds[index] as string;
    for (const [at, remove, insert, duplicate] of edits) {
      const position = at % (text.length + 1);
      const inserted = duplicate ? text.slice(position, position + remove) : insert;
      text = text.slice(0, position) + inserted + text.slice(position + (duplicate ? 0 : remove));
    }
    return text;
  });
}

export const mutatedApache = (seeds: Seeds): fc.Arbitrary<string> => mutated(seeds.apache, apacheLine);
export const mutatedMycnf = (seeds: Seeds): fc.Arbitrary<string> => mutated(seeds.mycnf, mycnfLine);

const MIB = 1024 * 1024;

/** No facts, or some of RAM, CPUs and per-child memory (the sizing rules need RAM). */
export const hostFacts: fc.Arbitrary<HostFacts> = fc.oneof(
  fc.constant({}),
  fc.record(
    {
      ram: fc.integer({ min: 1, max: 256 * 1024 }).map((mib) => ({ value: mib * MIB, source: 'fuzz' })),
      cpus: fc.oneof(fc.integer({ min: 1, max: 128 }), fc.constantFrom(0.5, 1.5)).map((value) => ({ value, source: 'fuzz' })),
      perChild: fc
        .integer({ min: 1, max: 512 })
        .map((mib) => ({ value: { median: mib * MIB, max: mib * MIB * 2, count: 0, metric: 'rss' as const }, source: 'fuzz' })),
      mysqlRss: fc.integer({ min: 1, max: 64 * 1024 }).map((mib) => ({ value: mib * MIB, source: 'fuzz' })),
    },
    { requiredKeys: ['ram'] },
  ),
);

export const targets: fc.Arbitrary<Targets> = fc.record({
  httpd: fc.constantFrom('2.4', '2.2', '2.4.62', '2.4.29'),
  db: fc.constantFrom(
    { product: 'mariadb' as const, version: '10.11' },
    { product: 'mariadb' as const, version: '11.4' },
    { product: 'mysql' as const, version: '8.0' },
    { product: 'mysql' as const, version: '5.7' },
    { product: 'mysql' as const, version: '5.5' },
  ),
});
