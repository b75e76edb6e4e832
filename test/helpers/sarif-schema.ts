import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import AjvDraft04 from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';

/*
 * The published SARIF 2.1.0 JSON schema (the schemastore
 * `sarif-2.1.0-rtm.5.json` that @microsoft/jest-sarif ships: the 2.1.0
 * schema, draft-04), validated with ajv, formats included. The schema's
 * `language` pattern is not valid under the regex `u` flag, hence
 * unicodeRegExp: false.
 */
const require = createRequire(import.meta.url);
const schema = JSON.parse(fs.readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
const ajv = new AjvDraft04.default({ allErrors: true, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validate = ajv.compile(schema);

/** Whether a log passes the schema. */
export function isValidSarif(log: unknown): boolean {
  return validate(log);
}

export function assertValidSarif(log: unknown, what: string): void {
  const valid = validate(log);
  assert.ok(valid, `${what} is not valid SARIF 2.1.0:\n${ajv.errorsText(validate.errors, { separator: '\n' })}`);
}
