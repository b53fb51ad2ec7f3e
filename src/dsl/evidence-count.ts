/**
 * The text an evidence cut assembles from the pieces it keeps (`evidence-cut.ts`), and its token
 * count from the pieces' own counts.
 */
import { lenToks } from '../tokens/index.js';
import { endsInWs, spacedToks } from '../tokens/splice.js';

/** The mark put where text was removed (between kept pieces, and at a cut end). */
export const EVIDENCE_CUT_MARK = ' … ';

/** The joint between adjacent whole lines. */
export const JOIN = ' ¶ ';

/** One piece a cut may keep: a whole line (or its middle cut), or a URL or path inside a line. */
export interface Unit {
  line: number;
  /** Offset of the piece in its line (0 for a whole line). */
  start: number;
  /** A whole line, cut or not (false: a span inside a line, or one end of it). */
  whole: boolean;
  /** For a piece that is not whole: `'head'` when it starts its line, `'tail'` when it ends it. */
  edge?: 'head' | 'tail';
  text: string;
  /** Tokens of `text`. */
  tokens: number;
}

/** Whether a piece starts its line (a whole line or a line's head). */
const startsLine = (u: Unit): boolean => u.whole || u.edge === 'head';
/** Whether a piece ends its line (a whole line or a line's tail). */
const endsLine = (u: Unit): boolean => u.whole || u.edge === 'tail';
/** Whether `u`, kept right after `prev`, follows it with nothing removed between them. */
const adjacent = (prev: Unit, u: Unit): boolean => endsLine(prev) && startsLine(u) && u.line === prev.line + 1;

/** A mark of removed text that a piece may hold of its own at its end or start: `…`, or three dots or more (with blanks beside it). */
const TOOL_MARK_END = /[ \t]*(?:…|\.{3,})$/;
const TOOL_MARK_START = /^(?:…|\.{3,})[ \t]*/;

/** Is a cut mark written before the piece `kept[k]` (text was removed between it and the piece before, or before it in its line)? */
function markBefore(kept: readonly Unit[], k: number): boolean {
  const u = kept[k]!;
  const prev = kept[k - 1];
  return prev === undefined ? u.line > 0 || !startsLine(u) : !adjacent(prev, u);
}

/** Is a cut mark written after the piece `kept[k]`? */
function markAfter(lines: readonly string[], kept: readonly Unit[], k: number): boolean {
  const u = kept[k]!;
  const next = kept[k + 1];
  return next === undefined ? u.line < lines.length - 1 || !endsLine(u) : !adjacent(u, next);
}

/**
 * The text of the piece `kept[k]` as written: without a mark of its own (`…`, `...`) at a side
 * where the cut writes its mark (`Compiling...` before a gap reads `Compiling …`), so that one
 * mark shows there, the cut's; the piece as it is when that would leave nothing of it.
 */
function shownText(lines: readonly string[], kept: readonly Unit[], k: number): string {
  let t = kept[k]!.text;
  if (markAfter(lines, kept, k)) t = t.replace(TOOL_MARK_END, '');
  if (markBefore(kept, k)) t = t.replace(TOOL_MARK_START, '');
  return t.trim() === '' ? kept[k]!.text : t;
}

/**
 * Join kept units (in text order) with `' ¶ '` between adjacent lines (a line's end, then the
 * next line's start) and the cut mark across gaps; a piece's own mark beside the cut's is left
 * out ({@link shownText}).
 */
export function assemble(prefix: string, lines: readonly string[], kept: readonly Unit[]): string {
  let out = prefix;
  for (let k = 0; k < kept.length; k++) {
    const u = kept[k]!;
    const prev = kept[k - 1];
    if (prev === undefined) out += u.line > 0 || !startsLine(u) ? EVIDENCE_CUT_MARK.trimStart() : '';
    else out += adjacent(prev, u) ? JOIN : EVIDENCE_CUT_MARK;
    out += shownText(lines, kept, k);
  }
  const end = kept[kept.length - 1];
  if (end !== undefined && (end.line < lines.length - 1 || !endsLine(end))) out += EVIDENCE_CUT_MARK.trimEnd();
  return out;
}

/**
 * `lenToks(assemble(prefix, lines, kept))` from the kept pieces' counts, or -1 when the parts
 * do not allow it. The assembled text is `p0`, then `' ' + piece` for each piece with `' ¶'` or
 * `' …'` between them, then `' …'` or nothing, where `p0` (the prefix and a leading cut mark
 * without their last space) and each piece end in a character other than white space: no
 * pre-token piece holds such a character followed by a space (a space starts a piece or stays
 * in a run of white space), so each part's pieces are its own, as if it stood alone, and the
 * count is the sum of the parts' counts (`spacedToks` counts a piece with its space).
 */
export function assembledToks(prefix: string, lines: readonly string[], kept: readonly Unit[]): number {
  let lead = prefix;
  let total = 0;
  const { join, mark } = jointToks();
  for (let k = 0; k < kept.length; k++) {
    const u = kept[k]!;
    const prev = kept[k - 1];
    if (prev === undefined) lead += u.line > 0 || !startsLine(u) ? EVIDENCE_CUT_MARK.trimStart() : '';
    else total += adjacent(prev, u) ? join : mark;
    const t = shownText(lines, kept, k);
    if (t === '' || endsInWs(t)) return -1;
    total += spacedToks(t, t === u.text ? u.tokens : lenToks(t));
  }
  // The prefix (and leading mark) must end in a space after some other character.
  if (lead.length < 2 || lead.charCodeAt(lead.length - 1) !== 0x20) return -1;
  const p0 = lead.slice(0, -1);
  if (endsInWs(p0)) return -1;
  total += lenToks(p0);
  const end = kept[kept.length - 1];
  if (end !== undefined && (end.line < lines.length - 1 || !endsLine(end))) total += mark;
  return total;
}

let joints: { join: number; mark: number } | undefined;

/** The tokens of {@link JOIN} and of the cut mark without their last space, counted once. */
function jointToks(): { join: number; mark: number } {
  joints ??= { join: lenToks(JOIN.trimEnd()), mark: lenToks(EVIDENCE_CUT_MARK.trimEnd()) };
  return joints;
}

// Character kinds for the piece-boundary test below: 0 an ASCII letter, 1 an ASCII digit, 2 tab,
// `\v`, `\f` or space, 3 `\r` or `\n`, 4 `'`, 5 other ASCII, 6 other white space (U+0085,
// U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), 7 any other character.
const LETTER = 0;
const DIGIT = 1;
const SPACE = 2;
const NEWLINE = 3;
const APOS = 4;
const PUNCT = 5;
const WIDE_SPACE = 6;
const WIDE = 7;

/** The kind of each UTF-16 unit (one table lookup per unit in the scan below). */
const KIND = new Uint8Array(65536).fill(WIDE);
KIND.fill(PUNCT, 0, 128);
KIND.fill(LETTER, 65, 91);
KIND.fill(LETTER, 97, 123);
KIND.fill(DIGIT, 48, 58);
for (const c of [9, 11, 12, 32]) KIND[c] = SPACE;
KIND[10] = NEWLINE;
KIND[13] = NEWLINE;
KIND[39] = APOS;
for (const c of [0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]) KIND[c] = WIDE_SPACE;
KIND.fill(WIDE_SPACE, 0x2000, 0x200b);

/**
 * 1 at `previous kind * 8 + kind` when a piece surely starts between the two units (a digit
 * after a digit aside: runs of three): white space after a unit other than white space,
 * `\r` or `\n`; a digit after any other ASCII unit; any ASCII unit after a digit; ASCII
 * punctuation (other than `'`, `\r`, `\n`) or white space after an ASCII letter.
 */
const BREAK = new Uint8Array(64);
for (let p = 0; p < 8; p++) {
  for (let c = 0; c < 8; c++) {
    let cut: boolean;
    if (c === SPACE || c === WIDE_SPACE) cut = p !== SPACE && p !== WIDE_SPACE && p !== NEWLINE;
    else if (c === DIGIT) cut = p !== DIGIT && p !== WIDE_SPACE && p !== WIDE;
    else if (p === DIGIT) cut = c !== WIDE;
    else cut = p === LETTER && c === PUNCT;
    BREAK[p * 8 + c] = cut ? 1 : 0;
  }
}

/**
 * Whether `s` surely has more than `n` tokens, judged by pre-token boundaries alone (no merge):
 * `pieceFloor(s, n) > n`. False says nothing: `s` may still have more.
 * @param s any text. @param n a token count.
 * @returns true only when `lenToks(s) > n`. Stops scanning once the pieces found exceed `n`.
 */
export function surelyOverToks(s: string, n: number): boolean {
  return pieceFloor(s, n) > n;
}

/**
 * A lower bound of `lenToks(s)` from pre-token boundaries alone (no merge), counted no further
 * than `n + 1`: each pre-token piece gives at least one token, and a piece boundary lies
 * wherever a character other than white space is followed by white space other than `\r`/`\n`
 * (a piece has white space only at its start, but for `\r`/`\n` after punctuation), between an
 * ASCII digit and another ASCII character, after an ASCII letter followed by ASCII punctuation
 * other than `'`, and after every three digits of a run.
 * @param s any text. @param n a token count.
 * @returns 0 for `''`; otherwise the count of pieces so found, stopping (and returning) as soon
 *   as it exceeds `n` — so a result of at most `n` is the count for the whole of `s`.
 */
export function pieceFloor(s: string, n: number): number {
  const len = s.length;
  if (len === 0) return 0;
  let pieces = 1;
  if (pieces > n) return pieces;
  let p = KIND[s.charCodeAt(0)]!;
  let digits = p === DIGIT ? 1 : 0;
  for (let j = 1; j < len; j++) {
    const k = KIND[s.charCodeAt(j)]!;
    if (k === DIGIT && p === DIGIT) {
      if (++digits > 3) {
        digits = 1;
        if (++pieces > n) return pieces;
      }
    } else {
      digits = k === DIGIT ? 1 : 0;
      if (BREAK[p * 8 + k] === 1 && ++pieces > n) return pieces;
    }
    p = k;
  }
  return pieces;
}
