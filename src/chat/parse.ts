/**
 * Reading a reply into canonical messages (SPEC §6): {@link parseToolBlocks} cuts the cleaned
 * reply into text runs and tool blocks, {@link fmt2hist} (the reference's name) walks them into
 * assistant / tool messages.
 *
 * Pipeline of {@link fmt2hist} (it mirrors how the conformance data were produced — the Python
 * reference run on the output of `conv_tools`, see `conformance/README.md`):
 *
 * 1. `convTools` (legacy-envelope.ts): legacy envelopes become current blocks.
 * 2. Usage blocks are removed, then think spans (`cleanReply`, clean.ts), never inside or
 *    across a tool block.
 * 3. `scanFences` (fences.ts) finds the tool blocks; the text between them and the blocks are
 *    walked into assistant / tool messages.
 * 4. Assistant texts are split at ```` `````result ```` fences; a history ending with a tool
 *    message gets a final assistant text `.`.
 */
import { InvalidArgumentError } from '../errors.js';
import { pyStrip } from '../python/index.js';
import { cleanReplyKeeping } from './clean.js';
import type { WrittenBlocks } from './legacy-envelope.js';
import { lineTable, scanLineFences, toFence } from './fences.js';
import { RESULT_CLOSE, RESULT_OPEN, THINK_START, TOOL_INFO } from './format.js';
import type { Msg, Part, ToolResultPart, ToolUsePart } from './message.js';
import { readToolBlock, toolBlockFields, type ReplyItem } from './tool-block.js';

/**
 * Split a reply into the text runs and tool blocks that {@link fmt2hist} walks (SPEC §6).
 *
 * The reply is first cleaned ({@link cleanReply}: legacy envelopes converted, usage blocks and
 * think spans removed; a think marker inside a tool block's JSON is data, and a span never
 * reaches across a tool block, see `docs/differences.md`). Then every fenced block
 * ({@link scanFences}) whose info string is exactly `json {.tool}` and whose body is a JSON object of the expected shape (`id` string or
 * null/absent, `name` string or absent, `args` object or null/absent; other keys free)
 * becomes a {@link ReplyTool}; anything else — bad JSON, other info strings, indented fences —
 * stays inside the surrounding text.
 *
 * @param reply the reply text.
 * @returns `{clean, items}`: the cleaned reply and its pieces in order. Every gap between
 *   tool blocks, even a lone line break, is a text item, so concatenating each text item's
 *   `text` and each tool item's `clean.slice(fence.start, fence.end)` gives back `clean`. A
 *   reply without tool blocks is one text item (no items at all for `''`).
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function parseToolBlocks(reply: string): { clean: string; items: ReplyItem[] } {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`parseToolBlocks: reply must be a string, got ${typeof reply}`);
  const { clean, items } = toolItems(reply, false);
  return { clean, items };
}

/**
 * {@link parseToolBlocks}. With `standIn`, the JSON of converted tool blocks is not written
 * where the record stands for it (see `WrittenBlocks`): the text items are the same, the tool
 * items carry the same fields, but `clean` and the fences are those of the stand-in text.
 * `complete` tells whether every stand-in was read from its record; when one was not (its
 * record is no call, so the block stays text, or a removal touched the block), the items are
 * not those of the reply and the caller must parse without stand-ins.
 */
function toolItems(reply: string, standIn: boolean): { clean: string; items: ReplyItem[]; complete: boolean } {
  // Tool blocks converted from legacy envelopes are read from the records they were written
  // from, not parsed again from their text.
  const written: WrittenBlocks = { starts: [], lens: [], recs: [], plain: false, standIn };
  const clean = cleanReplyKeeping(reply, written);
  let standInsRead = 0;
  let w = 0;
  const items: ReplyItem[] = [];
  let pos = 0;
  const pushText = (end: number): void => {
    if (end > pos) items.push({ kind: 'text', text: clean.slice(pos, end), start: pos, end });
  };
  if (clean.includes(TOOL_INFO)) {
    const t = lineTable(clean, written.plain);
    for (const lf of scanLineFences(t).fences) {
      if (lf.info !== TOOL_INFO) continue;
      const fence = toFence(t, lf);
      // A fence that opens where a written block starts and whose body is as long as its JSON
      // and line break is that block: its body is the JSON the record reads back from.
      while (w < written.starts.length && written.starts[w]! < fence.start) w++;
      const own = w < written.starts.length && written.starts[w] === fence.start && fence.body.length === written.lens[w]! + 1;
      const body = own ? toolBlockFields(written.recs[w]) : readToolBlock(fence.body);
      if (body === null) continue;
      if (own && written.standIns?.[w] === true) standInsRead++;
      pushText(fence.start);
      items.push({ kind: 'tool', ...body, fence });
      pos = fence.end;
    }
  }
  pushText(clean.length);
  return { clean, items, complete: standInsRead === (written.standInCount ?? 0) };
}

/** Split one stripped assistant text at `` `````result `` fences: [asst, fence, asst, …]. */
function splitResultFences(text: string): string[] | null {
  let a = text.indexOf(RESULT_OPEN);
  if (a < 0) return null;
  const pieces: string[] = [];
  let copied = 0;
  while (a >= 0) {
    const b = text.indexOf(RESULT_CLOSE, a + RESULT_OPEN.length);
    if (b < 0) break;
    const end = b + RESULT_CLOSE.length;
    pieces.push(text.slice(copied, a), text.slice(a, end));
    copied = end;
    a = text.indexOf(RESULT_OPEN, copied);
  }
  if (pieces.length === 0) return null;
  pieces.push(text.slice(copied));
  return pieces;
}

/** Apply the result-fence split to every assistant message (parts after a split move along). */
function splitAssistants(msgs: Msg[]): Msg[] {
  const out: Msg[] = [];
  for (const m of msgs) {
    if (m.role !== 'assistant') {
      out.push(m);
      continue;
    }
    let cur: Part[] = [];
    for (const p of m.content) {
      const pieces = p.type === 'text' ? splitResultFences(p.text) : null;
      if (pieces === null) {
        cur.push(p);
        continue;
      }
      for (let k = 0; k < pieces.length; k++) {
        if (k % 2 === 1) {
          if (cur.length > 0) out.push({ role: 'assistant', content: cur });
          out.push({ role: 'user', content: [{ type: 'text', text: pieces[k] }] });
          cur = [];
        } else {
          const s = pyStrip(pieces[k]);
          if (s !== '') cur.push({ type: 'text', text: s });
        }
      }
    }
    if (cur.length > 0) out.push({ role: 'assistant', content: cur });
  }
  return out;
}

/**
 * Parse a reply into canonical messages (the reference's `fmt2hist`, SPEC §6; pinned by the
 * `fmt2hist` cases of `conformance/reply.json` and every `dialogs/NNN.parts.json`).
 *
 * Walks {@link parseToolBlocks}: each non-blank text run becomes a Python-stripped text part of
 * the current assistant message, first closing the pending assistant + tool pair when calls
 * are pending; each tool block with an id and not marked `server` adds a `tool_use` part
 * (`arguments` = the block's `args`, numbers as `LosslessNumber`) to the assistant message and
 * a `tool_result` (text per {@link resultText}) to the pending tool message; server calls and
 * id-less blocks are dropped. Then assistant texts are split at
 * `` \n`````result\n…\n`````\n `` fences into assistant / user (the fence text, line breaks
 * included) / assistant messages, and a history ending with a tool message gets a final
 * assistant text `.`. A reply with nothing left (blank, or only dropped blocks) gives one
 * assistant text `.`.
 *
 * Invariants of the output: at least one message; every message has at least one part; it
 * ends with an assistant message; every tool message directly follows the assistant message
 * whose calls it answers, results in call order.
 *
 * @param reply the reply text (after the separator). Never throws for a string.
 * @returns the messages (roles `assistant`, `tool`, and `user` only for result fences).
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function fmt2hist(reply: string): Msg[] {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`fmt2hist: reply must be a string, got ${typeof reply}`);
  // fmt2hist reads the text items and the tool items' fields only, so converted tool blocks
  // need not be written out (see toolItems).
  let parsed = toolItems(reply, true);
  if (!parsed.complete) parsed = toolItems(reply, false);
  return historyOf(parsed.items);
}

/**
 * (Internal to the library.) False when {@link fmt2hist} of `reply` certainly holds no tool
 * call and no tool message, so that a caller asking only that need not parse: tool items come
 * from ```` ```json {.tool} ```` fences of the cleaned reply, which only a converted legacy
 * envelope (`…-usage-details`) or a removed think span can put where the reply has none (the
 * removal of usage blocks takes whole lines, and the info string holds no line break). True
 * when the reply holds any of those three markers.
 */
export function mayHoldToolCalls(reply: string): boolean {
  return reply.includes(TOOL_INFO) || reply.includes('-usage-details') || reply.includes(THINK_START);
}

/**
 * (Internal to `chat/`; exported for tests.) The walk of {@link fmt2hist} over the items of
 * {@link parseToolBlocks}: text runs and tool blocks into assistant / tool messages, then the
 * result-fence split and the final `.`.
 */
export function historyOf(items: readonly ReplyItem[]): Msg[] {
  const msgs: Msg[] = [];
  let asst: Part[] = [];
  let pend: ToolResultPart[] = [];
  const flush = (): void => {
    if (asst.length > 0) msgs.push({ role: 'assistant', content: asst });
    if (pend.length > 0) msgs.push({ role: 'tool', content: pend });
    asst = [];
    pend = [];
  };
  for (const it of items) {
    if (it.kind === 'text') {
      const s = pyStrip(it.text);
      if (s === '') continue;
      if (pend.length > 0) flush();
      asst.push({ type: 'text', text: s });
    } else {
      if (it.id === null || it.server) continue;
      const use: ToolUsePart = { type: 'tool_use', id: it.id, name: it.name, arguments: it.args };
      asst.push(use);
      pend.push({ type: 'tool_result', id: it.id, name: it.name, text: it.resultText });
    }
  }
  flush();
  const out = splitAssistants(msgs);
  if (out.length === 0 || out[out.length - 1].role === 'tool') out.push({ role: 'assistant', content: [{ type: 'text', text: '.' }] });
  return out;
}
