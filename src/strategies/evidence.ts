/**
 * Receipt-backed evidence compaction of completed tool effects (SPEC §9, "Evidence records";
 * pinned by `conformance/evidence-vectors.json`).
 *
 * A completed effect is an assistant message whose content is a JSON object with a string
 * `tool` (the action), followed by a user message starting `Tool result:\n` (the
 * observation). When a supplied {@link EffectReceipt} matches the tool, the arguments and the
 * whole observation, the observation may be replaced by a small deterministic evidence record
 * naming the receipt. The receipt keeps the full result; the compact view is only a cheaper
 * model input, accepted only when the caller's token counter strictly decreases.
 *
 * Browser-safe: SHA-256 comes from `@noble/hashes` (synchronous, no `node:` import).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { DlgError } from '../errors.js';
import { checkTokenCount, type ItemTokenCounter } from '../tokens/index.js';
import type { EvidenceWireMessage } from './wire.js';
import { cpCompare, cpLen, cpSlice, isJsonObject, isLosslessNumber, jsonKeys, parseJson, pyDumps } from '../python/index.js';

/** Base class of the errors this module throws. */
export class EvidenceError extends DlgError {}
/** A receipt with a missing, extra or invalid field. */
export class ReceiptError extends EvidenceError {}
/** A receipt whose `receipt_id` is not the SHA-256 of its canonical payload. */
export class ReceiptDigestError extends ReceiptError {}
/** A bad argument to {@link compactCompletedInteractions} (options, messages, receipts). */
export class EvidenceArgumentError extends EvidenceError {}
/** The caller's token counter returned something other than a non-negative integer. */
export class TokenCounterError extends EvidenceError {}

/** How an effect ended. */
export type ExitState = 'ok' | 'error' | 'uncertain';
const EXIT_STATES: ReadonlySet<string> = new Set(['ok', 'error', 'uncertain']);

/**
 * Durable JSON form of a receipt (snake_case, as the vectors and the Python reference store
 * it). `arguments` is a JSON object whose numbers may be JS numbers, bigints or
 * `LosslessNumber`s.
 */
export interface EffectReceiptDict {
  receipt_id: string;
  tool_call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  exit_state: ExitState;
  result: string;
  changed_artifacts: string[];
}

/** Fields of a new receipt (the id is derived, never given). */
export interface EffectReceiptFields {
  toolCallId: string;
  tool: string;
  arguments: Record<string, unknown>;
  exitState: ExitState;
  result: string;
  changedArtifacts: readonly string[];
}

const RECEIPT_KEYS = ['receipt_id', 'tool_call_id', 'tool', 'arguments', 'exit_state', 'result', 'changed_artifacts'];

/** Python-compatible canonical JSON: sorted keys, ASCII-escaped, `,` and `:` separators. */
function canonicalJson(v: unknown): string {
  return pyDumps(v, { ensureAscii: true, separators: [',', ':'], sortKeys: true });
}

/** Detached, deep-frozen copy of a JSON value with object keys sorted (Python `_json_copy`). */
function jsonCopy(v: unknown, where: string, depth = 0): unknown {
  if (depth > 1000) throw new ReceiptError(`${where}: nesting too deep`);
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number') return v;
  if (isLosslessNumber(v)) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) throw new ReceiptError(`${where}: array hole at index ${i}`);
      out[i] = jsonCopy(v[i], where, depth + 1);
    }
    return Object.freeze(out);
  }
  if (isJsonObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of jsonKeys(v).sort(cpCompare)) {
      Object.defineProperty(out, k, { value: jsonCopy(v[k], where, depth + 1), enumerable: true, writable: false, configurable: false });
    }
    return Object.freeze(out);
  }
  throw new ReceiptError(`${where}: not JSON serializable (${typeof v})`);
}

/** Mutable deep copy of a (frozen) JSON value, keys in their current order. */
function thaw(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(thaw);
  if (isJsonObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: thaw(v[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/**
 * Immutable evidence of one executed tool effect (the reference's `EffectReceipt`). Construction validates every field, detaches `arguments` (deep copy, keys sorted,
 * frozen) and sorts `changedArtifacts` by code point. `receiptId` is the lowercase hex
 * SHA-256 of the UTF-8 bytes of the canonical JSON (sorted keys, ASCII-escaped, `,`/`:`
 * separators) of `{tool_call_id, tool, arguments, exit_state, result, changed_artifacts}` —
 * every stored field except the id itself.
 */
export class EffectReceipt {
  readonly toolCallId: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly exitState: ExitState;
  readonly result: string;
  readonly changedArtifacts: readonly string[];
  /** 64 lowercase hex digits. */
  readonly receiptId: string;

  /**
   * @throws ReceiptError when a field is invalid: `toolCallId`/`tool` not non-empty strings,
   *   `exitState` not ok/error/uncertain, `result` not a string, `arguments` not a JSON
   *   object, `changedArtifacts` not a list of non-empty strings.
   */
  constructor(fields: EffectReceiptFields) {
    if (fields === null || typeof fields !== 'object') throw new ReceiptError('receipt fields must be an object');
    const { toolCallId, tool, exitState, result, changedArtifacts } = fields;
    if (typeof toolCallId !== 'string' || toolCallId === '') throw new ReceiptError('tool call ID must be a non-empty string');
    if (typeof tool !== 'string' || tool === '') throw new ReceiptError('tool name must be a non-empty string');
    if (typeof exitState !== 'string' || !EXIT_STATES.has(exitState)) throw new ReceiptError('exit state must be ok, error, or uncertain');
    if (typeof result !== 'string') throw new ReceiptError('result must be a string');
    if (!Array.isArray(changedArtifacts) || !changedArtifacts.every((p) => typeof p === 'string' && p !== '')) {
      throw new ReceiptError('changed artifacts must be a list of paths');
    }
    if (!isJsonObject(fields.arguments)) throw new ReceiptError('receipt arguments must be a JSON object');
    this.toolCallId = toolCallId;
    this.tool = tool;
    this.exitState = exitState;
    this.result = result;
    this.arguments = jsonCopy(fields.arguments, 'receipt arguments') as Readonly<Record<string, unknown>>;
    this.changedArtifacts = Object.freeze([...changedArtifacts].sort(cpCompare));
    let payload: string;
    try {
      payload = canonicalJson({
        tool_call_id: this.toolCallId,
        tool: this.tool,
        arguments: this.arguments,
        exit_state: this.exitState,
        result: this.result,
        changed_artifacts: this.changedArtifacts,
      });
    } catch (error) {
      throw new ReceiptError(`receipt payload must be JSON serializable: ${String(error)}`, { cause: error });
    }
    this.receiptId = bytesToHex(sha256(new TextEncoder().encode(payload)));
    Object.freeze(this);
  }

  /**
   * Rebuild and verify a receipt from its durable JSON form ({@link EffectReceiptDict}).
   * The object must have exactly the keys `receipt_id`, `tool_call_id`, `tool`, `arguments`,
   * `exit_state`, `result`, `changed_artifacts`.
   * @throws ReceiptError on a non-object, a missing/extra key or an invalid field;
   *   ReceiptDigestError when `receipt_id` does not match the payload.
   */
  static fromDict(value: unknown): EffectReceipt {
    if (!isJsonObject(value)) throw new ReceiptError('receipt must be a JSON object');
    const keys = Object.keys(value);
    if (keys.length !== RECEIPT_KEYS.length || !RECEIPT_KEYS.every((k) => Object.hasOwn(value, k))) {
      throw new ReceiptError(`invalid receipt fields: expected ${RECEIPT_KEYS.join(', ')}, got ${keys.join(', ')}`);
    }
    const ca = value.changed_artifacts;
    if (!Array.isArray(ca)) throw new ReceiptError('changed artifacts must be a list of paths');
    const receipt = new EffectReceipt({
      toolCallId: value.tool_call_id as string,
      tool: value.tool as string,
      arguments: value.arguments as Record<string, unknown>,
      exitState: value.exit_state as ExitState,
      result: value.result as string,
      changedArtifacts: ca as string[],
    });
    if (receipt.receiptId !== value.receipt_id) {
      throw new ReceiptDigestError(`receipt digest does not match its payload (stored ${String(value.receipt_id)}, computed ${receipt.receiptId})`);
    }
    return receipt;
  }

  /** The durable JSON form (a fresh, mutable copy; keys as in {@link EffectReceiptDict}). */
  toDict(): EffectReceiptDict {
    return {
      receipt_id: this.receiptId,
      tool_call_id: this.toolCallId,
      tool: this.tool,
      arguments: thaw(this.arguments) as Record<string, unknown>,
      exit_state: this.exitState,
      result: this.result,
      changed_artifacts: [...this.changedArtifacts],
    };
  }
}

/**
 * The counter evidence compaction takes (the reference's `count_tokens`): tokens of a whole
 * message list, a non-negative integer. Wrap a text counter with `countItemsAs` to build one.
 */
export type EvidenceTokenCounter = ItemTokenCounter<readonly EvidenceWireMessage[]>;

/**
 * Options of {@link compactCompletedInteractions}.
 * - `keepRecent`: newest receipted interactions left verbatim (integer >= 0, default 1).
 * - `resultPreviewChars`: code points of the result shown in a record (integer > 0, default 160).
 */
export interface EvidenceOptions {
  keepRecent?: number;
  resultPreviewChars?: number;
}

/** Outcome of {@link compactCompletedInteractions}; token numbers are the counter's units. */
export interface EvidenceCompactionResult {
  /** Fresh `{role, content}` copies (extra keys dropped), compacted or not. */
  messages: EvidenceWireMessage[];
  compactedInteractions: number;
  tokensBefore: number;
  tokensAfter: number;
  savedTokens: number;
  /** Ids of the receipts whose interactions were compacted, in message order. */
  receiptIds: string[];
}

/** Default newest receipted interactions kept verbatim (the reference). */
export const EVIDENCE_KEEP_RECENT = 1;
/** Default preview length of a record, in code points (fixed by the vectors' `defaults` case). */
export const EVIDENCE_PREVIEW_CHARS = 160;
/** Prefix of an observation message. */
export const TOOL_RESULT_PREFIX = 'Tool result:\n';
/** First line of an evidence record. */
export const EVIDENCE_HEADER = 'Completed tool interaction (compacted evidence):\n';

/**
 * The evidence record replacing an observation: {@link EVIDENCE_HEADER} + canonical JSON of
 * `{arguments, changed_artifacts, exit_state, receipt_id, result_preview, tool}`, where
 * `result_preview` is the whole result when it has at most `previewChars` code points, else
 * its first `previewChars` code points + `… [N chars omitted]` (N in code points).
 * @throws EvidenceArgumentError when `previewChars` is not a positive integer.
 */
export function evidenceRecord(receipt: EffectReceipt, previewChars: number = EVIDENCE_PREVIEW_CHARS): string {
  if (!Number.isSafeInteger(previewChars) || previewChars <= 0) {
    throw new EvidenceArgumentError('result_preview_chars must be a positive integer');
  }
  const total = cpLen(receipt.result);
  const preview = total <= previewChars ? receipt.result : `${cpSlice(receipt.result, 0, previewChars)}\u2026 [${total - previewChars} chars omitted]`;
  return (
    EVIDENCE_HEADER +
    canonicalJson({
      arguments: receipt.arguments,
      changed_artifacts: receipt.changedArtifacts,
      exit_state: receipt.exitState,
      receipt_id: receipt.receiptId,
      result_preview: preview,
      tool: receipt.tool,
    })
  );
}

type PyNum = { int: bigint } | { float: number };

function pyNum(v: unknown): PyNum | null {
  if (typeof v === 'boolean') return { int: v ? 1n : 0n };
  if (typeof v === 'bigint') return { int: v };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { int: BigInt(v) } : { float: v };
  if (isLosslessNumber(v)) return /[.eE]/.test(v.value) ? { float: Number(v.value) } : { int: BigInt(v.value) };
  return null;
}

function numEqual(a: PyNum, b: PyNum): boolean {
  if ('int' in a && 'int' in b) return a.int === b.int;
  if ('float' in a && 'float' in b) return a.float === b.float;
  const i = 'int' in a ? a.int : (b as { int: bigint }).int;
  const f = 'float' in a ? a.float : (b as { float: number }).float;
  return Number.isFinite(f) && Number.isInteger(f) && BigInt(f) === i;
}

/** Python `==` on JSON values: numbers by value (bool is int; int vs float exact), dicts ignore key order. */
function pyEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || b === null) return a === b;
  const na = pyNum(a);
  const nb = pyNum(b);
  if (na !== null || nb !== null) return na !== null && nb !== null && numEqual(na, nb);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!Object.hasOwn(b, k) || !pyEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** Parse an action message: a JSON object with a string `tool`; arguments are its other keys. */
function parseAction(content: string): { tool: string; args: Record<string, unknown> } | null {
  let v: unknown;
  try {
    v = parseJson(content);
  } catch {
    return null;
  }
  if (!isJsonObject(v) || typeof v.tool !== 'string') return null;
  const args: Record<string, unknown> = {};
  for (const k of jsonKeys(v)) {
    if (k !== 'tool') Object.defineProperty(args, k, { value: v[k], enumerable: true, writable: true, configurable: true });
  }
  return { tool: v.tool, args };
}

/** The `receipt_id` named by an evidence record, or null when the text is not a record. */
function recordReceiptId(content: string): string | null {
  let v: unknown;
  try {
    v = parseJson(content.slice(EVIDENCE_HEADER.length));
  } catch {
    return null;
  }
  return isJsonObject(v) && typeof v.receipt_id === 'string' ? v.receipt_id : null;
}

function checkedCount(counter: EvidenceTokenCounter, messages: readonly EvidenceWireMessage[]): number {
  const n: unknown = counter(messages.map((m) => ({ role: m.role, content: m.content })));
  return checkTokenCount(n, 'count_tokens', () => new TokenCounterError('count_tokens must return a non-negative integer'));
}

/**
 * Replace older completed, receipted tool interactions by evidence records (the reference's
 * `compact_completed_interactions`, matched by `conformance/evidence-vectors.json`).
 *
 * 1. Copy every message to `{role, content}` (other keys dropped).
 * 2. Find interactions: an `assistant` message whose content parses (Python `json.loads`
 *    rules) to an object with a string `tool`, directly followed by a `user` message starting
 *    {@link TOOL_RESULT_PREFIX}. Each is matched, in message order, to the first unused
 *    receipt with the same tool, Python-equal arguments (the action's keys other than `tool`)
 *    and a result equal to the observation after the prefix. Unmatched ones stay verbatim.
 * 3. All matched interactions but the newest `keepRecent` get their observation replaced by
 *    {@link evidenceRecord}; the action message is kept.
 * 4. The view is accepted only when `countTokens` of it is strictly smaller than of the copy;
 *    otherwise the copy is returned with nothing compacted (all or nothing).
 *
 * Inputs (messages and receipts) are never mutated; running the function on its own output
 * changes nothing: a record is not a tool result, and a receipt already named by a record in
 * the input is not matched again (our addition; the vectors never exercise it, and without it
 * a second identical interaction could take over a receipt on a re-run). `receipts` may be {@link EffectReceipt}s or
 * their dict form (verified with {@link EffectReceipt.fromDict}).
 * @throws EvidenceArgumentError for bad options (messages as in the reference:
 *   "keep_recent must be a non-negative integer", "result_preview_chars must be a positive
 *   integer") or messages that are not role/content string pairs; ReceiptError /
 *   ReceiptDigestError for an invalid receipt dict; TokenCounterError ("count_tokens must
 *   return a non-negative integer") when the counter returns anything else (a boolean too).
 */
export function compactCompletedInteractions(
  messages: readonly EvidenceWireMessage[],
  receipts: ReadonlyArray<EffectReceipt | EffectReceiptDict>,
  countTokens: EvidenceTokenCounter,
  options: EvidenceOptions = {},
): EvidenceCompactionResult {
  if (options === null || typeof options !== 'object') throw new EvidenceArgumentError('options must be an object');
  const keepRecent = options.keepRecent ?? EVIDENCE_KEEP_RECENT;
  const previewChars = options.resultPreviewChars ?? EVIDENCE_PREVIEW_CHARS;
  if (typeof keepRecent !== 'number' || !Number.isSafeInteger(keepRecent) || keepRecent < 0) {
    throw new EvidenceArgumentError('keep_recent must be a non-negative integer');
  }
  if (typeof previewChars !== 'number' || !Number.isSafeInteger(previewChars) || previewChars <= 0) {
    throw new EvidenceArgumentError('result_preview_chars must be a positive integer');
  }
  if (typeof countTokens !== 'function') throw new EvidenceArgumentError('count_tokens must be callable');
  if (!Array.isArray(messages)) throw new EvidenceArgumentError('messages must be a list');
  if (!Array.isArray(receipts)) throw new EvidenceArgumentError('receipts must be a list');

  const copy: EvidenceWireMessage[] = messages.map((m: unknown, i) => {
    if (m === null || typeof m !== 'object') throw new EvidenceArgumentError(`message ${i} must be a role/content mapping`);
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string' || typeof content !== 'string') {
      throw new EvidenceArgumentError(`message ${i} must have string role and content`);
    }
    return { role, content };
  });
  const pool: EffectReceipt[] = receipts.map((r) => (r instanceof EffectReceipt ? r : EffectReceipt.fromDict(r)));

  const before = checkedCount(countTokens, copy);
  const unchanged = (): EvidenceCompactionResult => ({
    messages: copy,
    compactedInteractions: 0,
    tokensBefore: before,
    tokensAfter: before,
    savedTokens: 0,
    receiptIds: [],
  });

  // Receipts by tool and result, in supplied order; matched receipts are consumed.
  const byKey = new Map<string, Map<string, number[]>>();
  pool.forEach((r, i) => {
    let inner = byKey.get(r.tool);
    if (!inner) byKey.set(r.tool, (inner = new Map()));
    const list = inner.get(r.result);
    if (list) list.push(i);
    else inner.set(r.result, [i]);
  });
  const used = new Set<number>();
  // Records already in the view (from an earlier run) hold their receipts: a receipt is
  // evidence for one interaction only, which keeps a re-run on our own output a no-op.
  const byId = new Map<string, number[]>();
  pool.forEach((r, i) => {
    const list = byId.get(r.receiptId);
    if (list) list.push(i);
    else byId.set(r.receiptId, [i]);
  });
  for (const m of copy) {
    if (m.role !== 'user' || !m.content.startsWith(EVIDENCE_HEADER)) continue;
    const id = recordReceiptId(m.content);
    const k = id === null ? undefined : byId.get(id)?.find((j) => !used.has(j));
    if (k !== undefined) used.add(k);
  }
  const matched: Array<{ index: number; receipt: EffectReceipt }> = [];
  for (let i = 0; i + 1 < copy.length; i++) {
    const action = copy[i]!;
    const observation = copy[i + 1]!;
    if (action.role !== 'assistant' || observation.role !== 'user' || !observation.content.startsWith(TOOL_RESULT_PREFIX)) continue;
    const parsed = parseAction(action.content);
    if (parsed === null) continue;
    const candidates = byKey.get(parsed.tool)?.get(observation.content.slice(TOOL_RESULT_PREFIX.length));
    if (!candidates) continue;
    const hit = candidates.find((k) => !used.has(k) && pyEqual(parsed.args, pool[k]!.arguments));
    if (hit === undefined) continue;
    used.add(hit);
    matched.push({ index: i + 1, receipt: pool[hit]! });
  }
  const selected = matched.slice(0, Math.max(0, matched.length - keepRecent));
  if (selected.length === 0) return unchanged();

  const view = copy.map((m) => ({ ...m }));
  for (const { index, receipt } of selected) view[index] = { role: 'user', content: evidenceRecord(receipt, previewChars) };
  const after = checkedCount(countTokens, view);
  if (after >= before) return unchanged();
  return {
    messages: view,
    compactedInteractions: selected.length,
    tokensBefore: before,
    tokensAfter: after,
    savedTokens: before - after,
    receiptIds: selected.map((s) => s.receipt.receiptId),
  };
}
