/**
 * A fast lossless JSON parse (SPEC §1): exactly the value {@link parseJson} gives (number kinds
 * and digits, key order, `__proto__` keys, Python's acceptance rules and error messages),
 * computed with native `JSON.parse` plus a scan for number lexemes whenever that is provably
 * the same, and by `parseJson` itself otherwise. Internal to the library (used by the notebook
 * reader and the reply parser; not part of the `python` entry point).
 */
import { LosslessNumber, MAX_JSON_DEPTH, parseJson } from './json.js';

type JsonObject = Record<string, unknown>;

// The tokens scanned for, as a regular expression: STRING_OR_NUMBER =
// /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?[0-9][0-9.eE+-]*/g, a JSON string literal or a number token.
// Matched left to right over valid JSON, string literals are consumed whole, so every number
// match is a number outside strings.

/**
 * Tokens of valid JSON text that `JSON.parse` loses: the number lexemes in document order,
 * and the number of object keys (to detect duplicate keys, which `JSON.parse` merges).
 * `null` when an object key is an array index (JS would list it out of written order) or holds
 * an escape (it might decode to one), or when a string is not closed (the text is not JSON:
 * `parseJson` says why). Linear: a string literal is skipped by searching for its closing
 * quote (a quote after an odd run of backslashes is escaped), and only the few characters
 * between literals are looked at one by one. On valid JSON it finds what a left-to-right match
 * of STRING_OR_NUMBER finds.
 */
function scanNumbers(text: string): { numbers: string[]; keys: number } | null {
  const numbers: string[] = [];
  let keys = 0;
  const n = text.length;
  let p = 0;
  while (p < n) {
    const c = text.charCodeAt(p);
    if (c === 0x22) {
      let q = text.indexOf('"', p + 1);
      for (;;) {
        if (q < 0) return null;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      let r = q + 1;
      let d = text.charCodeAt(r);
      while (d === 32 || d === 10 || d === 13 || d === 9) d = text.charCodeAt(++r);
      if (d === 0x3a) {
        keys++;
        const c1 = text.charCodeAt(p + 1);
        if (c1 === 0x5c || (c1 >= 48 && c1 <= 57 && isArrayIndexKey(text.slice(p + 1, q)))) return null;
      }
      // Go on after the string, the whitespace after it, and a separator with the whitespace
      // after that (none of which starts a token).
      p = r;
      if (d === 0x2c || d === 0x3a) {
        d = text.charCodeAt(++p);
        while (d === 32 || d === 10 || d === 13 || d === 9) d = text.charCodeAt(++p);
      }
    } else if ((c >= 48 && c <= 57) || (c === 0x2d && isDigit(text.charCodeAt(p + 1)))) {
      let e = p + 1;
      while (e < n && isNumberChar(text.charCodeAt(e))) e++;
      numbers.push(text.slice(p, e));
      p = e;
    } else p++;
  }
  return { numbers, keys };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The characters `[0-9.eE+-]` that continue a number token of STRING_OR_NUMBER. */
function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/**
 * Whether a key (its text as decoded, or a literal's text between the quotes: one holding an
 * escape is never taken for one) is an array index, the keys JS objects list before all
 * others: `0`…`4294967294` in canonical form. Other keys starting with a digit
 * (`13a4911c-….png`) keep their written order.
 */
function isArrayIndexKey(key: string): boolean {
  return /^(?:0|[1-9][0-9]{0,9})$/.test(key) && Number(key) < 4294967295;
}

/**
 * Parse JSON to exactly what `parseJson(text, source)` gives (lossless numbers, key order,
 * `__proto__` keys, Python's acceptance rules and error messages), faster: the text is parsed
 * natively and each number replaced by a `LosslessNumber` with its lexeme, taken in document
 * order from a scan of the text — made only once the tree is found to hold a number. The
 * native tree is used only when that correspondence is certain: no array-index keys (JS lists
 * them first), every lexeme equal in value to its number, nesting within `MAX_JSON_DEPTH`,
 * and, when the tree holds numbers, as many keys and numbers in the tree as in the text (no
 * duplicate keys to shift the lexemes). A tree without numbers needs no lexemes, and a
 * duplicate key there is what `parseJson` makes of it too (the last value, at the first key's
 * place); only the text's nesting must be bounded too: by its brackets (see
 * {@link nestingWithin}), or else by a scan that finds no more keys than the tree has.
 * Otherwise, and on any syntax error or `NaN`/`Infinity`, `parseJson` decides.
 */
export function parseJsonFast(text: string, source?: string): unknown {
  if (typeof text !== 'string') return parseJson(text, source);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return parseJson(text, source); // throws Python's message, or accepts NaN/Infinity
  }
  // A bare scalar is not a notebook; a number there goes to parseJson, which keeps the lexeme.
  if (v === null || typeof v !== 'object') return typeof v === 'number' ? parseJson(text, source) : v;
  const got = attachLexemes(v, text);
  if (got === 'attached') return v;
  if (got !== 'unfit') {
    // No numbers: the tree nests as the text does unless a duplicate key dropped a value, which
    // a scan would count (a text holding more keys than the tree, or numbers the tree lacks).
    if (nestingWithin(text, MAX_JSON_DEPTH)) return v;
    const scan = scanNumbers(text);
    if (scan !== null && scan.numbers.length === 0 && scan.keys === got.keys) return v;
  }
  return parseJson(text, source);
}

/**
 * Replace, in place and in document order, the JS numbers of a `JSON.parse` tree (an object or
 * array) of `text` by `LosslessNumber`s of their lexemes, scanned from `text` at the first
 * number. `'attached'` when done; for a tree without numbers (nothing scanned) whose keys and
 * nesting pass, the number of its keys; `'unfit'` (tree then unusable) when a key is an array index,
 * nesting is too deep, the scan finds the text unfit (see {@link scanNumbers}), a lexeme's
 * value differs from its number, or the counts of numbers or keys differ from the scan's.
 */
function attachLexemes(root: object, text: string): 'attached' | 'unfit' | { keys: number } {
  let scan: { numbers: string[]; keys: number } | null | undefined;
  let next = 0;
  let keys = 0;
  const lossless = (x: number): LosslessNumber | undefined => {
    if (scan === undefined) scan = scanNumbers(text);
    if (scan === null) return undefined;
    const lex = scan.numbers[next++];
    return lex !== undefined && Number(lex) === x ? new LosslessNumber(lex) : undefined;
  };
  const visit = (node: object, depth: number): boolean => {
    if (depth > MAX_JSON_DEPTH) return false;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const x: unknown = node[i];
        if (typeof x === 'number') {
          const n = lossless(x);
          if (n === undefined) return false;
          node[i] = n;
        } else if (typeof x === 'object' && x !== null && !visit(x, depth + 1)) return false;
      }
      return true;
    }
    const o = node as JsonObject;
    const ks = Object.keys(o);
    keys += ks.length;
    for (const k of ks) {
      const c = k.charCodeAt(0);
      if (c >= 48 && c <= 57 && isArrayIndexKey(k)) return false;
      const x = o[k];
      if (typeof x === 'number') {
        const n = lossless(x);
        if (n === undefined) return false;
        setOwn(o, k, n);
      } else if (typeof x === 'object' && x !== null && !visit(x, depth + 1)) return false;
    }
    return true;
  };
  if (!visit(root, 1)) return 'unfit';
  if (scan === undefined) return { keys };
  return scan !== null && next === scan.numbers.length && keys === scan.keys ? 'attached' : 'unfit';
}

/**
 * Whether valid JSON `text` surely nests at most `max` levels: it holds at most `max`
 * brackets that open (`[` or `{`, inside strings too), or is too short to hold more (every
 * level takes an opening and a closing bracket).
 */
function nestingWithin(text: string, max: number): boolean {
  if (text.length <= 2 * max + 1) return true;
  let opened = 0;
  for (let p = text.indexOf('['); p >= 0; p = text.indexOf('[', p + 1)) if (++opened > max) return false;
  for (let p = text.indexOf('{'); p >= 0; p = text.indexOf('{', p + 1)) if (++opened > max) return false;
  return true;
}

/** Define an own enumerable property, safe for the key `__proto__`. */
export function setOwn(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}
