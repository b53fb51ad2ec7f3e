/**
 * Legacy tool and token-usage envelopes (SPEC §6, §10.1): the `<details class='tool-usage-details'>`
 * HTML blocks and pandoc `::: {.details .tool-usage-details}` divs older replies hold, and their
 * `token-usage-details` counterparts, converted to current ```` ```json {.tool} ```` /
 * ```` ```json {.usage} ```` blocks by {@link convTools} — the converter the conformance data were
 * produced with (`conformance/README.md`).
 */
import { InvalidArgumentError } from '../errors.js';
import { isJsonObject, isLosslessNumber, pyDumps, pyJsonNumber, pyStrip } from '../python/index.js';
import { parseJsonFast } from '../python/json-fast.js';
import { blankRange, isBlank, lineAt, lineTable, lowerBound, scanLineFences, type FenceScan, type LineFence, type Lines } from './fences.js';
import { TOOL_INFO, USAGE_INFO } from './format.js';
import { isLegacyToolRecord, legacyToCurrentRecord } from './tool-block.js';

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
  readonly records = new Map<number, LegacyRecord | null>();
  readonly stop: number;
  /** Opening lines of the closed fences, ascending. */
  private readonly opens: number[];
  /**
   * `nextNonBlank` answers, filled in as lines are looked at (0: not yet known, else the
   * answer + 1), so that each line is tested for blankness at most once.
   */
  private readonly nextNonBlankMemo: Int32Array;
  private lastFrom = -1;
  private lastHit = -1;

  constructor(
    readonly t: Lines,
    scan: FenceScan,
    /** Write a stand-in for the JSON of tool blocks whose record the parser takes (see {@link WrittenBlocks}). */
    readonly standIn = false,
    /**
     * Leave out the usage blocks that the caller's removal of usage blocks would take out (see
     * {@link WrittenBlocks}); cleared once a block is written whose lines could pair fences
     * differently.
     */
    public dropUsage = false,
  ) {
    const n = t.n;
    this.opens = [];
    for (const f of scan.fences) {
      this.fenceAt.set(f.open, f);
      this.opens.push(f.open);
    }
    this.stop = scan.unclosed < 0 ? n : scan.unclosed;
    this.nextNonBlankMemo = new Int32Array(n);
  }

  /** First non-blank line at or after `i` (`n` if none). Amortised O(1): see `nextNonBlankMemo`. */
  nextNonBlank(i: number): number {
    const { t } = this;
    const n = t.n;
    if (i >= n) return n;
    const memo = this.nextNonBlankMemo;
    let j = i;
    while (j < n) {
      const known = memo[j]!;
      if (known !== 0) {
        const at = known - 1;
        for (let k = i; k < j; k++) memo[k] = known;
        return at;
      }
      if (!blankRange(t.text, t.offs[j], t.cend[j])) break;
      j++;
    }
    for (let k = i; k < j; k++) memo[k] = j + 1;
    if (j < n) memo[j] = j + 1;
    return j;
  }

  /** First line at or after `i` that opens a (closed) fence (`n` if none). O(log n). */
  nextFence(i: number): number {
    const { opens } = this;
    const lo = lowerBound(opens, i);
    return lo < opens.length ? opens[lo]! : this.t.n;
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
  /** For a tool envelope: the current record and the length of its JSON in `replacement`. */
  record?: Record<string, unknown>;
  jsonLen?: number;
  /** For a tool envelope: the block's JSON is the stand-in {@link STAND_IN}. */
  standIn?: boolean;
  /** For a token-usage envelope: the summary and the detail. */
  usage?: [string, string];
}

/**
 * Where the removal of usage blocks (clean.ts) ends for the block a usage envelope whose
 * closing line is `d` converts to: past the closing line's break; when the conversion took
 * that break (see {@link closeEnd}), the block's closing backticks run into the blank line
 * that follows, so that line goes with it.
 */
function usageRemovalEnd(cx: EnvelopeContext, d: number): number {
  const { t } = cx;
  if (closeEnd(cx, d, true) === t.offs[d + 1]) return t.offs[Math.min(d + 2, t.n)];
  return t.offs[d + 1];
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

type LegacyRecord = { fence: LineFence; rec: Record<string, unknown> & { call: Record<string, unknown> } };

function parseLegacyRecord(cx: EnvelopeContext, k: number): LegacyRecord | null {
  const fence = cx.fenceAt.get(k);
  if (fence === undefined || fence.info !== 'json') return null;
  let rec: unknown;
  try {
    rec = parseJsonFast(cx.t.text.slice(cx.t.offs[fence.open + 1], cx.t.offs[fence.close]));
  } catch {
    return null;
  }
  return isLegacyToolRecord(rec) ? { fence, rec } : null;
}

/**
 * The tool blocks a conversion wrote, with the records they were written from, so that the
 * parser of the converted text reads each such block without parsing its JSON again: block
 * `k` starts at offset `starts[k]` of the text (its opening line), its JSON has `lens[k]`
 * UTF-16 units, and parsing that JSON gives `recs[k]` exactly (see {@link readsBack}; blocks
 * whose JSON would read back differently are not listed). Offsets ascend.
 */
export interface WrittenBlocks {
  starts: number[];
  lens: number[];
  recs: Record<string, unknown>[];
  /**
   * Set by the caller to have the JSON of a listed block written as the stand-in
   * {@link STAND_IN} where that changes nothing the caller reads but the block's own text:
   * when the record writes no line break but `\n` (so its JSON lines are no fence lines, and
   * think markers in its strings are data either way). Only a caller that takes every such
   * block from its record, and never reads the blocks' text, may ask for it. It must also
   * remove usage blocks right after the conversion (as `cleanReplyKeeping` does): when the
   * reply holds no usage block of its own, the conversion then leaves out those it would
   * write and the removal would take out whole.
   */
  standIn?: boolean;
  /** Per listed block: its JSON is the stand-in (kept in step with `starts`). */
  standIns?: boolean[];
  /** How many stand-ins the conversion wrote (listed blocks dropped later included). */
  standInCount?: number;
  /** Set when the text is known to hold no line break but `\n` (left alone when not known). */
  plain: boolean;
}

/**
 * True when `parseJson(pyDumps(v))` gives back `v`: the value holds only what the lossless
 * reader makes, and each number is written as its own lexeme (`pyDumps` writes floats as
 * Python's `repr`, so `1.0e2` would read back as `100.0`). Strings and keys always read back:
 * without `ensureAscii` the writer escapes only what the reader unescapes, and keys keep their
 * written order.
 */
function readsBack(v: unknown, depth = 0): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return !Number.isFinite(v);
  if (typeof v !== 'object' || depth > 1000) return false;
  if (isLosslessNumber(v)) return pyJsonNumber(v) === v.value;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !readsBack(v[i], depth + 1)) return false;
    return true;
  }
  if (!isJsonObject(v)) return false;
  for (const k in v) if (Object.hasOwn(v, k) && !readsBack(v[k], depth + 1)) return false;
  return true;
}

/**
 * True when no string of `v` (keys included) holds U+0085, U+2028 or U+2029: then its
 * `pyDumps(…, {ensureAscii: false})` text has no line break but `\n`, since that writer escapes
 * every other line break (all below U+0020) and writes no other.
 */
function writesPlain(v: unknown): boolean {
  if (typeof v === 'string') return !(v.includes('\x85') || v.includes('\u2028') || v.includes('\u2029'));
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!writesPlain(v[i])) return false;
    return true;
  }
  for (const k in v) if (!writesPlain(k) || !writesPlain((v as Record<string, unknown>)[k])) return false;
  return true;
}

/** The opening line of a current tool block, with its line break. */
const TOOL_OPEN = '```' + TOOL_INFO + '\n';

/** The JSON text written for a block whose record the parser takes (see {@link WrittenBlocks}). */
const STAND_IN = '{}';

/**
 * Current-form block for a legacy record `{id, call: {function, arguments}, result, server}`,
 * as `toolBlockText` writes it, with the record and the length of its JSON.
 */
function currentToolBlock(rec: LegacyRecord['rec'], standIn: boolean): { text: string; record: Record<string, unknown>; jsonLen: number; standIn: boolean } {
  const record = legacyToCurrentRecord(rec);
  if (standIn && writesPlain(record) && readsBack(record)) return { text: TOOL_OPEN + STAND_IN + '\n```', record, jsonLen: STAND_IN.length, standIn: true };
  const json = pyDumps(record, { indent: 2, ensureAscii: false });
  return { text: TOOL_OPEN + json + '\n```', record, jsonLen: json.length, standIn: false };
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
    return envelopeRest(cx, start, k, kind === 'tool', summary, DETAILS_CLOSE);
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
  return envelopeRest(cx, start, k, head === DIV_TOOL, summary, ':::');
}

/**
 * The rest of an envelope from line `k`, after its header (HTML `<details>` or a pandoc div):
 * a tool envelope's legacy record, or a usage envelope's detail line (which needs the header's
 * `summary`), then the closing line `close`.
 */
function envelopeRest(cx: EnvelopeContext, start: number, k: number, tool: boolean, summary: string | null, close: string): Envelope | null {
  if (tool) {
    if (k >= cx.stop) return null;
    const r = legacyRecord(cx, k);
    if (r === null) return null;
    const d = cx.nextNonBlank(r.fence.close + 1);
    if (!isCloseLine(cx, d, close)) return null;
    const b = currentToolBlock(r.rec, cx.standIn);
    return {
      start,
      end: closeEnd(cx, d, false),
      next: d + 1,
      replacement: b.text,
      record: b.record,
      jsonLen: b.jsonLen,
      standIn: b.standIn,
    };
  }
  if (summary === null) return null;
  const detail = detailLine(cx, k);
  if (detail === null) return null;
  const d = cx.nextNonBlank(k + 1);
  if (!isCloseLine(cx, d, close)) return null;
  const usage: [string, string] = [summary, detail];
  // A block that writes no line break but `\n` is a fence pair of its own lines in the converted
  // text, which the removal of usage blocks takes out whole: leave it out now.
  if (cx.dropUsage && writesPlain(usage)) return { start, end: usageRemovalEnd(cx, d), next: d + 1, replacement: '', usage };
  return { start, end: closeEnd(cx, d, true), next: d + 1, replacement: currentUsageBlock(summary, detail), usage };
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
  return convToolsKeeping(reply, null);
}

/**
 * {@link convTools} of a string; with `written`, the tool blocks it writes are listed there
 * (appended, offsets in the returned text) for the parser of the converted text.
 */
export function convToolsKeeping(reply: string, written: WrittenBlocks | null): string {
  if (!reply.includes('-usage-details')) return reply;
  const t = lineTable(reply);
  const standIn = written?.standIn === true;
  // With stand-ins the caller removes usage blocks next; where the reply holds none of its own,
  // the converted ones are left out instead (the removal then finds nothing to do).
  const cx = new EnvelopeContext(t, scanLineFences(t), standIn, standIn && !reply.includes(USAGE_INFO));
  if (standIn) {
    written!.standIns = [];
    written!.standInCount = 0;
  }
  const out: string[] = [];
  let copied = 0;
  let outLen = 0;
  // The converted text is plain when the reply and every replacement are.
  let plain = t.plain;
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
        const head = reply.slice(copied, env.start);
        outLen += head.length;
        if (written !== null && env.record !== undefined && (env.standIn === true || readsBack(env.record))) {
          written.starts.push(outLen);
          written.lens.push(env.jsonLen!);
          written.recs.push(env.record);
          if (standIn) {
            written.standIns!.push(env.standIn === true);
            if (env.standIn === true) written.standInCount!++;
          }
        }
        outLen += env.replacement.length;
        // A block whose JSON holds a line break but `\n` may hold a backtick line too, and the
        // fences after it may then pair differently in the converted text: no usage block after
        // it is left out.
        if ((plain || cx.dropUsage) && env.standIn !== true && env.replacement !== '' && !writesPlain(env.record ?? env.usage)) {
          plain = false;
          cx.dropUsage = false;
        }
        out.push(head, env.replacement);
        copied = env.end;
        i = env.next;
        continue;
      }
    }
    i++;
  }
  if (written !== null) written.plain = plain;
  if (copied === 0) return reply;
  out.push(reply.slice(copied));
  return out.join('');
}
