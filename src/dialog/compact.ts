/**
 * DSL compaction of a dialog (SPEC §8): prompts' replies re-rendered in place (the notebook
 * stays runnable), or the whole dialog as one flat document. Follows the reference's
 * `Message.compact`, `Dialog.compact`, `compact_code` and `dlg2compact`; pinned by
 * `conformance/reply.json` and `conformance/dialogs/NNN.compact.ipynb` / `NNN.flat.md`.
 */
import { compactText, fencedCode, compactResult, resolvePolicy, type Policy } from '../dsl/render.js';
import { isCompactedGiven, replyPieces, type Piece } from '../dsl/compact-reply.js';
import { joinCompacts } from '../dsl/continuation.js';
import { fmt2hist } from '../chat/index.js';
import type { Msg } from '../chat/index.js';
import { lenToks, truncToksMid, type ClassTokens } from '../tokens/index.js';
import type { DialogLike as Dialog, MessageLike as Message } from './cells.js';
import { atCell } from './cell-errors.js';

function emptyTokens(): ClassTokens {
  return { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 0 };
}

/**
 * Compact one prompt in place (the reference's `Message.compact`). The request is
 * middle-truncated to `userToks` tokens (not stripped); a non-empty reply is replaced by
 * `compactReply` without a mark. Other message types, ids, metadata and attachments are
 * untouched. A reply that is already a DSL rendering is kept (see `isCompactedReply`).
 * @returns the same message.
 */
export function compactPrompt(m: Message, policy?: Partial<Policy>): Message {
  if (m.type !== 'prompt') return m;
  const p = resolvePolicy(policy);
  m.content = truncToksMid(m.content, p.userToks);
  if (!m.reply) return m;
  // One parse serves both the already-compacted check and the rendering.
  let msgs: Msg[] | undefined;
  const parse = (): Msg[] => (msgs ??= fmt2hist(m.reply));
  if (!isCompactedGiven(m.reply, p, parse))
    m.reply = replyPieces(m.reply, p, '', parse())
      .map((x) => x.text)
      .join('\n');
  return m;
}

/**
 * Compact every prompt of a dialog in place (the reference's `Dialog.compact`); the rest of
 * the notebook is untouched and the result still validates.
 * @returns the same dialog.
 * @throws NotebookError naming `d.name` and the cell when a prompt cannot be rendered (the
 *   underlying DlgError is its `cause`).
 */
export function compactDialog<D extends Dialog>(d: D, policy?: Partial<Policy>): D {
  const p = resolvePolicy(policy);
  d.messages.forEach((m, i) => atCell(d, m, i, 'source', () => compactPrompt(m, p)));
  return d;
}

function codePieces(m: Message, p: Policy, at?: { d: Dialog; i: number }): Piece[] {
  const located = <T>(field: string, f: () => T): T => (at ? atCell(at.d, m, at.i, field, f) : f());
  const out: Piece[] = [
    { cls: 'code', text: `#_${m.id}` },
    { cls: 'code', text: located('source', () => fencedCode(m.content, p.callToks)) },
  ];
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
  return codePieces(m, resolvePolicy(policy))
    .map((x) => x.text)
    .join('\n');
}

/** Raw cells whose metadata has `rec_kind` are records, not conversation (SPEC §8): never rendered. */
export function isRecordCell(m: Message): boolean {
  return m.type === 'raw' && m.meta !== null && typeof m.meta === 'object' && Object.hasOwn(m.meta, 'rec_kind');
}

/** A flat rendering: its turns as lists of classified pieces. */
function flatTurns(d: Dialog, p: Policy): Piece[][] {
  const turns: Piece[][] = [];
  let cur: Piece[] = [];
  for (let i = 0; i < d.messages.length; i++) {
    const m = d.messages[i]!;
    if (m.skipped || isRecordCell(m)) continue;
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
  return joinCompacts(
    ...turns.map((t) =>
      t
        .map((x) => x.text)
        .filter((s) => s !== '')
        .join('\n'),
    ),
  );
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
