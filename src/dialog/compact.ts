/**
 * DSL compaction of a dialog (SPEC §8): prompts' replies re-rendered in place (the notebook
 * stays runnable), or the whole dialog as one flat document. Follows the reference's
 * `Message.compact`, `Dialog.compact`, `compact_code` and `dlg2compact`; pinned by
 * `conformance/reply.json` and `conformance/dialogs/NNN.compact.ipynb` / `NNN.flat.md`.
 */
import { InvalidArgumentError } from '../errors.js';
import { compactText, fencedCode, compactResult, resolvePolicy, type Policy } from '../dsl/render.js';
import { isCompactedGiven, replyPieces, type Piece } from '../dsl/compact-reply.js';
import { joinCompacts } from '../dsl/continuation.js';
import { fmt2hist } from '../chat/index.js';
import type { Msg } from '../chat/index.js';
import { fitsToks, lenToks, truncToksMid, type ClassTokens } from '../tokens/index.js';
import { isRecordCell, type DialogLike as Dialog, type MessageLike as Message } from './cells.js';
import { atCell, requireDialog } from './cell-errors.js';
import { cleanProse } from '../dsl/clean-text.js';
import { aiOutput, hasRichOutput } from './ai-output.js';
import { recencyPolicies } from './recency.js';
import { checkMaxTokens, fitFlat, fitPrompts, type FitReport } from './fit.js';
import { dropTerminalControls } from '../dsl/terminal-text.js';
import { evidenceIndex, gatherFacts, INDEX_UNITS_PER_TOKEN, prepareFacts, type FactSource } from '../dsl/evidence-index.js';

/** A total budget for the whole result (see `fit.ts`); with it, the policy's budgets are scaled to fit. */
export interface FitOptions {
  /** At most this many tokens in the result (a flat document, or the dialog as `dialogContextTokens` counts it). */
  maxTokens?: number;
}

/** Options of a flat rendering ({@link dlg2compact}) beside its policy. */
export interface FlatOptions extends FitOptions {
  /**
   * Clean profile: spend the budgets with the recency gradient of docs/differences.md rule 32
   * (`recency.ts`; default `true`). `false` renders every turn with the one policy, as the
   * default summariser does for the cells it summarises. Ignored with `maxTokens` (a fit has its
   * own gradient) and in the reference profile.
   */
  recency?: boolean;
}

/**
 * Split `{ maxTokens, recency, ...policy }` into the fit budget, the gradient's switch and the
 * resolved policy; `flat: false` (in-place compaction) takes no `recency`, which the policy
 * check then rejects as an unknown field.
 */
function splitFit(
  options: (Partial<Policy> & FlatOptions) | undefined,
  fn: string,
  flat = true,
): { maxTokens: number | undefined; recency: boolean; p: Policy } {
  if (options === null || typeof options !== 'object') return { maxTokens: undefined, recency: true, p: resolvePolicy(options) };
  const { maxTokens, recency, ...rest } = options;
  if (!flat && Object.hasOwn(options, 'recency')) (rest as Record<string, unknown>).recency = recency;
  else if (recency !== undefined && typeof recency !== 'boolean') throw new InvalidArgumentError(`${fn}: recency must be a boolean`);
  return { maxTokens: maxTokens === undefined ? undefined : checkMaxTokens(maxTokens, fn), recency: recency !== false, p: resolvePolicy(rest) };
}

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
  // Cuts and renderings are settled at their fixed point, so compacting again changes nothing
  // (in both profiles; where the reference's single pass is not a fixed point we differ, see
  // docs/differences.md).
  m.content = settledCut(m.content, p.userToks, p.profile === 'clean' ? cleanProse : truncToksMid);
  if (!m.reply) return m;
  // One parse serves both the already-compacted check and the rendering.
  let msgs: Msg[] | undefined;
  const parse = (): Msg[] => (msgs ??= fmt2hist(m.reply));
  if (!isCompactedGiven(m.reply, p, parse)) m.reply = settledReply(renderReply(m.reply, p, parse()), p);
  return m;
}

/** How many extra rounds a cut or a rendering may take to reach its fixed point. */
const SETTLE_ROUNDS = 4;

/**
 * A middle cut of `s` within `maxToks` that a second cut leaves alone: decoding a cut and
 * encoding it again can merge bytes differently at the seams (2000 tokens re-encode to 2001),
 * so the cut is repeated until it fits (see `docs/differences.md`).
 */
function settledCut(s: string, maxToks: number, cut: (s: string, maxToks: number) => string): string {
  let out = cut(s, maxToks);
  // A text the cut leaves as it is stays so (the cuts are pure functions of text and budget).
  if (out === s) return out;
  for (let k = 0; k < SETTLE_ROUNDS; k++) {
    const again = cut(out, maxToks);
    if (again === out) break;
    out = again;
  }
  return out;
}

function renderReply(reply: string, p: Policy, msgs: Msg[]): string {
  return replyPieces(reply, p, '', msgs)
    .map((x) => x.text)
    .join('\n');
}

/**
 * A rendered reply that compacting again leaves alone: while the rendering is neither
 * recognised as compacted nor its own rendering (a cut that joins prose pieces, a block that a
 * cut repaired, markers that pair up only in the rendering), it is rendered again, a few
 * rounds at most (see `docs/differences.md`).
 */
function settledReply(out: string, p: Policy): string {
  for (let k = 0; k < SETTLE_ROUNDS && out !== ''; k++) {
    let msgs: Msg[] | undefined;
    const parse = (): Msg[] => (msgs ??= fmt2hist(out));
    if (isCompactedGiven(out, p, parse)) return out;
    const next = renderReply(out, p, parse());
    if (next === out) return out;
    out = next;
  }
  return out;
}

/**
 * Compact every prompt of a dialog in place (the reference's `Dialog.compact`); the rest of
 * the notebook is untouched and the result still validates.
 * @returns the same dialog.
 * @throws NotebookError naming `d.name` and the cell when a prompt cannot be rendered (the
 *   underlying DlgError is its `cause`).
 */
export function compactDialog<D extends Dialog>(d: D, policy?: Partial<Policy> & FitOptions): D {
  requireDialog(d, 'compactDialog');
  const { maxTokens, p } = splitFit(policy, 'compactDialog', false);
  if (maxTokens !== undefined) {
    fitDialog(d, maxTokens, p);
    return d;
  }
  d.messages.forEach((m, i) => atCell(d, m, i, 'source', () => compactPrompt(m, p)));
  return d;
}

/**
 * What one flat document's renderings learn of its cells and read again: each reply's parse
 * (`fmt2hist`) and each rich output's clean view. A fit's probes render every cell many times,
 * and a document's evidence index reads the same replies and outputs as its body. Valid while
 * the dialog's messages are not changed; make one per document with {@link flatMemo}.
 */
export interface FlatMemo {
  /** The parse of each message's reply, by message. */
  replies: Map<Message, Msg[]>;
  /** The clean view of each message's rich (binary or HTML) outputs, by message. */
  views: Map<Message, string>;
}

/** An empty {@link FlatMemo}, for the renderings of one flat document (body, index, a fit's probes). */
export function flatMemo(): FlatMemo {
  return { replies: new Map(), views: new Map() };
}

/** The parse of a prompt's reply, from the memo when it has it. */
function parsedReply(m: Message, memo?: FlatMemo): Msg[] {
  if (memo === undefined) return fmt2hist(m.reply);
  let msgs = memo.replies.get(m);
  if (msgs === undefined) {
    msgs = fmt2hist(m.reply);
    memo.replies.set(m, msgs);
  }
  return msgs;
}

/**
 * The view of a code cell's outputs a rendering shows: in the clean profile, binary and HTML
 * outputs differ from the cached reference view (`Message.aiOutput`) and are rendered here
 * (once per document with a memo).
 */
function outputView(m: Message, clean: boolean, memo?: FlatMemo): string {
  if (!clean || !hasRichOutput(m.output)) return m.aiOutput;
  let v = memo?.views.get(m);
  if (v === undefined) {
    v = aiOutput(m.output, 'clean');
    memo?.views.set(m, v);
  }
  return v;
}

function codePieces(m: Message, p: Policy, at?: { d: Dialog; i: number }, memo?: FlatMemo): Piece[] {
  const located = <T>(field: string, f: () => T): T => (at ? atCell(at.d, m, at.i, field, f) : f());
  const out: Piece[] = [
    { cls: 'code', text: `#_${m.id}` },
    { cls: 'code', text: located('source', () => fencedCode(m.content, p.callToks, p.profile)) },
  ];
  // The clean view differs from the cached reference view only for binary and HTML outputs.
  const view = located('outputs', () => outputView(m, p.profile === 'clean', memo));
  if (view) out.push({ cls: 'code', text: compactResult(view, p.resultToks, p.profile) });
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

export { isRecordCell } from './cells.js';

/** The pieces of cell `i` in a flat rendering, or `null` for a cell left out (skipped, record). */
function flatCell(d: Dialog, i: number, p: Policy, memo?: FlatMemo): Piece[] | null {
  const m = d.messages[i]!;
  if (m.skipped || isRecordCell(m)) return null;
  if (m.type === 'code') return codePieces(m, p, { d, i }, memo);
  const out: Piece[] = [{ cls: 'user', text: atCell(d, m, i, 'source', () => compactText(m.content, '§', p.userToks, p.profile)) }];
  if (m.type === 'prompt') out.push(...atCell(d, m, i, 'source', () => replyPieces(m.reply, p, '»', parsedReply(m, memo))));
  return out;
}

/** A flat rendering: its turns as lists of classified pieces. */
function flatTurns(d: Dialog, p: Policy, recency = true, memo?: FlatMemo): Piece[][] {
  const turns: Piece[][] = [];
  let cur: Piece[] = [];
  // The replies whose results the recency gradient counts are parsed once for the count and
  // the rendering: into the caller's memo, or else into one that holds just those parses until
  // their cells are rendered.
  const counted = memo ?? flatMemo();
  const policies = recency && p.profile === 'clean' ? recencyPolicies(d, p, (m) => parsedReply(m, counted)) : null;
  for (let i = 0; i < d.messages.length; i++) {
    const m = d.messages[i]!;
    const pieces = flatCell(d, i, policies?.[i] ?? p, memo ?? (counted.replies.has(m) ? counted : undefined));
    if (memo === undefined) counted.replies.delete(m);
    if (pieces === null) continue;
    cur.push(...pieces);
    if (m.type === 'prompt') {
      turns.push(cur);
      cur = [];
    }
  }
  if (cur.length) turns.push(cur);
  return turns;
}

/**
 * The flat document fitted into `maxTokens` tokens (see `fit.ts`): the largest scale of the
 * policy, with a recency gradient, whose document `wrap(body, brief)` (default: the body alone;
 * `brief` at the low steps where a short legend should be used, see `fitFlat`) fits.
 * @param index (clean profile) follow the body with its evidence index when the dialog is cut,
 *   keeping a share of `maxTokens` for it (`FIT_INDEX_SHARE`; `withFlatIndex`).
 * @returns the document (`wrap` applied) and what the fit chose and reached.
 * @throws FitError (a BudgetError naming the smallest budget that holds the structure) when
 *   `maxTokens` is below it; InvalidArgumentError on a bad `maxTokens`; NotebookError as
 *   {@link dlg2compact}.
 */
export function fitFlatDocument(
  d: Dialog,
  maxTokens: number,
  policy?: Partial<Policy>,
  wrap?: (body: string, brief: boolean) => string,
  index = false,
): { text: string; report: FitReport } {
  // Replies parsed and rich outputs viewed once for all the probes of the search.
  const memo = flatMemo();
  const floors = new Map<number, Map<number, ErrorFloor>>();
  const cells = {
    count: d.messages.length,
    pieces: (i: number, p: Policy) => withErrorFloor(d, i, p, flatCell(d, i, p, memo), floors, memo),
    rendered: (i: number) => !d.messages[i]!.skipped && !isRecordCell(d.messages[i]!),
    closesTurn: (i: number) => d.messages[i]!.type === 'prompt',
    isNote: (i: number) => d.messages[i]!.type === 'note' || d.messages[i]!.type === 'raw',
    sources: index ? (i: number) => factSources(d.messages[i]!, memo) : undefined,
    hasCode: (i: number) => d.messages[i]!.type === 'code' && d.messages[i]!.content.trim() !== '',
  };
  return fitFlat(cells, resolvePolicy(policy), checkMaxTokens(maxTokens, 'fitFlatDocument'), wrap);
}

/**
 * The most tokens a tool result or code output may have, whole, to keep a floor of its own in a
 * fitted flat document when it reports an error (docs/differences.md, rule 38).
 */
export const ERROR_FLOOR_MAX = 24;

/**
 * A line that reports an error: an error or exception name, a traceback, `error`, `fatal`,
 * `failed`, a missing file or command, a denied permission, a crash, or a non-zero exit code.
 */
const REPORTS_ERROR =
  /\b(?:\w*(?:Error|Exception)|Traceback|error|ERROR|fatal|FATAL|FAIL(?:ED)?|[Ff]ailed|Permission denied|No such file or directory|command not found|Segmentation fault|Killed|Aborted)\b|\bexit(?:ed)?(?: with)?(?: code| status)[ :=]*[1-9]\d*\b|\breturned non-zero\b/;

/** A text short enough (in UTF-16 units) to be a whole result of at most ERROR_FLOOR_MAX tokens, and more. */
const ERROR_TEXT_MAX = ERROR_FLOOR_MAX * 16;

/** Whether a raw result or output text may be a short error result (the rendering decides). */
function mayBeShortError(text: string): boolean {
  return text.length <= ERROR_TEXT_MAX && REPORTS_ERROR.test(text);
}

/**
 * What a piece keeps at any budget: `text`, unless the piece rendered at the budget already
 * shows `unless` (a traceback's exception, named in a longer cut).
 */
interface ErrorFloor {
  text: string;
  unless?: string;
}

/**
 * The floor of a code cell's output that ends in a traceback: the exception line
 * (`> NameError: name 'x' is not defined`, from the error output's `ename` and the first line
 * of its `evalue`), cut to {@link ERROR_FLOOR_MAX} tokens; undefined when no output is an error.
 */
function tracebackFloor(m: Message): ErrorFloor | undefined {
  const err = m.output.find((o) => o !== null && typeof o === 'object' && (o as Record<string, unknown>).output_type === 'error') as
    | Record<string, unknown>
    | undefined;
  const ename = err === undefined ? undefined : err.ename;
  if (typeof ename !== 'string' || ename === '') return undefined;
  const evalue = typeof err!.evalue === 'string' ? dropTerminalControls(err!.evalue).split('\n')[0]!.trim() : '';
  const text = compactResult(evalue === '' ? ename : `${ename}: ${evalue}`, ERROR_FLOOR_MAX, 'clean');
  return text === '' ? undefined : { text, unless: ename };
}

/**
 * A fitted flat cell's pieces with its short error results whole (clean profile): each tool
 * result or code output whose whole rendering has at most {@link ERROR_FLOOR_MAX} tokens and
 * reports an error keeps that rendering at any budget, as a floor of its own; a code output
 * that ends in a longer traceback keeps at least its exception line ({@link tracebackFloor})
 * where its cut at the budget does not name the exception. Which pieces these are is found
 * once per cell (`floors`), from a rendering with unlimited result budgets: a cell's pieces
 * stand at the same places whatever its budgets.
 */
function withErrorFloor(d: Dialog, i: number, p: Policy, pieces: Piece[] | null, floors: Map<number, Map<number, ErrorFloor>>, memo: FlatMemo): Piece[] | null {
  if (pieces === null || p.profile !== 'clean') return pieces;
  let floor = floors.get(i);
  if (floor === undefined) {
    floor = new Map();
    const m = d.messages[i]!;
    const candidate =
      m.type === 'code'
        ? mayBeShortError(outputView(m, true, memo))
        : m.type === 'prompt' &&
          parsedReply(m, memo).some((x) => x.role === 'tool' && x.content.some((c) => c.type === 'tool_result' && mayBeShortError(c.text)));
    if (candidate) {
      const whole = flatCell(d, i, { ...p, resultToks: Number.MAX_SAFE_INTEGER }, memo) ?? [];
      whole.forEach((x, k) => {
        const result = x.cls === 'results' || (m.type === 'code' && k === 2);
        if (result && REPORTS_ERROR.test(x.text) && fitsToks(x.text, ERROR_FLOOR_MAX)) floor!.set(k, { text: x.text });
      });
    }
    // A code output too long for that floor, ending in a traceback: its exception line.
    if (m.type === 'code' && !floor.has(2)) {
      const tb = tracebackFloor(m);
      if (tb !== undefined) floor.set(2, tb);
    }
    floors.set(i, floor);
  }
  if (floor.size === 0) return pieces;
  return pieces.map((x, k) => {
    const keep = floor.get(k);
    if (keep === undefined || keep.text === x.text || (keep.unless !== undefined && x.text.includes(keep.unless))) return x;
    return { ...x, text: keep.text };
  });
}

/**
 * A flat body (clean profile) followed by its evidence index (`dsl/evidence-index.ts`): the
 * files, URLs, error names and names defined in code that the dialog's rendered cells mention
 * and `body` does not show, within `maxToks` tokens (default: one token per
 * {@link INDEX_UNITS_PER_TOKEN} UTF-16 units of the body). Returns `body` itself when nothing is
 * missing or nothing fits.
 * @param memo the memo the body was rendered with ({@link flatMemo}), so that replies are not
 *   parsed again nor rich outputs viewed again.
 */
export function withFlatIndex(d: Dialog, body: string, maxToks = Math.floor(body.length / INDEX_UNITS_PER_TOKEN), memo?: FlatMemo): string {
  if (maxToks <= 0) return body;
  // One cell's texts at a time (without a memo, a large dialog's parses are not all held at once).
  function* sources(): Generator<FactSource> {
    for (const m of d.messages) if (!m.skipped && !isRecordCell(m)) yield* factSources(m, memo);
  }
  const index = evidenceIndex(prepareFacts(gatherFacts(sources())), body, maxToks);
  return index === '' ? body : `${body}\n\n${index}`;
}

/**
 * The texts of a cell the evidence index gathers facts from: a code cell's source (code) and its
 * clean output view; a prompt's request, and its reply's parts as parsed — prose, the string
 * arguments of tool calls (code: the AI's code defines names there) and tool results; a note's
 * or raw cell's text.
 */
function factSources(m: Message, memo?: FlatMemo): FactSource[] {
  if (m.type === 'code') {
    const view = outputView(m, true, memo);
    return [{ text: m.content, code: true }, { text: dropTerminalControls(view) }];
  }
  if (m.type !== 'prompt') return [{ text: m.content }];
  const out: FactSource[] = [{ text: m.content }];
  if (m.reply === '') return out;
  for (const msg of parsedReply(m, memo)) {
    for (const part of msg.content) {
      if (part.type === 'text') out.push({ text: part.text });
      else if (part.type === 'tool_result') out.push({ text: dropTerminalControls(part.text) });
      else if (part.type === 'tool_use') {
        for (const v of Object.values(part.arguments ?? {})) if (typeof v === 'string') out.push({ text: v, code: true });
      }
    }
  }
  return out;
}

/**
 * Compact every prompt in place so that the dialog, as `dialogContextTokens` counts it, has at
 * most `maxTokens` tokens (see `fit.ts`); other cells are untouched. Changes `d` only on success.
 * @returns what the fit chose and reached.
 * @throws FitError when the untouched cells and the prompts' structure alone need more.
 */
export function fitDialog(d: Dialog, maxTokens: number, policy?: Partial<Policy>): FitReport {
  const one = (m: Message, p: Policy): { content: string; reply: string } => {
    const copy = { type: m.type, content: m.content, reply: m.reply } as Message;
    const i = d.messages.indexOf(m);
    atCell(d, m, i, 'source', () => compactPrompt(copy, p));
    return { content: copy.content, reply: copy.reply };
  };
  return fitPrompts(d, resolvePolicy(policy), checkMaxTokens(maxTokens, 'fitDialog'), one);
}

/**
 * The flat rendering of {@link dlg2compact} as its turns, each a list of classified pieces
 * (empty pieces included): the document is each turn's non-empty pieces joined by `\n`, the
 * non-empty turns joined by `\n\n***\n\n`. For checks that need to know where each piece starts.
 * @throws NotebookError as {@link dlg2compact}.
 */
export function flatPieces(d: Dialog, policy?: Partial<Policy> & Pick<FlatOptions, 'recency'>): Piece[][] {
  requireDialog(d, 'flatPieces');
  const { recency, p } = evenOrNot(policy, 'flatPieces');
  return flatTurns(d, p, recency);
}

/** A policy with an optional `recency` (not `maxTokens`, which the policy check rejects). */
function evenOrNot(policy: (Partial<Policy> & Pick<FlatOptions, 'recency'>) | undefined, fn: string): { recency: boolean; p: Policy } {
  if (policy !== null && typeof policy === 'object' && Object.hasOwn(policy, 'maxTokens')) return { recency: true, p: resolvePolicy(policy) };
  const { recency, p } = splitFit(policy, fn);
  return { recency, p };
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
 * joined with `\n\n***\n\n`. In the clean profile the policy's result and prose budgets
 * follow the recency gradient of docs/differences.md rule 32 unless `recency: false`; with
 * `maxTokens` the document is fitted (`fit.ts`). The dialog is not modified.
 * @throws InvalidArgumentError on a bad policy, `maxTokens` or `recency`.
 * @throws NotebookError naming `d.name`, the cell (id, or `#index` for an id generated on
 *   reading) and the field (`source` or `outputs`) when a cell cannot be rendered: a code
 *   source under a `callToks` budget too small for the empty fence (the reference raises
 *   there; `cause` is the BudgetError), or malformed outputs (`cause` is the
 *   InvalidArgumentError of `aiOutput`).
 * @param memo a {@link flatMemo} to keep the replies' parses and outputs' views in, for an
 *   evidence index of the same document ({@link withFlatIndex}); ignored with `maxTokens`.
 */
export function dlg2compact(d: Dialog, policy?: Partial<Policy> & FlatOptions, memo?: FlatMemo): string {
  requireDialog(d, 'dlg2compact');
  const { maxTokens, recency, p } = splitFit(policy, 'dlg2compact');
  if (maxTokens !== undefined) return fitFlatDocument(d, maxTokens, p).text;
  return joinTurns(flatTurns(d, p, recency, memo));
}

/**
 * The flat document of {@link dlg2compact} together with its token counts (o200k_base) by
 * class; `total` is the token count of the whole document (separators included), so it is a
 * little more than the sum of the classes.
 * @param memo as {@link dlg2compact}'s.
 * @throws NotebookError as {@link dlg2compact}.
 */
export function measureFlat(d: Dialog, policy?: Partial<Policy> & Pick<FlatOptions, 'recency'>, memo?: FlatMemo): { text: string; tokens: ClassTokens } {
  requireDialog(d, 'measureFlat');
  const { recency, p } = evenOrNot(policy, 'measureFlat');
  const turns = flatTurns(d, p, recency, memo);
  const tokens = emptyTokens();
  for (const t of turns) for (const x of t) tokens[x.cls] += lenToks(x.text);
  const text = joinTurns(turns);
  tokens.total = lenToks(text);
  return { text, tokens };
}
