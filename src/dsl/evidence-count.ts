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
  /** A whole line, cut or not (false: a span inside a line). */
  whole: boolean;
  text: string;
  /** Tokens of `text`. */
  tokens: number;
}

/** Join kept units (in text order) with `' ¶ '` between adjacent whole lines and the cut mark across gaps. */
export function assemble(prefix: string, lines: readonly string[], kept: readonly Unit[]): string {
  let out = prefix;
  for (let k = 0; k < kept.length; k++) {
    const u = kept[k]!;
    const prev = kept[k - 1];
    if (prev === undefined) out += u.line > 0 || !u.whole ? EVIDENCE_CUT_MARK.trimStart() : '';
    else out += u.whole && prev.whole && u.line === prev.line + 1 ? JOIN : EVIDENCE_CUT_MARK;
    out += u.text;
  }
  const end = kept[kept.length - 1];
  if (end !== undefined && (end.line < lines.length - 1 || !end.whole)) out += EVIDENCE_CUT_MARK.trimEnd();
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
  for (let k = 0; k < kept.length; k++) {
    const u = kept[k]!;
    const prev = kept[k - 1];
    if (prev === undefined) lead += u.line > 0 || !u.whole ? EVIDENCE_CUT_MARK.trimStart() : '';
    else total += lenToks((u.whole && prev.whole && u.line === prev.line + 1 ? JOIN : EVIDENCE_CUT_MARK).trimEnd());
    if (u.text === '' || endsInWs(u.text)) return -1;
    total += spacedToks(u.text, u.tokens);
  }
  // The prefix (and leading mark) must end in a space after some other character.
  if (lead.length < 2 || lead.charCodeAt(lead.length - 1) !== 0x20) return -1;
  const p0 = lead.slice(0, -1);
  if (endsInWs(p0)) return -1;
  total += lenToks(p0);
  const end = kept[kept.length - 1];
  if (end !== undefined && (end.line < lines.length - 1 || !end.whole)) total += lenToks(EVIDENCE_CUT_MARK.trimEnd());
  return total;
}

/** White space as o200k_base's pre-tokeniser sees it, other than `\r` and `\n`: tab, `\v`, `\f`, space, U+0085, U+00A0 … */
function isSpaceUnit(c: number): boolean {
  if (c < 0x85) return c === 32 || c === 9 || c === 11 || c === 12;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/**
 * Whether `s` surely has more than `n` tokens, judged by pre-token boundaries alone (no merge):
 * each pre-token piece gives at least one token, and a piece boundary lies wherever a character
 * other than white space is followed by white space other than `\r`/`\n` (a piece has white
 * space only at its start, but for `\r`/`\n` after punctuation), between an ASCII digit and
 * another ASCII character, after an ASCII letter followed by ASCII punctuation other than `'`,
 * and after every three digits of a run. False says nothing: `s` may still have more.
 * @param s any text. @param n a token count.
 * @returns true only when `lenToks(s) > n`. Stops scanning once the pieces found exceed `n`.
 */
export function surelyOverToks(s: string, n: number): boolean {
  if (s.length === 0) return n < 0;
  let pieces = 1;
  if (pieces > n) return true;
  let p = s.charCodeAt(0);
  let digits = p >= 48 && p <= 57 ? 1 : 0;
  for (let j = 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    const cDigit = c >= 48 && c <= 57;
    let cut = false;
    if (cDigit) {
      if (p >= 48 && p <= 57) {
        if (++digits > 3) {
          digits = 1;
          cut = true;
        }
      } else {
        digits = 1;
        cut = p < 128;
      }
    } else {
      digits = 0;
      if (isSpaceUnit(c)) cut = !isSpaceUnit(p) && p !== 10 && p !== 13;
      else if (c < 128 && p < 128) {
        const pLetter = (p >= 65 && p <= 90) || (p >= 97 && p <= 122);
        const cPunct = !((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) && c !== 39 && c !== 10 && c !== 13;
        cut = (p >= 48 && p <= 57) || (pLetter && cPunct);
      }
    }
    if (cut && ++pieces > n) return true;
    p = c;
  }
  return false;
}
