import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { lineOrTop } from './support/runtime.js';

/** Addresses only this machine reaches. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

export default defineRule('mycnf', {
  meta: {
    id: 'MY3005',
    name: 'network-without-tls',
    category: 'security',
    description: 'The running server listens on the network without TLS',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      clear: {
        message:
          'the running server listens on {{address}} port {{port}} without TLS (have_ssl {{haveSsl}}); expected ssl_cert and ssl_key, or bind_address = 127.0.0.1',
        detail:
          'every row crosses the network in clear, and a captured mysql_native_password handshake lets the password be guessed offline; a server only this machine uses needs no TCP at all ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        if (fact === undefined) return;
        const { variables } = fact.value;
        const networking = (variables.skip_networking ?? 'OFF').toUpperCase() !== 'ON';
        const address = variables.bind_address ?? '*';
        const addresses = address.split(',').map((part) => part.trim());
        // MySQL 8.4 has no have_ssl and sets TLS up on its own: unknown is no finding.
        const tls = variables.have_ssl === undefined || variables.have_ssl.toUpperCase() === 'YES';
        if (!networking || tls || addresses.every((part) => LOOPBACK.test(part))) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'bind_address'),
          messageId: 'clear',
          data: {
            address: address === '' ? '*' : address,
            port: variables.port ?? '3306',
            haveSsl: variables.have_ssl ?? '',
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
