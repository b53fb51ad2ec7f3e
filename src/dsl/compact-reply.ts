/**
 * A prompt's reply rendered in the compact DSL (SPEC §8, the reference's `compact_reply`):
 * prose, then each tool call followed by its result; and the test that tells a reply which
 * already is such a rendering.
 */
import { compactCall, compactResult, compactText, resolvePolicy, type Policy } from './render.js';
import { fmt2hist } from '../chat/index.js';
import type { Msg, ToolResultPart, ToolUsePart } from '../chat/index.js';
import { mayHoldToolCalls } from '../chat/parse.js';
import { pyStrip } from '../python/index.js';
import { fitsToks, truncToksMid, type TokenClass } from '../tokens/index.js';
import { lenToksLike, noteCount } from '../tokens/splice.js';
import { cleanProse, dropThinkingLines } from './clean-text.js';

/** One rendered piece of a reply or cell, with the class its tokens count towards. */
export interface Piece {
  cls: TokenClass;
  text: string;
}

/**
 * A reply's parts rendered in the DSL, as classified pieces: prose (`assistant`; bare, or
 * delimited by `mark`), then each tool call (`calls`) followed by its result (`results`,
 * matched by id). The `'.'` placeholder that fmt2hist appends is dropped. In the clean
 * profile, lines made only of 🧠 are dropped from prose before it is budgeted (a part left
 * empty renders nothing), prose is cut grapheme-safe and its code fences are never left open.
 * @param msgs the reply's parse when the caller already has it (default `fmt2hist(reply)`).
 */
export function replyPieces(reply: string, p: Policy, mark: string, msgs: Msg[] = fmt2hist(reply)): Piece[] {
  const results = new Map<string, ToolResultPart>();
  for (const m of msgs) {
    if (m.role !== 'tool') continue;
    for (const part of m.content) if (part.type === 'tool_result') results.set(part.id, part);
  }
  const out: Piece[] = [];
  // The text of the last bare prose piece that the reference's cut shortened.
  let cutFrom: string | undefined;
  for (const m of msgs) {
    if (m.role !== 'assistant') continue;
    for (const part of m.content) {
      if (part.type === 'text') {
        if (part.text === '.') continue;
        if (p.profile === 'clean') {
          // Thinking indicators are dropped before budgeting; a part left empty renders nothing.
          const prose = pyStrip(dropThinkingLines(part.text));
          if (prose === '') continue;
          out.push({ cls: 'assistant', text: mark ? compactText(prose, mark, p.asstToks, 'clean') : cleanProse(prose, p.asstToks, { balance: true }) });
          continue;
        }
        if (mark) {
          out.push({ cls: 'assistant', text: compactText(part.text, mark, p.asstToks) });
          continue;
        }
        const src = pyStrip(part.text);
        const text = truncToksMid(src, p.asstToks);
        if (text !== src) cutFrom = src;
        out.push({ cls: 'assistant', text });
      } else if (part.type === 'tool_use') {
        out.push({ cls: 'calls', text: compactCall(part as ToolUsePart, p.callToks, p.profile) });
        const res = results.get(part.id);
        if (res) out.push({ cls: 'results', text: compactResult(res.text, p.resultToks, p.profile) });
      }
    }
  }
  // A rendering that is one cut prose piece is tested next for being compacted already, which
  // counts it (`isCompactedGiven`): its count comes from the cut text's pieces and seams here.
  if (cutFrom !== undefined && out.length === 1) noteCount(out[0]!.text, lenToksLike(cutFrom, out[0]!.text));
  return out;
}

/**
 * Render a prompt's reply in the DSL (the reference's `compact_reply`): prose bare (or
 * delimited by `mark`), each tool call followed by its result; pieces joined by newlines.
 * @param reply the reply wire text (Markdown with tool blocks, SPEC §6).
 * @param policy token budgets; missing fields take `compactPolicy`'s.
 * @param opts.mark sigil that delimits prose (`'»'` in flat documents), `''` for bare prose.
 * @returns the rendering (a string; `''` for an empty reply).
 */
export function compactReply(reply: string, policy?: Partial<Policy>, opts: { mark?: string } = {}): string {
  return replyPieces(reply, resolvePolicy(policy), opts.mark ?? '')
    .map((x) => x.text)
    .join('\n');
}

/** Re-tokenising a middle cut can cost a few tokens at its two seams; this much slack is allowed. */
const SEAM_SLACK_TOKENS = 8;

/**
 * True when a reply already holds what {@link compactReply} makes, so that compacting it again
 * would only cut it further. Two shapes are recognised, both only in replies without tool
 * blocks:
 * - a rendering with calls: some line that renders a call (`▶ name(`, `! `, or a closing code
 *   fence) is directly followed by a result line (`>` or `> …`);
 * - cut prose: the text holds the cut mark `' … '` and, stripped, is within one `asstToks`
 *   budget (plus a small seam allowance: decoding a cut and encoding it again may merge bytes
 *   differently at the two joins, so a cut of 150 tokens can count 151) per mark, plus one
 *   budget for an uncut piece (prose split by a dropped server call renders as several pieces).
 * Compacting a message leaves such replies alone; this keeps compaction idempotent.
 */
export function isCompactedReply(reply: string, policy?: Partial<Policy>): boolean {
  return isCompactedGiven(reply, resolvePolicy(policy), () => fmt2hist(reply));
}

/**
 * True when some line (lines end at `\n`) that renders a call — it starts with `▶ ` or `! `, or
 * is a closing code fence of three or more backticks — is directly followed by a result line
 * (`>`, or `> ` and more). Looks only at the lines around each `\n>`; linear.
 */
function callThenResult(reply: string): boolean {
  for (let k = reply.indexOf('\n>'); k >= 0; k = reply.indexOf('\n>', k + 1)) {
    const after = reply.charCodeAt(k + 2);
    if (!(k + 2 === reply.length || after === 0x0a || after === 0x20)) continue;
    if (k === 0) continue; // the line before is empty
    const p = reply.lastIndexOf('\n', k - 1) + 1;
    if (reply.startsWith('▶ ', p) || reply.startsWith('! ', p)) return true;
    if (k - p < 3) continue;
    let q = p;
    while (q < k && reply.charCodeAt(q) === 0x60) q++;
    if (q === k) return true;
  }
  return false;
}

/**
 * The offset of the next cut mark `' … '` at or after `from`, or -1. Found by searching for the
 * ellipsis alone and checking the spaces beside it: a search that starts with the space stops
 * at every space of the text, where the ellipsis is rare (and is found at once to be absent
 * from a text without characters above U+00FF).
 */
export function nextCutMark(s: string, from: number): number {
  for (let k = s.indexOf('…', from + 1); k >= 0; k = s.indexOf('…', k + 1)) {
    if (s.charCodeAt(k - 1) === 0x20 && s.charCodeAt(k + 1) === 0x20) return k - 1;
  }
  return -1;
}

/** {@link isCompactedReply} with the reply's parse supplied (and computed only if needed). */
export function isCompactedGiven(reply: string, p: Policy, parse: () => Msg[]): boolean {
  const hasResultLine = reply.includes('\n>');
  const firstCut = nextCutMark(reply, 0);
  const hasCut = firstCut >= 0;
  if (!hasResultLine && !hasCut) return false;
  // A reply that cannot hold tool blocks is not parsed for them (the rendering made from the
  // parse, if any, parses it itself).
  if (mayHoldToolCalls(reply) && parse().some((m) => m.role === 'tool' || m.content.some((p) => p.type === 'tool_use'))) return false;
  if (hasResultLine && callThenResult(reply)) return true;
  if (!hasCut) return false;
  // Prose pieces are cut one by one (a dropped server call or id-less block separates them),
  // so a rendering holds at most one cut budget per cut mark plus one uncut piece.
  const asst = p.asstToks;
  let cuts = 0;
  for (let k = firstCut; k >= 0; k = nextCutMark(reply, k + 3)) cuts++;
  return fitsToks(pyStrip(reply), cuts * (asst + SEAM_SLACK_TOKENS) + asst);
}
