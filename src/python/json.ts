/**
 * A lossless JSON reader with Python `json.loads` semantics (SPEC §1). `JSON.parse` loses
 * number kinds (`1.0` becomes `1`), precision beyond 2^53 and the written order of
 * integer-like keys; the reference keeps all three and prints them, so this reader keeps them:
 * numbers become `LosslessNumber`s holding their lexeme (`NaN`/`Infinity`/`-Infinity` become
 * JS numbers, always Python floats), objects are plain objects whose written key order
 * {@link jsonKeys} returns (see {@link KEY_ORDER}), and a duplicate key keeps its first
 * position and its last value, as a Python dict does.
 */
import { LosslessNumber, isLosslessNumber } from 'lossless-json';
import { JsonParseError } from '../errors.js';

export { LosslessNumber, isLosslessNumber };

/**
 * Symbol under which a parsed object carries its keys in written order (a frozen `string[]`),
 * present only when that order differs from `Object.keys(obj)`. Non-enumerable, so
 * `Object.keys`, spread and `JSON.stringify` ignore it (and copies made with them lose it).
 */
export const KEY_ORDER: unique symbol = Symbol.for('dlg-compact.json.keyOrder') as never;

/**
 * Deepest nesting of arrays/objects `parseJson` accepts: 1000 levels. Python's `json.loads`
 * gives up at about the same depth (RecursionError); the limit keeps the recursive parser (and
 * the recursive printers of repr.ts and dumps.ts) far from the JS stack limit.
 */
export const MAX_JSON_DEPTH = 1000;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Keys of a JSON object in written (Python dict) order.
 *
 * Input: any object; output: its own enumerable string keys. For an object from
 * {@link parseJson} this is the source order with duplicates kept at their first position
 * (SPEC §1). If the object was modified after parsing, keys still present keep their recorded
 * order and keys added later follow in `Object.keys` order. For other objects this is
 * `Object.keys(o)`. Returns a fresh array. Never throws.
 */
export function jsonKeys(o: object): string[] {
  const keys = Object.keys(o);
  const order = (o as { [KEY_ORDER]?: readonly string[] })[KEY_ORDER];
  if (order === undefined || !Array.isArray(order)) return keys;
  let intact = order.length === keys.length;
  if (intact) {
    for (let i = 0; i < order.length; i++) {
      if (!hasOwn.call(o, order[i])) {
        intact = false;
        break;
      }
    }
  }
  if (intact) return order.slice();
  const present = new Set(keys);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const k of order) {
    if (present.has(k) && !seen.has(k)) {
      out.push(k);
      seen.add(k);
    }
  }
  for (const k of keys) if (!seen.has(k)) out.push(k);
  return out;
}

/**
 * True when `v` is a JSON object as {@link parseJson} produces it: a plain object (prototype
 * `Object.prototype`, `null`, or another realm's `Object.prototype`), not an array, not a
 * `LosslessNumber`. Never throws.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * Python number kind of a JSON-like number, or `null` for anything else.
 *
 * - JS `number`: `'int'` when `Number.isSafeInteger(v)` (so `-0` is the int 0), otherwise
 *   `'float'` (fractions, NaN, ±Infinity, and integral values beyond 2^53, which are not exact
 *   integers any more).
 * - `bigint`: `'int'`.
 * - `LosslessNumber`: `'float'` when the lexeme has a `.` or an exponent (`1.0`, `1E5`), else
 *   `'int'` — exactly how Python's `json.loads` decides (SPEC §1).
 */
export function pyNumberKind(v: unknown): 'int' | 'float' | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (isLosslessNumber(v)) return /[.eE]/.test(v.value) ? 'float' : 'int';
  return null;
}

// A run of string content that needs no attention: stops at `"`, `\` or a control character.
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;

const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

class Parser {
  pos = 0;
  depth = 0;
  constructor(
    readonly text: string,
    readonly source: string | undefined,
  ) {}

  fail(what: string, at: number): never {
    // Line and column are 1-based; lines break at "\n" only (as Python's json errors count
    // them); the column counts code points. `position` is a UTF-16 index.
    const text = this.text;
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
    let col = 1;
    for (let i = lineStart; i < at && i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < at) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
      col++;
    }
    const prefix = this.source === undefined ? '' : `${this.source}: `;
    throw new JsonParseError(`${prefix}invalid JSON: ${what} at line ${line} column ${col} (char ${at})`, at);
  }

  skipWs(): number {
    const text = this.text;
    let p = this.pos;
    let c = text.charCodeAt(p);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++p);
    this.pos = p;
    return c;
  }

  parseDocument(): unknown {
    if (this.text.charCodeAt(0) === 0xfeff) {
      this.fail('unexpected byte order mark U+FEFF (strip it before parsing)', 0);
    }
    const value = this.parseValue();
    this.skipWs();
    if (this.pos < this.text.length) this.fail('extra data after the JSON value', this.pos);
    return value;
  }

  parseValue(): unknown {
    const c = this.skipWs();
    const text = this.text;
    switch (c) {
      case 0x22:
        return this.parseString();
      case 0x7b:
        return this.parseObject();
      case 0x5b:
        return this.parseArray();
      case 0x74:
        if (text.startsWith('true', this.pos)) {
          this.pos += 4;
          return true;
        }
        break;
      case 0x66:
        if (text.startsWith('false', this.pos)) {
          this.pos += 5;
          return false;
        }
        break;
      case 0x6e:
        if (text.startsWith('null', this.pos)) {
          this.pos += 4;
          return null;
        }
        break;
      case 0x4e:
        if (text.startsWith('NaN', this.pos)) {
          this.pos += 3;
          return NaN;
        }
        break;
      case 0x49:
        if (text.startsWith('Infinity', this.pos)) {
          this.pos += 8;
          return Infinity;
        }
        break;
      case 0x2d:
        if (text.startsWith('-Infinity', this.pos)) {
          this.pos += 9;
          return -Infinity;
        }
        return this.parseNumber();
      default:
        if (isDigit(c)) return this.parseNumber();
    }
    return this.fail('expecting a value', this.pos);
  }

  parseNumber(): LosslessNumber {
    const text = this.text;
    const start = this.pos;
    let p = start;
    let c = text.charCodeAt(p);
    if (c === 0x2d) c = text.charCodeAt(++p);
    if (c === 48) {
      c = text.charCodeAt(++p);
      if (isDigit(c)) this.fail('leading zeros are not allowed in a number', p);
    } else if (isDigit(c)) {
      do c = text.charCodeAt(++p);
      while (isDigit(c));
    } else {
      this.fail('expecting a value', start);
    }
    if (c === 0x2e) {
      const dot = p;
      c = text.charCodeAt(++p);
      if (!isDigit(c)) this.fail('expecting a digit after the decimal point', dot);
      do c = text.charCodeAt(++p);
      while (isDigit(c));
    }
    if (c === 0x65 || c === 0x45) {
      const e = p;
      c = text.charCodeAt(++p);
      if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++p);
      if (!isDigit(c)) this.fail('expecting digits in the exponent', e);
      do c = text.charCodeAt(++p);
      while (isDigit(c));
    }
    this.pos = p;
    return new LosslessNumber(text.slice(start, p));
  }

  parseString(): string {
    const text = this.text;
    const open = this.pos;
    const start = open + 1;
    STRING_RUN.lastIndex = start;
    STRING_RUN.test(text);
    let p = STRING_RUN.lastIndex;
    let c = text.charCodeAt(p);
    if (c === 0x22) {
      this.pos = p + 1;
      return text.slice(start, p);
    }
    let out = text.slice(start, p);
    for (;;) {
      if (c === 0x22) {
        this.pos = p + 1;
        return out;
      }
      if (c === 0x5c) {
        const e = text.charCodeAt(p + 1);
        if (e === 0x75) {
          let code = 0;
          for (let k = 2; k < 6; k++) {
            const h = hexValue(text.charCodeAt(p + k));
            if (h < 0) this.fail('invalid \\uXXXX escape', p + 1);
            code = code * 16 + h;
          }
          out += String.fromCharCode(code);
          p += 6;
        } else {
          const rep = ESCAPES[e];
          if (rep === undefined) {
            if (p + 1 >= text.length) this.fail('unterminated string starting', open);
            this.fail('invalid \\escape', p);
          }
          out += rep;
          p += 2;
        }
      } else if (p >= text.length) {
        this.fail('unterminated string starting', open);
      } else {
        this.fail(`invalid control character U+${c.toString(16).padStart(4, '0').toUpperCase()} in a string`, p);
      }
      STRING_RUN.lastIndex = p;
      STRING_RUN.test(text);
      const q = STRING_RUN.lastIndex;
      if (q > p) out += text.slice(p, q);
      p = q;
      c = text.charCodeAt(p);
    }
  }

  enter(at: number): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`, at);
  }

  parseArray(): unknown[] {
    this.enter(this.pos);
    this.pos++;
    const out: unknown[] = [];
    let c = this.skipWs();
    if (c === 0x5d) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.parseValue());
      c = this.skipWs();
      if (c === 0x2c) {
        this.pos++;
      } else if (c === 0x5d) {
        this.pos++;
        this.depth--;
        return out;
      } else {
        this.fail("expecting ',' or ']'", this.pos);
      }
    }
  }

  parseObject(): Record<string, unknown> {
    this.enter(this.pos);
    this.pos++;
    const obj: Record<string, unknown> = {};
    let c = this.skipWs();
    if (c === 0x7d) {
      this.pos++;
      this.depth--;
      return obj;
    }
    // Written order, tracked only once a key starting with a digit shows up: before that,
    // every key is a non-index key and Object.keys already lists them in written order.
    let order: string[] | undefined;
    for (;;) {
      if (c !== 0x22) this.fail('expecting a property name enclosed in double quotes', this.pos);
      const key = this.parseString();
      if (this.skipWs() !== 0x3a) this.fail("expecting ':' delimiter", this.pos);
      this.pos++;
      const value = this.parseValue();
      if (order === undefined) {
        const k0 = key.charCodeAt(0);
        if (k0 >= 48 && k0 <= 57) order = Object.keys(obj);
      }
      if (order !== undefined && !hasOwn.call(obj, key)) order.push(key);
      if (key === '__proto__') {
        Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
      } else {
        obj[key] = value;
      }
      c = this.skipWs();
      if (c === 0x2c) {
        this.pos++;
        c = this.skipWs();
      } else if (c === 0x7d) {
        this.pos++;
        break;
      } else {
        this.fail("expecting ',' or '}'", this.pos);
      }
    }
    this.depth--;
    if (order !== undefined) {
      const keys = Object.keys(obj);
      let same = true;
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] !== order[i]) {
          same = false;
          break;
        }
      }
      if (!same) Object.defineProperty(obj, KEY_ORDER, { value: Object.freeze(order), enumerable: false });
    }
    return obj;
  }
}

/**
 * Parse JSON text losslessly, with Python `json.loads` acceptance rules (SPEC §1).
 *
 * Input: the whole JSON text (a JS string, so UTF-16); `source` (optional) names the text in
 * error messages (a file name, `tool arguments`, ...). Output: `null`, booleans, strings,
 * `LosslessNumber` (finite numbers, lexeme kept verbatim), JS `NaN`/`Infinity`/`-Infinity`
 * (for the Python extensions `NaN`, `Infinity`, `-Infinity`), arrays, and plain objects
 * (written key order via {@link jsonKeys}; duplicate keys: last value, first position; a
 * `__proto__` key is an ordinary own property).
 *
 * Accepted whitespace is space, tab, `\n`, `\r`. Strings may hold any escape, including lone
 * surrogates (`\ud800`, kept as a lone UTF-16 unit); an escaped pair `\ud83d\ude00` is one
 * character, as in Python. Raw control characters U+0000–U+001F inside strings are rejected
 * (Python's strict mode), as is a leading U+FEFF (Python: "Unexpected UTF-8 BOM"). Nesting
 * deeper than {@link MAX_JSON_DEPTH} levels is rejected (Python: RecursionError near the same
 * depth).
 *
 * Known differences from Python: integers longer than Python's 4300-digit int conversion limit
 * are accepted (kept as their lexeme); a raw lone high surrogate in `text` followed by an
 * escaped low one reads as one astral character where Python keeps two code points (text
 * decoded from UTF-8 never holds raw lone surrogates).
 *
 * Throws `JsonParseError` (message with line, column in code points, and UTF-16 offset;
 * `position` = UTF-16 offset, which is Python's `pos` when no astral character precedes it) on
 * any syntax error. Runs in linear time.
 */
export function parseJson(text: string, source?: string): unknown {
  if (typeof text !== 'string') {
    throw new JsonParseError(`${source === undefined ? '' : source + ': '}invalid JSON: expected a string, got ${typeof text}`, 0);
  }
  const parser = new Parser(text, source);
  try {
    return parser.parseDocument();
  } catch (e) {
    // Only reachable when the caller was already deep in the stack.
    if (e instanceof RangeError) parser.fail('nesting too deep for the JS stack', parser.pos);
    throw e;
  }
}
