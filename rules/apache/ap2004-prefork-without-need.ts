import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { isNonThreadSafeModule } from '../../src/languages/apache/names.js';

/** event's compiled-in ThreadsPerChild. */
const EVENT_THREADS = 25;

export default defineRule('apache', {
  meta: {
    id: 'AP2004',
    name: 'prefork-without-need',
    category: 'performance',
    description: 'The prefork MPM is loaded although no loaded module needs it',
    defaultSeverity: 'warn',
    recommended: true,
    options: {
      nonThreadSafeModules: {
        type: 'names',
        default: [],
        description:
          'identifiers (`foo_module`) of modules you know need prefork (an in-house module, say), besides mod_php, mod_python, mod_ruid2 and mpm-itk',
      },
    },
    messages: {
      prefork: {
        message:
          'prefork without a module that needs it; expected event: {{workersName}} {{workers}} as {{processes}} of {{threads}} threads',
        detail:
          'prefork runs one process per connection, and no loaded module needs it (no mod_php or other module that is not thread-safe); switch {{how}}, then restart (a graceful restart cannot change the MPM)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        const load = mpm?.module?.use;
        if (mpm?.name !== 'prefork' || load === undefined || !versionAtLeast(apache.httpd, '2.4')) return;
        const extra = new Set(ctx.options.nonThreadSafeModules);
        for (const identifier of apache.modules.keys()) if (isNonThreadSafeModule(identifier) || extra.has(identifier)) return;
        const workers = mpm.values.MaxRequestWorkers.value;
        const where = load.file.displayPath;
        const how = /(^|\/)mods-(enabled|available)\//.test(where)
          ? 'with `a2dismod mpm_prefork && a2enmod mpm_event`'
          : /(^|\/)conf\.modules\.d\//.test(where)
            ? `in ${where} by commenting out the mpm_prefork_module line and loading mpm_event_module instead`
            : `with \`LoadModule mpm_event_module ${eventModulePath(load.args[1])}\` in place of this line`;
        ctx.report({
          at: load,
          messageId: 'prefork',
          data: {
            workersName: mpm.values.MaxRequestWorkers.use?.node.name ?? 'MaxRequestWorkers',
            workers,
            // event rounds MaxRequestWorkers down to a multiple of ThreadsPerChild, and to at least one process.
            processes: plural(Math.max(1, Math.floor(workers / EVENT_THREADS)), 'process', 'processes'),
            threads: EVENT_THREADS,
            how,
          },
        });
      },
    };
  },
});

/** Where event's module sits, next to prefork's when the path follows the usual naming. */
function eventModulePath(preforkPath: string | undefined): string {
  return preforkPath?.endsWith('mod_mpm_prefork.so') === true
    ? preforkPath.replace(/mod_mpm_prefork\.so$/, 'mod_mpm_event.so')
    : 'modules/mod_mpm_event.so';
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
