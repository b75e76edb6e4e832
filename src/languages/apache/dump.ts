import type { Located } from '../../core/types.js';
import type { ApacheConfig } from './model.js';
import type { ApacheDirectiveUse, ApacheSectionUse } from './uses.js';
import type { MpmDirective } from './mpm.js';
import { LazyList } from '../../util/streamed-output.js';
import { CORE_SETTINGS, effectiveSetting, type EffectiveSetting } from './settings.js';

interface Where {
  file: string;
  line: number;
}

function where(located: Located): Where {
  return { file: located.file.displayPath, line: located.file.position(located.range[0]).line };
}

function settingJson(setting: EffectiveSetting): object {
  if (setting.use === undefined) return { value: setting.args.join(' '), default: true };
  return { value: setting.args.join(' '), ...where(setting.use) };
}

/**
 * `tune-lint dump --json` for Apache: what httpd would run with, and where
 * each value comes from. The lists that grow with the config (files,
 * vhosts, directories, directives) are made as they are written.
 */
export function dumpApacheConfig(config: ApacheConfig): object {
  const mpm = config.mpm;
  const mpmSettings: Record<string, object> = {};
  if (mpm !== undefined) {
    for (const [directive, value] of Object.entries(mpm.values) as [MpmDirective, (typeof mpm.values)[MpmDirective]][]) {
      if (mpm.name === 'prefork' ? directive.includes('Thread') : directive.includes('SpareServers')) continue;
      mpmSettings[directive] =
        value.use === undefined
          ? { value: value.value, default: true }
          : { value: value.value, configured: value.configured, ...where(value.use), written: value.use.node.name };
    }
  }
  const server: Record<string, object> = {};
  for (const lower of Object.keys(CORE_SETTINGS)) {
    if (lower === 'allowoverride') continue;
    const setting = effectiveSetting(config, lower);
    server[setting.name] = settingJson(setting);
  }
  const serverNames = new Map<ApacheSectionUse | undefined, ApacheDirectiveUse>();
  for (const use of config.named('servername')) {
    const container = config.container(use);
    if (!serverNames.has(container)) serverNames.set(container, use);
  }
  const virtualHosts = new LazyList(function* () {
    for (const vhost of config.sections) {
      if (vhost.name !== 'virtualhost') continue;
      const settings: Record<string, object> = {};
      for (const lower of [
        'keepalive',
        'keepalivetimeout',
        'maxkeepaliverequests',
        'timeout',
        'hostnamelookups',
        'enablesendfile',
        'enablemmap',
      ]) {
        const setting = effectiveSetting(config, lower, vhost);
        if (setting.use !== undefined && config.container(setting.use) === vhost) settings[setting.name] = settingJson(setting);
      }
      const serverName = serverNames.get(vhost);
      yield { address: vhost.args.join(' '), ...where(vhost), serverName: serverName?.args[0] ?? null, settings };
    }
  });
  const directories = new LazyList(function* () {
    for (const directory of config.sections) {
      if (directory.name !== 'directory' && directory.name !== 'directorymatch') continue;
      const allowOverride = effectiveSetting(config, 'allowoverride', directory);
      const own = allowOverride.use !== undefined && config.container(allowOverride.use) === directory;
      yield {
        path: directory.args[0] ?? '',
        match: directory.name === 'directorymatch',
        ...where(directory),
        virtualHost: enclosingVirtualHost(directory),
        allowOverride: own
          ? settingJson(allowOverride)
          : { value: CORE_SETTINGS.allowoverride?.default(config.httpd) ?? 'None', default: true },
      };
    }
  });
  return {
    version: 1,
    language: 'apache',
    root: config.root.displayPath,
    target: { httpd: config.httpd },
    serverRoot: config.serverRoot,
    files: new LazyList(function* () {
      for (const entry of config.files) {
        yield {
          path: entry.source.displayPath,
          depth: entry.depth,
          includedFrom: entry.includedFrom === undefined ? null : where(entry.includedFrom),
        };
      }
    }),
    modules: [...config.modules.values()].map((module) => {
      if (module.use !== undefined) return { name: module.identifier, kind: 'shared', path: module.path ?? null, ...where(module.use) };
      // Loaded by the start script from its own list (openSUSE's APACHE_MODULES), not by a line of the tree.
      return module.path === undefined
        ? { name: module.identifier, kind: 'static' }
        : { name: module.identifier, kind: 'shared', path: module.path };
    }),
    start:
      config.start === undefined
        ? null
        : {
            distribution: config.start.distribution,
            defines: config.start.defines,
            before: config.start.before,
            after: config.start.after,
            compiledMpm: config.start.staticMpm ?? null,
            notes: config.start.notes,
          },
    defines: Object.fromEntries([...config.defines].map(([name, value]) => [name, value ?? null])),
    mpm:
      mpm === undefined
        ? null
        : {
            name: mpm.name,
            ...(mpm.module?.use === undefined ? {} : where(mpm.module.use)),
            settings: mpmSettings,
            adjustments: mpm.adjustments.map((adjustment) => adjustment.message),
          },
    server,
    virtualHosts,
    directories,
    directives: new LazyList(function* () {
      for (const use of config.uses) yield directiveJson(config, use);
    }),
    problems: config.problems.map((problem) => ({
      ruleId: problem.ruleId,
      severity: problem.severity,
      message: problem.message,
      ...where(problem),
    })),
  };
}

function directiveJson(config: ApacheConfig, use: ApacheDirectiveUse): object {
  return { name: use.node.name, args: use.argsText, ...where(use), context: config.context(use) };
}

function enclosingVirtualHost(use: { readonly parent: ApacheDirectiveUse['parent'] }): string | null {
  for (let parent = use.parent; parent !== undefined; parent = parent.parent) {
    if (parent.name === 'virtualhost') return parent.args.join(' ');
  }
  return null;
}
