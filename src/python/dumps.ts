/**
 * Python `json.dumps` text (SPEC §1, §6, §7): one string ({@link pyJsonString}) or a whole
 * JSON-like value ({@link pyDumps}), byte for byte as Python writes it.
 *
 * Accepted values are those of `pyRepr` (see `repr.ts`): `null`, booleans, strings, JS
 * numbers, bigints, LosslessNumbers, arrays and plain objects (iterated in `jsonKeys` order).
 */
import { InvalidArgumentError } from '../errors.js';
import { checkStr, describe, hex } from './args.js';
import { isJsonObject, isLosslessNumber, jsonKeys } from './json.js';
import { pyJsonNumber } from './numbers.js';
import { cpCompare } from './strings.js';

// Runs of characters json.dumps writes verbatim, and the escape of every other UTF-16 unit.
const JSON_RUN_ASCII = /[ !#-[\]-~]*/y;
const JSON_RUN_RAW = /[^\u0000-\u001f"\\]*/y;
const JSON_NEEDS_ASCII = /[^ !#-[\]-~]/;
const JSON_NEEDS_RAW = /[\u0000-\u001f"\\]/;
const JSON_ESC: string[] = [];
for (let c = 0; c < 0x20; c++) JSON_ESC[c] = '\\u' + hex(c, 4);
Object.assign(JSON_ESC, { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' });

function jsonEscapeRuns(s: string, run: RegExp): string {
  let out = '"';
  let p = 0;
  const n = s.length;
  for (;;) {
    run.lastIndex = p;
    run.test(s);
    const q = run.lastIndex;
    if (q > p) out += s.slice(p, q);
    if (q >= n) return out + '"';
    const c = s.charCodeAt(q);
    out += JSON_ESC[c] ?? '\\u' + hex(c, 4);
    p = q + 1;
  }
}

/**
 * Python `json.dumps(s, ensure_ascii=ensureAscii)` for one string: the string in double
 * quotes with `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other controls U+0000–U+001F as
 * `\u00xx` (lowercase hex). With `ensureAscii` (default true) every UTF-16 unit outside
 * U+0020–U+007E is written `\uxxxx` too (astral characters as their surrogate pair, U+007F as
 * `\u007f`); without it non-ASCII (lone surrogates included) is written raw. Linear.
 */
export function pyJsonString(s: string, ensureAscii = true): string {
  checkStr('pyJsonString', s);
  if (ensureAscii) return JSON_NEEDS_ASCII.test(s) ? jsonEscapeRuns(s, JSON_RUN_ASCII) : '"' + s + '"';
  return JSON_NEEDS_RAW.test(s) ? jsonEscapeRuns(s, JSON_RUN_RAW) : '"' + s + '"';
}

/** Options of {@link pyDumps}, named after Python's `json.dumps` keywords. */
export interface PyDumpsOptions {
  /** Escape all non-ASCII as `\uxxxx` (default true, as Python). */
  ensureAscii?: boolean;
  /**
   * `[itemSeparator, keySeparator]`; default `[', ', ': ']`, or `[',', ': ']` when `indent`
   * is given (as Python since 3.4).
   */
  separators?: readonly [string, string];
  /**
   * Pretty-print: a number of spaces per level (0 or negative: newlines without spaces) or a
   * string used per level. `undefined`/`null`: everything on one line.
   */
  indent?: number | string | null;
  /** Sort object keys by code point (Python `sort_keys`; default false: jsonKeys order). */
  sortKeys?: boolean;
}

/**
 * Python `json.dumps(v, ensure_ascii=, separators=, indent=, sort_keys=)` (SPEC §1, §6, §7):
 * byte-for-byte the text Python writes for the same value (see the module note for accepted
 * values). Ints exact, floats as `repr` (`1e-07`, `1.0`) with `NaN`, `Infinity`,
 * `-Infinity`; `true`/`false`/`null`; strings via {@link pyJsonString}; object keys in
 * {@link jsonKeys} order or sorted by code point; with `indent`, `[]`/`{}` for empty
 * containers and newline + indentation otherwise. Output is a JS string (UTF-16).
 *
 * Throws `InvalidArgumentError` for values JSON cannot hold (`undefined`, functions, class
 * instances, array holes) and for a container that contains itself (Python: "Circular
 * reference detected"). Linear in the output size.
 */
export function pyDumps(v: unknown, opts: PyDumpsOptions = {}): string {
  const ensureAscii = opts.ensureAscii ?? true;
  const sortKeys = opts.sortKeys ?? false;
  const indentOpt = opts.indent;
  let indentUnit: string | null = null;
  if (indentOpt !== undefined && indentOpt !== null) {
    if (typeof indentOpt === 'number') {
      if (!Number.isInteger(indentOpt)) throw new InvalidArgumentError(`pyDumps: indent must be an integer, got ${indentOpt}`);
      indentUnit = ' '.repeat(Math.max(0, indentOpt));
    } else if (typeof indentOpt === 'string') {
      indentUnit = indentOpt;
    } else {
      throw new InvalidArgumentError(`pyDumps: indent must be a number or a string, got ${describe(indentOpt)}`);
    }
  }
  const [itemSep, keySep] = opts.separators ?? (indentUnit === null ? [', ', ': '] : [',', ': ']);
  if (typeof itemSep !== 'string' || typeof keySep !== 'string') {
    throw new InvalidArgumentError('pyDumps: separators must be two strings');
  }
  let out = '';
  const active = new Set<object>();
  const newlines: string[] = [];
  const newline = (level: number): string => {
    let s = newlines[level];
    if (s === undefined) s = newlines[level] = '\n' + (indentUnit as string).repeat(level);
    return s;
  };

  const write = (x: unknown, level: number): void => {
    switch (typeof x) {
      case 'string':
        out += pyJsonString(x, ensureAscii);
        return;
      case 'boolean':
        out += x ? 'true' : 'false';
        return;
      case 'number':
      case 'bigint':
        out += pyJsonNumber(x);
        return;
      case 'object': {
        if (x === null) {
          out += 'null';
          return;
        }
        if (isLosslessNumber(x)) {
          out += pyJsonNumber(x);
          return;
        }
        const isArr = Array.isArray(x);
        if (!isArr && !isJsonObject(x)) break;
        if (active.has(x)) throw new InvalidArgumentError('pyDumps: circular reference detected');
        if (isArr) {
          if (x.length === 0) {
            out += '[]';
            return;
          }
          active.add(x);
          const inner = indentUnit === null ? '' : newline(level + 1);
          out += '[' + inner;
          for (let i = 0; i < x.length; i++) {
            if (i > 0) out += itemSep + inner;
            if (!(i in x)) throw new InvalidArgumentError(`pyDumps: array hole at index ${i}`);
            write(x[i], level + 1);
          }
          out += indentUnit === null ? ']' : newline(level) + ']';
        } else {
          const obj = x as Record<string, unknown>;
          const keys = jsonKeys(obj);
          if (keys.length === 0) {
            out += '{}';
            return;
          }
          if (sortKeys) keys.sort(cpCompare);
          active.add(x);
          const inner = indentUnit === null ? '' : newline(level + 1);
          out += '{' + inner;
          for (let i = 0; i < keys.length; i++) {
            if (i > 0) out += itemSep + inner;
            out += pyJsonString(keys[i], ensureAscii) + keySep;
            write(obj[keys[i]], level + 1);
          }
          out += indentUnit === null ? '}' : newline(level) + '}';
        }
        active.delete(x);
        return;
      }
    }
    throw new InvalidArgumentError(`pyDumps: object of type ${describe(x)} is not JSON serializable`);
  };
  write(v, 0);
  return out;
}
