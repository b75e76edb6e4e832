import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { accountName, lineOrTop, someOf } from './support/runtime.js';

/** MySQL 8.0.34 deprecated mysql_native_password; 8.4 loads it only on request and 9.0 removed it. */
const NATIVE_DEPRECATED = [8, 0, 34];

function atLeast(version: string, wanted: readonly number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let index = 0; index < wanted.length; index++) {
    const have = parts[index] ?? 0;
    const want = wanted[index] ?? 0;
    if (have !== want) return have > want;
  }
  return true;
}

export default defineRule('mycnf', {
  meta: {
    id: 'MY3004',
    name: 'weak-auth-plugin',
    category: 'security',
    description: 'Accounts of the running server log in with an authentication plugin it has better than',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      oldPassword: {
        message:
          '{{accounts}} {{verb}} in with mysql_old_password; expected a current plugin: ALTER USER {{first}} IDENTIFIED BY <new password>',
        detail:
          'mysql_old_password is the hash of MySQL before 4.1: 16 hex digits, cracked in seconds from a captured handshake; MariaDB still accepts it, MySQL 5.7 and later refuse it ({{source}})',
      },
      native: {
        message:
          '{{accounts}} {{verb}} in with mysql_native_password, deprecated on MySQL {{version}}; expected caching_sha2_password: ALTER USER {{first}} IDENTIFIED WITH caching_sha2_password BY <new password>',
        detail:
          'MySQL deprecated mysql_native_password in 8.0.34 (an unsalted SHA1), loads it in 8.4 only with mysql_native_password=ON and removed it in 9.0: these accounts stop logging in on the upgrade ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const accounts = fact?.value.accounts?.filter((account) => !account.locked) ?? [];
        if (fact === undefined || accounts.length === 0) return;
        const [product, version = ''] = fact.value.server.split('=');
        const report = (messageId: 'oldPassword' | 'native', chosen: typeof accounts): void => {
          if (chosen.length === 0) return;
          const names = chosen.map(accountName);
          ctx.report({
            at: lineOrTop(ctx.config, 'bind_address'),
            messageId,
            data: {
              accounts: `${chosen.length === 1 ? 'account' : `${chosen.length} accounts:`} ${someOf(names)}`,
              verb: chosen.length === 1 ? 'logs' : 'log',
              first: names[0] ?? '',
              version,
              source: liveSource(fact.source),
            },
          });
        };
        report(
          'oldPassword',
          accounts.filter((account) => account.plugin.split(' or ').includes('mysql_old_password')),
        );
        if (product === 'mysql' && atLeast(version, NATIVE_DEPRECATED)) {
          report(
            'native',
            accounts.filter((account) => account.plugin.split(' or ').includes('mysql_native_password')),
          );
        }
      },
    };
  },
});
