/**
 * The reply wire format (SPEC §6): the Markdown an AI reply is stored as inside a prompt cell,
 * with each tool call written as a fenced JSON block, and its conversion to and from canonical
 * messages.
 *
 * Pipeline of {@link fmt2hist} (it mirrors how the conformance data were produced — the Python
 * reference run on the output of `conv_tools`, see `conformance/README.md`):
 *
 * 1. {@link convTools}: legacy envelopes (`<details class='tool-usage-details'>` HTML blocks,
 *    pandoc `::: {.details .tool-usage-details}` divs and their `token-usage-details`
 *    counterparts) become current ```` ```json {.tool} ```` / ```` ```json {.usage} ```` blocks.
 * 2. Usage blocks are removed, then `<!--think_start-->…<!--think_end-->` spans.
 * 3. {@link scanFences} finds the tool blocks; the text between them and the blocks are
 *    walked into assistant / tool messages ({@link parseToolBlocks} exposes that walk's input).
 * 4. Assistant texts are split at ```` `````result ```` fences; a history ending with a tool
 *    message gets a final assistant text `.`.
 *
 * Offsets reported by this module are JS string indices (UTF-16 code units), so they can be
 * used with `String.prototype.slice` directly; the reference counts code points, but it only
 * ever uses these offsets to cut the same string, which gives the same pieces.
 *
 * Everything here is linear in the size of the reply: line tables are built once, searches
 * resume where the previous one stopped, and no regular expression can backtrack.
 */
import { InvalidArgumentError } from '../errors.js';
import { isJsonObject, isLosslessNumber, parseJson } from '../python/json.js';
import type { Msg, Part, ToolResultPart, ToolUsePart } from './message.js';
import { isPyWhitespace, pyDumps, pyStr, pyStrip } from '../python/py.js';

/** The separator between a prompt's question and its reply inside a prompt cell (SPEC §0). */
export const REPLY_SEPARATOR = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

/** Info string of a current-form tool block (SPEC §6). */
export const TOOL_INFO = 'json {.tool}';
/** Info string of a current-form usage block (SPEC §6). */
export const USAGE_INFO = 'json {.usage}';

const THINK_START = '<!--think_start-->';
const THINK_END = '<!--think_end-->';
const RESULT_OPEN = '\n`````result\n';
const RESULT_CLOSE = '\n`````\n';

/**
 * A fenced block found by {@link scanFences}.
 *
 * - `info`: the opening line after its backticks, Python-stripped (`'json {.tool}'`).
 * - `body`: the lines between the opening and the closing line, line breaks included (so a
 *   non-empty body normally ends with a line break).
 * - `start`: offset of the first backtick of the opening line (a line start).
 * - `end`: offset just past the closing line's last character, before its line break (if
 *   any); `text.slice(start, end)` is the whole block.
 *
 * Offsets are UTF-16 code-unit indices into the scanned string.
 */
export interface Fence {
  info: string;
  body: string;
  start: number;
  end: number;
}

// ---------------------------------------------------------------------------------------------
// Lines

/**
 * The text cut into Python lines (`str.splitlines(keepends=True)` semantics) as offsets only,
 * so that a multi-megabyte reply costs two number arrays rather than a string per line.
 */
interface Lines {
  text: string;
  /** Number of lines. */
  n: number;
  /** offs[i] = start of line i; offs[n] = text.length. */
  offs: number[];
  /** cend[i] = end of line i's content, before its line break. */
  cend: number[];
}

// Line breaks other than `\n` (Python's splitlines also breaks at these).
const OTHER_BREAK = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const ANY_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

// One-entry cache: fmt2hist usually cuts the same string into lines two or three times.
let cachedText: string | null = null;
let cachedLines: Lines | null = null;

function lineTable(text: string): Lines {
  if (cachedLines !== null && cachedText === text) return cachedLines;
  const offs: number[] = [];
  const cend: number[] = [];
  const len = text.length;
  let start = 0;
  if (!OTHER_BREAK.test(text)) {
    // only \n: native search
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      offs.push(start);
      cend.push(i);
      start = i + 1;
    }
  } else {
    const re = ANY_BREAK;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      offs.push(start);
      cend.push(m.index);
      start = m.index + m[0].length;
    }
  }
  if (start < len) {
    offs.push(start);
    cend.push(len);
  }
  const n = offs.length;
  offs.push(len);
  cachedText = text;
  cachedLines = { text, n, offs, cend };
  return cachedLines;
}

/** Line i's content (without its break). */
function lineAt(t: Lines, i: number): string {
  return t.text.slice(t.offs[i], t.cend[i]);
}

/** True when `text[a, b)` holds only Python whitespace. */
function blankRange(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (!isPyWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/** True when `s` holds only Python whitespace (all of which is in the BMP). */
function isBlank(s: string): boolean {
  return blankRange(s, 0, s.length);
}

/** Number of backticks line i starts with. */
function tickRun(t: Lines, i: number): number {
  const { text } = t;
  const end = t.cend[i];
  let k = t.offs[i];
  while (k < end && text.charCodeAt(k) === 0x60) k++;
  return k - t.offs[i];
}

/** A fence in line coordinates: opening line, closing line, backtick count, info. */
interface LineFence {
  open: number;
  close: number;
  ticks: number;
  info: string;
}

/** Result of the line scan: closed fences in order, and the line of an unclosed opener. */
interface FenceScan {
  fences: LineFence[];
  /** Line index of an opener that never closes (nothing after it is scanned), or -1. */
  unclosed: number;
}

/**
 * The SPEC §6 fence rules over a line table: a line starting (column 0) with 3+ backticks
 * opens a block (info = rest of the line stripped); a later line starting with at least as
 * many backticks and holding only whitespace after them closes it. No nesting; an opener
 * without a closing line ends the scan.
 */
function scanLineFences(t: Lines): FenceScan {
  const { text, n, offs, cend } = t;
  const fences: LineFence[] = [];
  let i = 0;
  while (i < n) {
    const ticks = tickRun(t, i);
    if (ticks < 3) {
      i++;
      continue;
    }
    const info = pyStrip(text.slice(offs[i] + ticks, cend[i]));
    let j = i + 1;
    for (; j < n; j++) {
      if (text.charCodeAt(offs[j]) !== 0x60) continue;
      const k = tickRun(t, j);
      if (k >= ticks && blankRange(text, offs[j] + k, cend[j])) break;
    }
    if (j >= n) return { fences, unclosed: i };
    fences.push({ open: i, close: j, ticks, info });
    i = j + 1;
  }
  return { fences, unclosed: -1 };
}

function toFence(t: Lines, f: LineFence): Fence {
  return {
    info: f.info,
    body: t.text.slice(t.offs[f.open + 1], t.offs[f.close]),
    start: t.offs[f.open],
    end: t.cend[f.close],
  };
}

/**
 * Find the fenced code blocks of a Markdown text (SPEC §6, "fenced-block scan").
 *
 * The text is walked by Python lines (`str.splitlines(keepends=True)`, so `\r`, `\r\n`,
 * U+2028 … all end lines). A line that starts at column 0 with three or more backticks opens a
 * block; its info string is the rest of the line, Python-stripped. Inside, the first line that
 * starts with at least as many backticks followed only by whitespace closes it. Blocks do not
 * nest (a shorter or info-carrying backtick line inside is body text); an opener that is never
 * closed is not a block, and nothing after it is scanned.
 *
 * @param text any string (a reply, a note).
 * @returns the closed blocks in order, as {@link Fence}s with UTF-16 offsets.
 * @throws InvalidArgumentError if `text` is not a string.
 */
export function scanFences(text: string): Fence[] {
  if (typeof text !== 'string') throw new InvalidArgumentError(`scanFences: text must be a string, got ${typeof text}`);
  const t = lineTable(text);
  return scanLineFences(t).fences.map((f) => toFence(t, f));
}

// ---------------------------------------------------------------------------------------------
// Legacy envelopes -> current blocks (convTools)

const HTML_TOOL = "<details class='tool-usage-details'";
const HTML_TOKEN = "<details class='token-usage-details'";
const MD_ATTR = " markdown='1'";
const DIV_TOOL = '::: {.details .tool-usage-details}';
const DIV_TOKEN = '::: {.details .token-usage-details}';
const DETAILS_CLOSE = '</details>';
const SUMMARY_OPEN = '<summary>';
const SUMMARY_CLOSE = '</summary>';

/** Helpers over one text for envelope matching; every lookup is amortised O(1) or O(log n). */
class EnvelopeContext {
  readonly fenceAt = new Map<number, LineFence>();
  /** Parsed legacy records by fence line (see `legacyRecord`). */
  readonly records = new Map<number, { fence: LineFence; rec: Record<string, unknown> } | null>();
  readonly stop: number;
  private readonly blank: Uint8Array;
  private readonly nextNonBlankIdx: Int32Array;
  private readonly nextFenceIdx: Int32Array;
  private lastFrom = -1;
  private lastHit = -1;

  constructor(readonly t: Lines, scan: FenceScan) {
    const n = t.n;
    for (const f of scan.fences) this.fenceAt.set(f.open, f);
    this.stop = scan.unclosed < 0 ? n : scan.unclosed;
    this.blank = new Uint8Array(n);
    this.nextNonBlankIdx = new Int32Array(n + 1);
    this.nextFenceIdx = new Int32Array(n + 1);
    this.nextNonBlankIdx[n] = n;
    this.nextFenceIdx[n] = n;
    for (let i = n - 1; i >= 0; i--) {
      this.blank[i] = blankRange(t.text, t.offs[i], t.cend[i]) ? 1 : 0;
      this.nextNonBlankIdx[i] = this.blank[i] ? this.nextNonBlankIdx[i + 1] : i;
      this.nextFenceIdx[i] = this.fenceAt.has(i) ? i : this.nextFenceIdx[i + 1];
    }
  }

  /** First non-blank line at or after `i` (`n` if none). */
  nextNonBlank(i: number): number {
    return i >= this.t.n ? this.t.n : this.nextNonBlankIdx[i];
  }

  /** First line at or after `i` that opens a (closed) fence (`n` if none). */
  nextFence(i: number): number {
    return i >= this.t.n ? this.t.n : this.nextFenceIdx[i];
  }

  /** Offset of the first `</summary>` at or after `from`, or -1; searches resume (linear overall). */
  summaryClose(from: number): number {
    if (this.lastFrom >= 0 && from >= this.lastFrom && (this.lastHit < 0 || this.lastHit >= from)) return this.lastHit;
    this.lastFrom = from;
    this.lastHit = this.t.text.indexOf(SUMMARY_CLOSE, from);
    return this.lastHit;
  }

  /** Index of the line containing offset `o`. */
  lineOf(o: number): number {
    const { offs } = this.t;
    let lo = 0;
    let hi = this.t.n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offs[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The line's text without its break. */
  content(i: number): string {
    return lineAt(this.t, i);
  }
}

/** A matched legacy envelope: the span it covers and its current-form replacement. */
interface Envelope {
  start: number;
  end: number;
  /** Line to continue scanning at. */
  next: number;
  replacement: string;
}

/**
 * Match an HTML `<summary>…</summary>` starting at offset `at` (which must hold `<summary>`):
 * the text after `</summary>` on its line must be blank, and the summary must end before the
 * next fence opener. Returns the summary text and the line after it, or null.
 */
function matchSummary(cx: EnvelopeContext, at: number, atLine: number): { summary: string; after: number } | null {
  const close = cx.summaryClose(at + SUMMARY_OPEN.length);
  if (close < 0) return null;
  const line = cx.lineOf(close);
  if (line >= cx.stop || line >= cx.nextFence(atLine)) return null;
  if (!blankRange(cx.t.text, close + SUMMARY_CLOSE.length, cx.t.cend[line])) return null;
  return { summary: cx.t.text.slice(at + SUMMARY_OPEN.length, close), after: line + 1 };
}

/**
 * The ```` ```json ```` fence at line `k` holding a legacy tool record, parsed; or null.
 * Memoised per line: several envelope heads (each with a `<summary>` running to one shared
 * `</summary>`) can lead to the same fence, and parsing its body once per head was quadratic.
 */
function legacyRecord(cx: EnvelopeContext, k: number): LegacyRecord | null {
  let hit = cx.records.get(k);
  if (hit === undefined) {
    hit = parseLegacyRecord(cx, k);
    cx.records.set(k, hit);
  }
  return hit;
}

type LegacyRecord = { fence: LineFence; rec: Record<string, unknown> };

function parseLegacyRecord(cx: EnvelopeContext, k: number): LegacyRecord | null {
  const fence = cx.fenceAt.get(k);
  if (fence === undefined || fence.info !== 'json') return null;
  let rec: unknown;
  try {
    rec = parseJson(cx.t.text.slice(cx.t.offs[fence.open + 1], cx.t.offs[fence.close]));
  } catch {
    return null;
  }
  if (!isJsonObject(rec)) return null;
  const call = rec.call;
  if (!isJsonObject(call) || typeof call.function !== 'string') return null;
  return { fence, rec };
}

/** Current-form block for a legacy record `{id, call: {function, arguments}, result, server}`. */
function currentToolBlock(rec: Record<string, unknown>): string {
  const call = rec.call as Record<string, unknown>;
  const out: Record<string, unknown> = {
    id: rec.id === undefined ? null : rec.id,
    name: call.function,
    args: call.arguments === undefined || call.arguments === null ? {} : call.arguments,
  };
  if (Object.prototype.hasOwnProperty.call(rec, 'result')) out.result = rec.result;
  if (pyTruthy(rec.server)) out.server = rec.server;
  return '```' + TOOL_INFO + '\n' + pyDumps(out, { indent: 2, ensureAscii: false }) + '\n```';
}

function currentUsageBlock(summary: string, detail: string): string {
  return '```' + USAGE_INFO + '\n' + pyDumps({ summary, detail }, { ensureAscii: false }) + '\n```';
}

/** A single-line `` `detail` `` at line `k`: its text without the backticks, or null. */
function detailLine(cx: EnvelopeContext, k: number): string | null {
  if (k >= cx.stop || cx.fenceAt.has(k)) return null;
  const c = pyStrip(lineAt(cx.t, k));
  if (c.length < 2 || c.charCodeAt(0) !== 0x60 || c.charCodeAt(c.length - 1) !== 0x60) return null;
  return c.slice(1, -1);
}

/** Closing line `d` (`</details>` or `:::`, trailing whitespace allowed): true if it is one. */
function isCloseLine(cx: EnvelopeContext, d: number, tag: string): boolean {
  if (d >= cx.stop) return false;
  const { text, offs, cend } = cx.t;
  return text.startsWith(tag, offs[d]) && offs[d] + tag.length <= cend[d] && blankRange(text, offs[d] + tag.length, cend[d]);
}

/**
 * End offset of an envelope whose closing line is `d`. Token-usage envelopes also take that
 * line's break when the reply ends there or a blank line follows (`conformance/reply.json`: a
 * reply ending in `</details>\n` converts to one ending in the block's closing backticks);
 * otherwise the break stays, so the block's closing line never runs into the next line's text.
 */
function closeEnd(cx: EnvelopeContext, d: number, usage: boolean): number {
  const { t } = cx;
  if (usage && (d + 1 >= t.n || blankRange(t.text, t.offs[d + 1], t.cend[d + 1]))) return t.offs[d + 1];
  return t.cend[d];
}

/** Try to match a legacy envelope whose first line is line `i` (outside any fence). */
function matchEnvelope(cx: EnvelopeContext, i: number): Envelope | null {
  const { t } = cx;
  const first = cx.content(i);
  const start = t.offs[i];
  // HTML forms
  let kind: 'tool' | 'token' | null = null;
  let rest = '';
  if (first.startsWith(HTML_TOOL)) {
    kind = 'tool';
    rest = first.slice(HTML_TOOL.length);
  } else if (first.startsWith(HTML_TOKEN)) {
    kind = 'token';
    rest = first.slice(HTML_TOKEN.length);
  }
  if (kind !== null) {
    if (rest.startsWith(MD_ATTR)) rest = rest.slice(MD_ATTR.length);
    if (!rest.startsWith('>')) return null;
    rest = rest.slice(1);
    let k: number;
    let summary: string | null = null;
    if (!isBlank(rest)) {
      if (!rest.startsWith(SUMMARY_OPEN)) return null;
      const m = matchSummary(cx, start + (first.length - rest.length), i);
      if (m === null) return null;
      summary = m.summary;
      k = cx.nextNonBlank(m.after);
    } else {
      k = cx.nextNonBlank(i + 1);
      if (k < cx.stop && !cx.fenceAt.has(k) && t.text.startsWith(SUMMARY_OPEN, t.offs[k])) {
        const m = matchSummary(cx, t.offs[k], k);
        if (m === null) return null;
        summary = m.summary;
        k = cx.nextNonBlank(m.after);
      }
    }
    if (kind === 'tool') {
      if (k >= cx.stop) return null;
      const r = legacyRecord(cx, k);
      if (r === null) return null;
      const d = cx.nextNonBlank(r.fence.close + 1);
      if (!isCloseLine(cx, d, DETAILS_CLOSE)) return null;
      return { start, end: closeEnd(cx, d, false), next: d + 1, replacement: currentToolBlock(r.rec) };
    }
    if (summary === null) return null;
    const detail = detailLine(cx, k);
    if (detail === null) return null;
    const d = cx.nextNonBlank(k + 1);
    if (!isCloseLine(cx, d, DETAILS_CLOSE)) return null;
    return { start, end: closeEnd(cx, d, true), next: d + 1, replacement: currentUsageBlock(summary, detail) };
  }
  // pandoc div forms
  const head = pyStrip(first);
  if (head !== DIV_TOOL && head !== DIV_TOKEN) return null;
  let k = cx.nextNonBlank(i + 1);
  let summary: string | null = null;
  if (k < cx.stop && !cx.fenceAt.has(k) && lineAt(t, k).startsWith('## ')) {
    summary = pyStrip(lineAt(t, k).slice(3));
    k = cx.nextNonBlank(k + 1);
  }
  if (head === DIV_TOOL) {
    if (k >= cx.stop) return null;
    const r = legacyRecord(cx, k);
    if (r === null) return null;
    const d = cx.nextNonBlank(r.fence.close + 1);
    if (!isCloseLine(cx, d, ':::')) return null;
    return { start, end: closeEnd(cx, d, false), next: d + 1, replacement: currentToolBlock(r.rec) };
  }
  if (summary === null) return null;
  const detail = detailLine(cx, k);
  if (detail === null) return null;
  const d = cx.nextNonBlank(k + 1);
  if (!isCloseLine(cx, d, ':::')) return null;
  return { start, end: closeEnd(cx, d, true), next: d + 1, replacement: currentUsageBlock(summary, detail) };
}

/**
 * Convert legacy tool and token-usage envelopes in a reply to the current block form (the
 * converter the conformance data were produced with; pinned by the `conv_tools` cases of
 * `conformance/reply.json`, SPEC §6 and §10.1).
 *
 * Recognised, only at column 0 and only outside fenced blocks (so escaped copies inside JSON
 * strings and examples inside code fences stay as they are):
 * - `<details class='tool-usage-details'>` (optionally ` markdown='1'` before `>`), blank
 *   lines, an optional `<summary>…</summary>` (may span lines, must end its line), blank
 *   lines, a ```` ```json ```` fence holding `{id, call: {function, arguments}, result,
 *   server?}`, blank lines, a `</details>` line. Becomes ```` ```json {.tool} ```` with
 *   `{id, name, args, result, server}` written as Python `json.dumps(indent=2,
 *   ensure_ascii=False)` — `server` only when truthy, `result` only when present, `id` null
 *   when absent, `args` `{}` when absent or null.
 * - `::: {.details .tool-usage-details}`, an optional `## summary` line, the same fence, a
 *   `:::` line: likewise.
 * - `<details class='token-usage-details'>` (optionally ` markdown='1'`) with
 *   `<summary>S</summary>`, a single line `` `D` ``, and `</details>`; or
 *   `::: {.details .token-usage-details}`, `## S`, `` `D` ``, `:::`. Becomes
 *   ```` ```json {.usage} ```` with `{"summary": S, "detail": D}` on one line; these envelopes
 *   also take the line break after their closing line when the reply ends there or a blank
 *   line follows (so a reply ending in one ends with the block's closing backticks).
 *
 * An envelope whose JSON does not parse, or whose shape differs, is left verbatim. Everything
 * outside envelopes is copied unchanged, current blocks included; a reply without envelopes is
 * returned as is.
 *
 * @param reply the reply text (after the separator).
 * @returns the reply with every recognised envelope replaced. Linear in the reply's size.
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function convTools(reply: string): string {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`convTools: reply must be a string, got ${typeof reply}`);
  if (!reply.includes('-usage-details')) return reply;
  const t = lineTable(reply);
  const cx = new EnvelopeContext(t, scanLineFences(t));
  const out: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < cx.stop) {
    const f = cx.fenceAt.get(i);
    if (f !== undefined) {
      i = f.close + 1;
      continue;
    }
    const c0 = reply.charCodeAt(t.offs[i]);
    if (c0 === 0x3c /* < */ || c0 === 0x3a /* : */) {
      const env = matchEnvelope(cx, i);
      if (env !== null) {
        out.push(reply.slice(copied, env.start), env.replacement);
        copied = env.end;
        i = env.next;
        continue;
      }
    }
    i++;
  }
  if (copied === 0) return reply;
  out.push(reply.slice(copied));
  return out.join('');
}

// ---------------------------------------------------------------------------------------------
// Cleaning: usage blocks and think spans

/** Remove ```` ```json {.usage} ```` blocks, each with its closing line's break. */
function removeUsageBlocks(s: string): string {
  if (!s.includes(USAGE_INFO)) return s;
  const t = lineTable(s);
  const out: string[] = [];
  let copied = 0;
  for (const f of scanLineFences(t).fences) {
    if (f.info !== USAGE_INFO) continue;
    out.push(s.slice(copied, t.offs[f.open]));
    copied = t.offs[f.close + 1];
  }
  if (copied === 0) return s;
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * Remove `<!--think_start-->…<!--think_end-->` spans (shortest match, across lines) and the
 * one `\n` that may follow each, as Python `re.sub(r'<!--think_start-->.*?<!--think_end-->\n?',
 * '', s, flags=re.S)` does. A start marker without an end marker stays.
 */
function removeThinkSpans(s: string): string {
  let a = s.indexOf(THINK_START);
  if (a < 0) return s;
  const out: string[] = [];
  let copied = 0;
  while (a >= 0) {
    const b = s.indexOf(THINK_END, a + THINK_START.length);
    if (b < 0) break;
    out.push(s.slice(copied, a));
    copied = b + THINK_END.length;
    if (s.charCodeAt(copied) === 0x0a) copied++;
    a = s.indexOf(THINK_START, copied);
  }
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * The reply as the current-form parser sees it: {@link convTools}, then usage blocks removed
 * (whole lines), then think spans removed (SPEC §6). Linear.
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function cleanReply(reply: string): string {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`cleanReply: reply must be a string, got ${typeof reply}`);
  return removeThinkSpans(removeUsageBlocks(convTools(reply)));
}

// ---------------------------------------------------------------------------------------------
// Tool blocks

/** Python truthiness of a JSON value. */
function pyTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0; // NaN is truthy in Python, and here
  if (isLosslessNumber(v)) return Number(v.value) !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/**
 * A tool result as message text (SPEC §6): strings as they are; objects and arrays as Python
 * `json.dumps(v, ensure_ascii=False)` (`", "` and `": "` separators, source key order, number
 * kinds kept); anything else as Python `str` (`True`, `None`, `1.0`, `42`).
 */
export function resultText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) || isJsonObject(v)) return pyDumps(v, { ensureAscii: false, separators: [', ', ': '] });
  return pyStr(v);
}

/** A piece of a cleaned reply: text between tool blocks. */
export interface ReplyText {
  kind: 'text';
  /** The raw text (not stripped; may be blank). */
  text: string;
  /** Offsets of `text` in the cleaned reply (UTF-16 code units). */
  start: number;
  end: number;
}

/** A piece of a cleaned reply: one tool block. */
export interface ReplyTool {
  kind: 'tool';
  /** Call id; `null` for an id-less block (missing, null or `''`), which fmt2hist drops. */
  id: string | null;
  /** Tool name (`''` when the block has none). */
  name: string;
  /** Call arguments as parsed losslessly (`{}` when absent or null). */
  args: Record<string, unknown>;
  /** The raw `result` value as parsed (`undefined` when the block has none). */
  result: unknown;
  /** {@link resultText} of `result` (`''` when absent). */
  resultText: string;
  /** True when the block is marked `server` (Python-truthy); fmt2hist drops server calls. */
  server: boolean;
  /** The block in the cleaned reply. */
  fence: Fence;
}

/** One item of {@link parseToolBlocks}. */
export type ReplyItem = ReplyText | ReplyTool;

/**
 * Read a tool block's JSON body. Returns null when the block is not a tool block after all:
 * the body does not parse, is not an object, or has a non-string `name`, non-object `args`, or
 * an `id` that is neither a string nor null.
 */
function readToolBody(body: string): Omit<ReplyTool, 'kind' | 'fence'> | null {
  let v: unknown;
  try {
    v = parseJson(body);
  } catch {
    return null;
  }
  if (!isJsonObject(v)) return null;
  const id = v.id;
  if (id !== undefined && id !== null && typeof id !== 'string') return null;
  const name = v.name === undefined ? '' : v.name;
  if (typeof name !== 'string') return null;
  const args = v.args === undefined || v.args === null ? {} : v.args;
  if (!isJsonObject(args)) return null;
  const has = Object.prototype.hasOwnProperty.call(v, 'result');
  const result = has ? v.result : undefined;
  return {
    id: typeof id === 'string' && id !== '' ? id : null,
    name,
    args,
    result,
    resultText: has ? resultText(result) : '',
    server: pyTruthy(v.server),
  };
}

/**
 * Split a reply into the text runs and tool blocks that {@link fmt2hist} walks (SPEC §6).
 *
 * The reply is first cleaned ({@link cleanReply}: legacy envelopes converted, usage blocks and
 * think spans removed). Then every fenced block ({@link scanFences}) whose info string is
 * exactly `json {.tool}` and whose body is a JSON object of the expected shape (`id` string or
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
  const clean = cleanReply(reply);
  const items: ReplyItem[] = [];
  let pos = 0;
  const pushText = (end: number): void => {
    if (end > pos) items.push({ kind: 'text', text: clean.slice(pos, end), start: pos, end });
  };
  if (clean.includes(TOOL_INFO)) {
    const t = lineTable(clean);
    for (const lf of scanLineFences(t).fences) {
      if (lf.info !== TOOL_INFO) continue;
      const fence = toFence(t, lf);
      const body = readToolBody(fence.body);
      if (body === null) continue;
      pushText(fence.start);
      items.push({ kind: 'tool', ...body, fence });
      pos = fence.end;
    }
  }
  pushText(clean.length);
  return { clean, items };
}

// ---------------------------------------------------------------------------------------------
// fmt2hist

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
  const { items } = parseToolBlocks(reply);
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

// ---------------------------------------------------------------------------------------------
// hist2fmt

/**
 * True when `s` is exactly one result fence as fmt2hist cuts it out of assistant text into a
 * user message (`\n`````result\n…\n`````\n`); hist2fmt writes such a message back in place.
 */
export function isResultFence(s: string): boolean {
  if (!s.startsWith(RESULT_OPEN) || !s.endsWith(RESULT_CLOSE) || s.length < RESULT_OPEN.length + RESULT_CLOSE.length - 1) return false;
  return s.indexOf(RESULT_CLOSE, RESULT_OPEN.length - 1) === s.length - RESULT_CLOSE.length;
}

/**
 * A stripped text as it must be written so that fmt2hist reads it back as this one text.
 * fmt2hist strips texts, so a first line that was indented in the source may now start at
 * column 0 — where it can open a fence (swallowing or pairing with later lines), start a usage
 * block or a legacy envelope. When the text read on its own would then not come back as plain
 * text (a tool block, an envelope, a usage block, or — unless it is the last chunk — an
 * unclosed fence that would swallow what follows), one leading space (which fmt2hist strips
 * again) restores the source reading. Chunks are joined by blank lines and every chunk before
 * leaves the scan outside any fence, so reading a chunk alone is reading it in place.
 */
function placeText(s: string, last: boolean): string {
  const c = s.charCodeAt(0);
  if (c !== 0x60 /* ` */ && c !== 0x3c /* < */ && c !== 0x3a /* : */) return s;
  const readsAlone = (x: string): boolean => {
    if (cleanReply(x) !== x) return false;
    const scan = scanLineFences(lineTable(x));
    if (!last && scan.unclosed >= 0) return false;
    if (!x.includes(TOOL_INFO)) return true;
    const t = lineTable(x);
    return !scan.fences.some((f) => f.info === TOOL_INFO && readToolBody(toFence(t, f).body) !== null);
  };
  if (readsAlone(s)) return s;
  const indented = ' ' + s;
  return readsAlone(indented) ? indented : s;
}

/** A current-form tool block for a call and its result text (absent: no `result` key). */
function toolBlock(use: ToolUsePart, result: string | undefined): string {
  const rec: Record<string, unknown> = { id: use.id, name: use.name, args: use.arguments };
  if (result !== undefined) rec.result = result;
  return '```' + TOOL_INFO + '\n' + pyDumps(rec, { indent: 2, ensureAscii: false }) + '\n```';
}

/**
 * Write canonical messages as a reply (the inverse of {@link fmt2hist}, SPEC §6; used to build
 * dialogs from chats). Writes the current block form.
 *
 * - Assistant messages: text parts (Python-stripped, blank ones skipped; one leading space
 *   is added when the text would otherwise start an unclosed fence or a legacy envelope at
 *   column 0 — fmt2hist strips it again), thinking parts as
 *   `<!--think_start-->` spans (which fmt2hist removes again), and each `tool_use` as a
 *   ```` ```json {.tool} ```` block — `{id, name, args, result}` as Python
 *   `json.dumps(indent=2, ensure_ascii=False)`, the result taken from the tool message that
 *   follows (matched by id, repeated ids in order; a call without a result gets no `result`
 *   key).
 * - Tool messages: consumed by the assistant message before them.
 * - User messages: only the result fences fmt2hist produces (`\n`````result\n…\n`````\n`),
 *   written in place.
 * - A final assistant `.` after a tool message (fmt2hist's placeholder) is not written.
 * Pieces are joined with blank lines, except that a result fence is followed by one line
 * break (unless another fence follows), mirroring what fmt2hist's split consumes.
 *
 * Round trip: `fmt2hist(hist2fmt(h))` equals `h` for `h = fmt2hist(reply)` (checked on every
 * fixture and real dialog, and by a property test) when:
 * - no assistant message holds two text parts (possible only when a dropped server/id-less
 *   block separated them; they come back as one text joined by a blank line);
 * - the reply has no unclosed fence, and no text run's first line reads differently once its
 *   indentation is stripped in ways the leading-space repair above cannot see (a fence that
 *   spans a `````result split). These need contrived input; real replies satisfy them.
 *
 * @param msgs canonical messages.
 * @returns the reply text.
 * @throws InvalidArgumentError for a role other than assistant/tool/user, a user message that
 *   is not a result fence, media parts, a tool call with an empty id (fmt2hist would drop
 *   it), or a tool result whose call is not in the assistant message just before it.
 */
export function hist2fmt(msgs: Msg[]): string {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('hist2fmt: msgs must be an array of messages');
  const chunks: string[] = [];
  const textAt: number[] = []; // indices of assistant text chunks
  const fenceAt = new Set<number>(); // indices of result-fence chunks
  const n = msgs.length;
  for (let i = 0; i < n; i++) {
    const m = msgs[i];
    if (m === null || typeof m !== 'object' || !Array.isArray(m.content)) throw new InvalidArgumentError(`hist2fmt: message ${i} is not a message`);
    if (m.role === 'assistant') {
      if (i === n - 1 && i > 0 && msgs[i - 1].role === 'tool' && m.content.length === 1 && m.content[0].type === 'text' && m.content[0].text === '.') break;
      const next = i + 1 < n ? msgs[i + 1] : undefined;
      // results by call id; repeated ids are matched in order
      const results = new Map<string, string[]>();
      if (next !== undefined && next.role === 'tool') {
        const callIds = new Set(m.content.filter((p): p is ToolUsePart => p.type === 'tool_use').map((p) => p.id));
        for (const p of next.content) {
          if (p.type !== 'tool_result') throw new InvalidArgumentError(`hist2fmt: message ${i + 1} (tool) holds a ${p.type} part`);
          if (!callIds.has(p.id)) throw new InvalidArgumentError(`hist2fmt: tool result "${p.id}" in message ${i + 1} answers no call of message ${i}`);
          const q = results.get(p.id);
          if (q === undefined) results.set(p.id, [p.text]);
          else q.push(p.text);
        }
      }
      for (const p of m.content) {
        switch (p.type) {
          case 'text': {
            const s = pyStrip(p.text);
            if (s !== '') {
              chunks.push(s);
              textAt.push(chunks.length - 1);
            }
            break;
          }
          case 'thinking':
            chunks.push(THINK_START + '\n::: details\n\n## Thinking\n\n' + p.text + '\n\n:::\n' + THINK_END);
            break;
          case 'tool_use':
            if (typeof p.id !== 'string' || p.id === '') throw new InvalidArgumentError(`hist2fmt: tool call "${p.name}" in message ${i} has no id`);
            chunks.push(toolBlock(p, results.get(p.id)?.shift()));
            break;
          default:
            throw new InvalidArgumentError(`hist2fmt: message ${i} (assistant) holds a ${p.type} part, which a reply cannot carry`);
        }
      }
      if (next !== undefined && next.role === 'tool') i++;
    } else if (m.role === 'tool') {
      throw new InvalidArgumentError(`hist2fmt: tool message ${i} does not follow an assistant message`);
    } else if (m.role === 'user') {
      const p = m.content[0];
      if (m.content.length !== 1 || p.type !== 'text' || !isResultFence(p.text)) {
        throw new InvalidArgumentError(`hist2fmt: user message ${i} is not a result fence; a reply holds only assistant and tool messages`);
      }
      chunks.push(p.text.slice(1, -1));
      fenceAt.add(chunks.length - 1);
    } else {
      throw new InvalidArgumentError(`hist2fmt: message ${i} has role "${String(m.role)}", which a reply cannot carry`);
    }
  }
  for (const k of textAt) chunks[k] = placeText(chunks[k], k === chunks.length - 1);
  // A result fence is followed by a single line break, as fmt2hist's split consumes exactly
  // one: a text after it that starts with another `````result fence is then not split again.
  // Two fences in a row keep a blank line between them (fmt2hist splits them apart).
  const out: string[] = [];
  for (let k = 0; k < chunks.length; k++) {
    if (k > 0) out.push(fenceAt.has(k - 1) && !fenceAt.has(k) ? '\n' : '\n\n');
    out.push(chunks[k]);
  }
  return out.join('');
}
