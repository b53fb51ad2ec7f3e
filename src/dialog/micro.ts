/**
 * Micro-compaction of a dialog (SPEC §9 "Micro-compaction" on the reply wire format of SPEC §6):
 * older tool results inside prompt replies become `[Previous: used NAME]`, in place. Which
 * results: the clearing decision of `strategies/micro.ts` over every call `fmt2hist` reports in
 * non-skipped prompts. How: only the `result` value of each tool block is rewritten, in the
 * JSON format it was written in; every rewritten reply is parsed again and checked, and a reply
 * that fails the check is left unchanged and reported in `refused`.
 */
import type { DialogLike as Dialog } from './cells.js';
import { checkOutputs, requireDialog } from './cell-errors.js';
import { InvalidArgumentError } from '../errors.js';
import { cpLen, parseJson, pyDumps, pyJsonString } from '../python/index.js';
import { utf8Length } from '../tokens/index.js';
import {
  PRESERVE_RESULT_TOOLS,
  UNKNOWN_TOOL,
  pickToolResultsToClear,
  placeholderFor,
  sizedPlaceholderFor,
  type MicroOptions,
  type ToolResultEntry,
} from '../strategies/micro.js';
import {
  TOOL_INFO,
  fenceBodyStart,
  lastKeyValueSpan,
  parseToolBlocks,
  resultText,
  scanFences,
  toolBlockFields,
  type Fence,
  type ReplyItem,
  type ReplyTool,
} from '../chat/index.js';
import { countCell, messageContextTokens, type CellTokenCounter } from './measure.js';

/**
 * Options of {@link microCompactDialog} / {@link planDialogMicro}: those of `micro.ts`
 * (`keepRecent` 3, `minChars` 100 code points, `preserveTools` `['read_file']`) plus
 * `countTokens`, the per-cell counter of the reported totals (default
 * `messageContextTokens`: o200k_base tokens of what the AI sees), `keepTools`, more tool
 * names whose results are never cleared (added to `preserveTools`; tools that hold memory,
 * such as `memory` or `load_dialog`), and `profile`: `'clean'` (default) writes a placeholder
 * that says what was cleared (`[Previous: used read_file · 12.4 KB cleared]`) and drops the
 * result preview from a legacy envelope's `<summary>` line; `'reference'` writes
 * `[Previous: used NAME]` and leaves the envelope's summary line as it was.
 */
export interface DialogMicroOptions extends MicroOptions {
  countTokens?: CellTokenCounter;
  keepTools?: Iterable<string>;
  profile?: 'clean' | 'reference';
}

/** One cleared tool result. */
export interface ClearedToolResult {
  /** Id of the prompt cell whose reply held it. */
  messageId: string;
  /** The tool call's id. */
  callId: string;
  /** The tool name as written in the block (`''` when the block has none). */
  tool: string;
  /** Length of the result text before, in code points. */
  charsBefore: number;
}

/** A prompt whose reply could not be rewritten safely (left unchanged). */
export interface MicroRefusedReply {
  messageId: string;
  reason: string;
}

/** Result of {@link planDialogMicro}. Token totals are the counter's, over the whole dialog. */
export interface DialogMicroPlan {
  /** The results that are (or would be) cleared, in dialog order. */
  cleared: ClearedToolResult[];
  /** Replies that would have changed but could not be rewritten safely. */
  refused: MicroRefusedReply[];
  tokensBefore: number;
  tokensAfter: number;
}

/** Result of {@link microCompactDialog}. */
export interface MicroCompactDialogResult extends DialogMicroPlan {
  /** True when some reply changed. */
  changed: boolean;
}

/** A tool name without a leading `tools.` (how dialogs sometimes spell namespaced tools). */
function bareToolName(name: string): string {
  return name.startsWith('tools.') ? name.slice(6) : name;
}

const PLACEHOLDER_RE = /^\[Previous: used [^\]\n]*\]$/;

/** True when a result value is already a micro-compaction placeholder. */
function isPlaceholder(v: unknown): boolean {
  return typeof v === 'string' && PLACEHOLDER_RE.test(v);
}

// ---------------------------------------------------------------------------------------------
// Locating tool blocks in the raw reply

/** A fenced tool block of the raw reply: current form, or the JSON fence of a legacy envelope. */
interface RawBlock {
  fence: Fence;
  /** The parsed body (the object written in the fence). */
  value: Record<string, unknown>;
  key: string;
}

/** Identity of a tool block as fmt2hist sees it: id, name, arguments, result, server flag. */
function blockKey(id: unknown, name: string, args: Record<string, unknown>, hasResult: boolean, result: unknown, server: boolean): string {
  const rid = typeof id === 'string' && id !== '' ? id : null;
  return JSON.stringify([rid, name, pyDumps(args, { ensureAscii: false }), hasResult, hasResult ? resultText(result) : '', server]);
}

function toolKey(t: ReplyTool): string {
  return blockKey(t.id, t.name, t.args, t.result !== undefined, t.result, t.server);
}

/**
 * The fenced blocks of the raw reply that are tool blocks (the schema check of the reply
 * format, `toolBlockFields`: current form, or the JSON fence of a legacy envelope), with their
 * identity keys.
 */
function rawToolBlocks(reply: string): RawBlock[] {
  const out: RawBlock[] = [];
  for (const fence of scanFences(reply)) {
    const form = fence.info === 'json' ? 'legacy' : fence.info === TOOL_INFO ? 'current' : null;
    if (form === null) continue;
    let v: unknown;
    try {
      v = parseJson(fence.body);
    } catch {
      continue;
    }
    const f = toolBlockFields(v, form);
    if (f === null) continue;
    const has = f.result !== undefined;
    out.push({ fence, value: v as Record<string, unknown>, key: blockKey(f.id, f.name, f.args, has, f.result, f.server) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rewriting one JSON body

/** The formats a tool body may have been written in (Python json.dumps options). */
function candidateFormats(core: string): Array<{ indent?: number; separators?: readonly [string, string]; ensureAscii: boolean }> {
  const nl = core.startsWith('{\n') ? 2 : -1;
  if (nl > 0) {
    let k = nl;
    while (core.charCodeAt(k) === 0x20) k++;
    const indent = k - nl;
    return [
      { indent, ensureAscii: false },
      { indent, ensureAscii: true },
    ];
  }
  return [{ ensureAscii: false }, { ensureAscii: true }, { separators: [',', ':'], ensureAscii: false }, { separators: [',', ':'], ensureAscii: true }];
}

/**
 * A tool body with its `result` replaced by `placeholder`: re-serialised in the detected format
 * when that reproduces the body exactly, else with the result's JSON token spliced; null when
 * neither works. `value` is the parsed body (it is modified).
 */
function rewriteBody(body: string, value: Record<string, unknown>, placeholder: string): string | null {
  const m = /(?:\r\n|\n|\r)$/.exec(body);
  const trailing = m === null ? '' : m[0];
  const core = body.slice(0, body.length - trailing.length);
  for (const fmt of candidateFormats(core)) {
    let same: boolean;
    try {
      same = pyDumps(value, fmt) === core;
    } catch {
      same = false;
    }
    if (!same) continue;
    value.result = placeholder;
    return pyDumps(value, fmt) + trailing;
  }
  const span = lastKeyValueSpan(body, 'result');
  if (span === null) return null;
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(body);
  return body.slice(0, span[0]) + pyJsonString(placeholder, ascii) + body.slice(span[1]);
}

// ---------------------------------------------------------------------------------------------
// Rewriting one reply

/**
 * The result preview of the legacy envelope whose JSON fence starts at `fenceStart`: in its
 * `<summary>` line (`<code>f(args)→&quot;preview…&quot;</code>`), the span from the last `→`
 * to `</code>` (or `</summary>`). Null when the line before the fence is not such a summary
 * (nothing before `floor` is looked at).
 */
function previewSpan(reply: string, fenceStart: number, floor: number): [number, number] | null {
  const open = reply.lastIndexOf('<summary>', fenceStart);
  if (open < floor || open < 0) return null;
  const close = reply.indexOf('</summary>', open);
  if (close < 0 || close > fenceStart || reply.slice(close + 10, fenceStart).trim() !== '') return null;
  const code = reply.lastIndexOf('</code>', close);
  const end = code > open ? code : close;
  const arrow = reply.lastIndexOf('→', end);
  if (arrow <= open) return null;
  return [arrow, end];
}

/** fmt2hist-level identity of a parsed item, result left out. */
function itemShape(it: ReplyItem): string {
  if (it.kind === 'text') return 't' + it.text;
  return JSON.stringify([it.id, it.name, pyDumps(it.args, { ensureAscii: false }), it.server, it.result !== undefined]);
}

/**
 * Replace the results of the tool blocks `targets` (index among the tool items of
 * `parseToolBlocks(reply)` -> placeholder) in the raw reply. Returns the new reply, or a reason
 * when it cannot be done safely.
 */
function rewriteReply(
  reply: string,
  items: readonly ReplyItem[],
  targets: ReadonlyMap<number, string>,
  dropPreview = false,
): { reply: string } | { reason: string } {
  const tools = items.filter((x): x is ReplyTool => x.kind === 'tool');
  const raw = rawToolBlocks(reply);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let j = 0;
  for (let k = 0; k < tools.length; k++) {
    const key = toolKey(tools[k]!);
    while (j < raw.length && raw[j]!.key !== key) j++;
    if (j >= raw.length) return { reason: `tool block ${k + 1} could not be located in the reply text` };
    const ph = targets.get(k);
    if (ph !== undefined) {
      const blk = raw[j]!;
      const start = fenceBodyStart(reply, blk.fence);
      if (start < 0 || reply.slice(start, start + blk.fence.body.length) !== blk.fence.body) {
        return { reason: `tool block ${k + 1}: its body could not be located` };
      }
      const text = rewriteBody(blk.fence.body, blk.value, ph);
      if (text === null) return { reason: `tool block ${k + 1}: its JSON could not be rewritten` };
      const preview = dropPreview && blk.fence.info === 'json' ? previewSpan(reply, blk.fence.start, edits.length ? edits[edits.length - 1]!.end : 0) : null;
      if (preview !== null) edits.push({ start: preview[0], end: preview[1], text: '→[cleared]' });
      edits.push({ start, end: start + blk.fence.body.length, text });
    }
    j++;
  }
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(reply.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(reply.slice(at));
  const out = parts.join('');
  // Check: the new reply parses to the same items, with only the target results changed.
  const after = parseToolBlocks(out).items;
  if (after.length !== items.length) return { reason: 'the rewritten reply parses differently' };
  let t = 0;
  for (let i = 0; i < items.length; i++) {
    const a = items[i]!;
    const b = after[i]!;
    if (a.kind !== b.kind || itemShape(a) !== itemShape(b)) return { reason: 'the rewritten reply parses differently' };
    if (a.kind === 'tool' && b.kind === 'tool') {
      const ph = targets.get(t);
      const ok = ph === undefined ? b.resultText === a.resultText : b.result === ph;
      if (!ok) return { reason: 'the rewritten reply parses differently' };
      t++;
    }
  }
  return { reply: out };
}

// ---------------------------------------------------------------------------------------------
// The dialog walk

interface Computed extends DialogMicroPlan {
  edits: Array<{ index: number; reply: string }>;
}

function resolveOptions(
  options: DialogMicroOptions | undefined,
  where: string,
): { micro: MicroOptions; counter: CellTokenCounter; profile: 'clean' | 'reference' } {
  const o = options ?? {};
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new InvalidArgumentError(`${where}: options must be an object`);
  const counter = o.countTokens ?? messageContextTokens;
  if (typeof counter !== 'function') throw new InvalidArgumentError(`${where}: countTokens must be a function`);
  const preserve: string[] = [];
  const given = o.preserveTools ?? PRESERVE_RESULT_TOOLS;
  if (typeof given === 'string' || typeof (given as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError(`${where}: preserveTools must be an iterable of strings`);
  }
  for (const name of given) {
    if (typeof name !== 'string') throw new InvalidArgumentError(`${where}: preserveTools must hold strings`);
    preserve.push(bareToolName(name));
  }
  const keep = o.keepTools ?? [];
  if (typeof keep === 'string' || keep === null || typeof (keep as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError(`${where}: keepTools must be an iterable of strings`);
  }
  for (const name of keep) {
    if (typeof name !== 'string') throw new InvalidArgumentError(`${where}: keepTools must hold strings`);
    preserve.push(bareToolName(name));
  }
  const profile = o.profile ?? 'clean';
  if (profile !== 'clean' && profile !== 'reference')
    throw new InvalidArgumentError(`${where}: profile must be "clean" or "reference", got ${String(profile)}`);
  return { micro: { keepRecent: o.keepRecent, minChars: o.minChars, preserveTools: preserve }, counter, profile };
}

function compute(dialog: Dialog, options: DialogMicroOptions | undefined, where: string): Computed {
  requireDialog(dialog, where);
  checkOutputs(dialog);
  const { micro, counter, profile } = resolveOptions(options, where);
  const ms = dialog.messages;
  const entries: ToolResultEntry[] = [];
  const refs: Array<{ msg: number; tool: number; item: ReplyTool }> = [];
  const parsed = new Map<number, ReplyItem[]>();
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    if (m.type !== 'prompt' || m.skipped || m.reply === '') continue;
    const { items } = parseToolBlocks(m.reply);
    let k = -1;
    for (const it of items) {
      if (it.kind !== 'tool') continue;
      k++;
      if (it.id === null || it.server) continue;
      if (!parsed.has(i)) parsed.set(i, items);
      const eligible = it.result !== undefined && !isPlaceholder(it.result);
      entries.push({
        callId: it.id,
        toolName: it.name === '' ? undefined : bareToolName(it.name),
        resultLength: eligible ? cpLen(it.resultText) : null,
      });
      refs.push({ msg: i, tool: k, item: it });
    }
  }
  const clear = pickToolResultsToClear(entries, micro);
  const byMsg = new Map<number, Array<{ tool: number; item: ReplyTool }>>();
  for (const e of clear) {
    const r = refs[e]!;
    let l = byMsg.get(r.msg);
    if (l === undefined) byMsg.set(r.msg, (l = []));
    l.push({ tool: r.tool, item: r.item });
  }
  let before = 0;
  const counts: number[] = new Array(ms.length);
  for (let i = 0; i < ms.length; i++) before += counts[i] = countCell(counter, ms[i]!, where);
  let after = before;
  const cleared: ClearedToolResult[] = [];
  const refused: MicroRefusedReply[] = [];
  const edits: Array<{ index: number; reply: string }> = [];
  for (const [i, list] of byMsg) {
    const m = ms[i]!;
    const targets = new Map<number, string>();
    for (const { tool, item } of list) {
      const name = item.name === '' ? UNKNOWN_TOOL : item.name;
      targets.set(tool, profile === 'clean' ? sizedPlaceholderFor(name, utf8Length(item.resultText)) : placeholderFor(name));
    }
    const res = rewriteReply(m.reply, parsed.get(i)!, targets, profile === 'clean');
    if ('reason' in res) {
      refused.push({ messageId: m.id, reason: res.reason });
      continue;
    }
    const next = m.clone();
    next.reply = res.reply;
    after += countCell(counter, next, where) - counts[i]!;
    edits.push({ index: i, reply: res.reply });
    for (const { item } of list) cleared.push({ messageId: m.id, callId: item.id!, tool: item.name, charsBefore: cpLen(item.resultText) });
  }
  return { cleared, refused, tokensBefore: before, tokensAfter: after, edits };
}

/**
 * What {@link microCompactDialog} would do, without changing the dialog (for `--check`).
 * @returns `{cleared, refused, tokensBefore, tokensAfter}` (totals of the counter over the
 *   whole dialog).
 * @throws InvalidArgumentError on bad arguments.
 */
export function planDialogMicro(dialog: Dialog, options?: DialogMicroOptions): DialogMicroPlan {
  const { cleared, refused, tokensBefore, tokensAfter } = compute(dialog, options, 'planDialogMicro');
  return { cleared, refused, tokensBefore, tokensAfter };
}

/**
 * Replace older tool results inside prompt replies by `[Previous: used NAME]`, in place: only
 * the `reply` of affected prompt cells changes. Idempotent.
 * - Which results: each tool call `fmt2hist` would report (a block with an id, not `server`)
 *   in the replies of non-skipped prompts, in dialog order, is one entry of
 *   `pickToolResultsToClear`: all but the newest `keepRecent` (default 3), result text longer
 *   than `minChars` code points (default 100), tool not in `preserveTools` (default
 *   `['read_file']`; a leading `tools.` is ignored on both sides). A block without a `result`
 *   key, or whose result already is a placeholder, is never cleared.
 * - How: in a current ```` ```json {.tool} ```` block or the ```` ```json ```` fence of a legacy
 *   envelope, the JSON body is written again in its detected format (indentation, ASCII
 *   escaping) with the result replaced; when the body cannot be reproduced that way (duplicate
 *   keys, unusual spacing) the result's JSON token alone is spliced. Every other character stays.
 * - Safety: the rewritten reply must parse to the same text runs and blocks (ids, names,
 *   arguments, server flags, other results) with only the cleared results changed; otherwise
 *   the reply is left unchanged and reported in `refused`.
 * @param options see {@link DialogMicroOptions}.
 * @returns `{changed, cleared, refused, tokensBefore, tokensAfter}`; `cleared` lists each
 *   cleared result (prompt id, call id, tool name, former length in code points).
 * @throws InvalidArgumentError on bad arguments.
 */
export function microCompactDialog(dialog: Dialog, options?: DialogMicroOptions): MicroCompactDialogResult {
  const c = compute(dialog, options, 'microCompactDialog');
  for (const e of c.edits) dialog.messages[e.index]!.reply = e.reply;
  return { changed: c.edits.length > 0, cleared: c.cleared, refused: c.refused, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter };
}
