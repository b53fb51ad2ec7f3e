/**
 * The reply as the current-form parser reads it (SPEC §6): legacy envelopes converted
 * ({@link convTools}), ```` ```json {.usage} ```` blocks removed, then
 * `<!--think_start-->…<!--think_end-->` spans removed — never across a tool block, and markers
 * inside a tool block's JSON strings are data (see `docs/differences.md`).
 */
import { InvalidArgumentError } from '../errors.js';
import { isPyWhitespace } from '../python/index.js';
import { isLineBreak, lineBreakLength, lineTable, lowerBound, scanLineFences } from './fences.js';
import { THINK_END, THINK_START, TOOL_INFO, USAGE_INFO } from './format.js';
import { convToolsKeeping, type WrittenBlocks } from './legacy-envelope.js';

/**
 * Remove ```` ```json {.usage} ```` blocks, each with its closing line's break. With `cuts`,
 * the removed ranges are appended to it as start, end pairs (offsets in `s`, ascending).
 */
function removeUsageBlocks(s: string, cuts: number[] | null = null, known: { plain: boolean } | null = null): string {
  if (!s.includes(USAGE_INFO)) return s;
  const t = lineTable(s, known?.plain === true);
  // What is left of a plain text is plain.
  if (known !== null) known.plain = t.plain;
  const out: string[] = [];
  let copied = 0;
  for (const f of scanLineFences(t).fences) {
    if (f.info !== USAGE_INFO) continue;
    out.push(s.slice(copied, t.offs[f.open]));
    copied = t.offs[f.close + 1];
    cuts?.push(t.offs[f.open], copied);
  }
  if (copied === 0) return s;
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * Where think markers are data (see `docs/differences.md`): the string literals inside the JSON
 * object that follows each tool-block opening line (```` ```json {.tool} ````), and where those
 * objects start. Found by a scan of the JSON text (strings, escapes, bracket depth), without
 * fences: a marker's meaning must not depend on the spans it would start or end. A JSON
 * string holds no raw line break, so an object that does not close is no block. Linear.
 */
interface JsonZones {
  /** Start and end offsets of string literals, in pairs, in order. */
  strings: number[];
  /** Offset of each tool block's opening line, in order. */
  blocks: number[];
}

function jsonZones(s: string): JsonZones {
  const strings: number[] = [];
  const blocks: number[] = [];
  const n = s.length;
  let from = 0;
  for (let k = s.indexOf(TOOL_INFO, from); k >= 0; k = s.indexOf(TOOL_INFO, from)) {
    from = k + TOOL_INFO.length;
    let a = k;
    while (a > 0 && s.charCodeAt(a - 1) !== 0x60 && isPyWhitespace(s.charCodeAt(a - 1)) && !isLineBreak(s.charCodeAt(a - 1))) a--;
    const ticksEnd = a;
    while (a > 0 && s.charCodeAt(a - 1) === 0x60) a--;
    if (ticksEnd - a < 3 || (a > 0 && !isLineBreak(s.charCodeAt(a - 1)))) continue;
    let e = from;
    while (e < n && !isLineBreak(s.charCodeAt(e)) && isPyWhitespace(s.charCodeAt(e))) e++;
    if (e >= n || !isLineBreak(s.charCodeAt(e))) continue;
    let i = e + lineBreakLength(s, e);
    while (i < n && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09 || s.charCodeAt(i) === 0x0a || s.charCodeAt(i) === 0x0d)) i++;
    if (s.charCodeAt(i) !== 0x7b) continue;
    const found: number[] = [];
    let depth = 0;
    let end = -1;
    for (let j = i; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c === 0x22) {
        let q = j + 1;
        for (; q < n; q++) {
          const d = s.charCodeAt(q);
          if (d === 0x5c) q++;
          else if (d === 0x22 || d === 0x0a || d === 0x0d) break;
        }
        if (q >= n || s.charCodeAt(q) !== 0x22) break;
        found.push(j, q + 1);
        j = q;
      } else if (c === 0x0a && s.charCodeAt(j + 1) === 0x60) {
        break; // a backtick line ends the fence body: no object here
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          end = j + 1;
          break;
        }
      }
    }
    if (end < 0) continue;
    for (const x of found) strings.push(x);
    blocks.push(a);
    from = end;
  }
  return { strings, blocks };
}

/** The next occurrence of `marker` at or after `from` that is not inside a JSON string of `z`. */
function nextMarker(s: string, marker: string, from: number, z: JsonZones): number {
  for (let k = s.indexOf(marker, from); k >= 0; k = s.indexOf(marker, k + 1)) {
    const j = lowerBound(z.strings, k + 1);
    // Odd index: k lies after a string's start and before its end.
    if (j % 2 === 0) return k;
  }
  return -1;
}

/**
 * Remove `<!--think_start-->…<!--think_end-->` spans (shortest match, across lines) and the
 * one `\n` that may follow each, as Python `re.sub(r'<!--think_start-->.*?<!--think_end-->\n?',
 * '', s, flags=re.S)` does — except that markers inside the JSON strings of tool blocks are
 * data, and a span that would hold a tool block is no span (its start marker stays as text,
 * so the block and its call are kept). A start marker without an end marker stays.
 */
function removeThinkSpans(s: string, cuts: number[] | null = null): string {
  let a = s.indexOf(THINK_START);
  if (a < 0) return s;
  const z: JsonZones = s.includes(TOOL_INFO) ? jsonZones(s) : { strings: [], blocks: [] };
  const out: string[] = [];
  let copied = 0;
  a = nextMarker(s, THINK_START, 0, z);
  let b = -1;
  while (a >= 0) {
    // The first end after a start is also the first after any later start before it, so it
    // is looked up again only once passed (linear with many start markers).
    if (b < a + THINK_START.length) b = nextMarker(s, THINK_END, a + THINK_START.length, z);
    if (b < 0) break;
    const blk = lowerBound(z.blocks, a);
    if (blk < z.blocks.length && z.blocks[blk]! < b) {
      a = nextMarker(s, THINK_START, a + THINK_START.length, z);
      continue;
    }
    out.push(s.slice(copied, a));
    copied = b + THINK_END.length;
    if (s.charCodeAt(copied) === 0x0a) copied++;
    cuts?.push(a, copied);
    a = nextMarker(s, THINK_START, copied, z);
  }
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * The reply as the current-form parser sees it: {@link convTools}, then usage blocks removed
 * (whole lines), then think spans removed, never inside a tool block's JSON and never across a
 * tool block (SPEC §6 and `docs/differences.md`). Linear.
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function cleanReply(reply: string): string {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`cleanReply: reply must be a string, got ${typeof reply}`);
  return removeThinkSpans(removeUsageBlocks(convToolsKeeping(reply, null)));
}

/**
 * {@link cleanReply} of a string, listing the tool blocks that the conversion of legacy
 * envelopes wrote in `written` (see `convToolsKeeping`), at their offsets in the cleaned text;
 * a block that a removal touches is left out. `written.plain` is set when the cleaned text is
 * known to hold no line break but `\n` (removals keep a text plain).
 */
export function cleanReplyKeeping(reply: string, written: WrittenBlocks): string {
  const converted = convToolsKeeping(reply, written);
  if (written.starts.length === 0) return removeThinkSpans(removeUsageBlocks(converted, null, written));
  const cuts: number[] = [];
  const unused = removeUsageBlocks(converted, cuts, written);
  shiftBlocks(written, cuts);
  cuts.length = 0;
  const clean = removeThinkSpans(unused, cuts);
  shiftBlocks(written, cuts);
  return clean;
}

/** Length of a written tool block whose JSON has `len` units: opening line, JSON, line break, closing backticks. */
const blockLength = (len: number): number => 3 + TOOL_INFO.length + 1 + len + 4;

/**
 * Move the blocks of `w` to their offsets after the removal of `cuts` (start, end pairs,
 * ascending, offsets before the removal), in place; blocks that overlap a removed range are dropped.
 */
function shiftBlocks(w: WrittenBlocks, cuts: readonly number[]): void {
  if (cuts.length === 0) return;
  let kept = 0;
  let c = 0;
  let removed = 0;
  for (let k = 0; k < w.starts.length; k++) {
    const start = w.starts[k]!;
    const end = start + blockLength(w.lens[k]!);
    while (c < cuts.length && cuts[c + 1]! <= start) {
      removed += cuts[c + 1]! - cuts[c]!;
      c += 2;
    }
    if (c < cuts.length && cuts[c]! < end) continue;
    w.starts[kept] = start - removed;
    w.lens[kept] = w.lens[k]!;
    w.recs[kept] = w.recs[k]!;
    if (w.standIns !== undefined) w.standIns[kept] = w.standIns[k]!;
    kept++;
  }
  w.starts.length = kept;
  w.lens.length = kept;
  w.recs.length = kept;
  if (w.standIns !== undefined) w.standIns.length = kept;
}
