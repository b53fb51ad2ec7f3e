/**
 * The message shapes the three reference strategy APIs speak (SPEC §9), kept at the edge: the
 * library's one message model is the canonical `Msg` of `chat/message.ts`; these are wire
 * shapes of the summary corpus, of Anthropic-style transcripts (micro and auto compaction)
 * and of the evidence agent loop, with conversions from `Msg` where one is meaningful.
 */
import type { Msg, Part } from '../chat/index.js';
import { InvalidArgumentError } from '../errors.js';
import { pyDumps } from '../python/index.js';

// ---------------------------------------------------------------------------------------------
// Summary corpus

/**
 * Message types of the summary corpus. `instructions` is the system prompt: never
 * summarised, always moved to the front. Only `user`, `bot`, `context` and `reasoning`
 * reach the summary prompt; `activity` (tool calls and results) is summarised away silently.
 * Other strings pass through untouched.
 */
export type SummaryMessageType = 'user' | 'bot' | 'context' | 'reasoning' | 'instructions' | 'activity';

/** Provenance carried by a summary message the summary strategy produced. */
export interface SummaryMeta {
  /** Always `true`: marks the message as produced by compaction. */
  compacted: true;
  /** How many messages the summary replaced. */
  droppedCount: number;
  /** Ids of the replaced messages that had one, in order; absent when none had an id. */
  summarizedIds?: string[];
}

/**
 * A message of the summary corpus (the wire shape of `summary.ts`).
 * - `text`: the visible text.
 * - `payload`: anything the message costs outside its text (typically a rendered tool call
 *   and its result); it is priced together with `text`.
 * - `meta`: free-form metadata; summary messages carry a {@link SummaryMeta}.
 */
export interface SummaryWireMessage {
  id?: string;
  type: SummaryMessageType | (string & {});
  text: string;
  payload?: string;
  meta?: Record<string, unknown>;
}

function partText(p: Part): string {
  if (p.type === 'tool_use') return `${p.name}(${pyDumps(p.arguments, { ensureAscii: false })})`;
  return p.text;
}

/**
 * Canonical messages as summary-corpus messages, one per message: `system` -> `instructions`,
 * `user` -> `user`, `tool` -> `activity`, and `assistant` -> `bot`, or `activity` when it
 * holds only tool calls. `text` joins the text parts (newline-separated; thinking and media
 * parts are left out), and tool calls and results go to `payload` (`NAME(ARGS-JSON)` and the
 * result text, newline-separated), so they are priced but never reach the summary prompt.
 */
export function msgsToSummaryWire(msgs: readonly Msg[]): SummaryWireMessage[] {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('msgsToSummaryWire: messages must be an array');
  return (msgs as readonly Msg[]).map((m: Msg): SummaryWireMessage => {
    const text = m.content
      .filter((p) => p.type === 'text')
      .map(partText)
      .join('\n');
    const payload = m.content
      .filter((p) => p.type === 'tool_use' || p.type === 'tool_result')
      .map(partText)
      .join('\n');
    const type =
      m.role === 'system' ? 'instructions' : m.role === 'tool' ? 'activity' : m.role === 'user' ? 'user' : text === '' && payload !== '' ? 'activity' : 'bot';
    return payload === '' ? { type, text } : { type, text, payload };
  });
}

// ---------------------------------------------------------------------------------------------
// Anthropic-style transcripts

/** An Anthropic `tool_use` content block (plain object or SDK object with these properties). */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input?: unknown;
}

/** An Anthropic `tool_result` content block; `content` is a string or a list of blocks. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: unknown;
  is_error?: boolean;
}

/** An Anthropic-style message: `content` is a string or a list of content blocks. */
export interface AnthropicWireMessage {
  role: string;
  content: unknown;
  [key: string]: unknown;
}

/**
 * Canonical messages as an Anthropic-style transcript: text parts become `text` blocks,
 * tool calls `tool_use` blocks (`input` = the arguments), and a `tool` message becomes a
 * `user` message of `tool_result` blocks (`content` = the result text). Thinking and media
 * parts are left out; `system` messages too (Anthropic takes the system prompt apart).
 */
export function msgsToAnthropicWire(msgs: readonly Msg[]): AnthropicWireMessage[] {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('msgsToAnthropicWire: messages must be an array');
  const out: AnthropicWireMessage[] = [];
  for (const m of msgs as readonly Msg[]) {
    if (m.role === 'system') continue;
    const blocks: unknown[] = [];
    for (const p of m.content) {
      if (p.type === 'text') blocks.push({ type: 'text', text: p.text });
      else if (p.type === 'tool_use') blocks.push({ type: 'tool_use', id: p.id, name: p.name, input: p.arguments });
      else if (p.type === 'tool_result') blocks.push({ type: 'tool_result', tool_use_id: p.id, content: p.text });
    }
    out.push({ role: m.role === 'tool' ? 'user' : m.role, content: blocks });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Evidence agent loop

/**
 * A role/content message of the evidence agent loop: an action is an `assistant` message whose
 * content is a JSON object with a string `tool`; its observation is the next `user` message,
 * starting `Tool result:\n`. It carries no structured parts, so there is no conversion from
 * `Msg`: the loop's own text conventions are the format.
 */
export interface EvidenceWireMessage {
  role: string;
  content: string;
}
