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
