/**
 * Notebook JSON text (SPEC §1, §7): parsing to the value `parseJson` gives, by the fast lossless
 * parse of `python/json-fast.ts` (native `JSON.parse` plus a scan for number lexemes whenever
 * that is provably the same), and the check for integers JavaScript cannot hold. Internal to
 * `notebook/`.
 */
import { parseJsonFast } from '../python/json-fast.js';

export { setOwn } from '../python/json-fast.js';

// A JSON string literal, or a number token. Scanned left to right over valid JSON, string
// literals are consumed whole, so every number match is a number outside strings.
const STRING_OR_NUMBER = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?[0-9][0-9.eE+-]*/g;

/**
 * Parse notebook JSON to exactly what `parseJson` gives: the fast lossless parse of
 * `python/json-fast.ts`.
 */
export function parseNotebookJson(text: string): unknown {
  return parseJsonFast(text);
}

/** The first integer lexeme of (valid) JSON text outside the safe integer range, if any. Linear. */
export function firstUnsafeInteger(text: string): string | undefined {
  const re = STRING_OR_NUMBER;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const tok = m[0];
    if (tok.charCodeAt(0) === 0x22 || /[.eE]/.test(tok)) continue;
    if (!Number.isSafeInteger(Number(tok))) return tok;
  }
  return undefined;
}
