import { PLUGIN_OPTIONS } from './mariadb-plugin-options.js';

/** A plugin library (or one plugin of it) that plugin_load/plugin_load_add in a server group loads. */
export interface LoadedPlugin {
  /** The library file without `.so`, e.g. `ha_spider`. */
  readonly library: string;
  /** Set for `name=library`: only that plugin of the library loads. */
  readonly plugin?: string;
}

/** An option line the loaded plugins are read from: its normalised key and value, in read order. */
interface PluginLoadLine {
  readonly key: string;
  readonly value: string | undefined;
}

/**
 * The plugins mariadbd loads from its option files: each plugin_load_add
 * value adds to the list, a plugin_load value replaces it (mysqld.cc frees
 * the list on --plugin-load; `mariadbd --plugin-load-add=disks
 * --plugin-load=ha_archive --help` lists ARCHIVE and not DISKS). A value is
 * `;`-separated `library` or `plugin=library` items.
 */
export function loadedPlugins(lines: Iterable<PluginLoadLine>): LoadedPlugin[] {
  let loaded: LoadedPlugin[] = [];
  for (const { key, value } of lines) {
    if (key === 'plugin_load') loaded = [];
    else if (key !== 'plugin_load_add') continue;
    for (const item of (value ?? '').split(';')) {
      const equals = item.indexOf('=');
      const library = libraryName(equals === -1 ? item : item.slice(equals + 1));
      if (library === '') continue;
      const plugin = equals === -1 ? undefined : item.slice(0, equals).trim().toLowerCase();
      loaded.push(plugin === undefined ? { library } : { library, plugin });
    }
  }
  return loaded;
}

/** The loaded library that adds an option (normalised key, prefixes stripped), if one does. */
export function loadedPluginOf(key: string, loaded: readonly LoadedPlugin[]): LoadedPlugin | undefined {
  return loaded.find((entry) => libraryOptions(entry.library).has(key) && (entry.plugin === undefined || ownsOption(entry.plugin, key)));
}

/** The library of the installed MariaDB's plugins that adds an option, loaded or not. */
export function pluginLibraryOf(key: string): string | undefined {
  for (const library of Object.keys(PLUGIN_OPTIONS)) if (libraryOptions(library).has(key)) return library;
  return undefined;
}

const optionSets = new Map<string, ReadonlySet<string>>();

function libraryOptions(library: string): ReadonlySet<string> {
  let names = optionSets.get(library);
  if (names === undefined) {
    const listed = PLUGIN_OPTIONS[library];
    names = new Set(listed === undefined ? [] : listed.split(' '));
    optionSets.set(library, names);
  }
  return names;
}

/** A plugin's options are its own on/off option and those named `plugin_...` (sys_var names carry the plugin name). */
function ownsOption(plugin: string, key: string): boolean {
  return key === plugin || key.startsWith(`${plugin}_`);
}

/** `ha_spider.so`, ` ha_spider ` -> `ha_spider`: the server appends the shared-library suffix when the name lacks it. */
function libraryName(written: string): string {
  const trimmed = written.trim();
  return trimmed.endsWith('.so') ? trimmed.slice(0, -3) : trimmed;
}
