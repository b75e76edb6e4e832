import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { isPhpModule } from '../../src/languages/apache/names.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1011',
    name: 'modphp-threaded-mpm',
    category: 'correctness',
    description: 'mod_php loaded with the worker or event MPM: distribution PHP builds are not thread-safe and stop httpd from starting',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      threaded: {
        message:
          '{{module}} (mod_php) with the {{mpm}} MPM stops httpd from starting; expected the prefork MPM, or PHP under php-fpm through mod_proxy_fcgi with {{mpm}}',
        detail:
          'loaded at {{load}}; distribution PHP builds are not thread-safe: "Apache is running a threaded MPM, but your PHP Module is not compiled to be threadsafe.  You need to recompile PHP."',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        // httpd 2.2's MPM is compiled in and cannot be known from the configuration.
        if (mpm?.name === undefined || mpm.name === 'prefork' || !versionAtLeast(apache.httpd, '2.4')) return;
        const mpmLoad = mpm.module?.use;
        const load =
          mpmLoad === undefined
            ? 'compiled in'
            : `LoadModule at ${mpmLoad.file.displayPath}:${mpmLoad.file.position(mpmLoad.range[0]).line}`;
        for (const module of apache.modules.values()) {
          if (!isPhpModule(module.identifier) || module.use === undefined) continue;
          // A thread-safe (ZTS) build is made for threaded MPMs: CentOS 7 loads libphp5-zts.so under worker.
          if (/zts/i.test(module.use.args[1]?.replace(/^.*\//, '') ?? '')) continue;
          ctx.report({ at: module.use, messageId: 'threaded', data: { module: module.identifier, mpm: mpm.name, load } });
        }
      },
    };
  },
});
