/**
 * Python `ast.literal_eval` (CPython 3.11) over the tokens of `literal-lexer.ts` (SPEC §7): the
 * AI view of a code cell replaces output text that is a whole Python literal with `str()` of
 * its value. Accepts exactly what CPython accepts (checked against python3 in
 * test/fixtures/literal-cases.json, from scripts/gen-literal-cases.py) and throws
 * `NotALiteralError` for anything else; a recursive descent over brackets (nesting capped at
 * 200, as CPython's tokenizer caps it), linear in the text, giving up at the first token that
 * cannot belong to a literal.
 *
 * Deliberate limits: `\N{NAME}` escapes (they need the Unicode name database) make the text
 * not a literal; identifier checks and NFKC folding (`ｓｅｔ()` is `set()`) use the JS engine's
 * Unicode tables, which may be newer than Python 3.11's.
 *
 * Sets keep their elements in source order, later equal ones dropped (SPEC §7, §10.3); dicts
 * keep a key's first spelling and its last value. Equality is Python's (`1 == 1.0 == True`).
 */
import { LiteralLexer, N, T } from './literal-lexer.js';
import type { StrTok } from './literal-strings.js';
import { ELLIPSIS, NotALiteralError, PyBytes, PyComplex, PyDict, PyEllipsis, PyList, PySet, PyStr, PyTuple, type PyValue } from './literal-values.js';

const C_SP = 32;
const C_TAB = 9;

const EXPR_START_OPS = new Set(['(', '[', '{', '+', '-', '...']);
const VALID_IDENT = /^[\p{XID_Start}_][\p{XID_Continue}]*$/u;
/** Longest name (UTF-16 units) checked for folding to `set`: 3 astral letters plus marks is far less. */
const SET_FOLD_MAX = 32;

// Node kinds, for the rules ast.literal_eval applies to `+`/`-`: a unary sign needs a bare
// numeric constant; `a ± b` needs a real (int/float) signed constant on the left and an
// imaginary constant on the right. Parentheses do not change the kind (they leave no node).
enum K {
  NumConst, // int, float or complex constant (not bool)
  Signed, // unary +/- applied to a NumConst
  Other,
}

class LiteralParser extends LiteralLexer {
  /** Node kind of the value the last parse function returned (see K). */
  private kind: K = K.Other;

  private isOp(op: string): boolean {
    return this.tt === T.Op && this.tOp === op;
  }

  private expectOp(op: string): void {
    if (!this.isOp(op)) this.fail(`expected '${op}'`);
    this.next();
  }

  /** Can the current token start an expression? */
  private startsExpr(): boolean {
    switch (this.tt) {
      case T.Num:
      case T.Str:
      case T.Name:
        return true;
      case T.Op:
        return EXPR_START_OPS.has(this.tOp);
      default:
        return false;
    }
  }

  /** Whole text: `expr (',' expr)* [',']` then only newlines. */
  parseTop(): PyValue {
    this.next();
    let v = this.parseExpr();
    if (this.isOp(',')) {
      const items: PyValue[] = [v];
      while (this.isOp(',')) {
        this.next();
        if (!this.startsExpr()) break;
        items.push(this.parseExpr());
      }
      v = new PyTuple(items);
    }
    while (this.tt === T.Newline) this.next();
    if (this.tt !== T.End) this.fail('unexpected text after the literal');
    return v;
  }

  /**
   * `signed [('+'|'-') imaginary]`, with ast.literal_eval's rules for complex numbers.
   * Every parse function returns the value and leaves its node kind in `this.kind`.
   */
  private parseExpr(): PyValue {
    const left = this.parseSigned();
    if (!(this.tt === T.Op && (this.tOp === '+' || this.tOp === '-'))) return left;
    const leftKind = this.kind;
    const minus = this.tOp === '-';
    const opAt = this.tStart;
    this.next();
    const right = this.parsePrimary();
    if (this.isOp('+') || this.isOp('-')) this.fail('chained arithmetic is not a literal');
    if (
      (leftKind !== K.NumConst && leftKind !== K.Signed) ||
      !(typeof left === 'bigint' || typeof left === 'number') ||
      this.kind !== K.NumConst ||
      !(right instanceof PyComplex)
    ) {
      this.fail('arithmetic other than real ± imaginary is not a literal', opAt);
    }
    const re = typeof left === 'bigint' ? Number(left) : left;
    if (!Number.isFinite(re) && typeof left === 'bigint') this.fail('int too large to convert to float', opAt);
    // Python 3.11 converts the real operand to complex(re, 0.0) and adds/subtracts parts.
    this.kind = K.Other;
    return minus ? new PyComplex(re - right.re, 0 - right.im) : new PyComplex(re + right.re, 0 + right.im);
  }

  private parseSigned(): PyValue {
    if (!(this.tt === T.Op && (this.tOp === '+' || this.tOp === '-'))) return this.parsePrimary();
    const minus = this.tOp === '-';
    const at = this.tStart;
    this.next();
    const v = this.parsePrimary();
    if (this.kind !== K.NumConst) this.fail('a sign applies only to a number', at);
    this.kind = K.Signed;
    if (typeof v === 'bigint') return minus ? -v : v;
    if (typeof v === 'number') return minus ? -v : v;
    const c = v as PyComplex;
    return minus ? new PyComplex(-c.re, -c.im) : c;
  }

  /** An atom, rejecting calls, subscripts and attribute access after it. */
  private parsePrimary(): PyValue {
    const v = this.parseAtom();
    if (this.tt === T.Op && (this.tOp === '(' || this.tOp === '[')) this.fail('calls and subscripts are not literals');
    return v;
  }

  private parseAtom(): PyValue {
    switch (this.tt) {
      case T.Num: {
        const kind = this.tNumKind;
        const v = this.tNumVal;
        this.next();
        this.kind = K.NumConst;
        return kind === N.Imag ? new PyComplex(0, v as number) : v;
      }
      case T.Str: {
        const v = this.parseStrings();
        this.kind = K.Other;
        return v;
      }
      case T.Name:
        return this.parseName();
      case T.Op:
        break;
      default:
        this.fail(this.tt === T.End ? 'unexpected end of text' : 'unexpected line break');
    }
    const op = this.tOp;
    let v: PyValue;
    if (op === '...') {
      this.next();
      v = ELLIPSIS;
    } else if (op === '(') {
      return this.parseParen();
    } else if (op === '[') {
      this.next();
      const items: PyValue[] = [];
      while (!this.isOp(']')) {
        items.push(this.parseExpr());
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp(']');
      v = new PyList(items);
    } else if (op === '{') {
      v = this.parseBrace();
    } else {
      this.fail(`unexpected '${op}'`);
    }
    this.kind = K.Other;
    return v;
  }

  private parseName(): PyValue {
    const w = this.tName;
    const at = this.tStart;
    let v: PyValue | undefined;
    if (w === 'True') v = true;
    else if (w === 'False') v = false;
    else if (w === 'None') v = null;
    if (v !== undefined) {
      this.next();
      this.kind = K.Other;
      return v;
    }
    // `set()` (no arguments) is the one call ast.literal_eval allows; Python folds identifiers
    // with NFKC, so `ｓｅｔ()` counts too (after the identifier itself is checked as valid).
    // Only a short name can fold to `set` (NFKC never folds several letters into one ASCII
    // letter); the bound also keeps VALID_IDENT off giant names, on which V8's regex engine
    // overflows its backtrack stack (a RangeError on 5 M CJK letters).
    if (w === 'set' || (w.length <= SET_FOLD_MAX && /[^\x00-\x7f]/.test(w) && VALID_IDENT.test(w) && w.normalize('NFKC') === 'set')) {
      this.next();
      if (this.isOp('(')) {
        this.next();
        if (this.isOp(')')) {
          this.next();
          this.kind = K.Other;
          return new PySet([]);
        }
      }
    }
    return this.fail('names are not literals', at);
  }

  /** `(` … `)`: the empty tuple, a parenthesized expression (kind kept), or a tuple. */
  private parseParen(): PyValue {
    this.next();
    if (this.isOp(')')) {
      this.next();
      this.kind = K.Other;
      return new PyTuple([]);
    }
    const first = this.parseExpr();
    if (this.isOp(')')) {
      this.next();
      return first; // parentheses leave no node: `-(1)` is `-1`
    }
    const items: PyValue[] = [first];
    while (this.isOp(',')) {
      this.next();
      if (this.isOp(')')) break;
      items.push(this.parseExpr());
    }
    this.expectOp(')');
    this.kind = K.Other;
    return new PyTuple(items);
  }

  private parseBrace(): PyValue {
    this.next();
    if (this.isOp('}')) {
      this.next();
      return new PyDict([], []);
    }
    const firstAt = this.tStart;
    const first = this.parseExpr();
    if (this.isOp(':')) {
      const keys: PyValue[] = [];
      const values: PyValue[] = [];
      const index = new Map<string, number>();
      let key = first;
      let keyAt = firstAt;
      for (;;) {
        this.expectOp(':');
        const value = this.parseExpr();
        const h = hashKey(key, keyAt);
        const seen = index.get(h);
        if (seen === undefined) {
          index.set(h, keys.length);
          keys.push(key);
          values.push(value);
        } else {
          values[seen] = value; // later value wins, the key keeps its first spelling
        }
        if (!this.isOp(',')) break;
        this.next();
        if (this.isOp('}')) break;
        keyAt = this.tStart;
        key = this.parseExpr();
      }
      this.expectOp('}');
      return new PyDict(keys, values);
    }
    const items: PyValue[] = [];
    const seen = new Set<string>();
    let item = first;
    let itemAt = firstAt;
    for (;;) {
      const h = hashKey(item, itemAt);
      if (!seen.has(h)) {
        seen.add(h);
        items.push(item);
      }
      if (!this.isOp(',')) break;
      this.next();
      if (this.isOp('}')) break;
      itemAt = this.tStart;
      item = this.parseExpr();
    }
    this.expectOp('}');
    return new PySet(items);
  }

  /** Adjacent string tokens concatenate; str and bytes cannot mix. */
  private parseStrings(): PyValue {
    const first = this.tStr as StrTok;
    const at = this.tStart;
    this.next();
    if (this.tt !== T.Str) return strValue(first);
    const bytes = first.bytes;
    const texts: string[] = [first.text];
    const data: number[] = first.data ?? [];
    const splits = first.splits.slice();
    let len = first.text.length;
    let last = len > 0 ? first.text.charCodeAt(len - 1) : 0;
    while (this.tt === T.Str) {
      const t = this.tStr as StrTok;
      if (t.bytes !== bytes) this.fail('cannot mix bytes and nonbytes literals', at);
      if (bytes) {
        for (const b of t.data as number[]) data.push(b);
      } else if (t.text.length > 0) {
        const c0 = t.text.charCodeAt(0);
        if (c0 >= 0xdc00 && c0 <= 0xdfff && last >= 0xd800 && last <= 0xdbff) splits.push(len);
        for (const sp of t.splits) splits.push(len + sp);
        texts.push(t.text);
        len += t.text.length;
        last = t.text.charCodeAt(t.text.length - 1);
      }
      this.next();
    }
    return strValue({ bytes, text: texts.join(''), splits, data: bytes ? data : null });
  }
}

function strValue(t: StrTok): PyValue {
  if (t.bytes) return new PyBytes(Uint8Array.from(t.data as number[]));
  return t.splits.length > 0 ? new PyStr(t.text, t.splits) : t.text;
}

// ---------------------------------------------------------------------------------------------
// Equality (as set elements and dict keys)

function numKey(x: number): string {
  if (Number.isInteger(x)) return 'n' + BigInt(x).toString();
  return 'f' + String(x); // ±Infinity and non-integral values; NaN cannot come from a literal
}

/**
 * A string equal for exactly the Python-equal hashable values; throws NotALiteralError for
 * unhashable ones (list, dict, set — Python raises TypeError).
 */
function hashKey(v: PyValue, at: number): string {
  switch (typeof v) {
    case 'string':
      return 's' + v;
    case 'boolean':
      return v ? 'n1' : 'n0';
    case 'bigint':
      return 'n' + v.toString();
    case 'number':
      return numKey(v);
  }
  if (v === null) return 'N';
  if (v instanceof PyStr) return 'S' + v.splits.join(',') + '|' + v.units;
  if (v instanceof PyComplex) return v.im === 0 ? numKey(v.re) : 'c' + numKey(v.re) + ',' + numKey(v.im);
  if (v instanceof PyBytes) {
    let s = 'b';
    for (let i = 0; i < v.bytes.length; i += 4096) s += String.fromCharCode(...v.bytes.subarray(i, i + 4096));
    return s;
  }
  if (v instanceof PyTuple) {
    // Length-prefixed parts: unambiguous without escaping, so nesting does not compound.
    let key = 't' + v.items.length;
    for (const x of v.items) {
      const k = hashKey(x, at);
      key += ':' + k.length + ':' + k;
    }
    return key;
  }
  if (v instanceof PyEllipsis) return 'E';
  throw new NotALiteralError(`unhashable type: '${(v as PyList | PySet | PyDict).kind}'`, at);
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Python `ast.literal_eval(text)` (CPython 3.11): leading spaces and tabs are removed, then
 * the text must be one Python expression made only of literals — strings (every quote form
 * and prefix `r u b br rb` in any case, escapes, implicit concatenation), bytes, ints
 * (decimal up to 4300 digits, hex, octal, binary, `_` separators), floats, imaginary numbers,
 * `real ± imaginary`, unary `+`/`-` on numbers, `True`/`False`/`None`/`...`, tuples (with or
 * without parentheses at the top), lists, dicts, sets and `set()` — optionally followed by
 * blank or comment lines. Line breaks are `\n`, `\r\n` or `\r` (as Python reads source).
 *
 * Input: any JS string (UTF-16; a lone surrogate anywhere makes it not a literal, as Python
 * cannot encode such source). Output: the value ({@link PyValue}); sets deduplicated in source
 * order, dicts with Python's key semantics. Throws {@link NotALiteralError} — and nothing
 * else — when Python would raise (SyntaxError, ValueError, TypeError for unhashable keys,
 * OverflowError) or for `\N{...}` escapes (unsupported, see module note). Linear time.
 */
export function literalEval(text: string): PyValue {
  if (typeof text !== 'string') throw new NotALiteralError('not a string', -1);
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === C_SP || text.charCodeAt(i) === C_TAB)) i++;
  let src = i > 0 ? text.slice(i) : text;
  if (src.includes('\r')) src = src.replace(/\r\n?/g, '\n');
  const v = new LiteralParser(src).parseTop();
  // Checked last, so that non-literal text fails on its first tokens without a full scan.
  const nul = src.indexOf('\0');
  if (nul >= 0) throw new NotALiteralError('source cannot contain null bytes', nul);
  if (!isWellFormed(src)) throw new NotALiteralError('source contains a lone surrogate', -1);
  return v;
}

/**
 * Characters below U+0080 other than ASCII letters and `_` that can begin the text
 * `literalEval` lexes (after its leading spaces and tabs): a line break (`\n`, `\r`), a form
 * feed, `#`, a backslash (line continuation), a digit, `.`, a quote, an opening bracket and a
 * sign. Text beginning with any other one fails on its first token.
 */
const LITERAL_START = new Uint8Array(128);
for (const c of '\n\f\r#\\0123456789.\'"([{+-') LITERAL_START[c.charCodeAt(0)] = 1;

function isAsciiIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * Whether {@link literalEval} can accept `text`, decided from its first token without building
 * an error: `false` only where `literalEval` surely throws `NotALiteralError` — the text is
 * empty after its leading spaces and tabs, begins with a character no literal begins with
 * (`<`, `` ` ``, `|`, `/`, …), or begins with an ASCII name other than `True`, `False`, `None`
 * and `set` that is not a string prefix before a quote (and not followed by a non-ASCII
 * identifier character). `true` means only that the parse must decide. Constant time but for
 * the first name.
 */
export function mayBeLiteral(text: string): boolean {
  const n = text.length;
  let i = 0;
  let c = text.charCodeAt(0);
  while (c === C_SP || c === C_TAB) c = text.charCodeAt(++i);
  if (i >= n) return false;
  if (c >= 128) return true;
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
    let e = i + 1;
    while (e < n && isAsciiIdentChar(text.charCodeAt(e))) e++;
    const after = text.charCodeAt(e);
    if (after >= 128 || after === 39 || after === 34) return true;
    const len = e - i;
    if (len === 3) return text.startsWith('set', i);
    if (len === 4) return text.startsWith('True', i) || text.startsWith('None', i);
    return len === 5 && text.startsWith('False', i);
  }
  return LITERAL_START[c] === 1;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isWellFormed(s: string): boolean {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof f === 'function' ? f.call(s) : !LONE_SURROGATE.test(s);
}
