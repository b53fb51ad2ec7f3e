/**
 * Tool blocks of the reply format (SPEC §6): the ```` ```json {.tool} ```` fence holding one
 * call `{id, name, args, result?, server?}`, the legacy record `{id, call: {function,
 * arguments}, result?, server?}` of the older envelopes, the schema check both must pass to
 * count as a call, and how a result value becomes message text.
 *
 * {@link toolBlockFields} is the one schema check: the parser, the legacy converter and any
 * code that edits tool blocks in place use it, so they agree on what a tool block is.
 */
import { isJsonObject, pyDumps, pyStr, pyTruthy } from '../python/index.js';
import { parseJsonFast } from '../python/json-fast.js';
import type { Fence } from './fences.js';
import { TOOL_INFO } from './format.js';

/**
 * A tool result as message text (SPEC §6): strings as they are; objects and arrays as Python
 * `json.dumps(v, ensure_ascii=False)` (`", "` and `": "` separators, source key order, number
 * kinds kept); anything else as Python `str` (`True`, `None`, `1.0`, `42`).
 */
export function resultText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) || isJsonObject(v)) return pyDumps(v, { ensureAscii: false, separators: [', ', ': '] });
  return pyStr(v);
}

/** A piece of a cleaned reply: text between tool blocks. */
export interface ReplyText {
  kind: 'text';
  /** The raw text (not stripped; may be blank). */
  text: string;
  /** Offsets of `text` in the cleaned reply (UTF-16 code units). */
  start: number;
  end: number;
}

/** A piece of a cleaned reply: one tool block. */
export interface ReplyTool {
  kind: 'tool';
  /** Call id; `null` for an id-less block (missing, null or `''`), which fmt2hist drops. */
  id: string | null;
  /** Tool name (`''` when the block has none). */
  name: string;
  /** Call arguments as parsed losslessly (`{}` when absent or null). */
  args: Record<string, unknown>;
  /** The raw `result` value as parsed (`undefined` when the block has none). */
  result: unknown;
  /** {@link resultText} of `result` (`''` when absent). */
  resultText: string;
  /** True when the block is marked `server` (Python-truthy); fmt2hist drops server calls. */
  server: boolean;
  /** The block in the cleaned reply. */
  fence: Fence;
}

/** One item of `parseToolBlocks`. */
export type ReplyItem = ReplyText | ReplyTool;

/** The fields of a tool block as the parser reads them: a {@link ReplyTool} without kind and fence. */
export type ToolBlockFields = Omit<ReplyTool, 'kind' | 'fence'>;

/**
 * True when `v` has the shape of a legacy tool record, the JSON of a legacy envelope (SPEC §6,
 * §10.1): an object whose `call` is an object with a string `function`. Such an envelope is
 * converted to a current block; whether that block then reads as a call is
 * {@link toolBlockFields}'s decision.
 */
export function isLegacyToolRecord(v: unknown): v is Record<string, unknown> & { call: Record<string, unknown> & { function: string } } {
  if (!isJsonObject(v)) return false;
  const call = v.call;
  return isJsonObject(call) && typeof call.function === 'string';
}

/**
 * The tool-block schema check (SPEC §6) on a parsed JSON body.
 *
 * - `form: 'current'` (a ```` ```json {.tool} ```` body): `id` a string, null or absent; `name`
 *   a string or absent (`''`); `args` an object, null or absent (`{}`); other keys free.
 * - `form: 'legacy'` (the ```` ```json ```` fence of a legacy envelope): `call` an object with a
 *   string `function` (the name) and `arguments` (the args, same rule); `id` as above. This is
 *   exactly what a legacy record must satisfy to be converted to a current block that then
 *   reads as a call.
 *
 * In both forms `result` is taken when the key is present (any JSON value) and `server` is
 * Python-truthy. An `id` of `''` reads as `null` (an id-less block).
 *
 * @param v the parsed body (any value; non-objects give null).
 * @returns the fields, or null when `v` is not a tool block of that form.
 */
export function toolBlockFields(v: unknown, form: 'current' | 'legacy' = 'current'): ToolBlockFields | null {
  if (!isJsonObject(v)) return null;
  let id: unknown = v.id;
  let name: unknown;
  let args: unknown;
  if (form === 'legacy') {
    if (!isLegacyToolRecord(v)) return null;
    const call = v.call as Record<string, unknown>;
    name = call.function;
    args = call.arguments;
  } else {
    name = v.name === undefined ? '' : v.name;
    args = v.args;
  }
  if (id !== undefined && id !== null && typeof id !== 'string') return null;
  if (typeof name !== 'string') return null;
  if (args === undefined || args === null) args = {};
  if (!isJsonObject(args)) return null;
  const has = Object.hasOwn(v, 'result');
  const result = has ? v.result : undefined;
  id = typeof id === 'string' && id !== '' ? id : null;
  return { id: id as string | null, name, args, result, resultText: has ? resultText(result) : '', server: pyTruthy(v.server) };
}

/**
 * Read a tool block's JSON body text: the value `parseJson` gives (lossless numbers, key order;
 * by python/json-fast.ts) and then {@link toolBlockFields}. Returns null when the body does not
 * parse or fails the check.
 */
export function readToolBlock(body: string, form: 'current' | 'legacy' = 'current'): ToolBlockFields | null {
  let v: unknown;
  try {
    v = parseJsonFast(body);
  } catch {
    return null;
  }
  return toolBlockFields(v, form);
}

/**
 * A current-form tool block: ```` ```json {.tool} ````, `rec` as Python
 * `json.dumps(rec, indent=2, ensure_ascii=False)`, and the closing backticks (no final line break).
 */
export function toolBlockText(rec: Record<string, unknown>): string {
  return '```' + TOOL_INFO + '\n' + pyDumps(rec, { indent: 2, ensureAscii: false }) + '\n```';
}

/**
 * The current-form record of a legacy record `{id, call: {function, arguments}, result, server}`
 * (see {@link isLegacyToolRecord}):
 * `{id, name, args, result?, server?}` — `id` null when absent, `args` `{}` when absent or
 * null, `result` only when present, `server` only when Python-truthy. Keys in that order.
 */
export function legacyToCurrentRecord(rec: Record<string, unknown> & { call: Record<string, unknown> }): Record<string, unknown> {
  const call = rec.call;
  const out: Record<string, unknown> = {
    id: rec.id === undefined ? null : rec.id,
    name: call.function,
    args: call.arguments === undefined || call.arguments === null ? {} : call.arguments,
  };
  if (Object.hasOwn(rec, 'result')) out.result = rec.result;
  if (pyTruthy(rec.server)) out.server = rec.server;
  return out;
}
