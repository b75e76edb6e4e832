import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { inCaseOf, removeApacheLine } from '../../src/languages/apache/edits.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';

const OLD_STYLE = ['order', 'allow', 'deny', 'satisfy'];

export default defineRule('apache', {
  meta: {
    id: 'AP4002',
    name: 'access-control-22',
    category: 'deprecation',
    description:
      'Order, Allow, Deny and Satisfy are httpd 2.2 access control: unknown without mod_access_compat, and unpredictable mixed with Require',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      noCompat: {
        message: '{{written}} needs mod_access_compat, which is not loaded, so httpd refuses to start; expected {{expected}}',
        detail:
          'httpd 2.2 access control: "Invalid command \'{{name}}\', perhaps misspelled or defined by a module not included in the server configuration"',
      },
      fragment: {
        message: '{{written}} is httpd 2.2 access control, which 2.4 runs only with mod_access_compat; expected {{expected}}',
        detail:
          'this file is linted alone ({{reason}}): whether the main config loads mod_access_compat is not known; without it httpd refuses to start ("Invalid command \'{{name}}\'")',
      },
      mixed: {
        message: '{{written}} is mixed with Require ({{requireAt}}); expected Require only',
        detail:
          'httpd evaluates mod_access_compat and Require both and combines them, which the 2.4 upgrading guide warns gives unexpected results',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    return {
      end() {
        const old = OLD_STYLE.flatMap((name) => apache.named(name)).sort((a, b) => a.order - b.order);
        if (old.length === 0) return;
        // Unknown commands are found after the whole configuration is read, so a LoadModule anywhere counts.
        if (!apache.hasModule('access_compat_module')) {
          for (const use of old) {
            const pair = classicPair(apache, use);
            const fragment = apache.fragment;
            ctx.report({
              at: use,
              ...(fragment === undefined ? { messageId: 'noCompat' } : { messageId: 'fragment', severity: 'warn' }),
              data: {
                written: `${use.node.name} ${use.argsText}`,
                name: use.node.name,
                reason: fragment ?? '',
                expected:
                  pair === undefined
                    ? 'its Require equivalent from mod_authz_core and mod_authz_host (Require all granted, Require ip ..., Require host ...)'
                    : `Require all ${pair.grant ? 'granted' : 'denied'} in place of this Order/${pair.access.node.name} pair`,
              },
              ...(pair === undefined ? {} : { fix: () => replacePair(pair) }),
            });
          }
          return;
        }
        const require = apache.named('require')[0];
        if (require === undefined) return;
        const requireAt = `${require.file.displayPath}:${require.file.position(require.range[0]).line}`;
        for (const use of old) {
          ctx.report({ at: use, messageId: 'mixed', severity: 'warn', data: { written: `${use.node.name} ${use.argsText}`, requireAt } });
        }
      },
    };
  },
});

interface ClassicPair {
  readonly order: ApacheDirectiveUse;
  readonly access: ApacheDirectiveUse;
  readonly grant: boolean;
}

/**
 * `Order allow,deny` + `Allow from all` (everyone allowed) or `Order
 * deny,allow` + `Deny from all` (everyone denied), alone in their section:
 * no other access or authentication directive there or around it whose
 * combination with the new Require would change the outcome.
 */
function classicPair(apache: ApacheConfig, use: ApacheDirectiveUse): ClassicPair | undefined {
  const section = apache.container(use);
  if (section === undefined) return undefined;
  const inSection = apache.uses.filter((candidate) => apache.container(candidate) === section);
  const old = inSection.filter((candidate) => OLD_STYLE.includes(candidate.name));
  const order = old.find((candidate) => candidate.name === 'order');
  const access = old.find((candidate) => candidate.name !== 'order');
  if (old.length !== 2 || order === undefined || access === undefined || access.name === 'satisfy') return undefined;
  if (!fromAll(access)) return undefined;
  const policy = order.args.length === 1 ? (order.args[0] as string).toLowerCase() : '';
  const grant =
    policy === 'allow,deny' && access.name === 'allow' ? true : policy === 'deny,allow' && access.name === 'deny' ? false : undefined;
  if (grant === undefined) return undefined;
  const scopes = [section, ...ancestors(section)];
  const authorized = apache.uses.some(
    (candidate) => isAuthorization(candidate) && scopes.includes(apache.container(candidate) as ApacheSectionUse),
  );
  const guarded = apache.sections.some((inner) => AUTHORIZATION_SECTIONS.test(inner.name) && apache.container(inner) === section);
  if (authorized || guarded) return undefined;
  return { order, access, grant };
}

function fromAll(use: ApacheDirectiveUse): boolean {
  return use.args.length === 2 && (use.args[0] as string).toLowerCase() === 'from' && (use.args[1] as string).toLowerCase() === 'all';
}

/** Directives whose combination with a new Require would change who gets in. */
function isAuthorization(use: ApacheDirectiveUse): boolean {
  return use.name === 'require' || use.name.startsWith('auth');
}

const AUTHORIZATION_SECTIONS = /^(requireall|requireany|requirenone|limit|limitexcept)$/;

function ancestors(section: ApacheSectionUse): ApacheSectionUse[] {
  const chain: ApacheSectionUse[] = [];
  for (let parent = section.parent; parent !== undefined; parent = parent.parent) if (!parent.conditional) chain.push(parent);
  return chain;
}

/** The first line of the pair becomes `Require all granted|denied`, with its indentation; the other goes. */
function replacePair(pair: ClassicPair): TextEdit[] | null {
  const [first, second] = pair.order.order < pair.access.order ? [pair.order, pair.access] : [pair.access, pair.order];
  if ([first, second].some((use) => use.variables.length > 0 || use.node.line.physicalLines > 1)) return null;
  const text = `${inCaseOf(first.node.name, 'Require')} all ${pair.grant ? 'granted' : 'denied'}`;
  return [{ file: first.file, range: first.node.line.content, text }, removeApacheLine(second)];
}
