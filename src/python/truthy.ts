/**
 * Python truthiness (`bool(v)`) of a JSON-like value, as the reference tests metadata flags and
 * reply fields with `if v:` (SPEC §6, §7).
 */
import { isLosslessNumber } from './json.js';

/**
 * Python `bool(v)` of a JSON-like value.
 *
 * False for: `null` and `undefined` (a missing key reads as `None`), `false`, the number zero in
 * any form — JS `0` and `-0`, `0n`, a `LosslessNumber` whose lexeme is zero (`0`, `-0`, `0.0`,
 * `0e5`, or a float lexeme that underflows to zero such as `1e-400`, as Python's `float()`
 * does) — the empty string, `[]` and an object without own enumerable keys (`{}`).
 * True for everything else, including `NaN`, `'0'`, `'False'`, `[0]` and `{a: 0}`.
 * Never throws.
 */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0; // NaN !== 0: truthy, as in Python
  if (typeof v === 'bigint') return v !== 0n;
  if (isLosslessNumber(v)) return Number(v.value) !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}
