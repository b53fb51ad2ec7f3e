/**
 * Micro-compaction and auto-compaction of Anthropic-style transcripts (SPEC §9, pinned by
 * `conformance/micro-vectors.json`). {@link microCompact} replaces older tool results by
 * `[Previous: used NAME]` (the result block stays, so no call loses its result);
 * {@link autoCompact} saves the whole transcript through an injected writer and replaces it by
 * a summary, unless the summary fails, is empty or does not shrink the count. The clearing
 * decision ({@link pickToolResultsToClear}) is a pure function that dialogs reuse. The Node
 * transcript writer lives in `transcript-file.ts`.
 */
import { DlgError, InvalidArgumentError } from '../errors.js';
import { cpLen, cpSlice, pyDumps, pyRepr } from '../python/index.js';
import { checkTokenCount } from '../tokens/index.js';
import { looksLikeErrorAnswer, type AutoCompactRefusal } from './refusal.js';
import { checkSignal, untilAborted, type Summarizer } from './summarizer.js';
import type { AnthropicWireMessage } from './wire.js';
import { MICRO_KEEP_RECENT, PRESERVE_RESULT_TOOLS } from './defaults.js';

export { MICRO_KEEP_RECENT, PRESERVE_RESULT_TOOLS } from './defaults.js';
/** Results of at most this many code points are never cleared (the reference clears `len(content) > 100`). */
export const MICRO_MIN_CHARS = 100;
/** Name used when a result's call cannot be found. */
export const UNKNOWN_TOOL = 'unknown';
/** Token estimate above which {@link autoCompact} fires (the reference's `THRESHOLD`). */
export const AUTO_THRESHOLD_TOKENS = 50000;
/** Default transcript directory (relative to the working directory). */
export const TRANSCRIPT_DIR = '.transcripts';
/** Code points of the serialised transcript (its tail) sent to the summariser. */
export const SUMMARY_INPUT_CHARS = 80000;

/** The placeholder that replaces a cleared result: `[Previous: used NAME]`. */
export function placeholderFor(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

/** A size in bytes as people read it: `512 B`, `12.4 KB`, `3.0 MB` (1 KB = 1024 bytes). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The clean profile's placeholder, which says what was cleared:
 * `[Previous: used read_file · 12.4 KB cleared]` (`bytes`: UTF-8 size of the result text).
 */
export function sizedPlaceholderFor(toolName: string, bytes: number): string {
  return `[Previous: used ${toolName} · ${formatBytes(bytes)} cleared]`;
}

/** Transcript file name for a time in unix seconds: `transcript_<secs>.jsonl`. */
export function transcriptName(unixSeconds: number): string {
  return `transcript_${unixSeconds}.jsonl`;
}

/**
 * One tool result in chronological order, as {@link pickToolResultsToClear} sees it.
 * - `callId`: the id of the call it answers (informational).
 * - `toolName`: the resolved tool name, `undefined` when the call is unknown.
 * - `resultLength`: length of the result text in code points, or `null` when the result is not
 *   plain text (such results are never cleared).
 */
export interface ToolResultEntry {
  callId?: string;
  toolName: string | undefined;
  resultLength: number | null;
}

/**
 * Micro-compaction options.
 * - `keepRecent`: newest results kept verbatim (integer >= 0, default 3). 0 clears every
 *   eligible result (the reference's `[:-0]` slice would clear none; we take the evident
 *   meaning).
 * - `minChars`: results of at most this many code points are kept (integer >= 0, default 100).
 * - `preserveTools`: tools whose results are never cleared (default `['read_file']`); a list or
 *   set of names (a bare string is rejected: it would iterate as characters).
 */
export interface MicroOptions {
  keepRecent?: number;
  minChars?: number;
  preserveTools?: Iterable<string>;
}

interface ResolvedMicro {
  keepRecent: number;
  minChars: number;
  preserve: Set<string>;
}

function resolveMicro(opts: MicroOptions | undefined, where: string): ResolvedMicro {
  const o = opts ?? {};
  if (typeof o !== 'object') throw new InvalidArgumentError(`${where}: options must be an object`);
  const keepRecent = o.keepRecent ?? MICRO_KEEP_RECENT;
  const minChars = o.minChars ?? MICRO_MIN_CHARS;
  if (!Number.isSafeInteger(keepRecent) || keepRecent < 0) {
    throw new InvalidArgumentError(`${where}: keepRecent must be an integer >= 0, got ${String(keepRecent)}`);
  }
  if (!Number.isSafeInteger(minChars) || minChars < 0) {
    throw new InvalidArgumentError(`${where}: minChars must be an integer >= 0, got ${String(minChars)}`);
  }
  const preserve = new Set<string>();
  const tools: unknown = o.preserveTools ?? PRESERVE_RESULT_TOOLS;
  // A string is iterable too (by characters), which would preserve nothing the caller meant.
  if (typeof tools === 'string' || tools === null || typeof tools !== 'object' || typeof (tools as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError(
      `${where}: preserveTools must be a list or set of tool names, got ${typeof tools === 'string' ? 'a string' : String(tools)}`,
    );
  }
  for (const t of tools as Iterable<unknown>) {
    if (typeof t !== 'string') throw new InvalidArgumentError(`${where}: preserveTools must hold strings`);
    preserve.add(t);
  }
  return { keepRecent, minChars, preserve };
}

/**
 * Pure clearing decision of micro-compaction: given every tool result in chronological
 * order, return the indexes (ascending) of those to replace by a placeholder. Nothing is
 * cleared when there are at most `keepRecent` results; otherwise, among all but the newest
 * `keepRecent` (preserved tools count towards those), a result is cleared when its
 * `resultLength` is a number greater than `minChars` and its tool name (or
 * {@link UNKNOWN_TOOL}) is not in `preserveTools` (the reference's `micro_compact`).
 * @throws InvalidArgumentError on bad options or entries.
 */
export function pickToolResultsToClear(entries: readonly ToolResultEntry[], options?: MicroOptions): number[] {
  if (!Array.isArray(entries)) throw new InvalidArgumentError('pickToolResultsToClear: entries must be an array');
  const { keepRecent, minChars, preserve } = resolveMicro(options, 'pickToolResultsToClear');
  const out: number[] = [];
  if (entries.length <= keepRecent) return out;
  const end = entries.length - keepRecent;
  for (let i = 0; i < end; i++) {
    const e = entries[i];
    if (e === null || typeof e !== 'object') throw new InvalidArgumentError('pickToolResultsToClear: an entry must be an object');
    const len = e.resultLength;
    if (len === null || len === undefined) continue;
    if (typeof len !== 'number' || !Number.isFinite(len)) {
      throw new InvalidArgumentError('pickToolResultsToClear: resultLength must be a number or null');
    }
    if (len <= minChars) continue;
    if (preserve.has(e.toolName ?? UNKNOWN_TOOL)) continue;
    out.push(i);
  }
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkMessages(messages: unknown, where: string): asserts messages is readonly AnthropicWireMessage[] {
  if (!Array.isArray(messages)) throw new InvalidArgumentError(`${where}: messages must be an array`);
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isObj(m)) throw new InvalidArgumentError(`${where}: message ${i} must be an object`);
    if (typeof m.role !== 'string') throw new InvalidArgumentError(`${where}: message ${i} has no string role`);
  }
}

/**
 * Map of tool-call id to tool name, from every `tool_use` block of every assistant message
 * whose content is a list (plain objects and SDK objects alike; a later block with the same
 * id wins). Source: the reference's `micro_compact`.
 * @throws InvalidArgumentError on a malformed message list.
 */
export function toolNamesById(messages: readonly AnthropicWireMessage[]): Map<string, string> {
  checkMessages(messages, 'toolNamesById');
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as unknown[]) {
      if (b === null || typeof b !== 'object') continue;
      const blk = b as Record<string, unknown>;
      if (blk.type === 'tool_use' && typeof blk.id === 'string' && typeof blk.name === 'string') names.set(blk.id, blk.name);
    }
  }
  return names;
}

/**
 * Replace older tool results of an Anthropic-shaped transcript by `[Previous: used NAME]`
 * (the reference's `micro_compact`, matched by `conformance/micro-vectors.json`).
 *
 * Tool results are the `tool_result` blocks of user messages whose content is a list, in
 * order. Names come from {@link toolNamesById} ({@link UNKNOWN_TOOL} when missing). Which
 * results are cleared is decided by {@link pickToolResultsToClear}; results whose content is
 * not a string (a list of blocks) are never cleared. Lengths are in code points.
 *
 * Unlike the reference, which edits the blocks in place, the input is never mutated: a new
 * array is returned in which changed messages and blocks are fresh copies and unchanged
 * messages are the input objects themselves.
 * @throws InvalidArgumentError on a malformed list or options.
 */
export function microCompact(messages: readonly AnthropicWireMessage[], options?: MicroOptions): AnthropicWireMessage[] {
  checkMessages(messages, 'microCompact');
  const opts = resolveMicro(options, 'microCompact');
  const where: Array<[number, number]> = [];
  const entries: ToolResultEntry[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const parts = m.content as unknown[];
    for (let j = 0; j < parts.length; j++) {
      const p = parts[j];
      if (!isObj(p) || p.type !== 'tool_result') continue;
      where.push([i, j]);
      const callId = typeof p.tool_use_id === 'string' ? p.tool_use_id : undefined;
      entries.push({ callId, toolName: undefined, resultLength: typeof p.content === 'string' ? cpLen(p.content) : null });
    }
  }
  const out = messages.slice();
  if (entries.length <= opts.keepRecent) return out;
  const names = toolNamesById(messages);
  for (const e of entries) e.toolName = e.callId === undefined ? undefined : names.get(e.callId);
  const clear = pickToolResultsToClear(entries, { keepRecent: opts.keepRecent, minChars: opts.minChars, preserveTools: opts.preserve });
  const copied = new Set<number>();
  for (const k of clear) {
    const [i, j] = where[k]!;
    if (!copied.has(i)) {
      out[i] = { ...out[i]!, content: (out[i]!.content as unknown[]).slice() };
      copied.add(i);
    }
    const parts = out[i]!.content as Record<string, unknown>[];
    parts[j] = { ...parts[j], content: placeholderFor(entries[k]!.toolName ?? UNKNOWN_TOOL) };
  }
  return out;
}

/**
 * The reference's token estimate of a transcript: `floor(len(str(messages)) / 4)` where `str` is
 * Python's repr of the list and `len` counts code points.
 * @returns tokens (estimate).
 * @throws InvalidArgumentError when a message holds a value that is not JSON-like.
 */
export function estimateTranscriptTokens(messages: readonly AnthropicWireMessage[]): number {
  return Math.floor(cpLen(pyRepr(messages)) / 4);
}

/**
 * One transcript line per message: Python `json.dumps(msg)` with default options
 * (ASCII-escaped, `', '` and `': '` separators) followed by `\n` (the reference's `auto_compact`).
 * @throws InvalidArgumentError when a message holds a value JSON cannot hold.
 */
export function transcriptJsonl(messages: readonly AnthropicWireMessage[]): string {
  const lines: string[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) lines[i] = pyDumps(messages[i]) + '\n';
  return lines.join('');
}

/**
 * The summarisation prompt of the reference's `auto_compact`: fixed instructions, an optional focus
 * sentence, a blank line, then the last {@link SUMMARY_INPUT_CHARS} code points of
 * `json.dumps(messages)`.
 * @throws InvalidArgumentError when a message holds a value JSON cannot hold.
 */
export function autoCompactPrompt(messages: readonly AnthropicWireMessage[], focus = ''): string {
  const focusLine = focus ? ` Pay special attention to preserving details about: ${focus}.` : '';
  return (
    'Summarize this conversation for continuity. Include: ' +
    '1) What was accomplished, 2) Current state, 3) Key decisions made. ' +
    'Be concise but preserve critical details.' +
    focusLine +
    '\n\n' +
    cpSlice(pyDumps(messages), -SUMMARY_INPUT_CHARS)
  );
}

/**
 * Writes one transcript file. Must create `name` inside `dir` exclusively (never overwrite)
 * and resolve to the path it wrote, or to `null` when a file of that name already exists.
 * Any other failure should throw or reject. `data` is text to store as UTF-8.
 */
export type TranscriptWriter = (dir: string, name: string, data: string) => Promise<string | null> | string | null;

/** The transcript could not be saved; nothing was compacted. */
export class TranscriptError extends DlgError {}

/**
 * Options of {@link autoCompact}.
 * - `writeTranscript` (required): where the JSONL goes (see `transcript-file.ts` for Node).
 * - `threshold`: compaction fires when the count is greater than this (tokens, default 50000).
 * - `transcriptDir`: directory handed to the writer (default `.transcripts`).
 * - `countTokens`: counter over a whole message list (default {@link estimateTranscriptTokens}).
 * - `now`: clock in milliseconds since the epoch (default `Date.now`); names use unix seconds.
 * - `force`: compact regardless of the threshold (the reference's manual `compact` tool).
 * - `focus`: what the summary should pay attention to (appended to the prompt).
 * - `signal`: cancels the wait for the summariser (handed to it as its second argument); an
 *   aborted run is refused (`summarizer-failed`) without waiting for the summariser.
 */
export interface AutoCompactOptions {
  writeTranscript: TranscriptWriter;
  threshold?: number;
  transcriptDir?: string;
  countTokens?: (messages: readonly AnthropicWireMessage[]) => number;
  now?: () => number;
  force?: boolean;
  focus?: string;
  signal?: AbortSignal;
}

/** Result of {@link autoCompact}. */
export interface AutoCompactResult {
  /** The new history (one summary message), or the input list itself when refused. */
  messages: readonly AnthropicWireMessage[];
  compacted: boolean;
  reason?: AutoCompactRefusal;
  /** The summariser's error when `reason` is `summarizer-failed`. */
  error?: unknown;
  /** Where the transcript was saved (set whenever it was saved, even if refused afterwards). */
  transcriptPath?: string;
  /** Counter totals (tokens) before, and after when a summary was produced. */
  tokensBefore: number;
  tokensAfter?: number;
}

/** Transcript names tried after `transcript_<secs>.jsonl` is taken: `transcript_<secs>_<k>.jsonl`. */
const MAX_NAME_ATTEMPTS = 1000;

/**
 * Save the whole transcript and replace it by a summary (the reference's `auto_compact`).
 *
 * 1. Count the messages (`countTokens`); at or below `threshold` (and not `force`) nothing
 *    happens (`reason: 'below-threshold'`).
 * 2. Write {@link transcriptJsonl} through `writeTranscript` as `transcript_<unix seconds>.jsonl`
 *    in `transcriptDir`; if that name exists, `transcript_<secs>_1.jsonl`, `_2`, ... (never
 *    overwriting).
 * 3. Ask the summariser with {@link autoCompactPrompt}.
 * 4. Return `[{role: 'user', content: '[Conversation compressed. Transcript: PATH]\n\n' + summary}]`
 *    — unless the summariser threw/rejected, returned a blank or non-string text, or the new
 *    list does not count strictly fewer tokens: then the input list comes back unchanged with
 *    a reason (the reference would substitute "No summary generated."; SPEC §9 forbids
 *    losing history that way).
 * @throws InvalidArgumentError on malformed messages or options; TranscriptError when the
 *   transcript cannot be written (nothing is compacted then).
 */
export async function autoCompact(messages: readonly AnthropicWireMessage[], summarizer: Summarizer, options: AutoCompactOptions): Promise<AutoCompactResult> {
  checkMessages(messages, 'autoCompact');
  if (typeof summarizer !== 'function') throw new InvalidArgumentError('autoCompact: summarizer must be a function');
  if (!isObj(options)) throw new InvalidArgumentError('autoCompact: options must be an object');
  const { writeTranscript, force = false, focus = '' } = options;
  const threshold = options.threshold ?? AUTO_THRESHOLD_TOKENS;
  const dir = options.transcriptDir ?? TRANSCRIPT_DIR;
  const count = options.countTokens ?? estimateTranscriptTokens;
  const now = options.now ?? Date.now;
  if (typeof writeTranscript !== 'function') throw new InvalidArgumentError('autoCompact: writeTranscript must be a function');
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0) {
    throw new InvalidArgumentError(`autoCompact: threshold must be a finite number >= 0, got ${String(threshold)}`);
  }
  if (typeof dir !== 'string') throw new InvalidArgumentError('autoCompact: transcriptDir must be a string');
  if (typeof focus !== 'string') throw new InvalidArgumentError('autoCompact: focus must be a string');
  checkSignal(options.signal, 'autoCompact');
  const checked = (n: unknown): number =>
    checkTokenCount(n, 'autoCompact', () => new InvalidArgumentError(`autoCompact: countTokens must return a non-negative integer, got ${String(n)}`));
  const before = checked(count(messages));
  if (!force && before <= threshold) return { messages, compacted: false, reason: 'below-threshold', tokensBefore: before };

  const data = transcriptJsonl(messages);
  const t = now();
  if (typeof t !== 'number' || !Number.isFinite(t)) throw new InvalidArgumentError('autoCompact: now() must return a finite number');
  const secs = Math.floor(t / 1000);
  let path: string | null = null;
  for (let k = 0; k < MAX_NAME_ATTEMPTS && path === null; k++) {
    const name = k === 0 ? transcriptName(secs) : `transcript_${secs}_${k}.jsonl`;
    try {
      path = await writeTranscript(dir, name, data);
    } catch (error) {
      throw new TranscriptError(`autoCompact: could not save the transcript ${name} in ${dir}: ${String(error)}`, { cause: error });
    }
    if (path !== null && typeof path !== 'string') throw new TranscriptError('autoCompact: writeTranscript must return a path or null');
  }
  if (path === null) throw new TranscriptError(`autoCompact: no free transcript name for second ${secs} in ${dir}`);

  let summary: unknown;
  try {
    const prompt = autoCompactPrompt(messages, focus);
    summary = await untilAborted(() => summarizer(prompt, options.signal), options.signal);
  } catch (error) {
    return { messages, compacted: false, reason: 'summarizer-failed', error, transcriptPath: path, tokensBefore: before };
  }
  if (typeof summary !== 'string' || summary.trim() === '') {
    return { messages, compacted: false, reason: 'empty-summary', transcriptPath: path, tokensBefore: before };
  }
  if (looksLikeErrorAnswer(summary)) return { messages, compacted: false, reason: 'error-summary', transcriptPath: path, tokensBefore: before };
  const out: AnthropicWireMessage[] = [{ role: 'user', content: `[Conversation compressed. Transcript: ${path}]\n\n${summary}` }];
  const after = checked(count(out));
  if (after >= before) {
    return { messages, compacted: false, reason: 'not-shrinking', transcriptPath: path, tokensBefore: before, tokensAfter: after };
  }
  return { messages: out, compacted: true, transcriptPath: path, tokensBefore: before, tokensAfter: after };
}
