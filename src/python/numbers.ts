/**
 * Python text of numbers (SPEC §1): `repr` of a float, `repr` of any JSON-like number, and
 * the number text `json.dumps` writes.
 *
 * Number values here are JS `number` (a safe integer is a Python int — so `-0` prints `0` —
 * and anything else, including NaN, ±Infinity and integral values beyond 2^53, is a Python
 * float), `bigint` (int) and `LosslessNumber` (int or float by its lexeme, as Python's
 * `json.loads` decides; see {@link pyNumberKind}).
 */
import { InvalidArgumentError } from '../errors.js';
import { describe } from './args.js';
import { isLosslessNumber, pyNumberKind } from './json.js';

/**
 * Python `repr(x)` of a float (SPEC §1): the shortest decimal that reads back as `x`, in
 * fixed notation with at least one fractional digit (`1.0`, `0.0001`, `123.5`) when the
 * decimal exponent is in [-4, 16), else `d[.ddd]e±XX` with at least two exponent digits
 * (`1e-05`, `1e+16`, `1.2345678901234568e+17`); `-0.0`, `inf`, `-inf`, `nan`.
 * Input: a JS number (an IEEE double, like a Python float).
 */
export function pyFloatRepr(x: number): string {
  if (typeof x !== 'number') throw new InvalidArgumentError(`pyFloatRepr: expected a number, got ${describe(x)}`);
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // Number::toString yields the shortest round-trip digits (closest when several qualify),
  // which is what Python's repr uses; only the layout differs.
  const js = String(Math.abs(x));
  const ePos = js.indexOf('e');
  let mant = ePos < 0 ? js : js.slice(0, ePos);
  let exp = ePos < 0 ? 0 : parseInt(js.slice(ePos + 1), 10);
  const dot = mant.indexOf('.');
  let intDigits = dot < 0 ? mant.length : dot;
  let digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  // Normalise to digits d1d2d3... with value 0.d1d2d3 × 10^(decpt).
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) === 48) lead++;
  digits = digits.slice(lead);
  intDigits -= lead;
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  digits = digits.slice(0, end);
  const decpt = intDigits + exp; // position of the decimal point relative to the digits
  exp = decpt - 1; // scientific exponent
  mant = digits;
  if (exp < -4 || exp >= 16) {
    const m = mant.length > 1 ? mant[0] + '.' + mant.slice(1) : mant;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${mant}`;
  if (decpt >= mant.length) return `${sign}${mant}${'0'.repeat(decpt - mant.length)}.0`;
  return `${sign}${mant.slice(0, decpt)}.${mant.slice(decpt)}`;
}

/** Canonical decimal of an integer lexeme (`-0` -> `0`, leading zeros and `+` removed). */
function intLexeme(lexeme: string): string {
  let i = 0;
  let sign = '';
  if (lexeme[0] === '-' || lexeme[0] === '+') {
    sign = lexeme[0] === '-' ? '-' : '';
    i = 1;
  }
  while (i < lexeme.length - 1 && lexeme.charCodeAt(i) === 48) i++;
  const body = lexeme.slice(i);
  return body === '0' ? '0' : sign + body;
}

/**
 * Python `repr` of a number value: ints in full decimal (`-0` lexeme -> `0`), floats via
 * {@link pyFloatRepr}. Input: JS number, bigint or LosslessNumber (kinds as in the module
 * note / `pyNumberKind`). Throws `InvalidArgumentError` for anything else.
 */
export function pyNumberRepr(v: unknown): string {
  const kind = pyNumberKind(v);
  if (kind === null) throw new InvalidArgumentError(`pyNumberRepr: expected a number, got ${describe(v)}`);
  if (typeof v === 'number') return kind === 'int' ? String(v === 0 ? 0 : v) : pyFloatRepr(v);
  if (typeof v === 'bigint') return v.toString();
  const lexeme = (v as { value: string }).value;
  return kind === 'int' ? intLexeme(lexeme) : pyFloatRepr(Number(lexeme));
}

/**
 * The text Python's `json.dumps` writes for a number value: ints in full decimal (a
 * LosslessNumber int lexeme canonicalised, `-0` -> `0`), floats as {@link pyFloatRepr}
 * (`1.0`, `1e-07`), and the non-finite floats as `NaN`, `Infinity`, `-Infinity` (also for a
 * float lexeme that overflows a double, such as `1e999`). Input: JS number, bigint or
 * LosslessNumber. Throws `InvalidArgumentError` for anything else.
 */
export function pyJsonNumber(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (isLosslessNumber(v) && pyNumberKind(v) === 'float') {
    const x = Number(v.value);
    return Number.isFinite(x) ? pyFloatRepr(x) : x > 0 ? 'Infinity' : '-Infinity';
  }
  return pyNumberRepr(v);
}
