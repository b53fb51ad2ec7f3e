/**
 * The recency gradient of a flat document in the clean profile (docs/differences.md, rule 32).
 * The latest two turns each have a large pool of result tokens, the third a small one, and the
 * dialog's first turn (where the data and the setting are usually loaded) a middle one; the
 * AI's prose in the turns between gets a smaller budget. The reference profile renders every
 * cell with the one policy (SPEC §0); a fitted document (`fit.ts`) has its own gradient.
 */
import { fmt2hist, type Msg } from '../chat/index.js';
import type { Policy } from '../dsl/render.js';
import { isRecordCell, type DialogLike, type MessageLike } from './cells.js';

/**
 * The result pools of the turns of age 0, 1 and 2 (0 = the latest), in units of the policy's
 * `resultToks`: a turn with `n` results gives each of them `pool / n` units, at most the
 * turn's {@link RECENT_RESULT_CAP} and never less than 1 (the policy's own budget).
 */
export const RECENT_RESULT_POOL: readonly number[] = Object.freeze([200, 200, 24]);

/** The most units of `resultToks` one result of a turn of age 0, 1 and 2 gets from its pool. */
export const RECENT_RESULT_CAP: readonly number[] = Object.freeze([8, 8, 2]);

/** The result pool (units of `resultToks`) of the dialog's first turn, when it is older than age 2. */
export const FIRST_TURN_POOL = 64;

/** The most units of `resultToks` one result of the first turn gets from its pool. */
export const FIRST_TURN_CAP = 8;

/** The share of the policy's `asstToks` that a prose part of an older turn (not the first) gets. */
export const OLD_PROSE_SHARE = 0.58;

/** Whether a cell shows nothing: blank text, no outputs, no reply (a new cell Jupyter leaves at the end). */
function isBlank(m: MessageLike): boolean {
  const noReply = m.type !== 'prompt' || typeof m.reply !== 'string' || m.reply.trim() === '';
  const noOutput = m.type !== 'code' || !Array.isArray(m.output) || m.output.length === 0;
  return noReply && noOutput && (typeof m.content !== 'string' || m.content.trim() === '');
}

/**
 * The results a rendered cell holds: a code cell with outputs has one, a reply one per tool
 * result. A malformed field counts none (the rendering then reports it, naming the cell).
 */
function resultCount(m: MessageLike, parse: (m: MessageLike) => Msg[]): number {
  if (m.type === 'code') return Array.isArray(m.output) && m.output.length > 0 ? 1 : 0;
  if (m.type !== 'prompt' || typeof m.reply !== 'string' || m.reply === '') return 0;
  let n = 0;
  for (const msg of parse(m)) for (const part of msg.content) if (part.type === 'tool_result') n++;
  return n;
}

/** The parse of a prompt's reply: `fmt2hist` of it. */
function parseReply(m: MessageLike): Msg[] {
  return fmt2hist(m.reply);
}

/** `p` with `resultToks` scaled by a turn's share of its pool (`units`, see RECENT_RESULT_POOL). */
function pooled(p: Policy, pool: number, cap: number, results: number): Policy {
  const units = Math.max(1, Math.min(cap, results > 0 ? pool / results : 1));
  return { ...p, resultToks: Math.min(Number.MAX_SAFE_INTEGER, Math.floor(p.resultToks * units)) };
}

/**
 * The policy of each cell of `d` in a clean flat document rendered with `p` (`undefined` for a
 * cell left out: skipped, or a record). A prompt closes its turn; the cells after the last
 * prompt are the latest turn. Turns whose cells are all blank are not counted, so an empty
 * cell at the end does not take the latest turn's pool. Only `resultToks` and `asstToks`
 * change: rounded down, a scaled result budget at most `Number.MAX_SAFE_INTEGER`, and a prose
 * budget of at least 1 token where the policy's is.
 * @param parse the parse of a prompt's reply (a string, not `''`) whose tool results are
 *   counted: `fmt2hist(m.reply)` (the default), or the same messages from a caller's memo.
 */
export function recencyPolicies(d: DialogLike, p: Policy, parse: (m: MessageLike) => Msg[] = parseReply): (Policy | undefined)[] {
  // Turn of each rendered cell, counting only turns that show something.
  const turnOf: (number | undefined)[] = [];
  let turns = 0;
  let shown = false;
  d.messages.forEach((m, i) => {
    if (m.skipped || isRecordCell(m)) return;
    turnOf[i] = turns;
    if (!isBlank(m)) shown = true;
    if (m.type === 'prompt' && shown) {
      turns++;
      shown = false;
    }
  });
  const latest = shown ? turns : turns - 1;
  const recent = RECENT_RESULT_POOL.length;
  // Results per recent turn (by age) and in the first turn.
  const counts = new Array<number>(recent).fill(0);
  let firstCount = 0;
  d.messages.forEach((m, i) => {
    const t = turnOf[i];
    if (t === undefined) return;
    const age = latest - t;
    if (age < 0) return;
    if (age < recent) counts[age]! += resultCount(m, parse);
    else if (t === 0) firstCount += resultCount(m, parse);
  });
  const byAge = counts.map((n, age) => pooled(p, RECENT_RESULT_POOL[age]!, RECENT_RESULT_CAP[age]!, n));
  const first = pooled(p, FIRST_TURN_POOL, FIRST_TURN_CAP, firstCount);
  const old = { ...p, asstToks: Math.floor(p.asstToks * OLD_PROSE_SHARE) || Math.min(p.asstToks, 1) };
  return Array.from({ length: d.messages.length }, (_, i) => {
    const t = turnOf[i];
    if (t === undefined) return undefined;
    // Blank cells after the latest shown turn render nothing: the latest turn's policy serves.
    const age = Math.max(0, latest - t);
    return byAge[age] ?? (t === 0 ? first : old);
  });
}
