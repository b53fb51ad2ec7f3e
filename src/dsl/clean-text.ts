/**
 * Prose under a token budget in the clean profile: a grapheme-safe middle cut
 * (`graphemes.ts`) whose seams and ends leave no code fence open or orphaned
 * (`fences-repair.ts`), and delimiters (`§`, `»`) that never sit on a fence's line.
 */
import { fitsToks, lenToks } from '../tokens/index.js';
import { fitLike, noteCount, spliceToks } from '../tokens/splice.js';
import { cleanTruncMid, type CutSpans, cutSpans, markWithin } from './graphemes.js';
import { closeOpenFence, type FenceStart, joinCutParts, lastLineLooksLikeFence, looksLikeFenceInside, needsMending, openFenceAtEnd } from './fences-repair.js';

const CUT_MARK = ' … ';

/** Options of {@link cleanProse}. */
export interface CleanProseOptions {
  /** Sigil written before and after the text (`'§'`, `'»'`), or `null` for bare text. */
  mark?: string | null;
  /**
   * Close a fence the text leaves open at its end even when nothing is cut (a fence the text
   * itself never closed). Cut text is always closed.
   */
  balance?: boolean;
}

/**
 * `text` within `maxToks` tokens, cut in the middle when it does not fit. With a mark the
 * rendering is `mark + ' ' + text + ' ' + mark` (as `compactText`), except that a mark is put
 * on a line of its own where it would otherwise share a line with a fence (which would stop
 * the fence from opening or closing). A cut keeps whole grapheme clusters, closes a fence the
 * head leaves open, reopens one the tail starts inside, and closes what is left open at the
 * end. Budget 0 gives `''`; a budget too small for any text gives the cut mark alone (or as
 * much of it as fits). The result always fits `maxToks`.
 */
export function cleanProse(text: string, maxToks: number, opts: CleanProseOptions = {}): string {
  if (maxToks <= 0) return '';
  const mark = opts.mark ?? null;
  // Without a run of three backticks or tildes the text has no fence line, nor has any cut
  // of it (the mark holds neither character): no fence to mend or keep off a mark's line; and
  // without `<!`, `<?` or a raw-text tag no HTML block that a cut could leave open.
  const fenced = needsMending(text);
  const pre = mark === null ? '' : mark + (fenced && looksLikeFenceInside(text) ? '\n' : ' ');
  const suf = (t: string): string => (mark === null ? '' : (fenced && lastLineLooksLikeFence(t) ? '\n' : ' ') + mark);
  // The text's blocks are read where the mark leaves it: on the mark's line (`» text`), on the
  // line after the mark's paragraph (`»\ntext`), or at the start of a document.
  const start: FenceStart = mark === null ? 'fresh' : pre.endsWith('\n') ? 'para' : 'inline';
  const whole = opts.balance && fenced ? closeOpenFence(text, start) : text;
  const close = suf(whole);
  const full = pre + whole + close;
  // Counts of texts made from `text` come from its encoded pieces and the seams (splice.ts).
  const fits = fitLike(text, whole, maxToks, pre, close);
  if (fits !== null) return fits;
  const markToks = lenToks(CUT_MARK);
  const fixed = lenToks(pre) + (mark === null ? 0 : lenToks(` ${mark}`));
  // The cut of `text` to `spans` with its repairs, rendered, and its tokens; null when it keeps
  // nothing but blanks and fence lines beside the mark (the delimiters alone say as much).
  const attempt = (spans: CutSpans): { out: string; n: number } | null => {
    const parts = fenced ? joinCutParts(text, spans.head, spans.tail, start) : { head: spans.head, mid: CUT_MARK, tail: spans.tail };
    if (onlyBlankOrFenceLines(text, 0, parts.head) && onlyBlankOrFenceLines(text, parts.tail, text.length)) return null;
    // A cut inside an inline code span closes it on the head's side and opens it again on the
    // tail's (`\`fastcore.tr\` … \`ansform\``), so no backtick pairs with the wrong one.
    // A side that keeps none of the span's text drops its backticks instead (no empty span).
    // Strong emphasis (`**`) is mended the same way.
    if (parts.mid === CUT_MARK) {
      let close = '';
      let open = '';
      // The code span first (it may lie inside the emphasis), then the emphasis.
      for (const at of [spanAt, strongAt]) {
        const h = at(text, parts.head);
        // (a delimiter written next to one of its own characters would merge with it: dropped instead)
        if (h !== null && (parts.head <= h.open + h.delim.length || text[parts.head - 1] === h.delim[0])) {
          parts.head = h.open;
          while (parts.head > 0 && isBlankAt(text, parts.head - 1)) parts.head--;
          close = '';
        } else if (h !== null) close += h.delim;
        const t = at(text, parts.tail);
        if (t !== null && (parts.tail >= t.close || text[parts.tail] === t.delim[0])) {
          parts.tail = t.close + t.delim.length;
          while (parts.tail < text.length && isBlankAt(text, parts.tail)) parts.tail++;
          open = '';
        } else if (t !== null) open = t.delim + open;
      }
      parts.mid = close + CUT_MARK + open;
    }
    // An empty side next to a delimiter: the delimiter's space stands for the mark's.
    if (parts.mid === CUT_MARK) {
      if (parts.head === 0 && pre.endsWith(' ')) parts.mid = parts.mid.slice(1);
      if (parts.tail === text.length && mark !== null) parts.mid = parts.mid.slice(0, -1);
    }
    const joined = text.slice(0, parts.head) + parts.mid + text.slice(parts.tail);
    const body = fenced ? closeOpenFence(joined, start) : joined;
    const end = suf(body);
    // Counted as the splice of `text` it is, a closing line appended at the end before the
    // suffix (without mending, the cut's seams are the ones its fit check has just counted).
    const closer = body.length === joined.length ? '' : body.slice(joined.length);
    const n = spliceToks(text, parts.head, parts.mid, parts.tail, Number.MAX_SAFE_INTEGER, pre, closer + end);
    return { out: pre + body + end, n };
  };
  // The fullest cut that fits so far (by its tokens), and how often a cut that left much of
  // the budget unused (whole lines of code kept, partial ones dropped) was tried again larger.
  let best: { out: string; n: number } | null = null;
  let regrows = 0;
  // The inner budget of the last cut that fitted, and of a larger one tried after it that did
  // not fit (0 for none).
  let fitted = 0;
  let over = 0;
  const b0 = maxToks - fixed;
  let b = b0;
  for (let tries = 0; b > markToks && tries < 16; tries++) {
    let spans = cutSpans(text, b, CUT_MARK, undefined, true);
    if (spans === null) {
      // The text fits `b` but not with the fence repairs: cut it anyway, a little shorter.
      b = Math.min(b - 1, lenToks(text) - 1);
      spans = b > markToks ? cutSpans(text, b, CUT_MARK, undefined, true) : null;
      if (spans === null) break;
    }
    if (spans.head === 0 && spans.tail === text.length) break;
    const r = attempt(spans);
    if (r === null) break;
    const n = r.n;
    if (n <= maxToks) {
      if (best === null || n > best.n) best = r;
      if (maxToks - n < REGROW_SLACK || regrows >= REGROWS) break;
      regrows++;
      fitted = b;
      b += maxToks - n;
      continue;
    }
    if (best !== null) {
      over = b; // a larger try that does not fit: searched below
      break;
    }
    b -= Math.max(1, n - maxToks);
  }
  // Between the last budget that fitted and a larger one that did not (a word or a code span
  // kept whole past a larger budget's cut can overshoot by more than that budget added), the
  // budgets are searched by halves, and the fullest cut that fits stands.
  for (let lo = fitted, hi = maxToks <= BISECT_MAX ? over : 0, tries = 0; hi - lo > 1 && tries < BISECT_TRIES; tries++) {
    const mid = (lo + hi) >> 1;
    const spans = cutSpans(text, mid, CUT_MARK, undefined, true);
    const r = spans === null ? null : spans.head === 0 && spans.tail === text.length ? undefined : attempt(spans);
    if (r === null || (r !== undefined && r.n > maxToks)) hi = mid;
    else {
      if (r !== undefined && (best === null || r.n > best.n)) best = r;
      lo = mid;
    }
  }
  // A cut that leaves much of its budget unused (a word, a code span or fence lines dropped
  // whole beside the mark) may keep more at a slightly smaller budget, whose cut falls elsewhere.
  if (maxToks <= BISECT_MAX && (best === null || maxToks - best.n >= REGROW_SLACK)) {
    for (let d = 1; d <= LOWER_TRIES && b0 - d > markToks; d++) {
      const spans = cutSpans(text, b0 - d, CUT_MARK, undefined, true);
      if (spans === null || (spans.head === 0 && spans.tail === text.length)) continue;
      const r = attempt(spans);
      if (r !== null && r.n <= maxToks && (best === null || r.n > best.n)) best = r;
    }
  }
  if (best !== null) {
    noteCount(best.out, best.n); // compacting the result again counts it once more
    return best.out;
  }
  // No room for text beside the delimiters: the delimiters around the cut mark (`§ … §`), so a
  // piece keeps its marks and never holds a broken fence; without delimiters, the plain
  // grapheme-safe cut if it leaves no fence open.
  if (mark !== null) {
    const bare = `${mark}${CUT_MARK}${mark}`;
    // (Too small for that: nothing, never a mark without its sigils, which reads as any piece's.)
    return fitsToks(bare, maxToks) ? bare : '';
  }
  const tiny = cleanTruncMid(full, maxToks, CUT_MARK);
  return openFenceAtEnd(tiny) === null ? tiny : markWithin(CUT_MARK, maxToks);
}

/** Unused tokens from which a cut that fits is tried again with a budget that much larger. */
const REGROW_SLACK = 4;
/** How often at most. */
const REGROWS = 2;
/** How many budgets below the first a cut that leaves {@link REGROW_SLACK} tokens unused tries too. */
const LOWER_TRIES = 2;
/**
 * Budgets (tokens) up to which the budgets between one that fitted and a larger one that did
 * not are searched, and the two below the first tried when a cut leaves much unused.
 */
const BISECT_MAX = 64;
/** How many budgets at most are tried between one that fitted and a larger one that did not. */
const BISECT_TRIES = 8;

/** Lines longer than this (UTF-16 units) are not read for code spans. */
const SPAN_LINE = 4000;

/**
 * The line of `s` that holds a cut at offset `at` (inside the text), as [start, end), or
 * `null` at either end of the text or for a line of more than {@link SPAN_LINE} units.
 */
function lineAround(s: string, at: number): [number, number] | null {
  if (at <= 0 || at >= s.length) return null;
  const ls = s.lastIndexOf('\n', at - 1) + 1;
  let le = s.indexOf('\n', at);
  if (le < 0) le = s.length;
  return le - ls > SPAN_LINE ? null : [ls, le];
}

/** Is `s[i]` a space or a tab? */
function isBlankAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c === 0x20 || c === 0x09;
}

/** An inline span a cut falls inside: its opening delimiter's offset, its closing one's, and the delimiter. */
interface Inline {
  open: number;
  close: number;
  delim: string;
}

/**
 * The strong emphasis (`**…**`) that a cut at offset `at` of `s` falls inside, read loosely on
 * the line holding `at`: the line has an even number of `**` and an odd number before `at`.
 * `null` otherwise, and for a line of more than {@link SPAN_LINE} units.
 */
function strongAt(s: string, at: number): Inline | null {
  const line = lineAround(s, at);
  if (line === null) return null;
  const [ls, le] = line;
  const first = s.indexOf('**', ls);
  if (first < 0 || first >= le) return null;
  const spans = codeSpans(s, ls, le);
  let before = 0;
  let after = 0;
  let open = -1;
  let close = -1;
  let span = 0;
  for (let i = first; i < le; ) {
    while (span < spans.length && spans[span]![1] <= i) span++;
    if (span < spans.length && spans[span]![0] <= i) {
      i = spans[span]![1]; // inside a code span: not emphasis
      continue;
    }
    if (s.charCodeAt(i) !== 0x2a) {
      i++;
      continue;
    }
    let j = i;
    while (j < le && s.charCodeAt(j) === 0x2a) j++;
    if (j - i === 2) {
      // (only a run of exactly two stars; `***` and longer are not read)
      if (j <= at) {
        before++;
        open = i;
      } else if (i >= at) {
        if (after === 0) close = i;
        after++;
      } else return null; // the cut splits a `**`
    }
    i = j;
  }
  return before % 2 === 1 && after % 2 === 1 ? { open, close, delim: '**' } : null;
}

/**
 * The inline code span that a cut at offset `at` of `s` falls inside (`open`: its opening
 * run's offset, `close`: its closing run's, `delim`: the run of backticks), or `null`:
 * the line holding `at` is read as CommonMark pairs code spans (a run of backticks opens one,
 * the next run of the same length closes it, unpaired runs are text). A line of more than
 * {@link SPAN_LINE} units is not read; spans across lines are not seen.
 */
/** The code spans of the line `s[ls, le)`, as [start of the opening run, end of the closing run), in order. */
function codeSpans(s: string, ls: number, le: number): [number, number][] {
  const runs: [number, number][] = [];
  const tick = s.indexOf('`', ls);
  for (let i = tick < 0 ? le : tick; i < le; ) {
    if (s.charCodeAt(i) !== 0x60) {
      i++;
      continue;
    }
    let j = i;
    while (j < le && s.charCodeAt(j) === 0x60) j++;
    runs.push([i, j - i]);
    i = j;
  }
  const out: [number, number][] = [];
  for (let k = 0; k < runs.length; k++) {
    const [a, n] = runs[k]!;
    let m = k + 1;
    while (m < runs.length && runs[m]![1] !== n) m++;
    if (m >= runs.length) continue; // unpaired: text
    out.push([a, runs[m]![0] + n]);
    k = m;
  }
  return out;
}

function spanAt(s: string, at: number): Inline | null {
  const line = lineAround(s, at);
  if (line === null) return null;
  const [ls, le] = line;
  for (const [a, e] of codeSpans(s, ls, le)) {
    if (a >= at) return null;
    if (at < e) {
      let n = 0;
      while (s.charCodeAt(a + n) === 0x60) n++;
      return { open: a, close: e - n, delim: '`'.repeat(n) };
    }
  }
  return null;
}

/** A line that is blank or a fence line (three backticks or tildes after blanks). */
const BLANK_OR_FENCE = /^[ \t]*(?:```|~~~|\r?$)/;

/** Whether every line of `s.slice(from, to)` (an empty range included) is blank or a fence line. */
function onlyBlankOrFenceLines(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; ) {
    let e = s.indexOf('\n', i);
    if (e < 0 || e > to) e = to;
    if (!BLANK_OR_FENCE.test(s.slice(i, e))) return false;
    i = e + 1;
  }
  return true;
}

/** A line made only of 🧠 (Solveit's thinking indicator), variation selectors and whitespace. */
const THINKING_LINE = /^(?:\s|\uFE0F)*\u{1F9E0}(?:\s|\uFE0F|\u{1F9E0})*$/u;

/** Is `line` a thinking-indicator line (only 🧠 and whitespace)? */
export function isThinkingLine(line: string): boolean {
  return THINKING_LINE.test(line);
}

/**
 * `text` without its thinking-indicator lines (lines made only of 🧠 and whitespace), so they
 * spend no prose budget. Other lines, and their line breaks, are kept as they are.
 */
export function dropThinkingLines(text: string): string {
  if (!text.includes('\u{1F9E0}')) return text;
  const lines = text.split('\n');
  const kept = lines.filter((l) => !isThinkingLine(l));
  return kept.length === lines.length ? text : kept.join('\n');
}
