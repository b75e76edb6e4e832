import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { accountName, lineOrTop, someOf } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY3001',
    name: 'anonymous-account',
    category: 'security',
    description: 'The running server has an anonymous account: anyone who reaches it logs in, under any user name',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      anonymous: {
        message: 'anonymous {{accounts}} on the running server; expected none: DROP USER {{first}}',
        detail:
          "an account with an empty user name matches every user name that has no account of its own from that host, and wins over a named account from a less specific host (MariaDB's and MySQL's account matching), so a client logging in as app from localhost becomes ''@'localhost', not 'app'@'%'; mariadb-secure-installation and mysql_secure_installation remove them ({{source}})",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const anonymous = fact?.value.accounts?.filter((account) => account.user === '' && !account.locked) ?? [];
        if (fact === undefined || anonymous.length === 0) return;
        const names = anonymous.map(accountName);
        ctx.report({
          at: lineOrTop(ctx.config, 'bind_address'),
          messageId: 'anonymous',
          data: {
            accounts: `${anonymous.length === 1 ? 'account' : 'accounts'} ${someOf(names)}`,
            first: names[0] ?? '',
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
