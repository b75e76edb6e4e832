import { defineRule } from '../../src/engine/define-rule.js';
import type { TextEdit } from '../../src/engine/types.js';
import { directiveCount } from '../../src/languages/apache/blocks.js';
import type { ApacheConfig, ConditionalEvaluation } from '../../src/languages/apache/model.js';
import { DEBIAN_STATIC_MODULES, moduleSourceName } from '../../src/languages/apache/names.js';

/** The modules that ship with httpd 2.4 as shared objects (Debian's apache2 2.4.71 `/usr/lib/apache2/modules`), without `_module`. */
const HTTPD_MODULES =
  `access_compat actions alias allowmethods asis auth_basic auth_digest auth_form authn_anon authn_core authn_dbd authn_dbm
authn_file authn_socache authnz_fcgi authnz_ldap authz_core authz_dbd authz_dbm authz_groupfile authz_host authz_owner authz_user autoindex
brotli bucketeer buffer cache cache_disk cache_socache case_filter case_filter_in cern_meta cgi cgid charset_lite data dav dav_fs dav_lock
dbd deflate dialup dir dumpio echo env expires ext_filter file_cache filter headers heartbeat heartmonitor http2 ident imagemap include info
lbmethod_bybusyness lbmethod_byrequests lbmethod_bytraffic lbmethod_heartbeat ldap log_debug log_forensic lua macro md mime mime_magic
mpm_event mpm_prefork mpm_worker negotiation proxy proxy_ajp proxy_balancer proxy_connect proxy_express proxy_fcgi proxy_fdpass proxy_ftp
proxy_hcheck proxy_html proxy_http proxy_http2 proxy_scgi proxy_uwsgi proxy_wstunnel ratelimit reflector remoteip reqtimeout request rewrite
sed session session_cookie session_crypto session_dbd setenvif slotmem_plain slotmem_shm socache_dbm socache_memcache socache_redis
socache_shmcb speling ssl status substitute suexec unique_id userdir usertrack vhost_alias xml2enc`
    .split(/\s+/)
    .map((name) => `${name}_module`);

export default defineRule('apache', {
  meta: {
    id: 'AP1006',
    name: 'ifmodule-unknown-name',
    category: 'correctness',
    description: '<IfModule> names a module in a form httpd never matches, so the block is always skipped (or, negated, always applied)',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      neverMatches: {
        message: '<IfModule {{written}}> never matches, so the block is always {{effect}}; expected <IfModule {{suggested}}>',
        detail: 'httpd compares the name, case-sensitively, with module identifiers ({{identifier}}) and source file names ({{source}})',
      },
      neverMatchesLive: {
        message:
          '<IfModule {{written}}> never matches, so the block is always {{effect}}; expected <IfModule {{suggested}}>, after a review of the block',
        detail:
          'httpd compares the name, case-sensitively, with module identifiers ({{identifier}}) and source file names ({{source}}); since {{identifier}} is loaded, the right name makes httpd {{change}} its {{lines}}',
      },
      neverMatchesUnknown: {
        message:
          '<IfModule {{written}}> never matches, so the block is always {{effect}}; expected <IfModule {{suggested}}> or the source name of the module',
        detail: 'httpd compares the name, case-sensitively, with module identifiers (x_module) and source file names (mod_x.c)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const known = knownNames(apache);
        for (const evaluation of apache.conditionals) {
          if (evaluation.section.name !== 'ifmodule' || evaluation.subject === '') continue;
          const subject = evaluation.subject;
          if (known.has(subject)) continue;
          const suggestion = suggest(subject, known);
          if (suggestion === undefined) continue;
          const negation = evaluation.negated ? '!' : '';
          const data = {
            written: `${negation}${subject}`,
            suggested: `${negation}${suggestion.name}`,
            effect: evaluation.negated ? 'applied' : 'skipped',
          };
          if (suggestion.identifier === undefined) {
            ctx.report({ at: evaluation.section, messageId: 'neverMatchesUnknown', data });
            continue;
          }
          const identifier = suggestion.identifier;
          const names = { ...data, identifier, source: moduleSourceName(identifier, apache.modules.get(identifier)?.path) };
          const loaded = loadedBefore(apache, identifier, evaluation.section.order);
          const resultAfter = evaluation.negated ? !loaded : loaded;
          if (resultAfter === evaluation.result) {
            ctx.report({
              at: evaluation.section,
              messageId: 'neverMatches',
              data: names,
              fix: () => renameSubject(evaluation, suggestion.name),
            });
          } else {
            // The right name would switch the block on (or off): that is a change of behaviour to review, not a safe fix.
            ctx.report({
              at: evaluation.section,
              messageId: 'neverMatchesLive',
              data: { ...names, change: resultAfter ? 'apply' : 'skip', lines: directiveCount(evaluation.section.node.children) },
            });
          }
        }
      },
    };
  },
});

/** Identifiers and source names httpd can match: what this config loads, what is compiled in, and httpd's own modules. */
function knownNames(apache: ApacheConfig): Map<string, string> {
  if (httpdNames === undefined) {
    httpdNames = new Map<string, string>();
    for (const identifier of [...DEBIAN_STATIC_MODULES, ...HTTPD_MODULES]) addNames(httpdNames, identifier);
  }
  const known = new Map(httpdNames);
  for (const module of apache.modules.values()) addNames(known, module.identifier, module.path);
  return known;
}

/** The names of httpd's own and the compiled-in modules, made once: every config and every fix pass starts from them. */
let httpdNames: Map<string, string> | undefined;

function addNames(known: Map<string, string>, identifier: string, path?: string): void {
  known.set(identifier, identifier);
  known.set(moduleSourceName(identifier, path), identifier);
}

/**
 * The name the writer meant, when the written one can never match: a case
 * variant of a known name, an MPM written as `mod_mpm_event.c`, a shared
 * object file name, `x_module.c`, or a bare `mod_x`/`x`. Names of the right
 * shape that are simply not loaded (optional modules) give undefined.
 */
function suggest(subject: string, known: ReadonlyMap<string, string>): { name: string; identifier: string | undefined } | undefined {
  const lower = subject.toLowerCase();
  const exact = known.get(lower);
  if (exact !== undefined && lower !== subject) return { name: lower, identifier: exact };
  const mpm = /^mod_(mpm_(?:prefork|worker|event))\.c$/.exec(lower);
  if (mpm !== null) return { name: `${mpm[1] as string}_module`, identifier: `${mpm[1] as string}_module` };
  let base: string | undefined;
  if (lower.endsWith('.so')) base = lower.slice(0, -3).replace(/^mod_/, '');
  else if (lower.endsWith('_module.c')) base = lower.slice(0, -9);
  else if (!lower.endsWith('.c') && !lower.endsWith('_module')) base = lower.replace(/^mod_/, '');
  if (base === undefined || base === '') return undefined;
  const name = `${base}_module`;
  return { name, identifier: known.get(name) };
}

function loadedBefore(apache: ApacheConfig, identifier: string, order: number): boolean {
  const module = apache.modules.get(identifier);
  return module !== undefined && (module.use === undefined || module.use.order < order);
}

/** Replaces the tested name in `<IfModule [!]name>`, keeping the `!` and any quotes. */
function renameSubject(evaluation: ConditionalEvaluation, name: string): TextEdit | null {
  const section = evaluation.section;
  if (section.node.argsText.includes('${')) return null;
  const args = section.node.args;
  const index = args[0]?.value === '!' ? 1 : 0;
  const arg = args[index];
  if (arg === undefined || section.file.slice(arg.range).includes('\n')) return null;
  const value = arg.value.startsWith('!') ? `!${name}` : name;
  const quote = arg.quote ?? '';
  return { file: section.file, range: arg.range, text: `${quote}${value}${arg.unterminated ? '' : quote}` };
}
