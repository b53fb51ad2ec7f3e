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
 * quarter; two fifths for a last line that reports an error) is itself middle-cut, keeping runs
 * of characters other than white space whole (a date `1990-07-11`, a mark `<TRUNCATED>`, a file
 * name) and at least {@link MIN_SIDE} such characters on each side of the mark. A line whose cut
 * would keep less (a fragment such as `0 … 07-11`) is taken whole when it fits the room left and
 * twice its share; else the first line keeps just its start and the last its end (its start when
 * it reports an error), each that long at least; else the line keeps its URLs and paths; else it
 * is left out. The kept pieces are written in their original order, joined by
 * `' ¶ '` where whole lines were adjacent and by `' … '` (the cut mark) where text was removed
 * between them, so a reader sees where text is missing. A piece already shown is not repeated.
 * The result never exceeds the budget as counted by `lenToks`; when fewer than two pieces fit,
 * or the budget is below {@link MIN_EVIDENCE} tokens, the plain middle cut of the whole is returned,
 * moved off the runs it would split, or one readable side of it where the other would be a
 * fragment (`plainCut`).
 * The keeping order is made only as far as a cut reads it, and a line is classed, counted or
 * scanned only as far as that takes (the work of a short budget on a long log is its tail's).
 */
import { pyNonBlankLines } from '../python/strings.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';
import { fitsToksFront } from '../tokens/budget.js';
import { assemble, assembledToks, EVIDENCE_CUT_MARK, JOIN, pieceFloor, surelyOverToks, type Unit } from './evidence-count.js';
import { eachPathSpan, eachUrlSpan, hasUrlOrPath, mayHoldUrlOrPath } from './evidence-scan.js';

/** The mark put where lines (or the middle of a line) were removed. */
export { EVIDENCE_CUT_MARK };

/** The smallest budget (tokens) cut by evidence; below it a result is middle-cut. */
export const MIN_EVIDENCE = 16;

const ERROR_LINE =
  /\b(?:[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)|Traceback|error|exception|failed|failure|fatal|panic|denied|not found|no such file|cannot|can't|unable|invalid|FAIL(?:ED)?|ERROR|WARN(?:ING)?)\b/;
const EXIT_LINE =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)?[ :=]*-?\d+|returned non-zero|non-zero exit|exit status|return code|Killed|Terminated|timed? ?out|Segmentation fault|core dumped|Aborted)\b/i;
const NUMBER_LINE = /\d/;

/**
 * A word that every match of {@link ERROR_LINE} or {@link EXIT_LINE} holds (any case): one
 * native pass rules out most lines before the two exact tests.
 */
const ERROR_OR_EXIT_WORD =
  /error|exception|warn|exit|interrupt|traceback|fail|fatal|panic|denied|not found|no such file|cannot|can't|unable|invalid|return|non-zero|killed|terminated|time|segmentation|core dumped|aborted/i;

const isErrorLine = (line: string): boolean => ERROR_OR_EXIT_WORD.test(line) && (ERROR_LINE.test(line) || EXIT_LINE.test(line));

/** How many times the one-unit string `c` occurs in `line` (a native search: lines are often slices). */
function unitsOf(line: string, c: string): number {
  let n = 0;
  for (let i = line.indexOf(c); i >= 0; i = line.indexOf(c, i + 1)) n++;
  return n;
}

/** The count of table separators on a line (`|`, tabs, or commas), or 0 for none. */
function separators(line: string): number {
  const commas = unitsOf(line, ',');
  return Math.max(unitsOf(line, '|'), unitsOf(line, '\t'), commas > 1 ? commas : 0);
}

// What is known of a line, as bits of its `FACTS` slot in `Prepared.info`: each fact has a bit saying it is known
// and a bit giving its value, so that a line is tested only as far as its class is asked for.
const ERR_KNOWN = 1;
const ERR = 2;
const SPAN_KNOWN = 4;
const SPAN = 8;
const DIGIT_KNOWN = 16;
const DIGIT = 32;
const INNER_KNOWN = 64;
const INNER = 128;

/** At most this many URLs and paths of one line are considered (a budget keeps a few). */
const SPANS_MAX = 64;

/** The URLs and paths of a line, as `[start, end)` offsets in order, no path inside a URL. */
function spansOf(line: string): Array<[number, number]> {
  const urls: Array<[number, number]> = [];
  eachUrlSpan(line, (a, b) => urls.push([a, b]) >= SPANS_MAX);
  const out = urls.slice();
  eachPathSpan(line, (_, a, b) => {
    if (out.length >= SPANS_MAX) return true;
    if (!urls.some(([ua, ub]) => a < ub && b > ua)) out.push([a, b]);
    return false;
  });
  return out.sort((a, b) => a[0] - b[0]);
}

/** A text's lines, their keeping order and what is known of their lengths, kept across calls. */
interface Prepared {
  /** The prefix the text is cut with (the lines' facts do not depend on it, `whole` does). */
  prefix: string;
  lines: readonly string[];
  /** The text joined whole, or how to make it (a caller may know it is over budget: then it is made only for a plain cut). */
  whole: string | (() => string);
  /**
   * The keeping order as far as it is made: by class (0 the first and last lines, 1 error
   * lines, 2 lines with a URL or path, 3 lines with a digit, 4 others, 5 a table's inner rows),
   * and within a class later lines first. It grows on demand ({@link orderAt}).
   */
  order: number[];
  /**
   * The line that names the exception a traceback ended with (`ValueError: time data …`), among
   * the last lines, or -1: it leads the keeping order. {@link EXCEPTION_LINE}
   */
  exc: number;
  /** How many entries lead the order before its classes: the exception line, the last and the first lines. */
  lead: number;
  /** The class whose lines are being added to `order`, from 1 up; 6 once the order is whole. */
  cls: number;
  /** The next line (going back) to test for class `cls`; 0 ends the class. */
  at: number;
  /**
   * What is known of each line, {@link SLOTS} integers a line (one array for all: cheaper to
   * make than an array per kind), 0 for nothing known yet:
   * - `FACTS`: the fact bits above (`ERR_KNOWN` …);
   * - `SEPS`: the line's table separator count plus one;
   * - `FLOOR`: what its pre-token pieces tell of its tokens ({@link pieceFloor}): `k + 1` for
   *   exactly `k` pieces (the whole line scanned), `-k` for at least `k` pieces;
   * - `LEN`: its exact token count plus one, or minus the largest cap it is known to exceed.
   */
  info: Int32Array;
  /** The spans of a line, once found, with their token counts once counted (-1 before). */
  spans: Array<Array<{ start: number; text: string; tokens: number }> | undefined>;
  /**
   * The cuts made, by budget, with the cut functions they were made with (a dialog is often
   * rendered twice at the same budgets, to confirm a fit): other functions start it afresh.
   */
  cuts: Map<number, string> | undefined;
  cutWith: EvidenceCutOptions['cut'];
  countedWith: EvidenceCutOptions['countedCut'];
}

/** The slots of `Prepared.info` for line `i`: `info[i * SLOTS + slot]`. */
const SLOTS = 4;
const FACTS = 0;
const SEPS = 1;
const FLOOR = 2;
const LEN = 3;

/**
 * The most recent texts prepared (a fit renders the same results at many budgets), keyed by the
 * text itself (whose hash the engine keeps with the string); a text met again with another
 * prefix is prepared afresh.
 */
const PREPARED = new Map<string, Prepared>();
const PREPARED_MAX = 1024;

/**
 * Middle cuts of single lines, by budget and then by the line, made with {@link lineCutsBy}: the
 * same line (a command, a header, a prompt) often ends or starts several results, and a cut costs
 * more than a look-up. At most as many lines as {@link PREPARED} holds texts, and none longer
 * than {@link LINE_CUT_UNITS} (a line is often a slice that keeps its whole result alive).
 */
const LINE_CUTS = new Map<number, Map<string, { text: string; tokens: number }>>();
let lineCutsBy: EvidenceCutOptions['countedCut'];
let lineCutsKept = 0;
const LINE_CUTS_MAX = PREPARED_MAX;
/** Lines longer than this many UTF-16 units are cut without being remembered. */
const LINE_CUT_UNITS = 2048;

/** `countedCut(line, maxToks)`, remembered (see {@link LINE_CUTS}). */
function lineCut(countedCut: NonNullable<EvidenceCutOptions['countedCut']>, line: string, maxToks: number): { text: string; tokens: number } {
  if (line.length > LINE_CUT_UNITS) return countedCut(line, maxToks);
  if (lineCutsBy !== countedCut || lineCutsKept >= LINE_CUTS_MAX) {
    LINE_CUTS.clear();
    lineCutsKept = 0;
    lineCutsBy = countedCut;
  }
  let byLine = LINE_CUTS.get(maxToks);
  if (byLine === undefined) {
    byLine = new Map();
    LINE_CUTS.set(maxToks, byLine);
  }
  let c = byLine.get(line);
  if (c === undefined) {
    c = countedCut(line, maxToks);
    byLine.set(line, c);
    lineCutsKept++;
  }
  return c;
}

/** (Internal: dsl/internals.ts.) Forget the prepared texts and the cuts of lines. */
export function clearPrepared(): void {
  PREPARED.clear();
  LINE_CUTS.clear();
  lineCutsKept = 0;
}

/**
 * A line that starts with an exception's name and a colon (or is that name alone), the last line
 * but the message's own of a Python traceback: `ValueError: time data …`, `pandas.errors.ParserError: …`,
 * `KeyboardInterrupt`.
 */
const EXCEPTION_LINE = /^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)(?::|$)/;

/** How many lines from the end an exception line is looked for (a message's lines follow it). */
const EXCEPTION_REACH = 12;

/** The last line of the last {@link EXCEPTION_REACH} that is an {@link EXCEPTION_LINE}, or -1. */
function exceptionLine(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 1 && i >= lines.length - EXCEPTION_REACH; i--) if (EXCEPTION_LINE.test(lines[i]!)) return i;
  return -1;
}

function prepared(text: string, prefix: string, known?: { lines: readonly string[]; whole: string | (() => string) }): Prepared {
  const p0 = PREPARED.get(text);
  if (p0 !== undefined && p0.prefix === prefix) return p0;
  const lines = known !== undefined ? known.lines : pyNonBlankLines(text);
  const whole = known !== undefined ? known.whole : lines.length ? prefix + lines.join(JOIN) : prefix.trimEnd();
  const last = lines.length - 1;
  const exc = exceptionLine(lines);
  const order = last > 0 ? (exc > 0 && exc < last ? [exc, last, 0] : [last, 0]) : last === 0 ? [0] : [];
  const p: Prepared = {
    prefix,
    lines,
    whole,
    order,
    exc,
    lead: order.length,
    cls: 1,
    at: last - 1,
    info: new Int32Array(lines.length * SLOTS),
    spans: [],
    cuts: undefined,
    cutWith: undefined,
    countedWith: undefined,
  };
  if (p0 === undefined && PREPARED.size >= PREPARED_MAX) PREPARED.clear();
  PREPARED.set(text, p);
  return p;
}

/** Fact `bit` of line `i`, tested by `test` the first time it is asked (`known` then records that it was). */
function lineFact(p: Prepared, i: number, known: number, bit: number, test: (line: string) => boolean): boolean {
  const f = p.info[i * SLOTS + FACTS]!;
  if (f & known) return (f & bit) !== 0;
  const v = test(p.lines[i]!);
  p.info[i * SLOTS + FACTS] = f | known | (v ? bit : 0);
  return v;
}

const hasDigitText = (line: string): boolean => NUMBER_LINE.test(line);

/** Whether line `i` reports an error, an exception, a warning, a failure or an exit state. */
function isErr(p: Prepared, i: number): boolean {
  return lineFact(p, i, ERR_KNOWN, ERR, isErrorLine);
}

/** Whether line `i` holds a URL or a file path. */
function hasSpan(p: Prepared, i: number): boolean {
  return lineFact(p, i, SPAN_KNOWN, SPAN, hasUrlOrPath);
}

/** Whether line `i` holds a digit. */
function hasDigit(p: Prepared, i: number): boolean {
  return lineFact(p, i, DIGIT_KNOWN, DIGIT, hasDigitText);
}

/** Rank of line `i` by what it carries, before the first/last and table rules: 1 to 4. */
function rankOf(p: Prepared, i: number): number {
  return isErr(p, i) ? 1 : hasSpan(p, i) ? 2 : hasDigit(p, i) ? 3 : 4;
}

/** False when line `i` surely holds no URL or path (known so, or an error line, or no `/` nor `.` before a letter). */
function maySpan(p: Prepared, i: number): boolean {
  const f = p.info[i * SLOTS + FACTS]!;
  if ((f & ERR_KNOWN) !== 0 && (f & ERR) !== 0) return false;
  if ((f & SPAN_KNOWN) !== 0) return (f & SPAN) !== 0;
  if (mayHoldUrlOrPath(p.lines[i]!)) return true;
  p.info[i * SLOTS + FACTS] = f | SPAN_KNOWN; // surely none: hasUrlOrPath would say so too
  return false;
}

function sepsOf(p: Prepared, i: number): number {
  const k = p.info[i * SLOTS + SEPS]!;
  if (k > 0) return k - 1;
  const n = separators(p.lines[i]!);
  p.info[i * SLOTS + SEPS] = n + 1;
  return n;
}

/**
 * Whether line `i` is an inner row of a table: in a run of at least 4 consecutive lines with
 * the same non-zero separator count, not its header (first line), first row or last row. The
 * lines are cut into maximal runs of equal counts, so the run holding `i` is found by going
 * both ways from it; the answer is recorded for the whole run.
 */
function isInner(p: Prepared, i: number): boolean {
  const f = p.info[i * SLOTS + FACTS]!;
  if (f & INNER_KNOWN) return (f & INNER) !== 0;
  const n = sepsOf(p, i);
  if (n === 0) {
    p.info[i * SLOTS + FACTS] = f | INNER_KNOWN;
    return false;
  }
  let a = i;
  while (a > 0 && sepsOf(p, a - 1) === n) a--;
  let b = i + 1;
  while (b < p.lines.length && sepsOf(p, b) === n) b++;
  for (let k = a; k < b; k++) p.info[k * SLOTS + FACTS] = p.info[k * SLOTS + FACTS]! | INNER_KNOWN | (b - a >= 4 && k >= a + 2 && k < b - 1 ? INNER : 0);
  return (p.info[i * SLOTS + FACTS]! & INNER) !== 0;
}

/** Whether line `i` (neither the first nor the last) is of class `c` of the keeping order. */
function inClass(p: Prepared, i: number, c: number): boolean {
  if (i === p.exc) return false; // (it leads the order)
  if (c === 5) return isInner(p, i);
  // rankOf(p, i) === c, testing no fact past the one that settles it.
  const ranked = c === 1 ? isErr(p, i) : !isErr(p, i) && (c === 2 ? hasSpan(p, i) : !hasSpan(p, i) && (c === 3 ? hasDigit(p, i) : !hasDigit(p, i)));
  return ranked && !isInner(p, i);
}

/** Entry `k` of the keeping order, made as far as needed; -1 past its end. */
function orderAt(p: Prepared, k: number): number {
  const order = p.order;
  while (order.length <= k) {
    if (p.at < 1) {
      if (p.cls >= 5) {
        p.cls = 6;
        return -1;
      }
      p.cls++;
      p.at = p.lines.length - 2;
      continue;
    }
    const i = p.at--;
    if (inClass(p, i, p.cls)) order.push(i);
  }
  return order[k]!;
}

/**
 * `surelyOverToks(lines[i], n)`, each line's pieces scanned once for all the budgets asked (a
 * scan that reaches the line's end gives its piece count for any `n`).
 */
function surelyOver(p: Prepared, i: number, n: number): boolean {
  const f = p.info[i * SLOTS + FLOOR]!;
  if (f > 0) return f - 1 > n;
  if (f < 0 && -f > n) return true;
  const k = pieceFloor(p.lines[i]!, n);
  p.info[i * SLOTS + FLOOR] = k > n ? -k : k + 1;
  return k > n;
}

/**
 * Whether line `i` surely has more than `room` tokens: from what its `LEN` slot knows, else from
 * its pre-token pieces (`surelyOverToks`), recording a verdict of "over" there (the room only
 * shrinks within a cut, so the line is then passed over at once for the rest of it).
 */
function overRoom(p: Prepared, i: number, room: number): boolean {
  const known = p.info[i * SLOTS + LEN]!;
  if (known > 0) return known - 1 > room;
  if (known < 0 && -known >= room) return true;
  if (!surelyOver(p, i, room)) return false;
  p.info[i * SLOTS + LEN] = -room;
  return true;
}

/**
 * `min(lenToks(line), cap)`, counting no further than the cap needs (and recording what it
 * learns in the line's `LEN` slot). `cutting`: the line will be middle-cut to `cap` if over
 * it, so its end is encoded too when that may settle the count (the cut needs it anyway).
 */
function capLen(p: Prepared, i: number, cap: number, cutting = false): number {
  const known = p.info[i * SLOTS + LEN]!;
  if (known > 0) return Math.min(known - 1, cap);
  if (known < 0 && -known >= cap) return cap;
  const line = p.lines[i]!;
  // Most lines asked about are far over a small cap: their pre-token pieces alone tell. A line
  // short for the cap most likely fits it: it is counted whole at once (no front to test first).
  if (!surelyOver(p, i, cap) && (line.length <= 4 * cap || (cutting ? fitsToks(line, cap) : fitsToksFront(line, cap)))) {
    const n = lenToks(line);
    p.info[i * SLOTS + LEN] = n + 1;
    return Math.min(n, cap);
  }
  p.info[i * SLOTS + LEN] = -cap;
  return cap;
}

function lineSpans(p: Prepared, i: number): Array<{ start: number; text: string; tokens: number }> {
  let s = p.spans[i];
  if (s === undefined) {
    const line = p.lines[i]!;
    s = spansOf(line).map(([a, b]) => ({ start: a, text: line.slice(a, b), tokens: -1 }));
    p.spans[i] = s;
  }
  return s;
}

/**
 * The fewest characters each side of a line's middle cut keeps (white space aside): a side
 * shorter than this is a fragment (`0 … 07-11`, `<`, `configs. … .ipynb`) that tells less
 * than the line whole or another line, so such a cut is not used.
 */
export const MIN_SIDE = 12;

/** A run of characters other than white space longer than this (a hash, a long URL) may be cut inside. */
const CHUNK_REACH = 48;

const isWs = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0xa0 || c === 0x3000;
/** A character that belongs to the one before it (a combining mark or variation selector, a joiner). */
const EXTENDS = /^(?:\p{M}|\u200c|\u200d)/u;

/**
 * Where `cut` (a middle cut of `s` with {@link EVIDENCE_CUT_MARK}) splits `s`: the end of its head
 * and the start of its tail, or undefined when it is not `s`'s head, the mark and `s`'s tail.
 */
function cutSides(s: string, cut: string): [number, number] | undefined {
  const m = EVIDENCE_CUT_MARK;
  for (let h = cut.indexOf(m); h >= 0; h = cut.indexOf(m, h + 1)) {
    const tailLen = cut.length - h - m.length;
    const t = s.length - tailLen;
    if (t >= h && cut.startsWith(s.slice(0, h)) && cut.endsWith(s.slice(t))) return [h, t];
  }
  return undefined;
}

/**
 * The head end `h` and tail start `t` of a cut of `s` moved off the runs of characters other
 * than white space they split (to the run's start and end, for a run of at most
 * {@link CHUNK_REACH} units), then off the white space beside the mark: a date `1990-07-11`, a
 * mark `<TRUNCATED>`, a path or a number with its unit is kept or dropped whole.
 */
function chunkSides(s: string, h: number, t: number): [number, number] {
  const n = s.length;
  let a = h;
  if (a > 0 && a < n && !isWs(s.charCodeAt(a - 1)) && !isWs(s.charCodeAt(a))) {
    while (a > 0 && h - a <= CHUNK_REACH && !isWs(s.charCodeAt(a - 1))) a--;
    let e = h;
    while (e < n && e - a <= CHUNK_REACH && !isWs(s.charCodeAt(e))) e++;
    if (e - a > CHUNK_REACH) a = h;
  }
  while (a > 0 && isWs(s.charCodeAt(a - 1))) a--;
  let b = t;
  if (b > 0 && b < n && !isWs(s.charCodeAt(b - 1)) && !isWs(s.charCodeAt(b))) {
    let z = b;
    while (z > 0 && b - z <= CHUNK_REACH && !isWs(s.charCodeAt(z - 1))) z--;
    while (b < n && b - z <= CHUNK_REACH && !isWs(s.charCodeAt(b))) b++;
    if (b - z > CHUNK_REACH) b = t;
  }
  let k = b;
  while (k < n && isWs(s.charCodeAt(k))) k++;
  // A tail that would start with a character belonging to a blank before it keeps that blank.
  b = k < n && EXTENDS.test(s.slice(k, k + 2)) ? b : k;
  // A mark of the text's own beside the cut's (`validate_nb(nb): ... … returns`) goes with the
  // text removed: one mark shows.
  const hm = TOOL_MARK_END.exec(s.slice(Math.max(0, a - 8), a));
  if (hm !== null && a > hm[0].length) for (a -= hm[0].length; a > 0 && isWs(s.charCodeAt(a - 1)); ) a--;
  const tm = TOOL_MARK_START.exec(s.slice(b, b + 8));
  if (tm !== null && b + tm[0].length < n) for (b += tm[0].length; b < n && isWs(s.charCodeAt(b)); ) b++;
  return [a, Math.max(a, b)];
}

/** A mark of removed text that a text may hold of its own, at a piece's end or start: `…`, or three dots or more. */
const TOOL_MARK_END = /[ \t]*(?:…|\.{3,})$/;
const TOOL_MARK_START = /^(?:…|\.{3,})/;

/** Non-white-space length of `s` (the test of {@link MIN_SIDE}). */
function solidLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (!isWs(s.charCodeAt(i))) n++;
  return n;
}

/**
 * The middle cut of a line within `cap` tokens that keeps whole runs of characters other than
 * white space ({@link chunkSides}) and at least {@link MIN_SIDE} characters on each side of the
 * mark, with its token count; undefined when no such cut fits.
 */
function readableCut(
  line: string,
  cap: number,
  countedCut: EvidenceCutOptions['countedCut'],
  cut: NonNullable<EvidenceCutOptions['cut']>,
): { text: string; tokens: number } | undefined {
  const c = countedCut ? lineCut(countedCut, line, cap) : { text: cut(line, cap), tokens: -1 };
  const sides = cutSides(line, c.text);
  if (sides === undefined) return undefined;
  const [h, t] = chunkSides(line, sides[0], sides[1]);
  const head = line.slice(0, h);
  const tail = line.slice(t);
  if (solidLength(head) < MIN_SIDE || solidLength(tail) < MIN_SIDE) return undefined;
  if (h === sides[0] && t === sides[1] && c.tokens >= 0) return c;
  const text = head + EVIDENCE_CUT_MARK + tail;
  const tokens = lenToks(text);
  return tokens <= cap ? { text, tokens } : undefined;
}

/**
 * The longest start (`'head'`) or end (`'tail'`) of a line made of whole runs of characters
 * other than white space that has at most `cap` tokens and at least {@link MIN_SIDE} characters
 * other than white space, with its token count; undefined when there is none.
 */
function edgeCut(line: string, cap: number, edge: 'head' | 'tail'): { text: string; tokens: number } | undefined {
  let best: { text: string; tokens: number } | undefined;
  const n = line.length;
  const at = (k: number): number => line.charCodeAt(edge === 'head' ? k : n - 1 - k);
  let solid = 0;
  // Runs are added one at a time; each adds a token at least, so at most `cap + 1` are tried.
  for (let k = 0, tries = 0; tries <= cap; tries++) {
    while (k < n && isWs(at(k))) k++;
    while (k < n && !isWs(at(k))) {
      k++;
      solid++;
    }
    if (k >= n) break; // the whole line: not an end of it
    const text = edge === 'head' ? line.slice(0, k) : line.slice(n - k);
    if (edge === 'tail' && EXTENDS.test(text)) break;
    if (surelyOverToks(text, cap)) break;
    const tokens = lenToks(text);
    if (tokens > cap) break;
    if (solid >= MIN_SIDE) best = { text, tokens };
  }
  return best;
}

const TWO_DIGITS = /\d\d/;
const JOINT_START = /^¶ +/;
const JOINT_END = / +¶ *$/;

/** Budgets up to which a plain cut with a fragment on one side keeps only its other side. */
const ONE_SIDED_MAX = 64;

/**
 * The plain middle cut of the whole text `w` (a result line, its prefix included) within
 * `maxToks`: `cut`'s, moved off the runs of characters other than white space it splits
 * ({@link chunkSides}). When that leaves fewer than {@link MIN_SIDE} characters on one side
 * (`> … ()"`), and the budget is at most {@link ONE_SIDED_MAX}, the longest start of the text
 * that fits is kept with the mark instead (its end, when only the start is short or the last
 * line reports an error, and `prefix` is the plain `'> '`), should it hold that many; otherwise the moved cut, or `cut`'s own
 * when moving it would not fit. A joint between lines beside the mark is dropped with the text.
 */
function plainCut(w: string, maxToks: number, cut: NonNullable<EvidenceCutOptions['cut']>, prefix = '> '): string {
  const c = cut(w, maxToks);
  const sides = cutSides(w, c);
  if (sides === undefined) return c;
  let [h, t] = chunkSides(w, sides[0], sides[1]);
  // A joint between lines beside the mark goes with the text removed.
  const jh = JOINT_END.exec(w.slice(Math.max(0, h - 8), h));
  if (jh !== null) h -= jh[0].length;
  const jt = JOINT_START.exec(w.slice(t, t + 8));
  if (jt !== null && t + jt[0].length < w.length) t += jt[0].length;
  let moved = c;
  if (h !== sides[0] || t !== sides[1]) {
    const text = w.slice(0, h) + (t < w.length ? EVIDENCE_CUT_MARK : EVIDENCE_CUT_MARK.trimEnd()) + w.slice(t);
    if (lenToks(text) <= maxToks) moved = text;
  }
  // (A short side that holds a number of two digits or more is no fragment: it is kept.)
  const headShort = solidLength(w.slice(0, h)) < MIN_SIDE + solidLength(prefix) && !TWO_DIGITS.test(w.slice(prefix.length, h)); // the prefix aside
  const tailShort = solidLength(w.slice(t)) < MIN_SIDE && !TWO_DIGITS.test(w.slice(t));
  if ((!headShort && !tailShort) || maxToks > ONE_SIDED_MAX) return moved;
  const markToks = lenToks(EVIDENCE_CUT_MARK.trim());
  // The end is kept rather than the start when the start is short, or when the last line reports an error.
  // (Not past a prefix other than `> `: a media marker before the lines stays.)
  if (prefix === '> ' && (!tailShort || (!headShort && isErrorLine(w.slice(w.lastIndexOf(JOIN) + 1))))) {
    const lead = `>${EVIDENCE_CUT_MARK.trimEnd()} `;
    const e = edgeCut(w, maxToks - lenToks(lead), 'tail');
    // (A joint between lines at the cut goes with the text removed.)
    const text = e === undefined ? '' : lead + e.text.replace(JOINT_START, '');
    if (e !== undefined && lenToks(text) <= maxToks) return text;
    if (!tailShort) return moved;
  }
  const e = edgeCut(w, maxToks - markToks, 'head');
  // (a head that ends with a mark of its own gives it up for the cut's)
  const kept = e === undefined ? '' : e.text.replace(JOINT_END, '').replace(TOOL_MARK_END, '');
  const text = e === undefined ? '' : kept + EVIDENCE_CUT_MARK.trimEnd();
  return e !== undefined && lenToks(text) <= maxToks ? text : moved;
}

/** Options of {@link evidenceCut}. */
export interface EvidenceCutOptions {
  /** Put before the first line; default `'> '` (a result line). */
  prefix?: string;
  /**
   * The middle cut used for a long line and for the fallback, before its sides are moved off the
   * runs they split; default `truncToksMid`. It must join its head and tail with `' … '`.
   */
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
 *   pieces in their order, joined by `' ¶ '` or, where text was removed, by `' … '` (never two
 *   marks side by side); otherwise (fewer than two pieces fit) the plain middle cut of the whole,
 *   its runs kept whole and a fragment side given up for more of the other. Never over
 *   `maxToks` tokens.
 */
export function evidenceCut(text: string, maxToks: number, opts: EvidenceCutOptions = {}): string {
  if (maxToks <= 0) return '';
  return cutMemo(prepared(text, opts.prefix ?? '> ', undefined), maxToks, opts, false);
}

/**
 * (Internal: render.ts.) {@link evidenceCut}`(text, maxToks, opts)` with the default prefix
 * `'> '`, for a caller that has the text's lines already.
 * @param lines `text`'s non-blank lines, each stripped (`pyNonBlankLines(text)`).
 * @param whole `'> ' + lines.join(' ¶ ')`, or `'>'` for no lines; or a function giving it, called
 *   only when the text whole is needed (for a fit test, or a plain cut).
 * @param over true when the caller knows that `whole` has more than `maxToks` tokens (it is
 *   then not counted again).
 */
export function evidenceCutLines(
  text: string,
  lines: readonly string[],
  whole: string | (() => string),
  maxToks: number,
  opts: Omit<EvidenceCutOptions, 'prefix'> = {},
  over = false,
): string {
  if (maxToks <= 0) return '';
  if (lines.length < 2 || maxToks < MIN_EVIDENCE) {
    // The plain cut (or the text whole) of cutPrepared, without preparing the lines.
    const w = typeof whole === 'string' ? whole : whole();
    return !over && fitsToks(w, maxToks) ? w : plainCut(w, maxToks, opts.cut ?? truncToksMid);
  }
  return cutMemo(prepared(text, '> ', { lines, whole }), maxToks, opts, over);
}

/**
 * {@link cutPrepared}, looked up when the text was cut at this budget with the same cut functions
 * before (`over` only spares a fit test whose answer it gives: the cut does not depend on it).
 */
function cutMemo(prep: Prepared, maxToks: number, opts: EvidenceCutOptions, over: boolean): string {
  if (prep.cuts === undefined || prep.cutWith !== opts.cut || prep.countedWith !== opts.countedCut) {
    prep.cuts = new Map();
    prep.cutWith = opts.cut;
    prep.countedWith = opts.countedCut;
  }
  let out = prep.cuts.get(maxToks);
  if (out === undefined) {
    out = cutPrepared(prep, maxToks, opts, over);
    prep.cuts.set(maxToks, out);
  }
  return out;
}

/** The cut of {@link evidenceCut} for a prepared text, with a positive budget; `over`: the whole is known not to fit. */
function cutPrepared(prep: Prepared, maxToks: number, opts: EvidenceCutOptions, over: boolean): string {
  const prefix = opts.prefix ?? '> ';
  const cut = opts.cut ?? truncToksMid;
  const countedCut = opts.countedCut;
  const { lines } = prep;
  const whole = (): string => {
    const w = prep.whole;
    return typeof w === 'string' ? w : (prep.whole = w());
  };
  if (!over && fitsToks(whole(), maxToks)) return whole();
  // The plain middle cut of the whole, made only when it is the answer (a long text costs to cut).
  const plain = (): string => plainCut(whole(), maxToks, cut, prefix);
  // Below MIN_EVIDENCE tokens pieces would be cut to a few tokens each: the plain cut reads better.
  if (lines.length < 2 || maxToks < MIN_EVIDENCE) return plain();
  // A kept line may take at most a quarter of the budget, a last line that reports an error two
  // fifths, so the first and last lines leave room for evidence between them.
  const last = lines.length - 1;
  const capOf = (i: number): number => Math.max(4, Math.floor(i === prep.exc || (i === last && isErr(prep, i)) ? (maxToks * 2) / 5 : maxToks / 4));
  const chosen: Unit[] = [];
  const shown = (t: string): boolean => chosen.some((u) => u.text.includes(t));
  let used = lenToks(prefix) + 1; // the prefix and a closing mark
  const take = (u: Unit): boolean => {
    if (used + u.tokens + 1 > maxToks || shown(u.text)) return false;
    used += u.tokens + 1; // the piece and its joint
    chosen.push(u);
    return true;
  };
  // The URLs and paths of line `i` that fit, each within `lineCap`.
  const takeSpans = (i: number, lineCap: number): void => {
    if (used + 2 > maxToks) return;
    for (const s of lineSpans(prep, i)) {
      // A span surely over its share or the room left is not taken: it need not be counted.
      if (s.tokens < 0) {
        if (surelyOverToks(s.text, Math.min(lineCap, maxToks - used - 1))) continue;
        s.tokens = lenToks(s.text);
      }
      if (s.tokens <= lineCap) take({ line: i, start: s.start, whole: false, text: s.text, tokens: s.tokens });
    }
  };
  // One entry of the keeping order: take the line, its spans or its middle cut if they fit.
  const consider = (i: number): void => {
    const line = lines[i]!;
    const lineCap = capOf(i);
    const spanning = i !== 0 && i !== last && rankOf(prep, i) === 2;
    // A line that cannot be cut into its spans is taken only within the room left: its count
    // is needed no further than one past the room (the same choice, with less counting).
    const room = maxToks - used - 1;
    if (!spanning && room < lineCap) {
      if (capLen(prep, i, room + 1) > room) return;
      take({ line: i, start: 0, whole: true, text: line, tokens: capLen(prep, i, room + 1) });
      return;
    }
    const n = capLen(prep, i, lineCap, !spanning && used + lineCap + 1 <= maxToks);
    // capLen has left in the line's LEN slot its exact count plus one, or minus a cap of at least lineCap it exceeds.
    const known = prep.info[i * SLOTS + LEN]!;
    const fits = known > 0 && known - 1 <= lineCap;
    // A long line with URLs or paths keeps those rather than its two ends (not the first and last
    // lines, whose ends say what the output is and how it ended).
    if (!fits && spanning) {
      takeSpans(i, lineCap);
      return;
    }
    // A cut line has at most lineCap tokens: cut it only when that much is left.
    if (used + n + 1 > maxToks) return;
    if (fits) {
      take({ line: i, start: 0, whole: true, text: line, tokens: n });
      return;
    }
    // An exception line is kept whole within twice its share, else keeps its start: the
    // exception's name and the message's first words (`ValueError: time data
    // "2024-03-17T09:41:05" doesn't match …`), not its two ends.
    if (i === prep.exc) {
      const roomX = Math.min(maxToks - used - 1, 2 * lineCap);
      if (capLen(prep, i, roomX + 1) <= roomX) {
        take({ line: i, start: 0, whole: true, text: line, tokens: capLen(prep, i, roomX + 1) });
        return;
      }
      const e = edgeCut(line, Math.min(lineCap, maxToks - used - 1), 'head');
      if (e !== undefined) {
        take({ line: i, start: 0, whole: false, edge: 'head', text: e.text, tokens: e.tokens });
        return;
      }
    }
    const c = readableCut(line, lineCap, countedCut, cut);
    if (c !== undefined) {
      take({ line: i, start: 0, whole: true, text: c.text, tokens: c.tokens });
      return;
    }
    // A cut too short to read: the line whole when it fits the room and twice its share, else
    // its URLs and paths (the first and last lines too), else nothing.
    const room2 = Math.min(maxToks - used - 1, 2 * lineCap);
    if (capLen(prep, i, room2 + 1) <= room2) {
      take({ line: i, start: 0, whole: true, text: line, tokens: capLen(prep, i, room2 + 1) });
      return;
    }
    // The first line keeps its start, the last its end (its start when it reports an error).
    if (i === 0 || i === last) {
      const edge = i === 0 || isErr(prep, i) ? 'head' : 'tail';
      const e = edgeCut(line, Math.min(lineCap, maxToks - used - 1), edge);
      if (e !== undefined) {
        take({ line: i, start: edge === 'head' ? 0 : line.length - e.text.length, whole: false, edge, text: e.text, tokens: e.tokens });
        return;
      }
    }
    if (hasSpan(prep, i)) takeSpans(i, lineCap);
  };
  // Every entry after the leading ones (the exception line, the last and the first lines) is an
  // inner line, whose cap is a quarter of the budget. Once the room left is below that cap, such a line is taken only when it fits the
  // room whole or holds a URL or path; the room only shrinks, so a line surely over the room and
  // without one is passed over wherever the order puts it, and need not be classed at all.
  const innerCap = Math.max(4, Math.floor(maxToks / 4));
  const passed = (i: number, room: number): boolean => overRoom(prep, i, room) && !maySpan(prep, i);
  let k = 0;
  for (; ; k++) {
    if (used + 2 > maxToks) break; // no piece costs less than itself and a joint
    if (k >= prep.lead && maxToks - used - 1 < innerCap) break;
    const i = orderAt(prep, k);
    if (i < 0) break;
    consider(i);
  }
  if (k >= prep.lead && used + 2 <= maxToks && maxToks - used - 1 < innerCap) {
    // The rest of the order: the entries made already, then its making continued here, skipping
    // the lines passed over (the order kept in `prep` stays whole for other budgets).
    for (; k < prep.order.length && used + 2 <= maxToks; k++) {
      const i = prep.order[k]!;
      if (!passed(i, maxToks - used - 1)) consider(i);
    }
    for (let c = prep.cls, at = prep.at; c <= 5 && used + 2 <= maxToks; c++, at = last - 1) {
      for (let i = at; i >= 1 && used + 2 <= maxToks; i--) {
        if (!passed(i, maxToks - used - 1) && inClass(prep, i, c)) consider(i);
      }
    }
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
