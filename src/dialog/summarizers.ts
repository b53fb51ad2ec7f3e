/**
 * The summarisers of a dialog's head (SPEC §9 "Summary planning" on the dialog model of SPEC §7):
 * the offline DSL one, and an adapter that turns any prompt {@link Summarizer} (an HTTP model,
 * typically) into a dialog summariser, with a summary request that always fits its budget.
 */
import { dlg2compact, isRecordCell } from './compact.js';
import { isDialogLike, type DialogLike as Dialog } from './cells.js';
import { resolvePolicy, type Policy } from '../dsl/render.js';
import { BudgetError, InvalidArgumentError } from '../errors.js';
import { pyDumps } from '../python/index.js';
import { fmt2hist } from '../chat/index.js';
import { resolveLlmSettings, type Env } from '../strategies/llm-settings.js';
import { httpSummarizer, type HttpSummarizerOptions } from '../strategies/summarizer-http.js';
import { buildCompactionSummaryPrompt } from '../strategies/summary.js';
import type { Summarizer } from '../strategies/summarizer.js';
import type { SummaryWireMessage } from '../strategies/wire.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';

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
  /**
   * Room for the summary in the dialog's budget, in o200k_base tokens (`undefined`: no
   * budget): the summary should be no longer, so that the summarised dialog leaves room for
   * new turns. The DSL summariser fits its rendering into it.
   */
  maxSummaryTokens?: number;
}

/**
 * The dialog-level adapter of a summariser: gets the head to condense as a {@link Dialog} of
 * copies of its cells (skipped cells left out, original order; of the summarised dialog's own
 * class, so a `Dialog` for a `Dialog`) and returns the summary text
 * (Markdown), or throws / rejects. Build one from a prompt {@link Summarizer} with
 * {@link dialogSummarizer}, or use {@link dslSummarizer}. Optional properties: `label` is
 * recorded in the summary note's metadata (`'dsl'`, `'http:MODEL'`); `offline: true` promises
 * a synchronous, deterministic result with no I/O, which lets `planDialogSummary` predict the
 * outcome exactly.
 */
export type DialogSummarizer = HeadSummary & {
  label?: string;
  offline?: boolean;
};

/**
 * The call of a {@link DialogSummarizer}. Written as a method so that a summariser typed for
 * the concrete `Dialog` class (what the head is when a `Dialog` is summarised) fits too.
 */
type HeadSummary = { summarize(head: Dialog, ctx: DialogSummaryContext): string | Promise<string> }['summarize'];

/**
 * The default summariser: the compact DSL of the head, `dlg2compact(head, { ...policy,
 * recency: false })` (SPEC §8; rendered evenly, since the verbatim tail is the recent part),
 * i.e. code cells as `#_id` + fenced source + output line, notes and prompts as `§ … §` text,
 * replies with `»` prose, each call with its result. Deterministic, synchronous, offline;
 * ignores `maxRequestTokens` (nothing is sent anywhere). With `maxSummaryTokens` in the context
 * the rendering is fitted into it (the policy scaled down, `dlg2compact`'s `maxTokens`), or
 * cut in the middle when not even the structure fits.
 * @param policy token budgets of the rendering (default 2000 / 150 / 60 / 35).
 * @returns a {@link DialogSummarizer} labelled `'dsl'`, `offline`.
 * @throws InvalidArgumentError on a bad policy (checked at once).
 */
export function dslSummarizer(policy?: Partial<Policy>): DialogSummarizer {
  const p = resolvePolicy(policy);
  const f: DialogSummarizer = (head: Dialog, ctx?: DialogSummaryContext) => {
    // The tail that follows the summary is verbatim: the head is rendered evenly, without the recency gradient.
    const full = dlg2compact(head, { ...p, recency: false });
    const room = ctx?.maxSummaryTokens;
    if (room === undefined || fitsToks(full, room)) return full;
    try {
      return dlg2compact(head, { ...p, maxTokens: room });
    } catch (e) {
      if (e instanceof BudgetError) return truncToksMid(full, room);
      throw e;
    }
  };
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
 * The head of a dialog as summary-corpus messages (the wire shape of the summary strategy), in
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
export function dialogToSummaryMessages(head: Dialog): SummaryWireMessage[] {
  if (!isDialogLike(head)) throw new InvalidArgumentError('dialogToSummaryMessages: expected a Dialog');
  const out: SummaryWireMessage[] = [];
  for (const m of head.messages) {
    if (m.skipped || isRecordCell(m)) continue;
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
export const PRECOMPACT_POLICIES: readonly Readonly<Omit<Policy, 'profile'>>[] = Object.freeze([
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
  if (!isDialogLike(head)) throw new InvalidArgumentError('buildDialogSummaryPrompt: expected a Dialog');
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
    dsl = dlg2compact(head, { ...PRECOMPACT_POLICIES[k], recency: false });
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
 * Options of {@link dialogSummarizer}.
 * - `label`: recorded in the summary note's metadata.
 * - `maxRequestTokens`: the adapter's own request budget (o200k_base tokens); the smaller of
 *   it and the run's `ctx.maxRequestTokens` applies.
 * - `prefix`: text the summariser sends along with each prompt (its system prompt), counted
 *   against the budget.
 */
export interface DialogSummarizerOptions {
  label?: string;
  maxRequestTokens?: number;
  prefix?: string;
}

/**
 * Adapt a prompt {@link Summarizer} to dialogs: each call builds the request with
 * {@link buildDialogSummaryPrompt} under the smaller of `options.maxRequestTokens` and the
 * run's `ctx.maxRequestTokens` (`prefix` counted too), so no request over budget is ever sent,
 * then hands the prompt and the run's signal to `summarizer`.
 * @returns a {@link DialogSummarizer} (not offline) labelled `options.label`.
 * @throws InvalidArgumentError when `summarizer` is not a function or an option is invalid.
 */
export function dialogSummarizer(summarizer: Summarizer, options: DialogSummarizerOptions = {}): DialogSummarizer {
  if (typeof summarizer !== 'function') throw new InvalidArgumentError('dialogSummarizer: summarizer must be a function');
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('dialogSummarizer: options must be an object');
  const { label, maxRequestTokens: own, prefix = '' } = options;
  if (own !== undefined && (!Number.isSafeInteger(own) || own <= 0)) {
    throw new InvalidArgumentError(`dialogSummarizer: maxRequestTokens must be a positive integer, got ${String(own)}`);
  }
  if (typeof prefix !== 'string') throw new InvalidArgumentError('dialogSummarizer: prefix must be a string');
  const f: DialogSummarizer = async (head: Dialog, ctx: DialogSummaryContext) => {
    const theirs = ctx?.maxRequestTokens;
    const max = own === undefined ? theirs : theirs === undefined ? own : Math.min(own, theirs);
    const { prompt } = buildDialogSummaryPrompt(head, { maxRequestTokens: max, prefix });
    return summarizer(prompt, ctx?.signal);
  };
  if (label !== undefined) f.label = label;
  return f;
}

/**
 * Options of {@link httpDialogSummarizer}: those of `httpSummarizer` (all optional here) plus
 * `env`, where missing settings are looked up by the rule of `resolveLlmSettings`
 * (`DLG_COMPACT_*`, then `OPENAI_*`; the base URL defaults to `DEFAULT_LLM_BASE_URL`; a model
 * is required). Explicit options win over `env`; empty strings count as unset. `env` defaults
 * to `{}` (the core never touches `process`; the command passes `process.env`).
 */
export interface HttpDialogSummarizerOptions extends Partial<HttpSummarizerOptions> {
  env?: Env;
}

/**
 * A summariser backed by an OpenAI-compatible chat-completions endpoint: `httpSummarizer`
 * wrapped by {@link dialogSummarizer} (its `systemPrompt` counted as the prefix, its
 * `maxRequestTokens` as the adapter's own budget).
 * @returns a {@link DialogSummarizer} labelled `http:MODEL`; it rejects with `SummarizerError`
 *   (network, timeout, HTTP status, malformed or empty answer) or BudgetError.
 * @throws InvalidArgumentError (at once) when no model is configured, the base URL is not an
 *   http(s) URL, or an option is invalid.
 */
export function httpDialogSummarizer(options: HttpDialogSummarizerOptions = {}): DialogSummarizer {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('httpDialogSummarizer: options must be an object');
  const { env = {}, ...rest } = options;
  if (env === null || typeof env !== 'object') throw new InvalidArgumentError('httpDialogSummarizer: env must be an object');
  const llm = resolveLlmSettings(env, { url: options.baseUrl, model: options.model, apiKey: options.apiKey });
  const send = httpSummarizer({ ...rest, baseUrl: llm.baseUrl, model: llm.model, apiKey: llm.apiKey });
  return dialogSummarizer(send, { label: `http:${llm.model}`, maxRequestTokens: options.maxRequestTokens, prefix: options.systemPrompt ?? '' });
}
