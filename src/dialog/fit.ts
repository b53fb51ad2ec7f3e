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
 *
 * The fill. Steps are coarse where many cells cross a whole token at once (dozens of notes
 * going from 6 to 7 tokens at one step, each of which a cut now uses), so the step found can
 * leave many tokens below the next one. Those go to the items one at a time, in a fixed order
 * (the prompts first, latest turn first, then the other cells, latest turn first): the first
 * `raised` items render at the next step's budgets. Positions (step, raised) form one chain
 * from the floor to the whole rendering, (step, all) being (step + 1, 0), and `raised` is found
 * by binary search, so the position also grows with `maxTokens`. In a flat document with an
 * evidence index, the index is served before the fill: the fill gets only what an index of
 * every fact the step's body misses leaves, and a raise that would make the index drop a fact
 * is given up, keeping the step's own rendering (the one case where the position does not
 * grow with `maxTokens`: a raised body that shows fewer facts than the step's).
 *
 * A cell's rendering is not strictly monotone in its budgets (a cut at one token more can keep
 * a shorter head and tail, as a word-safe cut moves to other word boundaries); the search and
 * the fill only assume that the document as a whole grows along the chain, which holds on the
 * shared dialogs but for a token or two at a few steps.
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
   * How many items (cells of a flat document, prompts in dialog mode) were rendered one step
   * above `step` with what the step left below the next one: the prompts first, the latest
   * first (see the module comment). 0 when nothing was raised.
   */
  raised: number;
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
 * How many items, in the order the fill raises them, go one step above `step`: the largest
 * count that fits, by binary search between none (`step` fits) and all (step + 1, which the
 * search found not to fit). Position (step, raised) orders every rendering of a fit in one
 * chain, (step, n) being (step + 1, 0), so the position chosen grows with `maxTokens` too and
 * each item's budgets with it.
 */
function fill(fits: (raised: number) => boolean, step: number, n: number): number {
  if (step >= FIT_STEPS || n <= 1) return 0;
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The order in which the fill raises items: the prompts (a request and its reply) first, as
 * requests are kept before the rest, then the other cells; within each, the latest turn first,
 * and a turn's cells in document order.
 * @param ages each item's turn age, in document order; `prompt(k)` whether item k is a prompt.
 * @returns each item's rank (0 = raised first).
 */
function fillRanks(ages: readonly number[], prompt: (k: number) => boolean): number[] {
  const order = ages.map((_, k) => k).sort((a, b) => Number(prompt(b)) - Number(prompt(a)) || ages[a]! - ages[b]! || a - b);
  const rank: number[] = [];
  order.forEach((k, r) => {
    rank[k] = r;
  });
  return rank;
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
  // The fill's order of the items (see fill): rank by cell index.
  const keys = [...items.keys()];
  const ranks = fillRanks(
    keys.map((i) => items.get(i)!.age),
    (k) => cells.closesTurn(keys[k]!),
  );
  const rankOf = new Map(keys.map((i, k) => [i, ranks[k]!]));
  const texts = new Map<string, string>();
  const bodies = new Map<string, string>();
  // The pieces of cell i at position (step, raised): one step higher when among the first raised.
  const piecesAt = (i: number, item: Item<Piece[]>, step: number, raised: number): Piece[] =>
    rendered(item, (p) => cells.pieces(i, p) ?? [], samePieces, base, rankOf.get(i)! < raised ? step + 1 : step, turns);
  const textAt = (step: number, raised = 0): string => {
    const at = `${step}:${raised}`;
    const cached = texts.get(at);
    if (cached !== undefined) return cached;
    const out: string[] = [];
    let cur: string[] = [];
    for (const [i, item] of items) {
      for (const x of piecesAt(i, item, step, raised)) if (x.text !== '') cur.push(x.text);
      if (cells.closesTurn(i)) {
        out.push(cur.join('\n'));
        cur = [];
      }
    }
    if (cur.length) out.push(cur.join('\n'));
    const body = joinCompacts(...out);
    bodies.set(at, body);
    const text = wrap(body, step < FIT_FULL_LEGEND_STEP);
    texts.set(at, text);
    return text;
  };
  // Whether a step fits is decided by fitsToks, which stops counting once past maxTokens.
  const tokensAt = (step: number, raised = 0): number => lenToks(textAt(step, raised));
  // Class counts of the chosen position's pieces: cheap, as the document is within the budget.
  const done = (step: number, raised: number, text: string, extra: Partial<FitReport> = {}): { text: string; report: FitReport } => {
    const byClass: ClassTokens = { user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 0 };
    for (const [i, item] of items) for (const x of piecesAt(i, item, step, raised)) byClass[x.cls] += lenToks(x.text);
    const report = { ...reportOf(base, maxTokens, step, turns, tokensAt(step, raised), tokensAt(0)), raised, ...extra };
    byClass.total = report.tokens;
    return { text, report: { ...report, byClass } };
  };
  if (fitsToks(textAt(FIT_STEPS), maxTokens)) return done(FIT_STEPS, 0, textAt(FIT_STEPS));
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
  // What the step leaves below the next one goes to the first items of the fill's order. With
  // an index, the index is served first (it is worth more per token): the fill gets only what
  // an index of every fact the step's body misses leaves, a need fixed at a step, so the count
  // raised still grows with maxTokens.
  let room0 = 0;
  if (facts !== undefined && reserve > 0) room0 = fullIndexRoom(facts, bodies.get(`${step}:0`)!);
  const limit = maxTokens - (room0 > 0 ? room0 + 2 : 0);
  const raised = fitsToks(textAt(step), limit - 1) ? fill((r) => fitsToks(textAt(step, r), limit), step, items.size) : 0;
  if (facts === undefined || reserve <= 0) return done(step, raised, textAt(step, raised));
  const withIndex = (r: number): { text: string; report: FitReport } | undefined => {
    textAt(step, r); // renders the body at that position, if not yet
    const body = bodies.get(`${step}:${r}`)!;
    const brief = step < FIT_FULL_LEGEND_STEP;
    let room = maxTokens - tokensAt(step, r) - 2;
    for (let tries = 0; room > 0 && tries < 4; tries++) {
      const index = evidenceIndex(facts, body, room);
      if (index === '') break;
      // A raised body keeps its rendering only with every fact it misses listed.
      if (r > 0 && index !== evidenceIndex(facts, body, Number.MAX_SAFE_INTEGER)) return undefined;
      const text = wrap(`${body}\n\n${index}`, brief);
      const n = lenToks(text);
      if (n <= maxTokens) return done(step, r, text, { tokens: n, indexTokens: lenToks(index) });
      if (r > 0) return undefined;
      room -= n - maxTokens;
    }
    return r > 0 && evidenceIndex(facts, body, Number.MAX_SAFE_INTEGER) !== '' ? undefined : done(step, r, textAt(step, r));
  };
  return (raised > 0 ? withIndex(raised) : undefined) ?? withIndex(0)!;
}

/**
 * The room the evidence index needs to list every fact `body` misses (0 when it misses none):
 * the least budget, found by halving, at which the index is the one an unlimited budget gives.
 */
function fullIndexRoom(facts: PreparedFacts, body: string): number {
  const every = evidenceIndex(facts, body, Number.MAX_SAFE_INTEGER);
  if (every === '') return 0;
  // The index counts its items one by one (each with its separator): at most a token per item
  // more than the joined text, and the text holds fewer items than tokens.
  let lo = lenToks(every) - 1;
  let hi = 2 * lenToks(every) + 2;
  if (evidenceIndex(facts, body, hi) !== every) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (evidenceIndex(facts, body, mid) === every) hi = mid;
    else lo = mid;
  }
  return hi;
}

function reportOf(base: Policy, maxTokens: number, step: number, turns: number, tokens: number, minTokens: number): FitReport {
  return { maxTokens, tokens, step, scale: fitScale(step), minTokens, policy: fitPolicy(base, step, 0, turns), indexTokens: 0, raised: 0 };
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
  // Every item is a prompt: the fill raises the latest first.
  const ranks = fillRanks(
    items.map((x) => x.age),
    () => true,
  );
  const doneAt = (step: number, raised: number, j: number): Done =>
    rendered(items[j]!, renderOf(prompts[j]!), same, base, ranks[j]! < raised ? step + 1 : step, turns);
  const tokensAt = (step: number, raised = 0): number => {
    let n = fixed;
    items.forEach((_, j) => {
      n += doneAt(step, raised, j).tokens;
    });
    return n;
  };
  const step = search(
    (s) => tokensAt(s) <= maxTokens,
    () => tokensAt(0),
    maxTokens,
    'compactDialog',
  );
  const raised = fill((r) => tokensAt(step, r) <= maxTokens, step, items.length);
  items.forEach((_, j) => {
    const r = doneAt(step, raised, j);
    const m = d.messages[prompts[j]!]!;
    m.content = r.content;
    m.reply = r.reply;
  });
  return { ...reportOf(base, maxTokens, step, turns, tokensAt(step, raised), tokensAt(0)), raised };
}
