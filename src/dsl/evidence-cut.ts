/**
 * Evidence-aware cuts of tool results and cell outputs (clean profile only).
 *
 * The reference cuts a long result in the middle, so a 35-token budget keeps its first and last
 * few words and drops whatever lay between: the exception in the middle of a traceback, the path
 * a search found, the count a command printed. An evidence cut spends the same budget on what
 * the lines carry, in this order:
 *
 * 1. the first line and the last line (a traceback's last line names the exception; a command's
 *    last line usually gives its outcome);
 * 2. lines that report an error, an exception, a warning or a failure, and lines that give an
 *    exit state (`exit code 1`, `returned non-zero`, `Killed`, …);
 * 3. lines holding a URL or a file path — a line too long for its share keeps just its URLs
 *    and paths, each shown once;
 * 4. lines holding a number — in a table (several lines with the same count of `|`, tab or
 *    comma separators) only the header, the first row and the last row;
 * 5. any other line.
 *
 * Within a class later lines come first (a traceback's innermost frame, a log's latest state).
 * Pieces are taken in that order while they fit; a line longer than its share of the budget (a
 * quarter; two fifths for a last line that reports an error) is itself middle-cut. The kept pieces are written in their original order, joined by
 * `' ¶ '` where whole lines were adjacent and by `' … '` (the cut mark) where text was removed
 * between them, so a reader sees where text is missing. A piece already shown is not repeated.
 * The result never exceeds the budget as counted by `lenToks`; when fewer than two pieces fit,
 * or the budget is below {@link MIN_EVIDENCE} tokens, the plain middle cut of the whole is returned.
 */
import { pySplitlines, pyStrip } from '../python/index.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';
import { fitsToksFront } from '../tokens/budget.js';
import { assemble, assembledToks, EVIDENCE_CUT_MARK, JOIN, type Unit } from './evidence-count.js';
import { hasUrlOrPath, pathSpans, urlSpans } from './evidence-scan.js';

/** The mark put where lines (or the middle of a line) were removed. */
export { EVIDENCE_CUT_MARK };

/** The smallest budget (tokens) cut by evidence; below it a result is middle-cut. */
export const MIN_EVIDENCE = 16;

const ERROR_LINE =
  /\b(?:[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)|Traceback|error|exception|failed|failure|fatal|panic|denied|not found|no such file|cannot|can't|unable|invalid|FAIL(?:ED)?|ERROR|WARN(?:ING)?)\b/;
const EXIT_LINE =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)?[ :=]*-?\d+|returned non-zero|non-zero exit|exit status|return code|Killed|Terminated|timed? ?out|Segmentation fault|core dumped|Aborted)\b/i;
const NUMBER_LINE = /\d/;

const isErrorLine = (line: string): boolean => ERROR_LINE.test(line) || EXIT_LINE.test(line);

/** What one line carries, as a rank: lower ranks are kept first. */
function rank(line: string): number {
  if (isErrorLine(line)) return 1;
  if (hasUrlOrPath(line)) return 2;
  if (NUMBER_LINE.test(line)) return 3;
  return 4;
}

/** The count of table separators on a line (`|`, tabs, or commas), or 0 for none. */
function separators(line: string): number {
  let bars = 0;
  let tabs = 0;
  let commas = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 124) bars++;
    else if (c === 9) tabs++;
    else if (c === 44) commas++;
  }
  return Math.max(bars, tabs, commas > 1 ? commas : 0);
}

/**
 * Lines that are inner rows of a table: a run of at least 4 consecutive lines with the same
 * non-zero separator count; its header (first line), first row and last row are not inner.
 */
function innerTableRows(lines: readonly string[]): Set<number> {
  const inner = new Set<number>();
  let i = 0;
  let n = lines.length > 0 ? separators(lines[0]!) : 0;
  while (i < lines.length) {
    // Each line's separators are counted once: the line that ends a run starts the next.
    let j = i + 1;
    let next = j < lines.length ? separators(lines[j]!) : 0;
    if (n > 0) {
      while (j < lines.length && next === n) {
        j++;
        next = j < lines.length ? separators(lines[j]!) : 0;
      }
    }
    if (n > 0 && j - i >= 4) for (let k = i + 2; k < j - 1; k++) inner.add(k);
    i = j;
    n = next;
  }
  return inner;
}

/** At most this many URLs and paths of one line are considered (a budget keeps a few). */
const SPANS_MAX = 64;

/** The URLs and paths of a line, as `[start, end)` offsets in order, no path inside a URL. */
function spansOf(line: string): Array<[number, number]> {
  const urls: Array<[number, number]> = [];
  for (const u of urlSpans(line)) if (urls.push([u.start, u.end]) >= SPANS_MAX) break;
  const out = [...urls];
  for (const p of pathSpans(line)) {
    if (out.length >= SPANS_MAX) break;
    if (!urls.some(([a, b]) => p.start < b && p.end > a)) out.push([p.start, p.end]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** A text's lines, their keeping order and what is known of their lengths, kept across calls. */
interface Prepared {
  lines: string[];
  whole: string;
  order: number[];
  /** Rank of each line by what it carries (before the first/last and table rules). */
  ranks: number[];
  /** Exact token count of a line, or minus the largest cap it is known to exceed. */
  len: number[];
  /** The spans of a line with their token counts, once computed. */
  spans: Array<Array<{ start: number; text: string; tokens: number }> | undefined>;
}

/**
 * The most recent texts prepared (a fit renders the same results at many budgets), keyed by the
 * text itself (whose hash the engine keeps with the string) and then by the prefix.
 */
const PREPARED = new Map<string, Map<string, Prepared>>();
const PREPARED_MAX = 1024;

/** (Internal: dsl/internals.ts.) Forget the prepared texts. */
export function clearPrepared(): void {
  PREPARED.clear();
}

function prepared(text: string, prefix: string): Prepared {
  let byPrefix = PREPARED.get(text);
  const p0 = byPrefix?.get(prefix);
  if (p0 !== undefined) return p0;
  const lines: string[] = [];
  for (const line of pySplitlines(text)) {
    const t = pyStrip(line);
    if (t) lines.push(t);
  }
  const whole = lines.length ? prefix + lines.join(JOIN) : prefix.trimEnd();
  const last = lines.length - 1;
  const inner = innerTableRows(lines);
  const ranks = lines.map(rank);
  // The keeping order: by rank (0 the first and last lines, 5 a table's inner rows), and within
  // a rank later lines first (a traceback's innermost frame, a log's latest state). One bucket
  // per rank, each filled from the last line back, makes that order without a sort.
  const buckets: number[][] = [[], [], [], [], [], []];
  for (let i = last; i >= 0; i--) buckets[i === 0 || i === last ? 0 : inner.has(i) ? 5 : ranks[i]!]!.push(i);
  const p: Prepared = { lines, whole, order: buckets.flat(), ranks, len: [], spans: [] };
  if (byPrefix === undefined) {
    if (PREPARED.size >= PREPARED_MAX) PREPARED.clear();
    byPrefix = new Map();
    PREPARED.set(text, byPrefix);
  }
  byPrefix.set(prefix, p);
  return p;
}

/** `min(lenToks(line), cap)`, counting no further than the cap needs (and recording what it learns in `p.len`). */
function capLen(p: Prepared, i: number, cap: number): number {
  const known = p.len[i];
  if (known !== undefined && (known >= 0 || -known >= cap)) return known >= 0 ? Math.min(known, cap) : cap;
  const line = p.lines[i]!;
  if (fitsToksFront(line, cap)) {
    p.len[i] = lenToks(line);
    return p.len[i]!;
  }
  p.len[i] = -cap;
  return cap;
}

function lineSpans(p: Prepared, i: number): Array<{ start: number; text: string; tokens: number }> {
  let s = p.spans[i];
  if (s === undefined) {
    const line = p.lines[i]!;
    s = spansOf(line).map(([a, b]) => ({ start: a, text: line.slice(a, b), tokens: lenToks(line.slice(a, b)) }));
    p.spans[i] = s;
  }
  return s;
}

/** Options of {@link evidenceCut}. */
export interface EvidenceCutOptions {
  /** Put before the first line; default `'> '` (a result line). */
  prefix?: string;
  /** The middle cut used for a long line and for the fallback; default `truncToksMid`. */
  cut?: (s: string, maxToks: number) => string;
  /**
   * The same cut with the token count of its result (`tokens === lenToks(text)`), used for a
   * long line when given, so the cut line is not counted again.
   */
  countedCut?: (s: string, maxToks: number) => { text: string; tokens: number };
}

/**
 * A result's text as one line within `maxToks` tokens, keeping the lines that carry evidence.
 * @param text the result text (already stripped of doc-state blocks); its lines are Python's
 *   `splitlines`, each stripped, blank ones dropped — the lines `compactResult` joins.
 * @param maxToks the budget in tokens (a non-negative integer; 0 gives `''`).
 * @returns `prefix + lines.join(' ¶ ')` (`'>'` for no lines) when that fits; otherwise the kept
 *   pieces in their order, joined by `' ¶ '` or, where text was removed, by `' … '`; otherwise
 *   (fewer than two pieces fit) the plain middle cut of the whole, as the reference does. Never
 *   over `maxToks` tokens.
 */
export function evidenceCut(text: string, maxToks: number, opts: EvidenceCutOptions = {}): string {
  const prefix = opts.prefix ?? '> ';
  const cut = opts.cut ?? truncToksMid;
  const countedCut = opts.countedCut;
  if (maxToks <= 0) return '';
  const prep = prepared(text, prefix);
  const { lines, whole } = prep;
  if (fitsToks(whole, maxToks)) return whole;
  // The plain middle cut of the whole, made only when it is the answer (a long text costs to cut).
  const plain = (): string => cut(whole, maxToks);
  // Below MIN_EVIDENCE tokens pieces would be cut to a few tokens each: the plain cut reads better.
  if (lines.length < 2 || maxToks < MIN_EVIDENCE) return plain();
  // A kept line may take at most a quarter of the budget, a last line that reports an error two
  // fifths, so the first and last lines leave room for evidence between them.
  const last = lines.length - 1;
  const capOf = (i: number): number => Math.max(4, Math.floor(i === last && prep.ranks[i] === 1 ? (maxToks * 2) / 5 : maxToks / 4));
  const chosen: Unit[] = [];
  const shown = (t: string): boolean => chosen.some((u) => u.text.includes(t));
  let used = lenToks(prefix) + 1; // the prefix and a closing mark
  const take = (u: Unit): boolean => {
    if (used + u.tokens + 1 > maxToks || shown(u.text)) return false;
    used += u.tokens + 1; // the piece and its joint
    chosen.push(u);
    return true;
  };
  for (const i of prep.order) {
    if (used + 2 > maxToks) break; // no piece costs less than itself and a joint
    const line = lines[i]!;
    const lineCap = capOf(i);
    const spanning = prep.ranks[i] === 2 && i !== 0 && i !== last;
    // A line that cannot be cut into its spans is taken only within the room left: its count
    // is needed no further than one past the room (the same choice, with less counting).
    const room = maxToks - used - 1;
    if (!spanning && room < lineCap) {
      if (capLen(prep, i, room + 1) > room) continue;
      take({ line: i, start: 0, whole: true, text: line, tokens: capLen(prep, i, room + 1) });
      continue;
    }
    const n = capLen(prep, i, lineCap);
    // capLen has left in prep.len the line's exact count, or minus a cap of at least lineCap it exceeds.
    const known = prep.len[i]!;
    const fits = known >= 0 && known <= lineCap;
    // A long line with URLs or paths keeps those rather than its two ends (not the first and last
    // lines, whose ends say what the output is and how it ended).
    if (!fits && spanning) {
      if (used + 2 <= maxToks)
        for (const s of lineSpans(prep, i)) if (s.tokens <= lineCap) take({ line: i, start: s.start, whole: false, text: s.text, tokens: s.tokens });
      continue;
    }
    // A cut line has at most lineCap tokens: cut it only when that much is left.
    if (used + n + 1 > maxToks) continue;
    if (fits) {
      take({ line: i, start: 0, whole: true, text: line, tokens: n });
      continue;
    }
    const c = countedCut ? countedCut(line, lineCap) : undefined;
    const t = c ? c.text : cut(line, lineCap);
    take({ line: i, start: 0, whole: true, text: t, tokens: c ? c.tokens : lenToks(t) });
  }
  const kept = [...chosen].sort((a, b) => a.line - b.line || a.start - b.start);
  // Joints re-tokenise a little differently from the estimate: drop the latest-chosen pieces until it fits.
  for (;;) {
    if (kept.length === 0) return plain();
    // Counted from the pieces' counts (only the start of each piece is encoded again).
    const known = assembledToks(prefix, lines, kept);
    // A single kept piece is no better than the plain middle cut, which shows both ends.
    if (known >= 0 ? known <= maxToks : lenToks(assemble(prefix, lines, kept)) <= maxToks) {
      return kept.length >= 2 ? assemble(prefix, lines, kept) : plain();
    }
    const drop = chosen.pop()!;
    kept.splice(kept.indexOf(drop), 1);
  }
}
