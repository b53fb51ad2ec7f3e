/**
 * The one measure of what the model reads of a dialog (SPEC §7 "AI view", SPEC §9 budgets):
 * o200k_base tokens of each non-skipped cell's source, of a prompt's reply as written, and of
 * the AI view of a code cell's outputs. The `--max-tokens` trigger, summary acceptance,
 * micro-compaction's totals and the command's report all count with it.
 */
import { isDialogLike, type DialogLike as Dialog, type MessageLike as Message } from './cells.js';
import { atCell } from './cell-errors.js';
import { fmt2hist } from '../chat/index.js';
import { InvalidArgumentError } from '../errors.js';
import { checkTokenCount, lenToks, type ClassTokens, type ItemTokenCounter, type TokenCounter } from '../tokens/index.js';

/** What a dialog holds, with its token counts per class. */
export interface TokenStats {
  /** Messages (cells) in the dialog, skipped ones included. */
  messages: number;
  /** Prompt messages, skipped ones included. */
  prompts: number;
  /** Tool calls in all replies, skipped prompts included (server calls and id-less blocks
   *  excluded, as fmt2hist drops them). */
  toolCalls: number;
  /** What the model reads, by class; `total` equals {@link dialogContextTokens}. */
  tokens: ClassTokens;
}

/**
 * A per-cell token counter (an {@link ItemTokenCounter} of dialog messages): what one cell
 * costs, a non-negative integer. The default is {@link messageContextTokens}.
 */
export type CellTokenCounter = ItemTokenCounter<Message>;

/** A cell as the measure reads it: an object with a string `type`, `content` and `reply`. */
function isMessageLike(m: unknown): m is Message {
  if (m === null || typeof m !== 'object') return false;
  const o = m as Partial<Message>;
  return typeof o.type === 'string' && typeof o.content === 'string' && typeof o.reply === 'string';
}

function emptyTokens(): ClassTokens {
  return { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 0 };
}

/** The cell's texts the model reads, with their classes: source, then reply or output view. */
function cellTexts(m: Message): { source: string; extra: string } {
  if (m.type === 'prompt') return { source: m.content, extra: m.reply };
  if (m.type === 'code' && m.output.length > 0) return { source: m.content, extra: m.aiOutput };
  return { source: m.content, extra: '' };
}

/**
 * The stock per-cell measure with another text counter: `count(source) + count(reply)` for a
 * prompt, `count(source) + count(aiOutput)` for a code cell with outputs, `count(source)`
 * otherwise; 0 for a skipped cell (the model never sees it). Each result of `count` is checked.
 * @returns a {@link CellTokenCounter}.
 */
export function cellTokenCounter(count: TokenCounter): CellTokenCounter {
  if (typeof count !== 'function') throw new InvalidArgumentError('cellTokenCounter: count must be a function');
  return (m: Message): number => {
    if (!isMessageLike(m)) throw new InvalidArgumentError('cellTokenCounter: expected a Message');
    if (m.skipped) return 0;
    const { source, extra } = cellTexts(m);
    const n = checkTokenCount(count(source), 'cellTokenCounter');
    return extra === '' ? n : n + checkTokenCount(count(extra), 'cellTokenCounter');
  };
}

/**
 * What the model reads of one cell, in o200k_base tokens: `lenToks(content) + lenToks(reply)`
 * for a prompt (the reply as written, tool blocks included), `lenToks(content) +
 * lenToks(aiOutput)` for a code cell (the AI view of its outputs, SPEC §7), `lenToks(content)`
 * for notes and raws; 0 for a skipped cell.
 * @returns tokens (o200k_base), an integer >= 0.
 * @throws InvalidArgumentError when `m` is not a {@link Message}, or from `aiOutput` when the
 *   outputs are malformed.
 */
export function messageContextTokens(m: Message): number {
  if (!isMessageLike(m)) throw new InvalidArgumentError('messageContextTokens: expected a Message');
  if (m.skipped) return 0;
  const { source, extra } = cellTexts(m);
  return lenToks(source) + (extra === '' ? 0 : lenToks(extra));
}

/**
 * Apply a per-cell counter and check its result (a non-negative safe integer).
 * @throws InvalidArgumentError naming `where` otherwise.
 */
export function countCell(counter: CellTokenCounter, m: Message, where: string): number {
  return checkTokenCount(counter(m), where);
}

/**
 * Total of a per-cell counter over a dialog (default {@link messageContextTokens}).
 * @returns tokens (in the counter's unit).
 * @throws InvalidArgumentError when `d` is not a Dialog or the counter returns anything but a
 *   non-negative integer.
 */
export function dialogContextTokens(d: Dialog, counter: CellTokenCounter = messageContextTokens): number {
  if (!isDialogLike(d)) throw new InvalidArgumentError('dialogContextTokens: expected a Dialog');
  let total = 0;
  for (const m of d.messages) total += countCell(counter, m, 'dialogContextTokens');
  return total;
}

/**
 * Split a reply's count (`lenToks(reply)`, what the model reads) into classes: its prose
 * (fmt2hist text parts, the `'.'` placeholder excluded) is `assistant`, its tool results are
 * `results`, and the rest — each call's name, arguments, id and the block markup — is
 * `calls`. A reply without tool calls is all `assistant`. Each class is at most what is left
 * of the reply's count, so the three always add up to it exactly.
 */
function splitReply(reply: string, into: ClassTokens): number {
  const whole = lenToks(reply);
  const msgs = fmt2hist(reply);
  let calls = 0;
  for (const msg of msgs) for (const part of msg.content) if (part.type === 'tool_use') calls += 1;
  if (calls === 0) {
    // All of it is prose: its parts need no count of their own.
    into.assistant += whole;
    return 0;
  }
  let prose = 0;
  let results = 0;
  for (const msg of msgs) {
    for (const part of msg.content) {
      if (part.type === 'text' && part.text !== '.') prose += lenToks(part.text);
      else if (part.type === 'tool_result') results += lenToks(part.text);
    }
  }
  const a = Math.min(prose, whole);
  const r = Math.min(results, whole - a);
  into.assistant += a;
  into.results += r;
  into.calls += whole - a - r;
  return calls;
}

/**
 * What a dialog holds and what the model reads of it, by class (o200k_base tokens):
 * - `user`: sources of notes, raws and prompts;
 * - `assistant`, `calls`, `results`: each prompt's reply as written, split by its parsed
 *   parts (see the reply split: prose, results, and the rest as calls);
 * - `code`: code sources plus the AI view of their outputs;
 * - `total`: the sum of the classes, equal to {@link dialogContextTokens}`(d)` — the count
 *   the summary trigger and micro-compaction use.
 * Skipped cells count 0 (they still count as messages, prompts and tool calls).
 * @throws NotebookError naming `d.name` and the cell (field `outputs`) when a code cell's
 *   outputs are malformed (the InvalidArgumentError of `aiOutput` is its `cause`).
 */
export function measureDialog(d: Dialog): TokenStats {
  if (!isDialogLike(d)) throw new InvalidArgumentError('measureDialog: expected a Dialog');
  const tokens = emptyTokens();
  let prompts = 0;
  let toolCalls = 0;
  for (let i = 0; i < d.messages.length; i++) {
    const m = d.messages[i]!;
    if (m.type === 'prompt') prompts += 1;
    if (m.skipped) {
      if (m.type === 'prompt' && m.reply) toolCalls += countCalls(m.reply);
      continue;
    }
    if (m.type === 'code') {
      tokens.code += lenToks(m.content);
      if (m.output.length > 0) tokens.code += lenToks(atCell(d, m, i, 'outputs', () => m.aiOutput));
      continue;
    }
    tokens.user += lenToks(m.content);
    if (m.type === 'prompt' && m.reply) toolCalls += splitReply(m.reply, tokens);
  }
  tokens.total = tokens.user + tokens.assistant + tokens.calls + tokens.results + tokens.code;
  return { messages: d.messages.length, prompts, toolCalls, tokens };
}

function countCalls(reply: string): number {
  let n = 0;
  for (const msg of fmt2hist(reply)) for (const part of msg.content) if (part.type === 'tool_use') n += 1;
  return n;
}
