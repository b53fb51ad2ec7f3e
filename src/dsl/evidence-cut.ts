/**
 * Evidence-aware cuts of tool results and cell outputs (clean profile only).
 *
 * The reference cuts a long result in the middle, so a 35-token budget keeps its first and last
 * few words and drops whatever lay between: the exception in the middle of a traceback, the path
 * a search found, the count a command printed. An evidence cut spends the same budget on whole
 * lines instead, chosen by what they carry:
 *
 * 1. the first line and the last line (a traceback's last line names the exception; a command's
 *    last line usually gives its outcome);
 * 2. lines that report an error, an exception, a warning or a failure, and lines that give an
 *    exit state (`exit code 1`, `returned non-zero`, `Killed`, …);
 * 3. lines holding a URL or a file path;
 * 4. lines holding a number — in a table (several lines with the same count of `|`, tab or
 *    comma separators) only the header, the first row and the last row;
 * 5. any other line.
 *
 * Within a class later lines come first (a traceback's innermost frame, a log's latest state).
 * Lines are taken in that order while they fit; a line longer than its share of the budget (a
 * quarter; two fifths for the last line) is itself middle-cut. The kept lines are written in their original order, joined by `' ¶ '` where
 * they were adjacent and by `' … '` (the cut mark) where lines were removed between them, so a
 * reader sees where text is missing. The result never exceeds the budget as counted by
 * `lenToks`; when no line fits, the plain middle cut of the whole is returned.
 */
import { pySplitlines, pyStrip } from '../python/index.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';

/** The mark put where lines (or the middle of a line) were removed. */
export const EVIDENCE_CUT_MARK = ' … ';

const JOIN = ' ¶ ';

const ERROR_LINE =
  /\b(?:[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)|Traceback|error|exception|failed|failure|fatal|panic|denied|not found|no such file|cannot|can't|unable|invalid|FAIL(?:ED)?|ERROR|WARN(?:ING)?)\b/;
const EXIT_LINE =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)?[ :=]*-?\d+|returned non-zero|non-zero exit|exit status|return code|Killed|Terminated|timed? ?out|Segmentation fault|core dumped|Aborted)\b/i;
const URL_LINE = /\b(?:https?|ftp|file|s3|gs):\/\/\S/;
const PATH_LINE =
  /(?:^|[\s'"`(=:[,])(?:~|\.{1,2})?\/[\w.@+-]+\/?|\b[\w.-]+\/[\w.@+-]+|\b[\w-]+\.(?:py|ipynb|js|mjs|ts|tsx|jsx|json|md|txt|csv|tsv|ya?ml|toml|cfg|ini|sh|html?|css|c|h|cc|cpp|hpp|rs|go|java|rb|php|sql|xml|lock|log|pdf|png|jpe?g|gif|svg|parquet|pkl|nc|zip|gz|tar)\b/;
const NUMBER_LINE = /\d/;

/** What one line carries, as a rank: lower ranks are kept first. */
function rank(line: string): number {
  if (ERROR_LINE.test(line) || EXIT_LINE.test(line)) return 1;
  if (URL_LINE.test(line) || PATH_LINE.test(line)) return 2;
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
  while (i < lines.length) {
    const n = separators(lines[i]!);
    let j = i + 1;
    if (n > 0) while (j < lines.length && separators(lines[j]!) === n) j++;
    if (n > 0 && j - i >= 4) for (let k = i + 2; k < j - 1; k++) inner.add(k);
    i = j;
  }
  return inner;
}

/** The order in which lines are considered for keeping. */
function keepOrder(lines: readonly string[]): number[] {
  const last = lines.length - 1;
  const inner = innerTableRows(lines);
  const ranked = lines.map((line, i) => ({ i, r: i === 0 || i === last ? 0 : inner.has(i) ? 5 : rank(line) }));
  // Within a rank, later lines first: a traceback's innermost frame, a log's latest state.
  ranked.sort((a, b) => a.r - b.r || b.i - a.i);
  return ranked.map((x) => x.i);
}

/** Join kept lines (sorted indices) with `' ¶ '` between neighbours and the cut mark across gaps. */
function assemble(prefix: string, lines: readonly string[], kept: readonly number[], texts: Map<number, string>): string {
  let out = prefix;
  for (let k = 0; k < kept.length; k++) {
    const i = kept[k]!;
    if (k === 0) out += i > 0 ? EVIDENCE_CUT_MARK.trimStart() : '';
    else out += i === kept[k - 1]! + 1 ? JOIN : EVIDENCE_CUT_MARK;
    out += texts.get(i)!;
  }
  const lastKept = kept[kept.length - 1];
  if (lastKept !== undefined && lastKept < lines.length - 1) out += EVIDENCE_CUT_MARK.trimEnd();
  return out;
}

/** A text's lines, their keeping order and what is known of their lengths, kept across calls. */
interface Prepared {
  lines: string[];
  whole: string;
  order: number[];
  /** Exact token count of a line, or minus the largest cap it is known to exceed. */
  len: number[];
}

/** The most recent texts prepared (a fit renders the same results at many budgets). */
const PREPARED = new Map<string, Prepared>();
const PREPARED_MAX = 256;

function prepared(text: string, prefix: string): Prepared {
  const k = `${prefix}\u0000${text}`;
  let p = PREPARED.get(k);
  if (p !== undefined) return p;
  const lines: string[] = [];
  for (const line of pySplitlines(text)) {
    const t = pyStrip(line);
    if (t) lines.push(t);
  }
  const whole = lines.length ? prefix + lines.join(JOIN) : prefix.trimEnd();
  p = { lines, whole, order: keepOrder(lines), len: [] };
  if (PREPARED.size >= PREPARED_MAX) PREPARED.clear();
  PREPARED.set(k, p);
  return p;
}

/** `min(lenToks(line), cap)`, counting no further than the cap needs. */
function capLen(p: Prepared, i: number, cap: number): number {
  const known = p.len[i];
  if (known !== undefined && (known >= 0 || -known >= cap)) return known >= 0 ? Math.min(known, cap) : cap;
  const line = p.lines[i]!;
  if (fitsToks(line, cap)) {
    p.len[i] = lenToks(line);
    return p.len[i]!;
  }
  p.len[i] = -cap;
  return cap;
}

/** Options of {@link evidenceCut}. */
export interface EvidenceCutOptions {
  /** Put before the first line; default `'> '` (a result line). */
  prefix?: string;
  /** The middle cut used for a long line and for the fallback; default `truncToksMid`. */
  cut?: (s: string, maxToks: number) => string;
}

/**
 * A result's text as one line within `maxToks` tokens, keeping the lines that carry evidence.
 * @param text the result text (already stripped of doc-state blocks); its lines are Python's
 *   `splitlines`, each stripped, blank ones dropped — the lines `compactResult` joins.
 * @param maxToks the budget in tokens (a non-negative integer; 0 gives `''`).
 * @returns `prefix + lines.join(' ¶ ')` (`'>'` for no lines) when that fits; otherwise kept
 *   lines in their order, joined by `' ¶ '` or, where lines were removed, by `' … '`; otherwise
 *   (fewer than two lines fit) the plain middle cut of the whole, as the reference does. Never
 *   over `maxToks` tokens.
 */
export function evidenceCut(text: string, maxToks: number, opts: EvidenceCutOptions = {}): string {
  const prefix = opts.prefix ?? '> ';
  const cut = opts.cut ?? truncToksMid;
  if (maxToks <= 0) return '';
  const prep = prepared(text, prefix);
  const { lines, whole } = prep;
  if (fitsToks(whole, maxToks)) return whole;
  const plain = cut(whole, maxToks);
  if (lines.length < 2) return plain;
  // A kept line may take at most a quarter of the budget, the last line (an exception, an
  // outcome) two fifths, so the first and last lines leave room for evidence between them.
  const last = lines.length - 1;
  const capOf = (i: number): number => Math.max(4, Math.floor(i === last ? (maxToks * 2) / 5 : maxToks / 4));
  const texts = new Map<number, string>();
  const kept: number[] = [];
  let used = lenToks(prefix) + 2; // the prefix and a closing mark
  for (const i of prep.order) {
    if (used + 3 > maxToks) break; // no line costs less than itself and a joint
    const line = lines[i]!;
    const lineCap = capOf(i);
    const n = capLen(prep, i, lineCap);
    const cost = n + 2; // the line (cut to the cap when longer) and its joint
    if (used + cost > maxToks) continue;
    used += cost;
    texts.set(i, n < lineCap || fitsToks(line, lineCap) ? line : cut(line, lineCap));
    kept.push(i);
  }
  kept.sort((a, b) => a - b);
  // Joints re-tokenise a little differently from the estimate: drop the latest-chosen lines until it fits.
  const order = prep.order.filter((i) => texts.has(i));
  for (;;) {
    if (kept.length === 0) return plain;
    const out = assemble(prefix, lines, kept, texts);
    // A single kept line is no better than the plain middle cut, which shows both ends.
    if (lenToks(out) <= maxToks) return kept.length >= 2 ? out : plain;
    const drop = order.pop()!;
    kept.splice(kept.indexOf(drop), 1);
  }
}
