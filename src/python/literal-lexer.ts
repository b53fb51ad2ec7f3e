/**
 * The lexer of Python literal text (SPEC §7): CPython 3.11's tokenizer rules restricted to what
 * a literal can contain — numbers, string and bytes literals, the names `True`/`False`/`None`/
 * `set`, brackets, `,` `:` `+` `-` `...`, comments, line continuations and indentation checks.
 * Any other character ends the scan with `NotALiteralError`. `literal-eval.ts` parses its tokens.
 */
import { NotALiteralError, MAX_INT_DIGITS } from './literal-values.js';
import { decodeBytesBody, decodeStrBody, isHex, type StrTok } from './literal-strings.js';

/** Token types. */
export enum T {
  Num,
  Str,
  Name,
  Op,
  Newline,
  End,
}

/** Kinds of number token. */
export enum N {
  Int,
  Float,
  Imag,
}

const MAX_LEVEL = 200; // CPython tokenizer MAXLEVEL: more nested brackets are a SyntaxError

const C_NL = 10;
const C_SP = 32;
const C_TAB = 9;
const C_FF = 12;
const C_HASH = 35;
const C_BSL = 92;
const C_0 = 48;
const C_9 = 57;
const C_US = 95;
const C_DOT = 46;

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}
function isOctal(c: number): boolean {
  return c >= C_0 && c <= 55;
}
function isBinary(c: number): boolean {
  return c === C_0 || c === 49;
}
/** CPython's `is_potential_identifier_char`: ASCII letters, digits, `_`, or any non-ASCII unit. */
function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= C_0 && c <= C_9) || c === C_US || c >= 128;
}
function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === C_US || c >= 128;
}

const STR_PREFIXES = new Set(['', 'r', 'u', 'b', 'br', 'rb', 'f', 'fr', 'rf']);

/**
 * Scanner over literal text `s` (line breaks already normalised to `\n`). `next()` moves to
 * the next token, whose type and value are left in the `t…` fields; `fail()` throws
 * `NotALiteralError` at the current token.
 */
export class LiteralLexer {
  private pos = 0;
  private level = 0;
  private atBol = true;
  private blank = false;
  // current token
  protected tt: T = T.End;
  protected tStart = 0;
  protected tOp = '';
  protected tNumKind: N = N.Int;
  protected tNumVal: bigint | number = 0;
  protected tStr: StrTok | null = null;
  protected tName = '';

  constructor(private readonly s: string) {}

  fail(reason: string, at: number = this.tStart): never {
    throw new NotALiteralError(reason, at);
  }

  /** Advance to the next token (CPython tokenizer rules, restricted to literal syntax). */
  next(): void {
    const s = this.s;
    const n = s.length;
    for (;;) {
      if (this.atBol) {
        // Indentation, as CPython measures it: a backslash continuation here joins the next
        // line into the indentation, and the column of the first one counts when non-zero.
        this.atBol = false;
        let col = 0;
        let contCol = 0;
        let c = s.charCodeAt(this.pos);
        for (;;) {
          if (c === C_SP) col++;
          else if (c === C_TAB) col = (Math.floor(col / 8) + 1) * 8;
          else if (c === C_FF) col = 0;
          else if (c === C_BSL) {
            if (contCol === 0) contCol = col;
            this.continuation();
            c = s.charCodeAt(this.pos);
            continue;
          } else break;
          c = s.charCodeAt(++this.pos);
        }
        // Lines holding only whitespace and/or a comment do not count for indentation; a
        // whitespace-only last line without a newline does (CPython reports an indent there).
        this.blank = c === C_HASH || c === C_NL;
        if (!this.blank && this.level === 0 && (contCol || col) > 0) this.fail('unexpected indent', this.pos);
      }
      let c = s.charCodeAt(this.pos);
      while (c === C_SP || c === C_TAB || c === C_FF) c = s.charCodeAt(++this.pos);
      this.tStart = this.pos;
      if (c === C_HASH) {
        const nl = s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? n : nl;
        c = s.charCodeAt(this.pos);
        this.tStart = this.pos;
      }
      if (this.pos >= n) {
        if (this.level > 0) this.fail('unclosed bracket');
        this.tt = T.End;
        return;
      }
      if (c === C_NL) {
        this.pos++;
        this.atBol = true;
        if (this.blank || this.level > 0) continue;
        this.tt = T.Newline;
        return;
      }
      if (c === C_BSL) {
        this.continuation();
        continue;
      }
      if (isDigit(c) || (c === C_DOT && isDigit(s.charCodeAt(this.pos + 1)))) {
        this.lexNumber();
        return;
      }
      if (isIdentStart(c)) {
        let e = this.pos + 1;
        while (e < n && isIdentChar(s.charCodeAt(e))) e++;
        const word = s.slice(this.pos, e);
        const q = s[e];
        if ((q === "'" || q === '"') && word.length <= 2) {
          const p = word.toLowerCase();
          if (STR_PREFIXES.has(p)) {
            if (p.includes('f')) this.fail('f-strings are not literals');
            this.pos = e;
            this.lexString(p.includes('r'), p.includes('b'));
            return;
          }
        }
        this.pos = e;
        this.tt = T.Name;
        this.tName = word;
        return;
      }
      if (c === 39 || c === 34) {
        this.lexString(false, false);
        return;
      }
      const ch = s[this.pos];
      switch (ch) {
        case '(':
        case '[':
        case '{':
          if (this.level >= MAX_LEVEL) this.fail('too many nested parentheses');
          this.level++;
          break;
        case ')':
        case ']':
        case '}':
          if (this.level === 0) this.fail(`unmatched '${ch}'`);
          this.level--;
          break;
        case ',':
        case ':':
        case '+':
        case '-':
          break;
        case '.':
          if (s.startsWith('...', this.pos)) {
            this.pos += 3;
            this.tt = T.Op;
            this.tOp = '...';
            return;
          }
          return this.fail('attribute access');
        default:
          this.fail(`unexpected character ${JSON.stringify(ch)}`);
      }
      // `+=`, `->`, `:=` etc. are never part of a literal; the next token's check rejects them.
      this.pos++;
      this.tt = T.Op;
      this.tOp = ch;
      return;
    }
  }

  /** Skip a backslash-newline line continuation at `pos`; it must not end the text. */
  private continuation(): void {
    if (this.s.charCodeAt(this.pos + 1) !== C_NL) this.fail('unexpected character after line continuation', this.pos);
    this.pos += 2;
    if (this.pos >= this.s.length) this.fail('unexpected end of text after line continuation', this.pos);
  }

  /** Digits of one base with single `_` separators (`_` also allowed first, after a prefix). */
  private digitsOfBase(test: (c: number) => boolean, allowLeadingUnderscore: boolean): string {
    const s = this.s;
    let out = '';
    let start = this.pos;
    let first = true;
    for (;;) {
      let c = s.charCodeAt(this.pos);
      if (c === C_US && (!first || allowLeadingUnderscore)) {
        out += s.slice(start, this.pos);
        this.pos++;
        start = this.pos;
        c = s.charCodeAt(this.pos);
        if (!test(c)) this.fail('invalid number literal', this.pos);
      } else if (!test(c)) {
        if (first) this.fail('invalid number literal', this.pos);
        break;
      }
      while (test(s.charCodeAt(this.pos))) this.pos++;
      first = false;
      if (s.charCodeAt(this.pos) !== C_US) break;
    }
    return out + s.slice(start, this.pos);
  }

  private lexNumber(): void {
    const s = this.s;
    const start = this.pos;
    let c = s.charCodeAt(start);
    const c1 = s.charCodeAt(start + 1) | 32;
    if (c === C_0 && (c1 === 120 || c1 === 111 || c1 === 98)) {
      this.pos += 2;
      const radix = c1 === 120 ? 'x' : c1 === 111 ? 'o' : 'b';
      const test = c1 === 120 ? isHex : c1 === 111 ? isOctal : isBinary;
      const digits = this.digitsOfBase(test, true);
      this.endNumber(start, N.Int, BigInt('0' + radix + digits));
      return;
    }
    // Fast path: a plain run of decimal digits.
    let p = start;
    let small = 0;
    while (isDigit((c = s.charCodeAt(p)))) {
      small = small * 10 + (c - C_0);
      p++;
    }
    const lc = c | 32;
    if (p > start && c !== C_US && c !== C_DOT && lc !== 101 && lc !== 106) {
      const len = p - start;
      this.pos = p;
      if (len > 1 && s.charCodeAt(start) === C_0) {
        if (small !== 0) this.fail('leading zeros in a decimal integer', start);
        this.endNumber(start, N.Int, 0n);
      } else if (len <= 15) {
        this.endNumber(start, N.Int, BigInt(small));
      } else {
        if (len > MAX_INT_DIGITS) this.fail('integer literal beyond 4300 digits', start);
        this.endNumber(start, N.Int, BigInt(s.slice(start, p)));
      }
      return;
    }
    let intPart = '';
    let leadingZeroInt = false;
    if (s.charCodeAt(start) !== C_DOT) {
      intPart = this.digitsOfBase(isDigit, false);
      leadingZeroInt = intPart.length > 1 && intPart.charCodeAt(0) === C_0 && /[1-9]/.test(intPart);
    }
    let isFloat = false;
    let text = intPart;
    c = s.charCodeAt(this.pos);
    if (c === C_DOT) {
      isFloat = true;
      this.pos++;
      text += '.';
      if (isDigit(s.charCodeAt(this.pos))) text += this.digitsOfBase(isDigit, false);
      c = s.charCodeAt(this.pos);
    }
    if (c === 101 || c === 69) {
      let q = this.pos + 1;
      const sign = s.charCodeAt(q);
      if (sign === 43 || sign === 45) q++;
      // `1e`, `1e+`, or a keyword glued to the number (`1else`): never a literal.
      if (!isDigit(s.charCodeAt(q))) this.fail('invalid decimal literal', start);
      isFloat = true;
      text += 'e' + (sign === 45 ? '-' : '');
      this.pos = q;
      text += this.digitsOfBase(isDigit, false);
      c = s.charCodeAt(this.pos);
    }
    if (c === 106 || c === 74) {
      this.pos++;
      this.endNumber(start, N.Imag, Number(text));
    } else if (isFloat) {
      this.endNumber(start, N.Float, Number(text));
    } else {
      if (leadingZeroInt) this.fail('leading zeros in a decimal integer', start);
      // Only a non-zero literal counts (it has no leading zeros); `000…0` is plain 0.
      if (intPart.length > MAX_INT_DIGITS && /[1-9]/.test(intPart)) {
        this.fail('integer literal beyond 4300 digits', start);
      }
      this.endNumber(start, N.Int, BigInt(intPart));
    }
  }

  private endNumber(start: number, kind: N, v: bigint | number): void {
    if (isIdentChar(this.s.charCodeAt(this.pos))) this.fail('invalid number literal', start);
    this.tt = T.Num;
    this.tNumKind = kind;
    this.tNumVal = v;
  }

  /** Lex a string literal whose opening quote is at `pos` (prefix already consumed). */
  private lexString(raw: boolean, bytes: boolean): void {
    const s = this.s;
    const q = s[this.pos];
    const qc = q.charCodeAt(0);
    let bodyStart: number;
    let bodyEnd: number;
    const n = s.length;
    if (s.charCodeAt(this.pos + 1) === qc && s.charCodeAt(this.pos + 2) === qc) {
      bodyStart = this.pos + 3;
      let p = bodyStart;
      for (;;) {
        if (p >= n) this.fail('unterminated triple-quoted string');
        const c = s.charCodeAt(p);
        if (c === C_BSL) p += 2;
        else if (c === qc && s.charCodeAt(p + 1) === qc && s.charCodeAt(p + 2) === qc) break;
        else p++;
      }
      bodyEnd = p;
      this.pos = p + 3;
    } else {
      bodyStart = this.pos + 1;
      let p = bodyStart;
      for (;;) {
        const c = s.charCodeAt(p);
        if (c === qc) break;
        if (p >= n || c === C_NL) this.fail('unterminated string literal');
        p += c === C_BSL ? 2 : 1;
      }
      bodyEnd = p;
      this.pos = p + 1;
    }
    const body = s.slice(bodyStart, bodyEnd);
    this.tt = T.Str;
    this.tStr = bytes ? decodeBytesBody(body, raw, bodyStart) : decodeStrBody(body, raw, bodyStart);
  }
}
