/**
 * Fitting a dialog into a total token budget (`maxTokens`): the search behind
 * `dlg2compact(d, { maxTokens })`, `compactDialog(d, { maxTokens })` and `--max-tokens` of the
 * DSL strategy.
 *
 * How the budget is spent. Each rendered cell gets its own policy, a scale of the base policy
 * (2000 / 150 / 60 / 35 by default): at scale `x` a cell in a turn of age `a` (0 = the latest
 * turn) gets `floor + base × x × w(a)` tokens per class, where
 * - the recency weight `w(a)` is 4 for the latest turn, 2 for the one before, and otherwise falls
 *   from 1 to 1/4 across the dialog (`1 / (1 + 3a / (turns − 1))`): the latest turns are whole
 *   first, older turns are cut harder;
 * - the base policy's ratios give the class order: requests (2000) grow first, then prose (150;
 *   notes and raw cells count as prose here) and calls (60), then results (35);
 * - the floor is what every cell keeps at any budget, the dialog's structure: 6 tokens of each
 *   request, note and raw cell, 4 tokens of each call (its tool name) and code cell (more when
 *   a code fence needs it, and for a non-blank source until its fence shows the cut mark
 *   rather than an empty block), no prose and no results. Cut pieces keep their marks, `#_id` lines and turn
 *   separators stay.
 *
 * The scale is searched, not guessed: over 240 steps (`x` from 2⁻¹⁰ to 2²⁰ by factors of 2^⅛,
 * step 0 = the floor), the search tries the last step, then the floor, then climbs in strides of
 * 16 steps and halves the last stride, for the largest step whose exact token count is at most
 * `maxTokens`. Each probe renders the dialog and counts it whole (for a flat document: the
 * whole text the caller writes, legend included); a cell's rendering is cached by its budgets.
 * The probe sequence depends only on which probes fitted (a probe that fits raises the lower
 * bound, one that does not lowers the upper), so a larger budget never picks a smaller step
 * (monotone), and every budget of every cell only grows with the step.
 */
import { BudgetError, DlgError, InvalidArgumentError } from '../errors.js';
import type { Piece } from '../dsl/compact-reply.js';
import { joinCompacts } from '../dsl/continuation.js';
import type { Policy } from '../dsl/render.js';
import { evidenceIndex, gatherFacts, prepareFacts, type FactSource, type PreparedFacts } from '../dsl/evidence-index.js';
import { fitsToks, lenToks, type ClassTokens } from '../tokens/index.js';
import type { DialogLike, MessageLike } from './cells.js';
import { messageContextTokens } from './measure.js';

/** Steps of the scale; step 0 is the floor, the last step is (practically) unlimited. */
export const FIT_STEPS = 240;

/** Stride of the upward search: 16 steps double the budgets twice. */
const GALLOP = 16;

/** Stands for "unlimited" in a budget (the reference's 10**9). */
const UNLIMITED = 1_000_000_000;

/**
 * The first step at which a fitted flat document carries the whole legend; below it the legend
 * in brief (`flatKey`). Step 72 is half the base policy for the turns of middle age, where a
 * dialog is already cut hard and the legend's tokens are better spent on the dialog.
 */
export const FIT_FULL_LEGEND_STEP = 72;

/**
 * The share of `maxTokens` a fitted flat document (clean profile) keeps at most for its evidence
 * index (`dsl/evidence-index.ts`) when the dialog does not fit whole. The reserve is also at
 * most half of what the budget has above the structure's floor and at most what an index of
 * every fact would take; the index may also use what the chosen body leaves unused.
 */
export const FIT_INDEX_SHARE = 0.15;

/** Tokens every request, note and raw cell keeps at any budget. */
export const FIT_FLOOR_USER = 6;

/** Tokens every call and code cell keeps at any budget (raised for a cell whose fence needs more). */
export const FIT_FLOOR_CALL = 4;

/** The policy scale at a step: 0 at step 0, else 2^((step − 80) / 8). */
export function fitScale(step: number): number {
  return step <= 0 ? 0 : 2 ** ((step - 80) / 8);
}

/** What a fit chose and reached, for reports (`--check`, `--json`). */
export interface FitReport {
  /** The budget asked for. */
  maxTokens: number;
  /** Tokens of the result, counted as the budget counts them (at most `maxTokens`). */
  tokens: number;
  /** The step chosen (0 = the floor, {@link FIT_STEPS} = unlimited). */
  step: number;
  /** The scale of the base policy at that step, for the latest turn before its recency weight. */
  scale: number;
  /** The smallest budget that holds the dialog's structure (the floor's tokens). */
  minTokens: number;
  /** The policy of the latest turn at the chosen step. */
  policy: Policy;
  /** Tokens of the evidence index (0 when there is none: dialog mode, the reference profile, nothing cut). */
  indexTokens: number;
  /**
   * Flat documents: the tokens of the chosen rendering's pieces by class, as `measureFlat`
   * counts them (`total` is the whole document's, wrapper and index included). Absent in dialog mode.
   */
  byClass?: ClassTokens;
}

/**
 * `maxTokens` is below the smallest budget that can hold the dialog's structure; that budget
 * is `minTokens`.
 */
export class FitError extends BudgetError {
  /** The option at fault. */
  readonly option = 'maxTokens';
  constructor(
    message: string,
    /** The smallest `maxTokens` that can hold the dialog's structure. */
    readonly minTokens: number,
  ) {
    super(message);
    this.name = 'FitError';
  }
}

/**
 * Check a `maxTokens` option: a non-negative safe integer (0 is accepted: only an empty
 * rendering fits it).
 * @throws InvalidArgumentError naming the option for anything else (negative, fractional,
 *   NaN, ±Infinity, above 2^53 − 1, non-numbers).
 */
export function checkMaxTokens(v: unknown, fn: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    const got = typeof v === 'number' ? String(v) : v === null ? 'null' : typeof v;
    throw new InvalidArgumentError(`${fn}: maxTokens must be a non-negative integer number of tokens, got ${got}`);
  }
  return v;
}

/** The recency weight of a turn of age `a` (0 = the latest) among `turns` turns. */
function recency(a: number, turns: number): number {
  const boost = a === 0 ? 4 : a === 1 ? 2 : 1;
  return boost / (1 + (turns > 1 ? a / (turns - 1) : 0));
}

function grow(base: number, floor: number, f: number): number {
  return Math.min(UNLIMITED, floor + Math.floor(base * f));
}

/**
 * The policy of a cell at a step: the base policy scaled by {@link fitScale} × the recency
 * weight of its turn, on top of the floor (`callFloor` for calls and code, which a wide code
 * fence may raise). A `note` (a note or raw cell, not a request) grows its text like prose, with
 * the base's `asstToks`. The profile is the base's.
 */
export function fitPolicy(base: Policy, step: number, age: number, turns: number, callFloor = FIT_FLOOR_CALL, note = false): Policy {
  if (step >= FIT_STEPS) return { ...base, userToks: UNLIMITED, asstToks: UNLIMITED, callToks: UNLIMITED, resultToks: UNLIMITED };
  const f = fitScale(step) * recency(age, turns);
  return {
    ...base,
    userToks: grow(note ? base.asstToks : base.userToks, FIT_FLOOR_USER, f),
    asstToks: grow(base.asstToks, 0, f),
    callToks: grow(base.callToks, callFloor, f),
    resultToks: grow(base.resultToks, 0, f),
  };
}

const key = (p: Policy): string => `${p.userToks},${p.asstToks},${p.callToks},${p.resultToks}`;

/** A BudgetError (or one located at a cell) from a fence that the call budget cannot hold. */
function isFenceError(e: unknown): boolean {
  return e instanceof BudgetError || (e instanceof DlgError && (e as { cause?: unknown }).cause instanceof BudgetError);
}

/**
 * The largest step that fits, by binary search. The probes depend only on which earlier probes
 * fitted, and whether a step fits is monotone in `maxTokens`, so the step is too.
 * @param fits whether the rendering at a step has at most `maxTokens` tokens.
 * @param minTokens the floor's tokens, for the error.
 * @throws FitError when even step 0 does not fit.
 */
function search(fits: (step: number) => boolean, minTokens: () => number, maxTokens: number, what: string): number {
  if (fits(FIT_STEPS)) return FIT_STEPS;
  if (!fits(0)) {
    const min = minTokens();
    throw new FitError(`${what}: maxTokens ${maxTokens} is below the ${min} tokens that hold the dialog's structure; use maxTokens >= ${min}`, min);
  }
  // Up from the floor in strides of GALLOP steps (a probe's cost grows with its budgets, so the
  // cheap low probes come first and at most one probe lies far above the answer), then halve.
  let lo = 0;
  let hi = FIT_STEPS;
  for (let p = GALLOP; p < FIT_STEPS; p += GALLOP) {
    if (!fits(p)) {
      hi = p;
      break;
    }
    lo = p;
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Per item (a cell or a prompt): its turn's age and call floor, renderings cached by budgets,
 * and, once known, its whole rendering (at the last step) and the lowest step seen to give it:
 * budgets only grow with the step, so every later step gives it too.
 */
interface Item<R> {
  age: number;
  callFloor: number;
  note?: boolean;
  cache: Map<string, R>;
  full?: R;
  fullFrom: number;
}

/** Render an item at the floor, raising its call floor until a code fence fits. */
function settleFloor<R>(item: Item<R>, render: (p: Policy) => R, base: Policy, turns: number): void {
  for (;;) {
    const p = fitPolicy(base, 0, item.age, turns, item.callFloor, item.note);
    try {
      item.cache.set(key(p), render(p));
      return;
    } catch (e) {
      if (!isFenceError(e) || item.callFloor >= UNLIMITED) throw e;
      item.callFloor = Math.min(UNLIMITED, item.callFloor * 2);
    }
  }
}

function rendered<R>(item: Item<R>, render: (p: Policy) => R, same: (a: R, b: R) => boolean, base: Policy, step: number, turns: number): R {
  if (step >= item.fullFrom) return item.full!;
  const p = fitPolicy(base, step, item.age, turns, item.callFloor, item.note);
  const k = key(p);
  let r = item.cache.get(k);
  if (r === undefined) {
    r = render(p);
    item.cache.set(k, r);
  }
  if (step >= FIT_STEPS) {
    item.full = r;
    item.fullFrom = FIT_STEPS;
  } else if (item.full !== undefined && same(r, item.full)) item.fullFrom = step;
  return r;
}

const samePieces = (a: Piece[], b: Piece[]): boolean => a.length === b.length && a.every((x, i) => x.text === b[i]!.text);

/** The most tokens a code cell's floor is raised by so that its cut fence shows a cut mark. */
const FENCE_MARK_MAX = 4;

/** A fenced block with nothing between its fences. */
const EMPTY_FENCE = /^(`{3,}|~{3,})[^\n]*\n\n\1$/;

function showsEmptyFence(pieces: readonly Piece[]): boolean {
  return pieces.some((x) => x.cls === 'code' && EMPTY_FENCE.test(x.text));
}

/** How a flat document's cells render, supplied by the flat renderer (`compact.ts`). */
export interface FlatCells {
  /** The pieces of cell `i` under `p`, or `null` for a cell the document leaves out. */
  pieces(i: number, p: Policy): Piece[] | null;
  /** Whether cell `i` is rendered at all (not skipped, not a record). */
  rendered(i: number): boolean;
  /** Whether cell `i` closes a turn (a prompt). */
  closesTurn(i: number): boolean;
  /** Whether cell `i` is a note or raw cell: its text is budgeted like prose, not like a request. */
  isNote(i: number): boolean;
  /** The texts of cell `i` the evidence index gathers facts from (its source, reply, output view). */
  sources?(i: number): FactSource[];
  /** Whether cell `i` is a code cell with a non-blank source (its floor must show a cut mark). */
  hasCode?(i: number): boolean;
  /** Number of cells. */
  count: number;
}

/**
 * Fit a flat document into `maxTokens`: the turns of `cells` at the largest step whose
 * document `wrap(body, brief)` has at most `maxTokens` tokens.
 * @param wrap what the caller writes around the body (a legend, …); identity by default.
 *   `brief` is true below {@link FIT_FULL_LEGEND_STEP}: the wrapper should be short there (the
 *   legend in brief). The wrapper must not be shorter at a larger step, so that the document's
 *   tokens grow with the step.
 * @returns the document and the {@link FitReport}.
 * @throws FitError when the structure alone needs more; InvalidArgumentError on a bad maxTokens.
 */
export function fitFlat(
  cells: FlatCells,
  base: Policy,
  maxTokens: number,
  wrap: (body: string, brief: boolean) => string = (b) => b,
): { text: string; report: FitReport } {
  checkMaxTokens(maxTokens, 'fitFlat');
  // Turn index of each rendered cell: a prompt closes its turn.
  const turnOf: number[] = [];
  let t = 0;
  let open = false;
  for (let i = 0; i < cells.count; i++) {
    if (!cells.rendered(i)) continue;
    turnOf[i] = t;
    open = true;
    if (cells.closesTurn(i)) {
      t++;
      open = false;
    }
  }
  const turns = t + (open ? 1 : 0);
  const items = new Map<number, Item<Piece[]>>();
  for (let i = 0; i < cells.count; i++) {
    if (turnOf[i] === undefined) continue;
    const item: Item<Piece[]> = { age: turns - 1 - turnOf[i]!, callFloor: FIT_FLOOR_CALL, note: cells.isNote(i), cache: new Map(), fullFrom: Infinity };
    const render = (p: Policy): Piece[] => cells.pieces(i, p) ?? [];
    settleFloor(item, render, base, turns);
    // A source cut to an empty fence would read as an empty cell: the floor also holds a cut mark.
    if (cells.hasCode?.(i)) {
      for (let extra = 0; extra < FENCE_MARK_MAX && showsEmptyFence(item.cache.values().next().value ?? []); extra++) {
        item.callFloor++;
        item.cache.clear();
        settleFloor(item, render, base, turns);
      }
    }
    items.set(i, item);
  }
  const texts = new Map<number, string>();
  const bodies = new Map<number, string>();
  const textAt = (step: number): string => {
    const cached = texts.get(step);
    if (cached !== undefined) return cached;
    const out: string[] = [];
    let cur: string[] = [];
    for (const [i, item] of items) {
      for (const x of rendered(item, (p) => cells.pieces(i, p) ?? [], samePieces, base, step, turns)) if (x.text !== '') cur.push(x.text);
      if (cells.closesTurn(i)) {
        out.push(cur.join('\n'));
        cur = [];
      }
    }
    if (cur.length) out.push(cur.join('\n'));
    const body = joinCompacts(...out);
    bodies.set(step, body);
    const text = wrap(body, step < FIT_FULL_LEGEND_STEP);
    texts.set(step, text);
    return text;
  };
  // Whether a step fits is decided by fitsToks, which stops counting once past maxTokens.
  const tokensAt = (step: number): number => lenToks(textAt(step));
  // Class counts of the chosen step's pieces: cheap, as the document is within the budget.
  const done = (step: number, text: string, extra: Partial<FitReport> = {}): { text: string; report: FitReport } => {
    const byClass: ClassTokens = { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 0 };
    for (const [i, item] of items)
      for (const x of rendered(item, (p) => cells.pieces(i, p) ?? [], samePieces, base, step, turns)) byClass[x.cls] += lenToks(x.text);
    const report = { ...reportOf(base, maxTokens, step, turns, tokensAt), ...extra };
    byClass.total = report.tokens;
    return { text, report: { ...report, byClass } };
  };
  if (fitsToks(textAt(FIT_STEPS), maxTokens)) return done(FIT_STEPS, textAt(FIT_STEPS));
  // The dialog is cut: keep a share of the budget for the index of what the cut leaves out.
  let facts: PreparedFacts | undefined;
  let reserve = 0;
  if (base.profile === 'clean' && cells.sources) {
    const sources = cells.sources;
    // One cell's texts at a time, so a large dialog's parsed replies are not all held at once.
    function* all(): Generator<FactSource> {
      for (const i of items.keys()) yield* sources(i);
    }
    facts = prepareFacts(gatherFacts(all()));
    // At most the share, half of what the budget has above the floor (the body grows too), and
    // what an index of every fact would take. maxTokens - reserve grows with maxTokens, so the
    // step stays monotone.
    if (facts.any && fitsToks(textAt(0), maxTokens)) {
      const all = lenToks(evidenceIndex(facts, '', Number.MAX_SAFE_INTEGER));
      reserve = Math.min(Math.floor(maxTokens * FIT_INDEX_SHARE), Math.floor((maxTokens - tokensAt(0)) / 2), all + 2);
    }
  }
  const step = search(
    (s) => fitsToks(textAt(s), maxTokens - reserve),
    () => tokensAt(0),
    maxTokens,
    'dlg2compact',
  );
  if (facts === undefined || reserve <= 0) return done(step, textAt(step));
  const body = bodies.get(step)!;
  const brief = step < FIT_FULL_LEGEND_STEP;
  let room = maxTokens - tokensAt(step) - 2;
  for (let tries = 0; room > 0 && tries < 4; tries++) {
    const index = evidenceIndex(facts, body, room);
    if (index === '') break;
    const text = wrap(`${body}\n\n${index}`, brief);
    const n = lenToks(text);
    if (n <= maxTokens) return done(step, text, { tokens: n, indexTokens: lenToks(index) });
    room -= n - maxTokens;
  }
  return done(step, textAt(step));
}

function reportOf(base: Policy, maxTokens: number, step: number, turns: number, tokensAt: (s: number) => number): FitReport {
  return { maxTokens, tokens: tokensAt(step), step, scale: fitScale(step), minTokens: tokensAt(0), policy: fitPolicy(base, step, 0, turns), indexTokens: 0 };
}

/** A prompt's request and reply after compaction. */
export interface PromptText {
  content: string;
  reply: string;
}

/**
 * Fit a dialog compacted in place (dialog mode) into `maxTokens` as the one dialog measure
 * counts it (`dialogContextTokens`): every prompt's request and reply are compacted with the
 * policy of its turn at the largest step that fits; the other cells are untouched. Changes `d`
 * only on success.
 * @param compactOne the compaction of one prompt's texts under a policy (not modifying `m`).
 * @returns the {@link FitReport}.
 * @throws FitError when the untouched cells and the prompts at the floor need more.
 */
export function fitPrompts(d: DialogLike, base: Policy, maxTokens: number, compactOne: (m: MessageLike, p: Policy) => PromptText): FitReport {
  checkMaxTokens(maxTokens, 'compactDialog');
  let fixed = 0;
  const prompts: number[] = [];
  d.messages.forEach((m, i) => {
    if (m.type === 'prompt' && !m.skipped) prompts.push(i);
    else fixed += messageContextTokens(m);
  });
  const turns = prompts.length;
  type Done = PromptText & { tokens: number };
  const items = prompts.map((_, j): Item<Done> => ({ age: turns - 1 - j, callFloor: FIT_FLOOR_CALL, cache: new Map(), fullFrom: Infinity }));
  const same = (a: Done, b: Done): boolean => a.content === b.content && a.reply === b.reply;
  const renderOf =
    (i: number) =>
    (p: Policy): Done => {
      const r = compactOne(d.messages[i]!, p);
      return { ...r, tokens: lenToks(r.content) + (r.reply === '' ? 0 : lenToks(r.reply)) };
    };
  items.forEach((item, j) => settleFloor(item, renderOf(prompts[j]!), base, turns));
  const tokensAt = (step: number): number => {
    let n = fixed;
    items.forEach((item, j) => {
      n += rendered(item, renderOf(prompts[j]!), same, base, step, turns).tokens;
    });
    return n;
  };
  const step = search(
    (s) => tokensAt(s) <= maxTokens,
    () => tokensAt(0),
    maxTokens,
    'compactDialog',
  );
  items.forEach((item, j) => {
    const r = rendered(item, renderOf(prompts[j]!), same, base, step, turns);
    const m = d.messages[prompts[j]!]!;
    m.content = r.content;
    m.reply = r.reply;
  });
  return reportOf(base, maxTokens, step, turns, tokensAt);
}
