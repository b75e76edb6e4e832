import type { DatabaseTarget } from '../../../src/core/targets.js';
import { isMariadbOption } from '../../../src/languages/mycnf/mariadb-options.js';
import type { OptionName } from '../../../src/languages/mycnf/names.js';
import { clientOptionNames, isClientOption } from '../../../src/languages/mycnf/client-programs.js';
import type { MycnfOptionUse } from '../../../src/languages/mycnf/model.js';
import { removedOption } from '../../../src/languages/mycnf/removed-options.js';
import { writtenKey } from './intent.js';

/**
 * Each unknown name is reported once, by the rule that knows what it is:
 * set-variable (MY4001), a `;` the writer took for a comment (MY1003), a
 * client option in a server group (MY1007), a removed option (MY4002), the
 * MySQL 8.0.30 redo setting (MY4004). MY1006 reports the rest.
 */
export function unknownNameOwner(
  name: OptionName,
  target: DatabaseTarget,
): 'MY4001' | 'MY1003' | 'MY1007' | 'MY4002' | 'MY4004' | undefined {
  const written = writtenKey(name);
  if (written === 'set_variable') return 'MY4001';
  if (name.raw.includes(';')) return 'MY1003';
  if (isClientOnlyOption(written) && removedOption(written) === undefined) return 'MY1007';
  // An option only MariaDB removed (after 10.11) has no MySQL history for MY4002 to tell.
  const removed = removedOption(written);
  if (removed !== undefined && (target.product === 'mariadb' || removed.mysql !== undefined)) return 'MY4002';
  if (written === 'innodb_redo_log_capacity' && target.product === 'mariadb') return 'MY4004';
  return undefined;
}

/** An option some client program knows and the server does not. */
export function isClientOnlyOption(key: string): boolean {
  return isClientOption(key) && !isMariadbOption(key);
}

/** A name the server knows exactly that no client program knows or abbreviates (clients expand unique prefixes too). */
export function isServerOnlyOption(use: MycnfOptionUse): boolean {
  const key = use.name.key;
  if (!isMariadbOption(key) || isClientOption(key)) return false;
  const written = writtenKey(use.name);
  return !clientOptionNames().some((option) => option.startsWith(written));
}
