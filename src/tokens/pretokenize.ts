/**
 * Pre-tokenisation for o200k_base (SPEC §2): the pieces tiktoken's o200k regex cuts a text
 * into before byte-pair merging.
 *
 * {@link pieceEnd} is one forward scan with a sticky regex equal to tiktoken's pattern, except
 * that `\s` / `\S` are spelled out as the Unicode White_Space set Rust's regex crate uses (JS
 * `\s` adds U+FEFF and lacks U+0085), and the case-insensitive contraction group
 * `(?i:'s|…)` is expanded as Rust's simple case folding reads it (`'s` also matches `'ſ`,
 * U+017F). No alternative nests quantifiers, so the scan is linear even on a long run of one
 * character. Pieces of ASCII, and runs of Han, Kana or Hangul ({@link ideoRunEnd}), are
 * found by hand before the regex is tried. Positions are UTF-16 code units.
 *
 * Known limit: Unicode categories (`\p{L}`, `\p{N}`, …) come from the JS engine's Unicode
 * version; characters assigned after it may split differently from tiktoken.
 */

/** Unicode White_Space as Rust's regex crate defines `\s` (JS `\s` differs), as a regex class body. */
export const WS = '\\t-\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const UPPERISH = '\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}';
const LOWERISH = '\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}';
/** `(?i:'s|'t|'re|'ve|'m|'ll|'d)` with Rust's simple case folding (s ~ S ~ ſ). */
const CONTRACTION = "(?:'[sS\\u017F]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?";
const PATTERN = [
  `[^\\r\\n\\p{L}\\p{N}]?[${UPPERISH}]*[${LOWERISH}]+${CONTRACTION}`,
  `[^\\r\\n\\p{L}\\p{N}]?[${UPPERISH}]+[${LOWERISH}]*${CONTRACTION}`,
  `\\p{N}{1,3}`,
  ` ?[^${WS}\\p{L}\\p{N}]+[\\r\\n/]*`,
  `[${WS}]*[\\r\\n]+`,
  `[${WS}]+(?![^${WS}])`,
  `[${WS}]+`,
].join('|');

/** Sticky: `test` at `lastIndex` only, no match array built. */
const PIECE = new RegExp(PATTERN, 'uy');

/**
 * End (exclusive, UTF-16 units) of the pre-token piece starting at `pos`. V8's regex engine
 * keeps a backtrack entry per iteration of a greedy loop over non-ASCII characters and
 * throws a RangeError ("Maximum call stack size exceeded") on runs of a few million of them
 * (2.5 M of `'a\u0301'`, 5 M of `'中'`); such a piece is then found by {@link scanPiece},
 * which implements the same pattern by hand.
 */
export function pieceEnd(s: string, pos: number): number {
  const c = s.charCodeAt(pos);
  const e = asciiPieceEnd(s, pos, c);
  if (e >= 0) return e;
  const w = ideoRunEnd(s, pos, c);
  if (w >= 0) return w;
  PIECE.lastIndex = pos;
  let found: boolean;
  try {
    found = PIECE.test(s);
  } catch (e) {
    if (e instanceof RangeError) return scanPiece(s, pos);
    throw e;
  }
  if (!found) {
    // Unreachable: every code point is a letter, number, white space or "other", and each
    // class starts some alternative.
    throw new Error(`tokens: internal error, no pre-token at offset ${pos}`);
  }
  return PIECE.lastIndex;
}

// ASCII classes for asciiPieceEnd.
const A_UP = 1; // A-Z
const A_LO = 2; // a-z
const A_DIG = 3; // 0-9
const A_SP = 4; // \t \v \f space
const A_NL = 5; // \r \n
const A_P = 6; // anything else (punctuation, symbols, other control characters)
// Indexed by any UTF-16 unit, so that a scan needs no separate test for ASCII: 0 for a non-ASCII unit.
const ASCII_CLASS = new Uint8Array(65536);
ASCII_CLASS.fill(A_P, 0, 0x80);
for (let c = 0x41; c <= 0x5a; c++) ASCII_CLASS[c] = A_UP;
for (let c = 0x61; c <= 0x7a; c++) ASCII_CLASS[c] = A_LO;
for (let c = 0x30; c <= 0x39; c++) ASCII_CLASS[c] = A_DIG;
for (const c of [0x09, 0x0b, 0x0c, 0x20]) ASCII_CLASS[c] = A_SP;
ASCII_CLASS[0x0a] = A_NL;
ASCII_CLASS[0x0d] = A_NL;

/**
 * The pattern's kind bits ({@link kindOf}) of the non-ASCII UTF-16 unit `c`, or -1 for a
 * surrogate (the code point it belongs to is not known from the unit alone). 0 is a character
 * of none of the classes: punctuation or a symbol other than a mark (`…`, `»`, `—`, `│`).
 */
function wideKind(c: number): number {
  if (c >= 0xd800 && c <= 0xdfff) return -1;
  const k = BMP_KIND[c]!;
  return k !== 0 ? k & 255 : kindOf(c);
}

/**
 * End of the letters piece whose letters start at `q` (A-Z or a-z there), or -1 when a
 * non-ASCII character that may continue the word (a letter, a mark, a surrogate) is met.
 */
function asciiLetters(s: string, q: number, n: number): number {
  let i = q;
  let c = 0;
  while (i < n && ASCII_CLASS[(c = s.charCodeAt(i))] === A_UP) i++;
  while (i < n && ASCII_CLASS[(c = s.charCodeAt(i))] === A_LO) i++;
  if (i < n && c >= 0x80) {
    const k = wideKind(c);
    if (k < 0 || (k & (K_L | K_M)) !== 0) return -1;
    return i; // a digit, white space or symbol ends the word (and is no contraction)
  }
  return contractionEnd(s, i);
}

/**
 * The piece end at `pos` (where `s` has the character `c`) when the ASCII characters and the
 * non-ASCII symbols around it decide it, else -1 (then the regex decides): a piece that starts
 * with an ASCII character or with a non-ASCII symbol ({@link wideKind} 0), and that meets no
 * non-ASCII letter, mark, number or white space where it could change the piece. The same
 * choices as {@link PIECE}: an optional prefix (white space other than \r\n, or punctuation)
 * before letters, upper-case then lower-case letters and a contraction, up to three digits,
 * ` ?` punctuation then `[\r\n/]*`, and the white-space alternatives.
 */
export function asciiPieceEnd(s: string, pos: number, c = s.charCodeAt(pos)): number {
  let k: number;
  if (c < 0x80) k = ASCII_CLASS[c]!;
  else if (wideKind(c) === 0) k = A_P;
  else return -1;
  const n = s.length;
  if (k === A_UP || k === A_LO) return asciiLetters(s, pos, n);
  if (k === A_DIG) {
    let i = pos + 1;
    for (let j = 0; j < 2 && i < n; j++, i++) {
      const d = s.charCodeAt(i);
      if (d >= 0x80) {
        const w = wideKind(d);
        if (w < 0 || (w & K_N) !== 0) return -1;
        break;
      }
      if (ASCII_CLASS[d] !== A_DIG) break;
    }
    return i;
  }
  let next = A_NL; // class of s[pos + 1] (none at the end)
  if (pos + 1 < n) {
    const d = s.charCodeAt(pos + 1);
    if (d < 0x80) next = ASCII_CLASS[d]!;
    else if (wideKind(d) === 0) next = A_P;
    else return -1;
  }
  if (k !== A_NL && (next === A_UP || next === A_LO)) return asciiLetters(s, pos + 1, n);
  if (k === A_P || (c === 0x20 && next === A_P)) {
    let i = k === A_P ? pos + 1 : pos + 2;
    let d = 0;
    for (; i < n; i++) {
      d = s.charCodeAt(i);
      if (d < 0x80) {
        if (ASCII_CLASS[d] !== A_P) break;
        continue;
      }
      // A non-ASCII mark or symbol continues the run; a letter, number or white space ends it.
      const w = wideKind(d);
      if (w < 0) return -1;
      if ((w & (K_L | K_N | K_WS)) !== 0) return i;
    }
    while (i < n && ((d = s.charCodeAt(i)) === 0x0a || d === 0x0d || d === 0x2f)) i++;
    return i;
  }
  // White space: up to the last \r or \n of the run, else the run (less its last character
  // when more follows and the run is longer than one).
  let w = pos;
  let lastNl = -1;
  let d = 0;
  let kd = 0;
  while (w < n && (kd = ASCII_CLASS[(d = s.charCodeAt(w))]!) >= A_SP && kd <= A_NL) {
    if (d === 0x0a || d === 0x0d) lastNl = w;
    w++;
  }
  if (w < n && d >= 0x80) {
    // Non-ASCII white space would continue the run; anything else (\S) ends it.
    const k2 = wideKind(d);
    if (k2 >= 0 && (k2 & K_WS) !== 0) return -1;
  }
  if (lastNl >= 0) return lastNl + 1;
  return w === n || w - pos < 2 ? w : w - 1;
}

/**
 * The piece end at `pos` (where `s` has the unit `c`) when the piece is a run of letters of
 * both letter classes of the pattern (Lm, Lo: Han, Kana, Hangul, Thai; or marks), maybe after
 * one prefix character (punctuation or white space other than \r\n), ended by the end of `s`
 * or a character that is no letter, mark or `'`; else -1 (the regex decides). The first
 * alternative then takes the prefix and the whole run (`[U]*` takes it all and gives back the
 * last character to `[LO]+`), with no contraction.
 */
export function ideoRunEnd(s: string, pos: number, c = s.charCodeAt(pos)): number {
  const n = s.length;
  let i = pos;
  if (c < 0x80) {
    const k = ASCII_CLASS[c]!;
    if (k !== A_SP && k !== A_P) return -1;
    i++;
  } else {
    const k = wideKind(c);
    if (k < 0) return -1;
    if ((k & K_I) === 0) {
      if ((k & (K_L | K_N | K_M)) !== 0) return -1;
      i++;
    }
  }
  const from = i;
  let d = 0;
  while (i < n && (d = s.charCodeAt(i)) >= 0x80) {
    const k = wideKind(d);
    if (k < 0) return -1;
    if ((k & K_I) === 0) break;
    i++;
  }
  if (i === from) return -1;
  if (i < n) {
    if (d < 0x80) {
      const k = ASCII_CLASS[d]!;
      if (k === A_UP || k === A_LO || d === 0x27) return -1;
    } else if ((wideKind(d) & (K_L | K_M)) !== 0) return -1; // (a surrogate, -1, too)
  }
  return i;
}

// Categories for scanPiece: A = Lu|Lt (upper-only letters), B = Ll (lower-only), I = Lm|Lo|M
// (in both letter classes of the pattern), plus M, N, any letter, white space, \r or \n.
const K_A = 1;
const K_B = 2;
const K_I = 4;
const K_M = 8;
const K_N = 16;
const K_L = 32;
const K_WS = 64;
const K_NL = 128;
const K_DONE = 256;
const RE_A = /^[\p{Lu}\p{Lt}]$/u;
const RE_B = /^\p{Ll}$/u;
const RE_I = /^[\p{Lm}\p{Lo}\p{M}]$/u;
const BMP_KIND = new Uint16Array(65536);
// Single-code-point tests (also used by resync.ts).
export const RE_N = /^\p{N}$/u;
export const RE_L = /^\p{L}$/u;
export const RE_M = /^\p{M}$/u;
export const RE_WS = new RegExp(`^[${WS}]$`, 'u');

function kindOf(cp: number): number {
  if (cp <= 0xffff && BMP_KIND[cp] !== 0) return BMP_KIND[cp]! & 255;
  const ch = String.fromCodePoint(cp);
  let k = 0;
  if (RE_A.test(ch)) k |= K_A;
  if (RE_B.test(ch)) k |= K_B;
  if (RE_I.test(ch)) k |= K_I;
  if (RE_M.test(ch)) k |= K_M;
  if (RE_N.test(ch)) k |= K_N;
  if (RE_L.test(ch)) k |= K_L;
  if (RE_WS.test(ch)) k |= K_WS;
  if (cp === 10 || cp === 13) k |= K_NL;
  if (cp <= 0xffff) BMP_KIND[cp] = k | K_DONE;
  return k;
}

/** Width in UTF-16 units of the code point at `i` (a lone surrogate counts as one). */
function cpWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Kind of the code point at `i` (`i < s.length`). */
function kindAt(s: string, i: number): number {
  return kindOf(s.codePointAt(i)!);
}

/** End of the longest run from `i` of code points whose kind has a bit of `mask`. */
function runEnd(s: string, i: number, mask: number): number {
  const n = s.length;
  while (i < n && kindAt(s, i) & mask) i += cpWidth(s, i);
  return i;
}

/** `i` plus the length of the contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`, any case, `'ſ`) at `i`. */
function contractionEnd(s: string, i: number): number {
  // Every read is within the string: a read past the end (NaN) would make the engine's
  // optimised code of this function and its callers handle doubles from then on.
  const n = s.length;
  if (i + 1 >= n || s.charCodeAt(i) !== 0x27) return i;
  const d1 = s.charCodeAt(i + 1);
  const c1 = d1 | 0x20;
  if (d1 === 0x17f || c1 === 0x73 || c1 === 0x74 || c1 === 0x6d || c1 === 0x64) return i + 2; // s ſ t m d
  if (i + 2 >= n) return i;
  const c2 = s.charCodeAt(i + 2) | 0x20;
  if ((c1 === 0x72 || c1 === 0x76) && c2 === 0x65) return i + 3; // re ve
  if (c1 === 0x6c && c2 === 0x6c) return i + 3; // ll
  return i;
}

/**
 * The pre-token piece starting at `pos`, computed without the regex: the same result as
 * {@link PIECE} (the alternatives in order, with the regex's greedy-then-backtrack choices
 * worked out), in linear time and constant stack. Used for giant pieces (see {@link pieceEnd});
 * tests check it against the regex.
 */
export function scanPiece(s: string, pos: number): number {
  const n = s.length;
  const k0 = kindAt(s, pos);
  const w0 = cpWidth(s, pos);
  // `[^\r\n\p{L}\p{N}]?`: an optional first code point, tried taken first.
  const prefixed = !(k0 & (K_NL | K_L | K_N));
  const starts = prefixed && pos + w0 < n ? [pos + w0, pos] : [pos];
  const U = K_A | K_I;
  const LO = K_B | K_I;
  // 1. [^\r\n\p{L}\p{N}]?[U]*[LO]+ contraction?
  for (const q of starts) {
    const u = runEnd(s, q, U);
    if (u < n && kindAt(s, u) & K_B) return contractionEnd(s, runEnd(s, u, LO));
    // backtrack into the U run: the last code point that is also in LO (an I) ends the piece
    let lastI = -1;
    for (let i = q; i < u; i += cpWidth(s, i)) if (kindAt(s, i) & K_I) lastI = i;
    if (lastI >= 0) return contractionEnd(s, lastI + cpWidth(s, lastI));
  }
  // 2. [^\r\n\p{L}\p{N}]?[U]+[LO]* contraction?
  for (const q of starts) {
    const u = runEnd(s, q, U);
    if (u > q) return contractionEnd(s, runEnd(s, u, LO));
  }
  // 3. \p{N}{1,3}
  if (k0 & K_N) {
    let e = pos;
    for (let c = 0; c < 3 && e < n && kindAt(s, e) & K_N; c++) e += cpWidth(s, e);
    return e;
  }
  // 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const q4 = s.charCodeAt(pos) === 0x20 ? pos + 1 : pos;
  let e4 = q4;
  while (e4 < n && !(kindAt(s, e4) & (K_WS | K_L | K_N))) e4 += cpWidth(s, e4);
  if (e4 > q4) {
    for (let c = 0; e4 < n && ((c = s.charCodeAt(e4)) === 10 || c === 13 || c === 0x2f); e4++);
    return e4;
  }
  // 5. `\s*[\r\n]+`: up to the last \r or \n of the white-space run
  const w = runEnd(s, pos, K_WS); // white space is all in the BMP
  for (let i = w - 1; i >= pos; i--) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) return i + 1;
  }
  // 6. `\s+(?!\S)`, 7. `\s+`
  if (w > pos) return w === n || w - pos < 2 ? w : w - 1;
  throw new Error(`tokens: internal error, no pre-token at offset ${pos}`);
}

/**
 * The piece end at `pos` by the regex alone, without the {@link scanPiece} fallback (for tests
 * that compare the two; throws RangeError on giant non-ASCII runs).
 */
export function regexPieceEnd(s: string, pos: number): number {
  PIECE.lastIndex = pos;
  if (!PIECE.test(s)) throw new Error('no piece');
  return PIECE.lastIndex;
}
