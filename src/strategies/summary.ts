/**
 * Summary compaction of a transcript (SPEC §9 "Summary planning", pinned by
 * `conformance/summary-corpus.json`): the older head of a conversation near its token budget
 * is condensed into one summary message, the recent tail is kept verbatim. Pure parts (token
 * estimates, trigger, split, prompt, merge) plus {@link summarizeCompaction}, which runs them
 * with a summariser and refuses any result that would lose history. The split is also a
 * generic planner ({@link planSummarySplit}) that dialogs reuse.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkTokenCount, lenToks, type ItemTokenCounter } from '../tokens/index.js';
import { looksLikeErrorAnswer, type SummaryRefusal } from './refusal.js';
import { checkSignal, untilAborted, type Summarizer } from './summarizer.js';
import type { SummaryMeta, SummaryWireMessage } from './wire.js';
import { KEEP_RECENT_MIN, KEEP_RECENT_RATIO } from './defaults.js';

/** Compaction is not attempted on fewer messages than this (the corpus' `MinMessages`). */
export const MIN_MESSAGES = 4;
export { KEEP_RECENT_MIN, KEEP_RECENT_RATIO } from './defaults.js';
/** Fraction of `maxTokens` at which compaction fires by default. */
export const TRIGGER_RATIO = 0.9;

/** Counts one summary-corpus message (see `ItemTokenCounter`). */
type MessageCount = ItemTokenCounter<SummaryWireMessage>;

/**
 * Options of {@link checkCompaction} and {@link splitMessagesForCompaction}.
 * - `maxTokens`: the token budget of the whole list (tokens, >= 0).
 * - `keepRecentCount`: messages kept verbatim from the tail (integer >= 0); default
 *   `max(2, ceil(n * 0.25))`.
 * - `triggerRatio`: fraction of `maxTokens` at which compaction fires (default 0.9).
 * - `countTokens`: per-message counter; default {@link estimateMessageTokens} (the corpus
 *   estimate). Pass {@link o200kCounter} for exact o200k_base counts.
 * - `sameUnit`: `sameUnit(a, b)` is true when adjacent messages `a`, `b` belong to one unit
 *   that a split must not separate (a tool call and its result). Default
 *   {@link defaultSameUnit}: two adjacent `activity` messages.
 */
export interface CompactionOptions {
  maxTokens: number;
  keepRecentCount?: number;
  triggerRatio?: number;
  countTokens?: MessageCount;
  sameUnit?: (a: SummaryWireMessage, b: SummaryWireMessage) => boolean;
}

/** Result of {@link splitMessagesForCompaction} (the corpus' `Split`). */
export interface CompactionSplit {
  /** The older head to condense (instructions excluded). Empty when nothing is summarisable. */
  messagesToSummarize: SummaryWireMessage[];
  /** Instructions found in the head, then the recent tail, in order. */
  messagesToKeep: SummaryWireMessage[];
}

/** Result of {@link checkCompaction} (the corpus' `Check`). */
export interface CompactionCheck {
  shouldCompact: boolean;
  /** The head to condense; empty when `shouldCompact` is false. */
  messagesToSummarize: SummaryWireMessage[];
  /** What to keep; empty when `shouldCompact` is false (the corpus omits it there). */
  messagesToKeep: SummaryWireMessage[];
  /** The token count that drove the decision, reported either way. */
  estimatedTokens: number;
}

/** A summary planner's decision on a generic list, as indexes into that list. */
export interface SummaryPlan {
  shouldCompact: boolean;
  /** Indexes of the items to condense, ascending. Empty when `shouldCompact` is false. */
  summarize: number[];
  /** Indexes of the items to keep, pinned head items first, then the tail, ascending within each. */
  keep: number[];
  /** Sum of the counter over all items. */
  estimatedTokens: number;
}

/**
 * Options of the generic planner {@link planSummarySplit}.
 * - `countTokens`: per-item counter (tokens, non-negative integer).
 * - `isPinned`: items never summarised; when found in the head they move to the front of the
 *   keep list (the `instructions` rule). Default: none.
 * - `sameUnit`: adjacent items that must stay on the same side of the split. Default: none.
 * - `force`: skip the threshold test (manual compaction); the minimum-count and
 *   nothing-summarisable rules still apply.
 */
export interface PlanOptions<T> {
  maxTokens: number;
  keepRecentCount?: number;
  triggerRatio?: number;
  countTokens: ItemTokenCounter<T>;
  isPinned?: (item: T) => boolean;
  sameUnit?: (a: T, b: T) => boolean;
  force?: boolean;
}

function checkMessage(m: unknown, where: string): asserts m is SummaryWireMessage {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw new InvalidArgumentError(`${where}: a message must be an object, got ${m === null ? 'null' : typeof m}`);
  }
  const o = m as Record<string, unknown>;
  if (typeof o.type !== 'string') throw new InvalidArgumentError(`${where}: message.type must be a string`);
  if (typeof o.text !== 'string') throw new InvalidArgumentError(`${where}: message.text must be a string`);
  if (o.payload !== undefined && typeof o.payload !== 'string') {
    throw new InvalidArgumentError(`${where}: message.payload must be a string when present`);
  }
  if (o.id !== undefined && typeof o.id !== 'string') {
    throw new InvalidArgumentError(`${where}: message.id must be a string when present`);
  }
}

function checkList(ms: unknown, where: string): asserts ms is readonly SummaryWireMessage[] {
  if (!Array.isArray(ms)) throw new InvalidArgumentError(`${where}: messages must be an array`);
  for (const m of ms) checkMessage(m, where);
}

/**
 * The corpus token estimate of one message: `ceil(len / 4 * 1.25)` where `len` is the
 * UTF-16 length of `text` plus that of `payload` (no per-message overhead). The corpus only
 * has text; the payload is priced the same way (a tool call's payload is what the provider
 * charges for).
 * @returns tokens (estimate), a non-negative integer.
 * @throws InvalidArgumentError when the message is not `{type: string, text: string, ...}`.
 */
export function estimateMessageTokens(message: SummaryWireMessage): number {
  checkMessage(message, 'estimateMessageTokens');
  const len = message.text.length + (message.payload?.length ?? 0);
  return Math.ceil((len / 4) * 1.25);
}

/**
 * Sum of {@link estimateMessageTokens} over a list (corpus `estimateMessagesTokens`).
 * @returns tokens (estimate).
 * @throws InvalidArgumentError on a malformed list or message.
 */
export function estimateMessagesTokens(messages: readonly SummaryWireMessage[]): number {
  checkList(messages, 'estimateMessagesTokens');
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

/**
 * Exact o200k_base count of one message: `lenToks(text + payload)` (no wire overhead).
 * Use as `countTokens` for budget decisions against real models.
 * @returns tokens (o200k_base).
 * @throws InvalidArgumentError on a malformed message.
 */
export const o200kCounter: MessageCount = (message) => {
  checkMessage(message, 'o200kCounter');
  return lenToks(message.text + (message.payload ?? ''));
};

/**
 * Default tool-unit rule of the summary engine: two adjacent `activity` messages (a tool
 * call's request half and its result) are one unit and are never separated by a split.
 */
export function defaultSameUnit(a: SummaryWireMessage, b: SummaryWireMessage): boolean {
  return a.type === 'activity' && b.type === 'activity';
}

function checkNumbers(maxTokens: unknown, keepRecentCount: unknown, triggerRatio: unknown, where: string): void {
  if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens) || maxTokens < 0) {
    throw new InvalidArgumentError(`${where}: maxTokens must be a finite number >= 0, got ${String(maxTokens)}`);
  }
  if (keepRecentCount !== undefined && (typeof keepRecentCount !== 'number' || !Number.isSafeInteger(keepRecentCount) || keepRecentCount < 0)) {
    throw new InvalidArgumentError(`${where}: keepRecentCount must be an integer >= 0, got ${String(keepRecentCount)}`);
  }
  if (triggerRatio !== undefined && (typeof triggerRatio !== 'number' || !Number.isFinite(triggerRatio) || triggerRatio < 0)) {
    throw new InvalidArgumentError(`${where}: triggerRatio must be a finite number >= 0, got ${String(triggerRatio)}`);
  }
}

/** Index split without the threshold test: the corpus `splitMessagesForCompaction` on indexes. */
function splitIndexes<T>(
  items: readonly T[],
  keepRecentCount: number | undefined,
  isPinned: ((item: T) => boolean) | undefined,
  sameUnit: ((a: T, b: T) => boolean) | undefined,
): { summarize: number[]; keep: number[] } {
  const n = items.length;
  const all = (): { summarize: number[]; keep: number[] } => ({ summarize: [], keep: items.map((_, i) => i) });
  if (n < MIN_MESSAGES) return all();
  const keepRecent = keepRecentCount ?? Math.max(KEEP_RECENT_MIN, Math.ceil(n * KEEP_RECENT_RATIO));
  let cut = n - keepRecent;
  if (cut <= 0) return all();
  // A tool call and its result are one unit: move the cut back until it falls between units.
  if (sameUnit) while (cut > 0 && sameUnit(items[cut - 1]!, items[cut]!)) cut -= 1;
  if (cut <= 0) return all();
  const pinned: number[] = [];
  const summarize: number[] = [];
  for (let i = 0; i < cut; i++) (isPinned?.(items[i]!) ? pinned : summarize).push(i);
  if (summarize.length === 0) return all();
  for (let i = cut; i < n; i++) pinned.push(i);
  return { summarize, keep: pinned };
}

/**
 * Generic summary planner: decides whether a list of any item type needs condensing and
 * which items to condense or keep, with the rules of the summary corpus (SPEC §9):
 * - total = sum of `countTokens(item)`; compaction fires when
 *   `total >= floor(maxTokens * triggerRatio)` (or `force`) and there are at least
 *   {@link MIN_MESSAGES} items;
 * - the tail of `keepRecentCount` items (default `max(2, ceil(n * 0.25))`) is kept; the cut
 *   moves towards the head while it would separate two items `sameUnit` joins;
 * - pinned items in the head move to the front of the keep list; a head with nothing but
 *   pinned items means no compaction.
 * @returns a {@link SummaryPlan} of indexes; counts are in the counter's tokens.
 * @throws InvalidArgumentError on bad options or a counter returning anything but a
 *   non-negative integer.
 */
export function planSummarySplit<T>(items: readonly T[], options: PlanOptions<T>): SummaryPlan {
  if (!Array.isArray(items)) throw new InvalidArgumentError('planSummarySplit: items must be an array');
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('planSummarySplit: options must be an object');
  const { maxTokens, keepRecentCount, triggerRatio, countTokens, isPinned, sameUnit, force } = options;
  checkNumbers(maxTokens, keepRecentCount, triggerRatio, 'planSummarySplit');
  if (typeof countTokens !== 'function') throw new InvalidArgumentError('planSummarySplit: countTokens must be a function');
  let total = 0;
  for (const it of items) total += checkTokenCount(countTokens(it), 'planSummarySplit');
  const threshold = Math.floor(maxTokens * (triggerRatio ?? TRIGGER_RATIO));
  const declined: SummaryPlan = { shouldCompact: false, summarize: [], keep: [], estimatedTokens: total };
  if ((!force && total < threshold) || items.length < MIN_MESSAGES) return declined;
  const split = splitIndexes(items, keepRecentCount, isPinned, sameUnit);
  if (split.summarize.length === 0) return declined;
  return { shouldCompact: true, summarize: split.summarize, keep: split.keep, estimatedTokens: total };
}

const isInstructions = (m: SummaryWireMessage): boolean => m.type === 'instructions';

/**
 * Divide a conversation into the head to summarise and the tail to keep (corpus
 * `splitMessagesForCompaction`). No threshold test: only the count rules apply (fewer than
 * {@link MIN_MESSAGES} messages, or a tail covering everything, keeps everything).
 * `instructions` messages in the head move to the front of the keep list. The cut never
 * separates two messages joined by `options.sameUnit` (default {@link defaultSameUnit});
 * the corpus has no case where that moves the cut.
 * `maxTokens` and `triggerRatio` are validated but unused here. The returned lists hold the
 * input message objects (not copies); inputs are never mutated.
 * @throws InvalidArgumentError on malformed messages or options.
 */
export function splitMessagesForCompaction(messages: readonly SummaryWireMessage[], options: CompactionOptions): CompactionSplit {
  checkList(messages, 'splitMessagesForCompaction');
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('splitMessagesForCompaction: options must be an object');
  checkNumbers(options.maxTokens, options.keepRecentCount, options.triggerRatio, 'splitMessagesForCompaction');
  const { summarize, keep } = splitIndexes(messages, options.keepRecentCount, isInstructions, options.sameUnit ?? defaultSameUnit);
  return { messagesToSummarize: summarize.map((i) => messages[i]!), messagesToKeep: keep.map((i) => messages[i]!) };
}

/**
 * Decide whether a conversation needs condensing and how to divide it (corpus
 * `checkCompaction`). Declines under the threshold `floor(maxTokens * triggerRatio)`, under
 * {@link MIN_MESSAGES} messages, or when the head holds nothing but instructions.
 * `estimatedTokens` uses `options.countTokens` (default: the corpus estimate).
 * @returns a {@link CompactionCheck}; both lists are empty when declining.
 * @throws InvalidArgumentError on malformed messages, options, or counter results.
 */
export function checkCompaction(messages: readonly SummaryWireMessage[], options: CompactionOptions): CompactionCheck {
  checkList(messages, 'checkCompaction');
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('checkCompaction: options must be an object');
  const plan = planSummarySplit(messages, {
    maxTokens: options.maxTokens,
    keepRecentCount: options.keepRecentCount,
    triggerRatio: options.triggerRatio,
    countTokens: options.countTokens ?? estimateMessageTokens,
    isPinned: isInstructions,
    sameUnit: options.sameUnit ?? defaultSameUnit,
  });
  return {
    shouldCompact: plan.shouldCompact,
    messagesToSummarize: plan.summarize.map((i) => messages[i]!),
    messagesToKeep: plan.keep.map((i) => messages[i]!),
    estimatedTokens: plan.estimatedTokens,
  };
}

const PROMPT_HEAD = `You are summarising a conversation that has grown too long for the context window.

Produce a concise but comprehensive summary structured as follows:

---
## Context Summary

### What was discussed
[Key topics, questions, and information exchanged]

### What was accomplished
[Tasks completed, decisions made, or solutions provided]

### Important details to remember
[Specific facts, preferences, constraints, or values that must persist:
names, IDs, dates, URLs, file paths, numeric values, user preferences, etc.
Preserve opaque identifiers exactly - do NOT shorten or reconstruct them.]

### Ongoing state
[Pending questions, open tasks, or items the user is waiting on]
---

Do not respond to the conversation; only output the summary in the format above.

<conversation>
`;

const PROMPT_TYPES = new Set(['user', 'bot', 'context', 'reasoning']);

/**
 * The prompt asking a model to condense `messages` (corpus `buildCompactionSummaryPrompt`):
 * fixed instructions with the sections What was discussed / What was accomplished /
 * Important details to remember / Ongoing state, then `<conversation>`, one line
 * `[TYPE]: text` per `user`, `bot`, `context` or `reasoning` message (TYPE upper-cased;
 * other types are left out), and `</conversation>`.
 * @returns the prompt text.
 * @throws InvalidArgumentError on malformed messages.
 */
export function buildCompactionSummaryPrompt(messages: readonly SummaryWireMessage[]): string {
  checkList(messages, 'buildCompactionSummaryPrompt');
  const lines: string[] = [];
  for (const m of messages) if (PROMPT_TYPES.has(m.type)) lines.push(`[${m.type.toUpperCase()}]: ${m.text}`);
  return PROMPT_HEAD + lines.join('\n') + '\n</conversation>';
}

/**
 * Merge a finished summary into the conversation (corpus `applyCompactionSummary`): the
 * `instructions` messages of `messagesToKeep` first, then one `context` message with text
 * `[Conversation summary - N earlier message(s) condensed]\n\n` + `summaryText.trim()` (JS
 * trim, as the corpus' TypeScript engine) and meta `{compacted: true, droppedCount: N,
 * summarizedIds?}` (ids of summarised messages that have a non-empty id; omitted when none),
 * then the other kept messages in order. N = `messagesToSummarize.length`.
 * Kept messages are returned as the same objects; nothing is mutated. An empty summary is
 * accepted here (the corpus does); {@link summarizeCompaction} refuses one.
 * @throws InvalidArgumentError on malformed messages or a non-string summary.
 */
export function applyCompactionSummary(
  messagesToKeep: readonly SummaryWireMessage[],
  summaryText: string,
  messagesToSummarize: readonly SummaryWireMessage[],
): SummaryWireMessage[] {
  checkList(messagesToKeep, 'applyCompactionSummary');
  checkList(messagesToSummarize, 'applyCompactionSummary');
  if (typeof summaryText !== 'string') throw new InvalidArgumentError('applyCompactionSummary: summaryText must be a string');
  const ids = messagesToSummarize.map((m) => m.id).filter((id): id is string => typeof id === 'string' && id !== '');
  const n = messagesToSummarize.length;
  const meta: SummaryMeta = { compacted: true, droppedCount: n };
  if (ids.length > 0) meta.summarizedIds = ids;
  const summary: SummaryWireMessage = {
    type: 'context',
    text: `[Conversation summary - ${n} earlier message(s) condensed]\n\n${summaryText.trim()}`,
    meta: meta as unknown as Record<string, unknown>,
  };
  const head = messagesToKeep.filter(isInstructions);
  const rest = messagesToKeep.filter((m) => !isInstructions(m));
  return [...head, summary, ...rest];
}

/** Result of {@link summarizeCompaction}. */
export interface SummarizeResult {
  /** The compacted conversation, or the input list itself when refused. */
  messages: readonly SummaryWireMessage[];
  compacted: boolean;
  /** Set when `compacted` is false. */
  reason?: SummaryRefusal;
  /** The summariser's error when `reason` is `summarizer-failed`. */
  error?: unknown;
  /** Counter total before (the decision's estimate) and after (when compacted). Tokens. */
  tokensBefore: number;
  tokensAfter?: number;
}

/**
 * Run one summary compaction end to end: {@link checkCompaction} (or, with `force`, the split
 * without the threshold test), {@link buildCompactionSummaryPrompt} over the head, the
 * summariser, then {@link applyCompactionSummary}. History is never replaced by a failed
 * (thrown/rejected), empty (blank after trim) or non-shrinking (counter total not strictly
 * smaller) summary: the input list comes back with a `reason` instead. When `signal` aborts
 * before the summariser settles, the run is refused at once (`summarizer-failed`, `error` =
 * the signal's reason) without waiting for the summariser.
 * @param options {@link CompactionOptions} plus `force` (manual compaction) and `signal`
 *   (cancels the wait; handed to the summariser as its second argument).
 * @throws InvalidArgumentError on malformed messages or options (never for summariser faults).
 */
export async function summarizeCompaction(
  messages: readonly SummaryWireMessage[],
  summarizer: Summarizer,
  options: CompactionOptions & { force?: boolean; signal?: AbortSignal },
): Promise<SummarizeResult> {
  checkList(messages, 'summarizeCompaction');
  if (typeof summarizer !== 'function') throw new InvalidArgumentError('summarizeCompaction: summarizer must be a function');
  checkSignal(options.signal, 'summarizeCompaction');
  const count = options.countTokens ?? estimateMessageTokens;
  const plan = planSummarySplit(messages, {
    maxTokens: options.maxTokens,
    keepRecentCount: options.keepRecentCount,
    triggerRatio: options.triggerRatio,
    countTokens: count,
    isPinned: isInstructions,
    sameUnit: options.sameUnit ?? defaultSameUnit,
    force: options.force,
  });
  const before = plan.estimatedTokens;
  if (!plan.shouldCompact) return { messages, compacted: false, reason: 'not-needed', tokensBefore: before };
  const head = plan.summarize.map((i) => messages[i]!);
  const keep = plan.keep.map((i) => messages[i]!);
  let text: string;
  try {
    const prompt = buildCompactionSummaryPrompt(head);
    text = await untilAborted(() => summarizer(prompt, options.signal), options.signal);
  } catch (error) {
    return { messages, compacted: false, reason: 'summarizer-failed', error, tokensBefore: before };
  }
  if (typeof text !== 'string' || text.trim() === '') {
    return { messages, compacted: false, reason: 'empty-summary', tokensBefore: before };
  }
  if (looksLikeErrorAnswer(text)) return { messages, compacted: false, reason: 'error-summary', tokensBefore: before };
  const out = applyCompactionSummary(keep, text, head);
  let after = 0;
  for (const m of out) after += checkTokenCount(count(m), 'summarizeCompaction');
  if (after >= before) return { messages, compacted: false, reason: 'not-shrinking', tokensBefore: before, tokensAfter: after };
  return { messages: out, compacted: true, tokensBefore: before, tokensAfter: after };
}
