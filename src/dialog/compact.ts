/**
 * Dialog compaction (SPEC §8): re-render prompts' replies in the compact DSL, either in place
 * (the notebook stays runnable, ids and every other cell untouched) or as one flat document.
 * Behaviour follows the reference's `compact_reply`, `Message.compact`, `Dialog.compact`,
 * `compact_code` and `dlg2compact`, pinned by `conformance/reply.json` and
 * `conformance/dialogs/NNN.compact.ipynb` / `NNN.flat.md`.
 */
import { compactCall, compactResult, compactText, fencedCode, resolvePolicy, type Policy } from '../dsl/render.js';
import { joinCompacts } from '../dsl/continuation.js';
import { fmt2hist } from '../chat/reply.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/tokens.js';
import { pyDumps, pyStrip } from '../python/py.js';
import { CELL_ID_RE, Dialog, Message, cloneJson } from './dialog.js';
import type { Msg, ToolUsePart, ToolResultPart } from '../chat/message.js';
import { DlgError, NotebookError } from '../errors.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Classes that token accounting splits a dialog into. */
export type TokenClass = 'user' | 'assistant' | 'calls' | 'results' | 'code';

/** Token counts (o200k_base) per class plus the total of the rendering they describe. */
export type ClassTokens = Record<TokenClass | 'total', number>;

/** What a dialog holds, with its token counts (o200k_base) per class. */
export interface TokenStats {
  /** Messages (cells) in the dialog. */
  messages: number;
  /** Prompt messages. */
  prompts: number;
  /** Tool calls in all replies (server calls and id-less blocks excluded, as fmt2hist drops them). */
  toolCalls: number;
  tokens: ClassTokens;
}

/** One rendered piece of a reply with the class it counts towards. */
interface Piece { cls: TokenClass; text: string }

function emptyTokens(): ClassTokens {
  return { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 0 };
}

/**
 * Run `f` for message `m` (index `i`) of dialog `d`, locating any library error it raises:
 * a {@link DlgError} other than a `NotebookError` (a `BudgetError` from a code cell's fence, an
 * `InvalidArgumentError` from malformed outputs) is rethrown as a `NotebookError` naming the
 * dialog (`d.name`, `<string>` when unnamed), the cell (its id, or `#i` when the id was
 * generated on reading and so is not in the file, or is not a valid cell id) and `field`,
 * with the original error as `cause`. Other errors pass through unchanged.
 */
function atCell<T>(d: Dialog, m: Message, i: number, field: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof DlgError) || e instanceof NotebookError) throw e;
    // An id that is not in the file (generated on reading) or not a valid id (it may hold
    // control characters, which would reach the terminal raw) is named by the cell's index.
    const cell = m.idGenerated || !CELL_ID_RE.test(m.id) ? i : m.id;
    const err = new NotebookError(e.message, d.name || '<string>', cell, field);
    Object.defineProperty(err, 'cause', { value: e, enumerable: false, configurable: true, writable: true });
    throw err;
  }
}

/**
 * Render a reply's parts in the DSL: prose, then each tool call followed by its result
 * (matched by id). The `'.'` placeholder that fmt2hist appends is dropped.
 */
function replyPieces(reply: string, p: Policy, mark: string, msgs: Msg[] = fmt2hist(reply)): Piece[] {
  const results = new Map<string, ToolResultPart>();
  for (const m of msgs) {
    if (m.role !== 'tool') continue;
    for (const part of m.content) if (part.type === 'tool_result') results.set(part.id, part);
  }
  const out: Piece[] = [];
  for (const m of msgs) {
    if (m.role !== 'assistant') continue;
    for (const part of m.content) {
      if (part.type === 'text') {
        if (part.text === '.') continue;
        const text = mark ? compactText(part.text, mark, p.asstToks) : truncToksMid(pyStrip(part.text), p.asstToks);
        out.push({ cls: 'assistant', text });
      } else if (part.type === 'tool_use') {
        out.push({ cls: 'calls', text: compactCall(part as ToolUsePart, p.callToks) });
        const res = results.get(part.id);
        if (res) out.push({ cls: 'results', text: compactResult(res.text, p.resultToks) });
      }
    }
  }
  return out;
}

/**
 * Render a prompt's reply in the DSL (the reference's `compact_reply`): prose bare (or
 * delimited by `mark`), each tool call followed by its result; pieces joined by newlines.
 * @param reply the reply wire text (Markdown with tool blocks, SPEC §6).
 * @param policy token budgets; missing fields take {@link compactPolicy}'s.
 * @param opts.mark sigil that delimits prose (`'»'` in flat documents), `''` for bare prose.
 * @returns the rendering (a string; `''` for an empty reply).
 */
export function compactReply(reply: string, policy?: Partial<Policy>, opts: { mark?: string } = {}): string {
  return replyPieces(reply, resolvePolicy(policy), opts.mark ?? '').map((x) => x.text).join('\n');
}

/** Re-tokenising a middle cut can cost a few tokens at its two seams; this much slack is allowed. */
const SEAM_SLACK_TOKENS = 8;

/**
 * True when a reply already holds what {@link compactReply} makes, so that compacting it again
 * would only cut it further. Two shapes are recognised, both only in replies without tool
 * blocks:
 * - a rendering with calls: some line that renders a call (`▶ name(`, `! `, or a closing code
 *   fence) is directly followed by a result line (`>` or `> …`);
 * - cut prose: the text holds the cut mark `' … '` and, stripped, is within one `asstToks`
 *   budget (plus a small seam allowance: decoding a cut and encoding it again may merge bytes
 *   differently at the two joins, so a cut of 150 tokens can count 151) per mark, plus one
 *   budget for an uncut piece (prose split by a dropped server call renders as several pieces).
 * {@link compactMessage} leaves such replies alone; this keeps compaction idempotent.
 */
export function isCompactedReply(reply: string, policy?: Partial<Policy>): boolean {
  return compactedGiven(reply, resolvePolicy(policy), () => fmt2hist(reply));
}

/** {@link isCompactedReply} with the reply's parse supplied (and computed only if needed). */
function compactedGiven(reply: string, p: Policy, parse: () => Msg[]): boolean {
  const hasResultLine = reply.includes('\n>');
  const hasCut = reply.includes(' … ');
  if (!hasResultLine && !hasCut) return false;
  const msgs = parse();
  if (msgs.some((m) => m.role === 'tool' || m.content.some((p) => p.type === 'tool_use'))) return false;
  if (hasResultLine) {
    const lines = reply.split('\n');
    for (let i = 0; i + 1 < lines.length; i++) {
      const next = lines[i + 1]!;
      if (next !== '>' && !next.startsWith('> ')) continue;
      const line = lines[i]!;
      if (line.startsWith('▶ ') || line.startsWith('! ') || /^`{3,}$/.test(line)) return true;
    }
  }
  if (!hasCut) return false;
  // Prose pieces are cut one by one (a dropped server call or id-less block separates them),
  // so a rendering holds at most one cut budget per cut mark plus one uncut piece.
  const asst = p.asstToks;
  const cuts = reply.split(' … ').length - 1;
  return fitsToks(pyStrip(reply), cuts * (asst + SEAM_SLACK_TOKENS) + asst);
}

/**
 * Compact one message in place (the reference's `Message.compact`): prompts only. The request
 * is middle-truncated to `userToks` tokens (not stripped); a non-empty reply is replaced by
 * {@link compactReply} without a mark. Other message types, ids, metadata and attachments are
 * untouched. A reply that is already a DSL rendering is kept (see {@link isCompactedReply}).
 * @returns the same message.
 */
export function compactMessage(m: Message, policy?: Partial<Policy>): Message {
  if (m.type !== 'prompt') return m;
  const p = resolvePolicy(policy);
  m.content = truncToksMid(m.content, p.userToks);
  if (!m.reply) return m;
  // One parse serves both the already-compacted check and the rendering.
  let msgs: Msg[] | undefined;
  const parse = (): Msg[] => (msgs ??= fmt2hist(m.reply));
  if (!compactedGiven(m.reply, p, parse)) m.reply = replyPieces(m.reply, p, '', parse()).map((x) => x.text).join('\n');
  return m;
}

/**
 * Compact every prompt of a dialog in place (the reference's `Dialog.compact`); the rest of
 * the notebook is untouched and the result still validates.
 * @returns the same dialog.
 * @throws NotebookError naming `d.name` and the cell when a prompt cannot be rendered (the
 *   underlying DlgError is its `cause`).
 */
export function compactDialog(d: Dialog, policy?: Partial<Policy>): Dialog {
  const p = resolvePolicy(policy);
  d.messages.forEach((m, i) => atCell(d, m, i, 'source', () => compactMessage(m, p)));
  return d;
}

function codePieces(m: Message, p: Policy, at?: { d: Dialog; i: number }): Piece[] {
  const located = <T>(field: string, f: () => T): T => (at ? atCell(at.d, m, at.i, field, f) : f());
  const out: Piece[] = [{ cls: 'code', text: `#_${m.id}` }, { cls: 'code', text: located('source', () => fencedCode(m.content, p.callToks)) }];
  const view = located('outputs', () => m.aiOutput);
  if (view) out.push({ cls: 'results', text: compactResult(view, p.resultToks) });
  return out;
}

/**
 * Render a code message (the reference's `compact_code`): `#_` + id, the source fenced under
 * `callToks`, and the AI view of its output as a result line under `resultToks` when the view
 * is non-empty; joined by newlines.
 */
export function compactCode(m: Message, policy?: Partial<Policy>): string {
  return codePieces(m, resolvePolicy(policy)).map((x) => x.text).join('\n');
}

/** A flat rendering: its turns as lists of classified pieces. */
function flatTurns(d: Dialog, p: Policy): Piece[][] {
  const turns: Piece[][] = [];
  let cur: Piece[] = [];
  for (let i = 0; i < d.messages.length; i++) {
    const m = d.messages[i]!;
    if (m.skipped) continue;
    if (m.type === 'raw' && m.meta && Object.prototype.hasOwnProperty.call(m.meta, 'rec_kind')) continue;
    if (m.type === 'code') {
      cur.push(...codePieces(m, p, { d, i }));
      continue;
    }
    cur.push({ cls: 'user', text: atCell(d, m, i, 'source', () => compactText(m.content, '§', p.userToks)) });
    if (m.type === 'prompt') {
      cur.push(...atCell(d, m, i, 'source', () => replyPieces(m.reply, p, '»')));
      turns.push(cur);
      cur = [];
    }
  }
  if (cur.length) turns.push(cur);
  return turns;
}

function joinTurns(turns: Piece[][]): string {
  return joinCompacts(...turns.map((t) => t.map((x) => x.text).filter((s) => s !== '').join('\n')));
}

/**
 * Render a whole dialog as one compact document (the reference's `dlg2compact`): skipped
 * messages and raws whose metadata has `rec_kind` are left out; code cells render with
 * {@link compactCode}; notes, raws and prompt requests as `§` text under `userToks`; a
 * prompt's reply follows with `»`-marked prose, and each prompt closes a turn. Turns are
 * joined with `\n\n***\n\n`. The dialog is not modified.
 * @throws NotebookError naming `d.name`, the cell (id, or `#index` for an id generated on
 *   reading) and the field (`source` or `outputs`) when a cell cannot be rendered: a code
 *   source under a `callToks` budget too small for the empty fence (the reference raises
 *   there; `cause` is the BudgetError), or malformed outputs (`cause` is the
 *   InvalidArgumentError of `aiOutput`).
 */
export function dlg2compact(d: Dialog, policy?: Partial<Policy>): string {
  return joinTurns(flatTurns(d, resolvePolicy(policy)));
}

/**
 * The flat document of {@link dlg2compact} together with its token counts (o200k_base) by
 * class; `total` is the token count of the whole document (separators included), so it is a
 * little more than the sum of the classes.
 * @throws NotebookError as {@link dlg2compact}.
 */
export function measureFlat(d: Dialog, policy?: Partial<Policy>): { text: string; tokens: ClassTokens } {
  const turns = flatTurns(d, resolvePolicy(policy));
  const tokens = emptyTokens();
  for (const t of turns) for (const x of t) tokens[x.cls] += lenToks(x.text);
  const text = joinTurns(turns);
  tokens.total = lenToks(text);
  return { text, tokens };
}

/**
 * A new dialog holding the flat document of {@link dlg2compact} in one raw cell, with the
 * source dialog's notebook metadata; what the command writes by default. The cell id is the
 * first 8 hex digits of the document's SHA-256, so the same document always gives the same
 * bytes (an up-to-date output can be recognised as unchanged).
 * @param text the flat document when the caller already rendered it (e.g. by
 *   {@link measureFlat}); rendered here when omitted.
 */
export function flatNotebook(d: Dialog, policy?: Partial<Policy>, text?: string): Dialog {
  const doc = text ?? dlg2compact(d, policy);
  const out = new Dialog([], { metadata: cloneJson(d.metadata), name: d.name });
  out.mkMessage(doc, { type: 'raw', id: bytesToHex(sha256(new TextEncoder().encode(doc))).slice(0, 8) });
  return out;
}

/**
 * Count what a dialog holds, in o200k_base tokens by class, as it stands:
 * - `user`: note, raw and prompt-request text;
 * - `assistant`: reply prose (fmt2hist text parts, the `'.'` placeholder excluded);
 * - `calls`: each tool call as `name` + its arguments as JSON;
 * - `results`: tool results as text;
 * - `code`: code cell sources plus the AI view of their outputs;
 * - `total`: the sum of the classes.
 * A reply that is already a DSL rendering counts as assistant prose. Skipped cells count too.
 * @throws NotebookError naming `d.name` and the cell (field `outputs`) when a code cell's
 *   outputs are malformed (the InvalidArgumentError of `aiOutput` is its `cause`).
 */
export function measureDialog(d: Dialog): TokenStats {
  const tokens = emptyTokens();
  let prompts = 0;
  let toolCalls = 0;
  for (let i = 0; i < d.messages.length; i++) {
    const m = d.messages[i]!;
    if (m.type === 'code') {
      tokens.code += lenToks(m.content);
      const view = atCell(d, m, i, 'outputs', () => m.aiOutput);
      if (view) tokens.code += lenToks(view);
      continue;
    }
    tokens.user += lenToks(m.content);
    if (m.type !== 'prompt') continue;
    prompts += 1;
    if (!m.reply) continue;
    for (const msg of fmt2hist(m.reply)) {
      for (const part of msg.content) {
        if (part.type === 'text' && part.text !== '.') tokens.assistant += lenToks(part.text);
        else if (part.type === 'tool_use') {
          toolCalls += 1;
          tokens.calls += lenToks(part.name) + lenToks(pyDumps(part.arguments, { ensureAscii: false }));
        } else if (part.type === 'tool_result') tokens.results += lenToks(part.text);
      }
    }
  }
  tokens.total = tokens.user + tokens.assistant + tokens.calls + tokens.results + tokens.code;
  return { messages: d.messages.length, prompts, toolCalls, tokens };
}

declare module './dialog.js' {
  interface Message {
    /** Compact this message in place (prompts only); see {@link compactMessage}. */
    compact(policy?: Partial<Policy>): this;
  }
  interface Dialog {
    /** Compact every prompt in place; see {@link compactDialog}. */
    compact(policy?: Partial<Policy>): this;
  }
}

Message.prototype.compact = function compact(this: Message, policy?: Partial<Policy>) {
  compactMessage(this, policy);
  return this;
};
Dialog.prototype.compact = function compact(this: Dialog, policy?: Partial<Policy>) {
  compactDialog(this, policy);
  return this;
};
