/**
 * Decoding the body of a Python string or bytes literal (between its quotes): escapes
 * (`\n`, `\x41`, `\u00e9`, octal, line continuations, unknown escapes kept), raw literals, and
 * the surrogate bookkeeping a JS string needs to hold Python code points (see `PyStr`).
 * Used by the literal lexer (SPEC §7).
 */
import { NotALiteralError } from './literal-values.js';

/** Decoded string literal: either text (with surrogate split offsets) or bytes. */
export interface StrTok {
  bytes: boolean;
  text: string;
  splits: number[];
  data: number[] | null;
}

const C_0 = 48;
const C_9 = 57;
const C_BSL = 92;

/** ASCII hexadecimal digit (`0-9`, `a-f`, `A-F`) as a UTF-16 unit. */
export function isHex(c: number): boolean {
  return (c >= C_0 && c <= C_9) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** Value of the hexadecimal digit `c` (which {@link isHex} accepted). */
export function hexVal(c: number): number {
  return c <= C_9 ? c - C_0 : (c | 32) - 87;
}

function fail(reason: string, at: number): never {
  throw new NotALiteralError(reason, at);
}

const SIMPLE_ESCAPES: Record<string, number> = {
  '\\': 92,
  "'": 39,
  '"': 34,
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
};

/** Bytes of a `b'…'` literal body starting at offset `at` of the source; throws NotALiteralError. */
export function decodeBytesBody(body: string, raw: boolean, at: number): StrTok {
  const out: number[] = [];
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body.charCodeAt(i);
    if (c >= 128) fail('bytes can only contain ASCII literal characters', at + i);
    if (c !== C_BSL || raw) {
      out.push(c);
      continue;
    }
    const e = body[++i];
    if (e === '\n') continue;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out.push(simple);
    } else if (e >= '0' && e <= '7') {
      let v = 0;
      let k = 0;
      while (k < 3 && i < n && body[i] >= '0' && body[i] <= '7') {
        v = v * 8 + body.charCodeAt(i++) - C_0;
        k++;
      }
      i--;
      out.push(v & 0xff);
    } else if (e === 'x') {
      const h1 = body.charCodeAt(i + 1);
      const h2 = body.charCodeAt(i + 2);
      if (!isHex(h1) || !isHex(h2)) fail('invalid \\x escape', at + i - 1);
      out.push(hexVal(h1) * 16 + hexVal(h2));
      i += 2;
    } else {
      const ec = body.charCodeAt(i);
      if (ec >= 128) fail('bytes can only contain ASCII literal characters', at + i);
      out.push(C_BSL, ec);
    }
  }
  return { bytes: true, text: '', splits: [], data: out };
}

/** Text of a `'…'` literal body starting at offset `at` of the source; throws NotALiteralError. */
export function decodeStrBody(body: string, raw: boolean, at: number): StrTok {
  if (raw || !body.includes('\\')) return { bytes: false, text: body, splits: [], data: null };
  const parts: string[] = [];
  const splits: number[] = [];
  let len = 0; // UTF-16 length of parts so far
  let last = 0; // last UTF-16 unit appended (0 when none)
  const push = (t: string): void => {
    if (t.length === 0) return;
    parts.push(t);
    len += t.length;
    last = t.charCodeAt(t.length - 1);
  };
  const pushCode = (cp: number): void => {
    // An escaped low surrogate right after a high one stays a separate code point.
    if (cp >= 0xdc00 && cp <= 0xdfff && last >= 0xd800 && last <= 0xdbff) splits.push(len);
    push(String.fromCodePoint(cp));
  };
  const n = body.length;
  let i = 0;
  while (i < n) {
    const b = body.indexOf('\\', i);
    if (b < 0) {
      push(body.slice(i));
      break;
    }
    push(body.slice(i, b));
    const e = body[b + 1];
    i = b + 2;
    if (e === '\n') continue;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      pushCode(simple);
    } else if (e >= '0' && e <= '7') {
      let v = e.charCodeAt(0) - C_0;
      let k = 1;
      while (k < 3 && i < n && body[i] >= '0' && body[i] <= '7') {
        v = v * 8 + body.charCodeAt(i++) - C_0;
        k++;
      }
      pushCode(v);
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const w = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      let v = 0;
      for (let k = 0; k < w; k++) {
        const h = body.charCodeAt(i + k);
        if (!isHex(h)) fail(`truncated \\${e} escape`, at + b);
        v = v * 16 + hexVal(h);
      }
      if (v > 0x10ffff) fail('illegal Unicode character escape', at + b);
      i += w;
      pushCode(v);
    } else if (e === 'N') {
      fail('\\N{...} escapes are not supported (no Unicode name table)', at + b);
    } else {
      // Unknown escape: Python keeps the backslash and the character (read again as text).
      push('\\');
      i = b + 1;
    }
  }
  return { bytes: false, text: parts.join(''), splits, data: null };
}
