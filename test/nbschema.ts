/**
 * Test helper: validate notebook text against the official nbformat 4.5 JSON schema
 * (/work/shared/schemas/nbformat.v4.5.schema.json) with ajv. The schema declares draft-04,
 * which ajv 8 does not ship a meta-schema for; its keywords are draft-07-compatible, so the
 * `$schema` key is removed and ajv runs non-strict (the schema has non-standard keywords such
 * as `item` and `source_hidden`).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { HAVE_SHARED, shared } from './support.js';

let compiled: ValidateFunction | undefined;

/** Validation errors of the notebook `text` as a readable string, or `''` when valid. */
export function schemaErrors(text: string): string {
  if (!HAVE_SHARED) throw new Error('the nbformat schema lives in ../shared/, which is missing');
  if (compiled === undefined) {
    const schema = JSON.parse(readFileSync(shared('schemas', 'nbformat.v4.5.schema.json'), 'utf8')) as Record<string, unknown>;
    delete schema.$schema;
    const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
    compiled = ajv.compile(schema);
  }
  const ok = compiled(JSON.parse(text));
  return ok ? '' : JSON.stringify(compiled.errors?.slice(0, 3));
}
