/**
 * Summary compaction of a dialog (SPEC §9 "Summary planning" applied to the dialog model of
 * SPEC §7): the older cells of a dialog are replaced by ONE note cell holding a summary, the
 * recent cells stay verbatim.
 *
 * How a dialog maps onto the summary planner of `summary.ts` ({@link planSummarySplit}):
 * - the items are the dialog's cells, all of them (skipped ones included), so the split index
 *   always falls on a cell boundary; a prompt cell holds a request and its whole reply (every
 *   tool call with its result), so no call is ever separated from its result;
 * - pinned cells play the system prompt's part: never summarised; pinned cells of the head
 *   are hoisted to the front, before the summary note, in their original relative order;
 *   pinned cells of the tail stay where they are;
 * - skipped cells of the head are replaced along with it (their ids are listed in the summary
 *   note's metadata) but their text is never sent to the summariser, and they count zero
 *   tokens with the default counter (the AI never sees them);
 * - the default counter ({@link messageContextTokens}) is exact o200k_base over what the AI
 *   sees of each cell: its content, its reply and the AI view of its outputs.
 *
 * The result of a successful run is: hoisted pinned cells, the summary note, then the tail,
 * all kept cells being the very same `Message` objects (ids, metadata and everything else
 * untouched). The note's metadata records what it replaced under the key
 * {@link SUMMARY_META_KEY} (see {@link DialogSummaryMeta}).
 *
 * History is never replaced by a failed, empty, invalid or non-shrinking summary: the dialog
 * object is only modified (its `messages` array swapped for a new one) after every check has
 * passed, so a refusal leaves it exactly as it was and `dumpsIpynb` writes the same bytes.
 *
 * Summarisers: {@link dslSummarizer} (default; deterministic and offline: the compact DSL of
 * the head, `dlg2compact`), and {@link httpDialogSummarizer} (an OpenAI-compatible endpoint via
 * `httpSummarizer`, prompt from `buildCompactionSummaryPrompt`, pre-compacted with the DSL
 * until it fits the request budget; see {@link buildDialogSummaryPrompt}).
 *
 * Browser-safe: nothing here imports `node:`; environment variables are read only from an
 * `env` object the caller passes in (the CLI passes `process.env`).
 */
import { dlg2compact } from './compact.js';
import { TRANSCRIPT_MARKER } from '../dsl/continuation.js';
import { Dialog, Message, REPLY_SEPARATOR } from './dialog.js';
import { resolvePolicy, type Policy } from '../dsl/render.js';
import { BudgetError, InvalidArgumentError } from '../errors.js';
import { pyDumps, pyStrip } from '../python/py.js';
import { fmt2hist } from '../chat/reply.js';
import { httpSummarizer, type HttpSummarizerOptions } from '../strategies/summarizer-http.js';
import {
  KEEP_RECENT_RATIO,
  buildCompactionSummaryPrompt,
  checkSignal,
  planSummarySplit,
  untilAborted,
  type SummaryMessage,
  type SummaryRefusal,
} from '../strategies/summary.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/tokens.js';

// ---------------------------------------------------------------------------------------------
// Token counting

/** A per-cell token counter: returns a non-negative integer number of tokens for one message. */
export type DialogTokenCounter = (m: Message) => number;

/**
 * Default per-cell counter: exact o200k_base tokens of what the AI sees of a cell —
 * `lenToks(content) + lenToks(reply) + lenToks(aiOutput)` (the AI view of code outputs, SPEC §7;
 * a prompt's view is its reply, so it is counted once). Skipped cells count 0 (they are not
 * part of the AI's context).
 * @returns tokens (o200k_base), an integer >= 0.
 * @throws InvalidArgumentError when `m` is not a {@link Message}.
 */
export function messageContextTokens(m: Message): number {
  if (!(m instanceof Message)) throw new InvalidArgumentError('messageContextTokens: expected a Message');
  if (m.skipped) return 0;
  let n = lenToks(m.content);
  if (m.type === 'prompt') n += lenToks(m.reply);
  else if (m.type === 'code' && m.output.length > 0) n += lenToks(m.aiOutput);
  return n;
}

/** Apply a counter to one cell and check what it returns (a non-negative safe integer). */
function countChecked(counter: DialogTokenCounter, m: Message, where: string): number {
  const n = counter(m);
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new InvalidArgumentError(`${where}: a token counter must return a non-negative integer, got ${String(n)}`);
  }
  return n;
}

/**
 * Total of a per-cell counter over a dialog (default {@link messageContextTokens}).
 * @returns tokens (in the counter's unit).
 * @throws InvalidArgumentError when `d` is not a Dialog or the counter returns anything but a
 *   non-negative integer.
 */
export function dialogContextTokens(d: Dialog, counter: DialogTokenCounter = messageContextTokens): number {
  if (!(d instanceof Dialog)) throw new InvalidArgumentError('dialogContextTokens: expected a Dialog');
  let total = 0;
  for (const m of d.messages) total += countChecked(counter, m, 'dialogContextTokens');
  return total;
}

// ---------------------------------------------------------------------------------------------
// Summarisers

/** What a {@link DialogSummarizer} gets besides the head. */
export interface DialogSummaryContext {
  /**
   * Largest request the summariser may send, in o200k_base tokens (`undefined`: no limit).
   * Summarisers that talk to a model must never exceed it (the HTTP one pre-compacts).
   */
  maxRequestTokens?: number;
  /** Cancels the request (passed through to `fetch`). */
  signal?: AbortSignal;
  /** Path of the full original dialog, when the caller named one; else `null`. */
  sourcePath: string | null;
}

/**
 * A dialog summariser: gets the head to condense as a {@link Dialog} of copies of its cells
 * (skipped cells left out, original order) and returns the summary text (Markdown), or throws
 * / rejects. Optional properties: `label` is recorded in the summary note's metadata
 * (`'dsl'`, `'http:MODEL'`); `offline: true` promises a synchronous, deterministic result with
 * no I/O, which lets {@link planDialogSummary} predict the outcome exactly.
 */
export type DialogSummarizer = ((head: Dialog, ctx: DialogSummaryContext) => string | Promise<string>) & {
  label?: string;
  offline?: boolean;
};

/**
 * The default summariser: the compact DSL of the head, `dlg2compact(head, policy)` (SPEC §8),
 * i.e. code cells as `#_id` + fenced source + output line, notes and prompts as `§ … §` text,
 * replies with `»` prose, each call with its result. Deterministic, synchronous, offline;
 * ignores `maxRequestTokens` (nothing is sent anywhere).
 * @param policy token budgets of the rendering (default 2000 / 150 / 60 / 35).
 * @returns a {@link DialogSummarizer} labelled `'dsl'`, `offline`.
 * @throws InvalidArgumentError on a bad policy (checked at once).
 */
export function dslSummarizer(policy?: Partial<Policy>): DialogSummarizer {
  const p = resolvePolicy(policy);
  const f: DialogSummarizer = (head: Dialog) => dlg2compact(head, p);
  f.label = 'dsl';
  f.offline = true;
  return f;
}

function fenceFor(code: string): string {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < code.length; i++) {
    if (code.charCodeAt(i) === 0x60) {
      run += 1;
      if (run > longest) longest = run;
    } else run = 0;
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Raw cells whose metadata has `rec_kind` are records, not conversation (as dlg2compact, SPEC §8). */
function isRecord(m: Message): boolean {
  return m.type === 'raw' && Object.prototype.hasOwnProperty.call(m.meta, 'rec_kind');
}

/** A reply rendered as plain lines for a summary prompt: prose, `[tool call] …`, `[tool result] …`. */
function replyLines(reply: string): string {
  const lines: string[] = [];
  for (const msg of fmt2hist(reply)) {
    for (const part of msg.content) {
      if (part.type === 'text') {
        if (msg.role === 'assistant' && part.text === '.') continue;
        lines.push(part.text);
      } else if (part.type === 'tool_use') {
        lines.push(`[tool call] ${part.name}(${pyDumps(part.arguments, { ensureAscii: false })})`);
      } else if (part.type === 'tool_result') {
        lines.push(`[tool result] ${part.text}`);
      }
    }
  }
  return lines.join('\n');
}

/**
 * The head of a dialog as summary-planner messages (the message shape of `summary.ts`), in
 * cell order, skipped cells and `rec_kind` raws left out:
 * - note and raw cells: `context`, text = the cell source;
 * - code cells: `user`, text = the source in a Markdown code fence, then `Output:` and the AI
 *   view of its outputs when non-empty;
 * - prompts: `user` with the request, then (when the reply is non-empty) `bot` with the reply
 *   parsed by `fmt2hist` (SPEC §6) and written as lines: prose as is, each call as
 *   `[tool call] NAME(ARGS-JSON)`, each result as `[tool result] TEXT`.
 * Ids are the cell ids.
 * @throws InvalidArgumentError when `head` is not a Dialog.
 */
export function dialogToSummaryMessages(head: Dialog): SummaryMessage[] {
  if (!(head instanceof Dialog)) throw new InvalidArgumentError('dialogToSummaryMessages: expected a Dialog');
  const out: SummaryMessage[] = [];
  for (const m of head.messages) {
    if (m.skipped || isRecord(m)) continue;
    if (m.type === 'note' || m.type === 'raw') {
      out.push({ id: m.id, type: 'context', text: m.content });
    } else if (m.type === 'code') {
      const fence = fenceFor(m.content);
      let text = `${fence}python\n${m.content}\n${fence}`;
      const view = m.output.length > 0 ? m.aiOutput : '';
      if (view !== '') text += `\nOutput:\n${view}`;
      out.push({ id: m.id, type: 'user', text });
    } else {
      out.push({ id: m.id, type: 'user', text: m.content });
      if (m.reply !== '') out.push({ id: m.id, type: 'bot', text: replyLines(m.reply) });
    }
  }
  return out;
}

/**
 * Ever tighter DSL policies tried, in order, when the full rendering of the head does not fit
 * the request budget ({@link buildDialogSummaryPrompt}).
 */
export const PRECOMPACT_POLICIES: readonly Readonly<Policy>[] = Object.freeze([
  Object.freeze({ userToks: 2000, asstToks: 150, callToks: 60, resultToks: 35 }),
  Object.freeze({ userToks: 400, asstToks: 80, callToks: 40, resultToks: 20 }),
  Object.freeze({ userToks: 120, asstToks: 40, callToks: 25, resultToks: 12 }),
]);

/** How much of the head a summary prompt carries: whole, as DSL (ladder step), or cut. */
export type SummaryPromptLevel = 'full' | 'dsl-0' | 'dsl-1' | 'dsl-2' | 'truncated';

/** Result of {@link buildDialogSummaryPrompt}. */
export interface DialogSummaryPrompt {
  /** The prompt text (user message of the request). */
  prompt: string;
  /** Which rendering of the head it carries. */
  level: SummaryPromptLevel;
  /** o200k_base tokens of `prefix + prompt` (what the budget is checked against). */
  tokens: number;
}

/**
 * The summary request for a dialog head, guaranteed to fit a token budget.
 *
 * 1. `buildCompactionSummaryPrompt(dialogToSummaryMessages(head))` (SPEC §9) — the head whole.
 * 2. If `prefix + prompt` exceeds `maxRequestTokens`: the head as compact DSL
 *    (`dlg2compact` with each policy of {@link PRECOMPACT_POLICIES} in turn, tighter and
 *    tighter) in one `context` message.
 * 3. Last resort: the tightest DSL middle-truncated (`truncToksMid`) to the room left, shrunk
 *    until the whole request fits.
 * @param head the cells to summarise (see {@link DialogSummarizer}).
 * @param opts.maxRequestTokens budget in o200k_base tokens for `prefix + prompt` (no limit when
 *   undefined). `opts.prefix`: text sent along with the prompt (a system prompt), counted too.
 * @returns the prompt, its level and its token count.
 * @throws InvalidArgumentError on bad arguments; BudgetError when not even the fixed
 *   instructions of the prompt fit the budget.
 */
export function buildDialogSummaryPrompt(head: Dialog, opts: { maxRequestTokens?: number; prefix?: string } = {}): DialogSummaryPrompt {
  if (!(head instanceof Dialog)) throw new InvalidArgumentError('buildDialogSummaryPrompt: expected a Dialog');
  const { maxRequestTokens: max, prefix = '' } = opts;
  if (max !== undefined && (!Number.isSafeInteger(max) || max <= 0)) {
    throw new InvalidArgumentError(`buildDialogSummaryPrompt: maxRequestTokens must be a positive integer, got ${String(max)}`);
  }
  if (typeof prefix !== 'string') throw new InvalidArgumentError('buildDialogSummaryPrompt: prefix must be a string');
  const full = buildCompactionSummaryPrompt(dialogToSummaryMessages(head));
  if (max === undefined) return { prompt: full, level: 'full', tokens: lenToks(prefix + full) };
  if (fitsToks(prefix + full, max)) return { prompt: full, level: 'full', tokens: lenToks(prefix + full) };
  const wrap = (text: string): string => buildCompactionSummaryPrompt([{ type: 'context', text }]);
  let dsl = '';
  for (let k = 0; k < PRECOMPACT_POLICIES.length; k++) {
    dsl = dlg2compact(head, PRECOMPACT_POLICIES[k]);
    const prompt = wrap(dsl);
    if (fitsToks(prefix + prompt, max)) return { prompt, level: `dsl-${k}` as SummaryPromptLevel, tokens: lenToks(prefix + prompt) };
  }
  const fixed = lenToks(prefix + wrap(''));
  let room = max - fixed;
  if (room <= 0) {
    throw new BudgetError(`buildDialogSummaryPrompt: the summary instructions alone take ${fixed} tokens, over the budget of ${max}`);
  }
  // Joining pieces can cost a few tokens at the seams: shrink until the whole request fits.
  for (let tries = 0; tries < 64 && room > 0; tries++) {
    const prompt = wrap(truncToksMid(dsl, room));
    const n = lenToks(prefix + prompt);
    if (n <= max) return { prompt, level: 'truncated', tokens: n };
    room -= Math.max(1, n - max);
  }
  throw new BudgetError(`buildDialogSummaryPrompt: could not fit the head into ${max} tokens`);
}

/**
 * Options of {@link httpDialogSummarizer}: those of `httpSummarizer` (all optional here) plus
 * `env`, where missing settings are looked up:
 * - `baseUrl`: `DLG_COMPACT_BASE_URL`, then `OPENAI_BASE_URL`, then `https://api.openai.com/v1`;
 * - `model`: `DLG_COMPACT_MODEL`, then `OPENAI_MODEL` (required: no default);
 * - `apiKey`: `DLG_COMPACT_API_KEY`, then `OPENAI_API_KEY` (optional).
 * Explicit options win over `env`; empty strings count as unset. `env` defaults to `{}` (the
 * core never touches `process`; the CLI passes `process.env`).
 */
export interface HttpDialogSummarizerOptions extends Partial<HttpSummarizerOptions> {
  env?: Readonly<Record<string, string | undefined>>;
}

/** Default API root of {@link httpDialogSummarizer}. */
export const DEFAULT_SUMMARY_BASE_URL = 'https://api.openai.com/v1';

function firstSet(...vals: Array<string | undefined>): string | undefined {
  for (const v of vals) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}

/**
 * A summariser backed by an OpenAI-compatible chat-completions endpoint (`httpSummarizer`).
 * Each call builds the request with {@link buildDialogSummaryPrompt} under the smaller of
 * `options.maxRequestTokens` and the call's `ctx.maxRequestTokens` (the system prompt counted
 * too), so no request over budget is ever sent, then resolves to the model's answer.
 * @returns a {@link DialogSummarizer} labelled `http:MODEL`; it rejects with `SummarizerError`
 *   (network, timeout, HTTP status, malformed or empty answer) or BudgetError.
 * @throws InvalidArgumentError (at once) when no model is configured or an option is invalid.
 */
export function httpDialogSummarizer(options: HttpDialogSummarizerOptions = {}): DialogSummarizer {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('httpDialogSummarizer: options must be an object');
  const env = options.env ?? {};
  if (env === null || typeof env !== 'object') throw new InvalidArgumentError('httpDialogSummarizer: env must be an object');
  const baseUrl = firstSet(options.baseUrl, env.DLG_COMPACT_BASE_URL, env.OPENAI_BASE_URL) ?? DEFAULT_SUMMARY_BASE_URL;
  const model = firstSet(options.model, env.DLG_COMPACT_MODEL, env.OPENAI_MODEL);
  if (model === undefined) {
    throw new InvalidArgumentError('httpDialogSummarizer: no model configured (pass model, or set DLG_COMPACT_MODEL or OPENAI_MODEL)');
  }
  const apiKey = firstSet(options.apiKey, env.DLG_COMPACT_API_KEY, env.OPENAI_API_KEY);
  const own = options.maxRequestTokens;
  const { env: _env, ...rest } = options;
  const send = httpSummarizer({ ...rest, baseUrl, model, apiKey });
  const prefix = options.systemPrompt ?? '';
  const f: DialogSummarizer = async (head: Dialog, ctx: DialogSummaryContext) => {
    const theirs = ctx?.maxRequestTokens;
    const max = own === undefined ? theirs : theirs === undefined ? own : Math.min(own, theirs);
    const { prompt } = buildDialogSummaryPrompt(head, { maxRequestTokens: max, prefix });
    return send(prompt, ctx?.signal);
  };
  f.label = `http:${model}`;
  return f;
}

// ---------------------------------------------------------------------------------------------
// Summarising a dialog

/** Cell metadata key under which a summary note records its provenance. */
export const SUMMARY_META_KEY = 'dlg_compact';

/**
 * What a summary note's metadata holds under {@link SUMMARY_META_KEY} (snake_case, as
 * notebook metadata usually is):
 * - `kind`: always `"summary"`;
 * - `replaced`: number of cells the note replaced;
 * - `ids`: their ids, in their original order (skipped cells included);
 * - `skipped_ids`: those of them that were skipped (never sent to the summariser);
 * - `source`: path of the full original dialog (`options.sourcePath`), or `null`;
 * - `summarizer`: the summariser's label (`"dsl"`, `"http:MODEL"`), or `null`;
 * - `tokens_before` / `tokens_after`: the whole dialog's count before and after, with the
 *   counter used (o200k_base tokens of the AI-visible text by default).
 */
export interface DialogSummaryMeta {
  kind: 'summary';
  replaced: number;
  ids: string[];
  skipped_ids: string[];
  source: string | null;
  summarizer: string | null;
  tokens_before: number;
  tokens_after: number;
}

/**
 * Options of {@link summarizeDialog} / {@link planDialogSummary}.
 * - `maxTokens`: the dialog's token budget (required unless `force`); compaction fires when
 *   the count reaches `floor(maxTokens * triggerRatio)`.
 * - `triggerRatio`: default 0.9.
 * - `keepRecent`: cells kept verbatim at the end (integer >= 0); default
 *   `max(2, ceil(n * 0.25))` of the n cells.
 * - `countTokens`: per-cell counter (default {@link messageContextTokens}).
 * - `force`: compact even below the trigger (the count rules still apply: at least 4 cells,
 *   something to summarise).
 * - `sourcePath`: path of the full original, recorded in the note (metadata and a closing line).
 * - `maxRequestTokens`: request budget handed to the summariser (o200k_base tokens).
 * - `signal`: cancels the summariser's request; an aborted run is refused at once
 *   (`summarizer-failed`, `error` = the signal's reason), even if the summariser ignores the
 *   signal and never settles.
 */
export interface SummarizeDialogOptions {
  maxTokens?: number;
  triggerRatio?: number;
  keepRecent?: number;
  countTokens?: DialogTokenCounter;
  force?: boolean;
  sourcePath?: string | null;
  maxRequestTokens?: number;
  signal?: AbortSignal;
}

/**
 * Why {@link summarizeDialog} left the dialog unchanged: the reasons of `summary.ts`
 * (`not-needed`, `summarizer-failed`, `empty-summary`, `not-shrinking`) plus
 * `nothing-to-summarize` (the head holds only skipped cells) and `invalid-summary` (the
 * summary holds the reply separator, so the note would read back as a prompt) and
 * `dialog-changed` (the dialog's cells were changed while the summariser ran).
 */
export type SummarizeDialogRefusal = SummaryRefusal | 'nothing-to-summarize' | 'invalid-summary' | 'dialog-changed';

/** Result of {@link summarizeDialog}. Token counts are in the counter's unit. */
export interface SummarizeDialogResult {
  changed: boolean;
  /** Set when `changed` is false. */
  reason?: SummarizeDialogRefusal;
  /** The summariser's error when `reason` is `summarizer-failed`. */
  error?: unknown;
  /** Ids of the cells the summary note replaced (empty when unchanged). */
  replaced: string[];
  /** Id of the new summary note (when changed). */
  summaryId?: string;
  /** The dialog's count before. */
  tokensBefore: number;
  /** The dialog's count after (equal to `tokensBefore` when unchanged). */
  tokensAfter: number;
  /** With `not-shrinking`: the count the refused summary would have given. */
  rejectedTokens?: number;
  /** The summary text as placed in the note (also reported with `not-shrinking`). */
  summary?: string;
}

/** The planning half of a summary run, shared by {@link summarizeDialog} and {@link planDialogSummary}. */
interface Prepared {
  ok: boolean;
  reason?: SummarizeDialogRefusal;
  counts: number[];
  tokensBefore: number;
  hoisted: number[];
  head: number[];
  tail: number[];
  headDialog?: Dialog;
  /** The messages array and its contents when planned (to detect changes made meanwhile). */
  array: Message[];
  snapshot: Message[];
}

function checkOptions(options: unknown, where: string): SummarizeDialogOptions {
  const o = (options ?? {}) as SummarizeDialogOptions;
  if (typeof o !== 'object' || Array.isArray(o)) throw new InvalidArgumentError(`${where}: options must be an object`);
  if (o.maxTokens === undefined && !o.force) {
    throw new InvalidArgumentError(`${where}: maxTokens is required (or pass force: true)`);
  }
  checkSignal(o.signal, where);
  if (o.countTokens !== undefined && typeof o.countTokens !== 'function') {
    throw new InvalidArgumentError(`${where}: countTokens must be a function`);
  }
  if (o.sourcePath !== undefined && o.sourcePath !== null && typeof o.sourcePath !== 'string') {
    throw new InvalidArgumentError(`${where}: sourcePath must be a string or null`);
  }
  if (o.maxRequestTokens !== undefined && (!Number.isSafeInteger(o.maxRequestTokens) || o.maxRequestTokens <= 0)) {
    throw new InvalidArgumentError(`${where}: maxRequestTokens must be a positive integer, got ${String(o.maxRequestTokens)}`);
  }
  return o;
}

function prepare(dialog: Dialog, o: SummarizeDialogOptions, where: string): Prepared {
  if (!(dialog instanceof Dialog)) throw new InvalidArgumentError(`${where}: expected a Dialog`);
  const ms = dialog.messages;
  const counter = o.countTokens ?? messageContextTokens;
  const counts: number[] = new Array(ms.length);
  for (let i = 0; i < ms.length; i++) counts[i] = countChecked(counter, ms[i]!, where);
  const plan = planSummarySplit(
    ms.map((_, i) => i),
    {
      maxTokens: o.maxTokens ?? 0,
      keepRecentCount: o.keepRecent,
      triggerRatio: o.triggerRatio,
      countTokens: (i) => counts[i]!,
      isPinned: (i) => ms[i]!.pinned,
      force: o.force,
    },
  );
  const base: Prepared = { ok: false, counts, tokensBefore: plan.estimatedTokens, hoisted: [], head: [], tail: [], array: ms, snapshot: ms.slice() };
  if (!plan.shouldCompact) return { ...base, reason: 'not-needed' };
  // The planner keeps [pinned cells of the head..., tail...]; the tail starts at the cut.
  const n = ms.length;
  const cut = n - (o.keepRecent ?? Math.max(2, Math.ceil(n * KEEP_RECENT_RATIO)));
  const hoisted = plan.keep.filter((i) => i < cut);
  const tail = plan.keep.filter((i) => i >= cut);
  const head = plan.summarize;
  const visible = head.filter((i) => !ms[i]!.skipped);
  if (visible.length === 0) return { ...base, hoisted, head, tail, reason: 'nothing-to-summarize' };
  const headDialog = new Dialog(
    visible.map((i) => ms[i]!.clone()),
    { name: dialog.name },
  );
  return { ...base, ok: true, hoisted, head, tail, headDialog };
}

/** True when `dialog.messages` is still the array, with the same cells, that was planned. */
function unchangedSince(dialog: Dialog, prep: Prepared): boolean {
  const ms = dialog.messages;
  if (ms !== prep.array || ms.length !== prep.snapshot.length) return false;
  for (let i = 0; i < ms.length; i++) if (ms[i] !== prep.snapshot[i]) return false;
  return true;
}

interface Finished {
  ok: boolean;
  reason?: SummarizeDialogRefusal;
  messages?: Message[];
  note?: Message;
  tokensAfter?: number;
  summary?: string;
}

/** The header line of a summary note. */
function noteHeader(n: number): string {
  return `[Conversation summary - ${n} earlier cell(s) condensed]\n\n`;
}

/**
 * The checking half: build the note and the new cell list, or say why not. `noteId` gives the
 * note's id (a fresh one for a run; a fixed one when only planning, so that planning does not
 * draw from the dialog's id source).
 */
function finish(
  dialog: Dialog,
  prep: Prepared,
  text: unknown,
  o: SummarizeDialogOptions,
  label: string | null,
  noteId: () => string,
  where: string,
): Finished {
  if (typeof text !== 'string' || pyStrip(text) === '') return { ok: false, reason: 'empty-summary' };
  const ms = dialog.messages;
  const source = o.sourcePath ?? null;
  let content = noteHeader(prep.head.length) + pyStrip(text);
  if (source !== null) content += `${TRANSCRIPT_MARKER} ${source}`;
  if (content.includes(REPLY_SEPARATOR)) return { ok: false, reason: 'invalid-summary', summary: content };
  const counter = o.countTokens ?? messageContextTokens;
  const note = new Message(content, { type: 'note', id: noteId() });
  let after = countChecked(counter, note, where);
  for (const i of prep.hoisted) after += prep.counts[i]!;
  for (const i of prep.tail) after += prep.counts[i]!;
  if (after >= prep.tokensBefore) return { ok: false, reason: 'not-shrinking', tokensAfter: after, summary: content };
  const meta: DialogSummaryMeta = {
    kind: 'summary',
    replaced: prep.head.length,
    ids: prep.head.map((i) => ms[i]!.id),
    skipped_ids: prep.head.filter((i) => ms[i]!.skipped).map((i) => ms[i]!.id),
    source,
    summarizer: label,
    tokens_before: prep.tokensBefore,
    tokens_after: after,
  };
  note.meta = { [SUMMARY_META_KEY]: meta as unknown as Record<string, unknown> };
  const messages = [...prep.hoisted.map((i) => ms[i]!), note, ...prep.tail.map((i) => ms[i]!)];
  return { ok: true, messages, note, tokensAfter: after, summary: content };
}

function refusal(prep: Prepared, reason: SummarizeDialogRefusal, extra: Partial<SummarizeDialogResult> = {}): SummarizeDialogResult {
  return { changed: false, reason, replaced: [], tokensBefore: prep.tokensBefore, tokensAfter: prep.tokensBefore, ...extra };
}

/**
 * Replace the older cells of a dialog by one summary note (see the module note for the
 * rules). Steps: plan with `planSummarySplit` (cells as items, pinned cells as instructions);
 * ask the summariser for a summary of the head's non-skipped cells; build the note
 * (`[Conversation summary - N earlier cell(s) condensed]`, the stripped summary, and when
 * `sourcePath` is given the line `If further detail is needed, read the complete transcript
 * at: PATH`) with a fresh unique id and {@link DialogSummaryMeta} metadata; check that the
 * dialog's count strictly shrinks; then swap `dialog.messages` for
 * `[hoisted pinned cells, note, tail]`.
 *
 * On any refusal (see {@link SummarizeDialogRefusal}) the dialog is left exactly as it was.
 * @param dialog the dialog (modified only on success).
 * @param summarizer default {@link dslSummarizer}().
 * @param options see {@link SummarizeDialogOptions}.
 * @returns a {@link SummarizeDialogResult}.
 * @throws InvalidArgumentError on bad arguments or a counter returning a non-integer; never
 *   for summariser failures (those are refusals).
 */
export async function summarizeDialog(
  dialog: Dialog,
  summarizer?: DialogSummarizer | null,
  options?: SummarizeDialogOptions,
): Promise<SummarizeDialogResult> {
  const where = 'summarizeDialog';
  const o = checkOptions(options, where);
  const sum = summarizer ?? dslSummarizer();
  if (typeof sum !== 'function') throw new InvalidArgumentError(`${where}: summarizer must be a function`);
  const prep = prepare(dialog, o, where);
  if (!prep.ok) return refusal(prep, prep.reason!);
  let text: unknown;
  try {
    text = await untilAborted(() => sum(prep.headDialog!, { maxRequestTokens: o.maxRequestTokens, signal: o.signal, sourcePath: o.sourcePath ?? null }), o.signal);
  } catch (error) {
    return refusal(prep, 'summarizer-failed', { error });
  }
  if (!unchangedSince(dialog, prep)) return refusal(prep, 'dialog-changed');
  const fin = finish(dialog, prep, text, o, sum.label ?? null, () => dialog.newId(), where);
  if (!fin.ok) {
    const extra: Partial<SummarizeDialogResult> = {};
    if (fin.reason === 'not-shrinking') extra.rejectedTokens = fin.tokensAfter;
    if (fin.summary !== undefined) extra.summary = fin.summary;
    return refusal(prep, fin.reason!, extra);
  }
  const replaced = prep.head.map((i) => dialog.messages[i]!.id);
  dialog.messages = fin.messages!;
  return {
    changed: true,
    replaced,
    summaryId: fin.note!.id,
    tokensBefore: prep.tokensBefore,
    tokensAfter: fin.tokensAfter!,
    summary: fin.summary,
  };
}

/** Result of {@link planDialogSummary}. */
export interface DialogSummaryPlan {
  /**
   * Whether {@link summarizeDialog} would change the dialog. Exact for an offline summariser
   * (the default DSL one); for others it assumes the summariser succeeds and shrinks.
   */
  wouldChange: boolean;
  /** Why not, when `wouldChange` is false. */
  reason?: SummarizeDialogRefusal;
  /** Ids of the cells that would be replaced. */
  replacedIds: string[];
  /** The dialog's count now. */
  tokensBefore: number;
  /** The count after, when it can be known without I/O (offline summariser). */
  estimatedTokensAfter?: number;
}

/**
 * What {@link summarizeDialog} would do, without changing the dialog (for `--check`). With an
 * offline summariser (default {@link dslSummarizer}) the summary is computed, so the answer is
 * exact; with another one, only the plan is reported.
 * @param summarizer default {@link dslSummarizer}(). An offline summariser must return a
 *   string synchronously.
 * @throws InvalidArgumentError on bad arguments.
 */
export function planDialogSummary(dialog: Dialog, options?: SummarizeDialogOptions, summarizer?: DialogSummarizer | null): DialogSummaryPlan {
  const where = 'planDialogSummary';
  const o = checkOptions(options, where);
  const sum = summarizer ?? dslSummarizer();
  if (typeof sum !== 'function') throw new InvalidArgumentError(`${where}: summarizer must be a function`);
  const prep = prepare(dialog, o, where);
  const ids = prep.head.map((i) => dialog.messages[i]!.id);
  if (!prep.ok) return { wouldChange: false, reason: prep.reason, replacedIds: [], tokensBefore: prep.tokensBefore };
  if (!sum.offline) return { wouldChange: true, replacedIds: ids, tokensBefore: prep.tokensBefore };
  let text: unknown;
  try {
    text = sum(prep.headDialog!, { maxRequestTokens: o.maxRequestTokens, sourcePath: o.sourcePath ?? null });
  } catch {
    return { wouldChange: false, reason: 'summarizer-failed', replacedIds: [], tokensBefore: prep.tokensBefore };
  }
  if (typeof text !== 'string') {
    throw new InvalidArgumentError(`${where}: an offline summariser must return a string synchronously`);
  }
  const fin = finish(dialog, prep, text, o, sum.label ?? null, () => 'planned-summary', where);
  if (!fin.ok) return { wouldChange: false, reason: fin.reason, replacedIds: [], tokensBefore: prep.tokensBefore };
  return { wouldChange: true, replacedIds: ids, tokensBefore: prep.tokensBefore, estimatedTokensAfter: fin.tokensAfter };
}

declare module './dialog.js' {
  interface Dialog {
    /**
     * Replace older cells by one summary note; see {@link summarizeDialog}. Modifies this
     * dialog only on success.
     */
    summarize(summarizer?: DialogSummarizer | null, options?: SummarizeDialogOptions): Promise<SummarizeDialogResult>;
  }
}

Dialog.prototype.summarize = function summarize(this: Dialog, summarizer?: DialogSummarizer | null, options?: SummarizeDialogOptions) {
  return summarizeDialog(this, summarizer, options);
};
