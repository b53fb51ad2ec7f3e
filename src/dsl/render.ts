/**
 * The compact DSL (SPEC §3–§4): token-bounded text renderings of canonical messages.
 *
 * Sigils: `§ … §` user text, `» … »` assistant text, a ```` ```python ```` fence for code
 * run by a Python tool, `! ` a shell command, `▶ name(k=v, …)` any other tool call, `> ` a tool
 * result, `' ¶ '` stands for a line break, `' … '` marks a middle cut, and `\n\n***\n\n`
 * separates user-led turns.
 *
 * Units: every budget (`maxToks`, `textToks`, the {@link Policy} fields) counts o200k_base
 * tokens exactly as `src/tokens.ts` counts them. Budgets are non-negative safe integers; a
 * budget of 0 is accepted and renders `''` wherever the reference's `trunctoks_mid` would.
 * String lengths mentioned below count Unicode code points (SPEC §1).
 *
 * Behaviour follows the Python reference (`llmsurgery.compact`), pinned by
 * `conformance/dsl.json`.
 */
import { BudgetError, InvalidArgumentError } from '../errors.js';
import type { Msg, Part, ToolUsePart } from '../chat/message.js';
import { cpLen, jsonKeys, pyLstrip, pyRepr, pyStrip } from '../python/index.js';
import { pyNonBlankLines } from '../python/strings.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';
import { cutText, fitsToksFront, midCutParts, type CutParts } from '../tokens/budget.js';
import { fitsToksLike, spliceFits } from '../tokens/splice.js';
import { checkBudget, resolvePolicy, type Policy, type Profile } from './profile.js';
import { dropTerminalControls } from './terminal-text.js';
import { cleanMidCutParts, cleanTruncMid, cleanTruncMidCounted } from './graphemes.js';
import { LINE_REACH, lineCutParts } from './code-cut.js';
import { cleanProse } from './clean-text.js';
import { evidenceCut, evidenceCutLines } from './evidence-cut.js';
import { pieceFloor, surelyOverToks } from './evidence-count.js';
import { isMediaMarker, markBinaryRuns } from './media.js';

export { PROFILES, checkBudget, checkProfile, compactPolicy, resolvePolicy, type Policy, type Profile } from './profile.js';

// ---------------------------------------------------------------------------------------------
// Argument checks

function needString(v: unknown, fn: string, what: string): string {
  if (typeof v !== 'string') {
    throw new InvalidArgumentError(`${fn}: ${what} must be a string, got ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v}`);
  }
  return v;
}

function needMsg(m: unknown, fn: string): Msg {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new InvalidArgumentError(`${fn}: message must be an object`);
  const o = m as { role?: unknown; content?: unknown };
  if (typeof o.role !== 'string') throw new InvalidArgumentError(`${fn}: message role must be a string`);
  if (!Array.isArray(o.content)) throw new InvalidArgumentError(`${fn}: message content must be a list of parts`);
  for (let i = 0; i < o.content.length; i++) {
    const p = o.content[i] as unknown;
    if (p === null || typeof p !== 'object' || typeof (p as { type?: unknown }).type !== 'string') {
      throw new InvalidArgumentError(`${fn}: part ${i} must be an object with a string "type"`);
    }
  }
  return m as Msg;
}

function partText(p: Part, fn: string): string {
  return needString((p as { text?: unknown }).text, fn, `text of a "${p.type}" part`);
}

// ---------------------------------------------------------------------------------------------
// Small renderers (SPEC §3)

/** `' ¶ '`, which stands for a line break inside one rendered line. */
export const PILCROW_JOIN = ' ¶ ';

/** Separator between user-led turns (and between joined segments, see `joinCompacts`). */
export const TURN_SEP = '\n\n***\n\n';

/** Python-stripped, non-blank lines (Python `splitlines`) joined with `' ¶ '`. */
function joinLines(s: string): string {
  return pyNonBlankLines(s).join(PILCROW_JOIN);
}

/**
 * Delimited prose: `mark + ' ' + strip(s) + ' ' + mark`, middle-truncated to `maxToks` tokens
 * (SPEC §3; strip is Python's `str.strip`).
 * @param s the text. @param mark the sigil, e.g. `'§'` or `'»'` (may be `''`).
 * @param maxToks budget in tokens; the output never exceeds it as counted by `truncToksMid`.
 * @param profile `'reference'` (default) as above; `'clean'`: see `cleanProse` (grapheme-safe
 *   cut, fences mended, delimiters off fence lines).
 * @throws InvalidArgumentError on a non-string `s`/`mark` or a bad budget.
 */
export function compactText(s: string, mark: string, maxToks: number, profile: Profile = 'reference'): string {
  needString(s, 'compactText', 's');
  needString(mark, 'compactText', 'mark');
  checkBudget(maxToks, 'compactText');
  if (profile === 'clean') return cleanProse(pyStrip(s), maxToks, { mark, balance: true });
  return truncToksMid(`${mark} ${pyStrip(s)} ${mark}`, maxToks);
}

/** The middle cut of a profile: the reference's token cut, or the grapheme-safe one. */
export function cutFor(profile: Profile): (s: string, maxToks: number) => string {
  return profile === 'clean' ? cleanTruncMid : truncToksMid;
}

/**
 * Remove every `<warn>…</warn>` and `<note>…</note>` doc-state block: leftmost first, shortest
 * body, across lines, closed by the same tag name — what the reference's
 * `re.sub(r'<(warn|note)>.*?</\1>', '', s, flags=re.DOTALL)` does (SPEC §3). Tags are
 * case-sensitive and exact (`<warn >` is not a tag). Linear time, also on many unclosed tags:
 * once a tag has no closing tag after some position, it has none after any later one.
 * @param s any string. @returns `s` without the blocks.
 */
export function dropDocState(s: string): string {
  if (!s.includes('<warn>') && !s.includes('<note>')) return s;
  const tags = ['warn', 'note'] as const;
  const dead = { warn: false, note: false };
  const next = { warn: -1, note: -1 };
  const out: string[] = [];
  let pos = 0;
  for (;;) {
    let best = -1;
    let tag: 'warn' | 'note' | undefined;
    for (const t of tags) {
      if (dead[t]) continue;
      if (next[t] < pos) next[t] = s.indexOf(`<${t}>`, pos);
      if (next[t] < 0) {
        dead[t] = true;
        continue;
      }
      if (best < 0 || next[t] < best) {
        best = next[t];
        tag = t;
      }
    }
    if (tag === undefined) break;
    const close = s.indexOf(`</${tag}>`, best + tag.length + 2);
    if (close < 0) {
      dead[tag] = true;
      continue;
    }
    out.push(s.slice(pos, best));
    pos = close + tag.length + 3;
  }
  out.push(s.slice(pos));
  return out.join('');
}

const KEEP = '\u{1D341}'; // 𝍁

/** A result before its cut: its text `t`, whether it is kept whole, its lines, and (once made) their rendering `res`. */
type PreparedResult = { t: string; keep: boolean; res: string | undefined; lines: string[] };

/** `'> '` and the result's lines joined by `' ¶ '` (`'>'` for none), made once. */
function resultText(p: PreparedResult): string {
  if (p.res === undefined) p.res = p.lines.length ? `> ${p.lines.join(PILCROW_JOIN)}` : '>';
  return p.res;
}

/**
 * Whether the rendering of `lines` surely has more than `maxToks` tokens, from the lines'
 * pre-token pieces (the boundaries inside a line are boundaries in the rendering too, so their
 * sum bounds its pieces from below), scanning no further than that needs.
 */
function linesSurelyOver(lines: readonly string[], maxToks: number): boolean {
  let sum = 0;
  for (const line of lines) {
    sum += pieceFloor(line, maxToks - sum);
    if (sum > maxToks) return true;
  }
  return false;
}

/**
 * A result's text before its cut, for the last long inputs seen (a fit renders each result at
 * many budgets), one map per profile keyed by the text itself (a string keeps its hash, where a
 * key built by concatenation would be flattened and hashed again on every lookup).
 */
const RESULT_PREP: Record<Profile, Map<string, PreparedResult>> = { clean: new Map(), reference: new Map() };

/** (Internal: dsl/internals.ts.) Forget the prepared results of both profiles. */
export function clearPreparedResults(): void {
  RESULT_PREP.clean.clear();
  RESULT_PREP.reference.clear();
}

function preparedResult(s: string, profile: Profile): PreparedResult {
  const cache = s.length >= 4096 ? RESULT_PREP[profile] : undefined;
  const hit = cache?.get(s);
  if (hit !== undefined) return hit;
  let t = pyStrip(dropDocState(profile === 'clean' ? dropTerminalControls(s) : s));
  const keep = t.startsWith(KEEP) && t.endsWith(KEEP) && cpLen(t) > 2;
  if (keep) t = t.slice(KEEP.length, t.length - KEEP.length);
  if (profile === 'clean') t = markBinaryRuns(t);
  const lines = pyNonBlankLines(t);
  const out: PreparedResult = { t, keep, res: undefined, lines };
  if (cache !== undefined) {
    if (cache.size >= 64) cache.clear();
    cache.set(s, out);
  }
  return out;
}

/**
 * A tool result: `<warn>`/`<note>` blocks removed, stripped; a result longer than 2 code points
 * that starts and ends with `𝍁` loses both markers and is kept whole (never truncated, so it
 * may exceed `maxToks`). Non-blank stripped lines are joined with `' ¶ '` and prefixed with
 * `'> '` (`'>'` alone when nothing is left); otherwise middle-truncated to `maxToks` (SPEC §3).
 * With `profile` `'clean'`, `data:` URIs and long base64 runs first become sized markers
 * (`markBinaryRuns`), and a result over its budget is cut by lines, keeping those that carry
 * evidence (`evidenceCut`), with grapheme-safe cuts; a cut that keeps no text is `'> …'` (2
 * tokens), or `''` at a budget of 1, never the bare mark.
 * @throws InvalidArgumentError on a non-string `s` or a bad budget.
 */
export function compactResult(s: string, maxToks: number, profile: Profile = 'reference'): string {
  needString(s, 'compactResult', 's');
  checkBudget(maxToks, 'compactResult');
  const pr = preparedResult(s, profile);
  const { t, keep, lines } = pr;
  if (keep) return resultText(pr);
  // Clean profile: a result over its budget keeps its evidence lines (evidence-cut.ts).
  if (profile === 'clean') {
    // Decided from the pre-token pieces when they are enough (those of the lines first: the
    // rendering is then made only if a cut needs it), else from the front alone: the evidence
    // cut below counts lines, not the text's end.
    if (!linesSurelyOver(lines, maxToks)) {
      const res = resultText(pr);
      if (!surelyOverToks(res, maxToks) && fitsToksFront(res, maxToks)) return res;
    }
    // A leading media marker line (the clean view of binary outputs) is kept whole when it fits.
    const nl = t.indexOf('\n');
    const lead = nl < 0 ? '' : t.slice(0, nl);
    const cut =
      isMediaMarker(lead) && fitsToks(`> ${lead} ¶ `, maxToks - 4)
        ? evidenceCut(t.slice(nl + 1), maxToks, { prefix: `> ${lead} ¶ `, cut: cleanTruncMid, countedCut: cleanTruncMidCounted })
        : evidenceCutLines(t, lines, () => resultText(pr), maxToks, { cut: cleanTruncMid, countedCut: cleanTruncMidCounted }, true);
    // No text kept: the result's sigil and the cut mark (2 tokens), or nothing, never a bare mark.
    return cut.replace('> ', '').trim() === '…' ? (maxToks >= 2 ? '> …' : '') : cut;
  }
  return truncToksMid(resultText(pr), maxToks);
}

const FENCE_LINE = /( {0,3})(`{3,})[ \t]*(?=\n|$)/y;
/** The same with a `\r` before the line break (a CRLF line), which Markdown reads as a fence line too. */
const FENCE_LINE_CR = /( {0,3})(`{3,})[ \t]*(?=\r?\n|\r?$)/y;

/**
 * Longest run of backticks on a line that is only 0–3 spaces, ≥ 3 backticks and optional
 * spaces/tabs. Lines are split at `\n` only (Python `re.MULTILINE` semantics, SPEC §1); with
 * `crlf` (the clean profile) a line may end with `\r` too.
 */
function longestFenceRun(code: string, crlf = false): number {
  const fenceLine = crlf ? FENCE_LINE_CR : FENCE_LINE;
  if (!code.includes('```')) return 0; // no run of three backticks: no fence-like line
  let best = 0;
  let start = 0;
  while (start <= code.length) {
    const nl = code.indexOf('\n', start);
    const end = nl < 0 ? code.length : nl;
    // cheap pre-check: a fence line has a backtick within its first 4 characters
    const head = code.slice(start, Math.min(end, start + 4));
    if (head.includes('`')) {
      fenceLine.lastIndex = start;
      const m = fenceLine.exec(code);
      if (m && m.index === start) best = Math.max(best, m[2]!.length);
    }
    if (nl < 0) break;
    start = nl + 1;
  }
  return best;
}

/**
 * A clean code cut that keeps no code (the mark alone, or the part of it that fits) as the mark
 * without its spaces: on its own line, as a cut laid out by lines writes it (`…`, not ` …`).
 */
function markLine(c: CutParts | string): CutParts | string {
  return typeof c === 'string' && c !== '' && c !== CUT_MARK.trim() && CUT_MARK.startsWith(c) ? CUT_MARK.trim() : c;
}

/** How far above its budget (tokens) a clean cut of code laid out by lines may be cut, to fill the budget. */
const LINE_CLIMB = 24;
/** How many budgets in a row that do not fit end the climb. */
const CLIMB_MISSES = 4;

/** The mark a middle cut of fenced code puts where the middle was (the reference's default). */
const CUT_MARK = ' … ';

/**
 * Python code in a Markdown fence that its content cannot close (SPEC §3). The code is stripped;
 * the fence is backticks, one more than the longest fence-like line inside (minimum 3).
 * Returns `fence + 'python\n' + code + '\n' + fence` when that fits `maxToks`; otherwise the
 * code middle-truncated to the largest token budget `k ≤ min(lenToks(code), maxToks)` (tried
 * downwards one by one, as the reference does) for which the whole block fits; the empty fence
 * pair when no `k > 0` fits. Cost: the code's head and tail ids are encoded once
 * (`midCutParts`); each step then maps one cut to spans of the code and counts the block from
 * the code's pieces and the cut's seams (the loop usually runs about as many steps as the fence
 * adds tokens).
 * With `profile` `'clean'` the cut keeps whole grapheme clusters and words, and a cut across
 * lines puts its mark on a line of its own, indented like the line after it, dropping a partial
 * line on either side whose text has at most `min(LINE_REACH, maxToks)` units (`lineCutParts`),
 * so the head's last line and the tail's first line are never joined; a cut within one line
 * keeps the inline ` … `. When the first budget tried fits, budgets up to {@link LINE_CLIMB}
 * tokens above it are tried too (a dropped line leaves room), until {@link CLIMB_MISSES} in a
 * row do not fit, and the last that fits is kept; each is counted from the code's pieces.
 * @throws BudgetError when even the empty fence pair exceeds `maxToks` (the reference's ValueError).
 * @throws InvalidArgumentError on a non-string `code` or a bad budget.
 */
export function fencedCode(code: string, maxToks: number, profile: Profile = 'reference'): string {
  needString(code, 'fencedCode', 'code');
  checkBudget(maxToks, 'fencedCode');
  const body = pyStrip(code);
  const fence = '`'.repeat(Math.max(3, longestFenceRun(body, profile === 'clean') + 1));
  const pre = `${fence}python\n`;
  const suf = `\n${fence}`;
  const full = pre + body + suf;
  // Counted from the pieces of the body (which the cuts below share), not encoded afresh.
  if (spliceFits(body, body.length, '', body.length, maxToks, pre, suf)) return full;
  if (!fitsToks(pre + suf, maxToks)) {
    throw new BudgetError(`fencedCode: a budget of ${maxToks} tokens is too small for a fenced block (the empty fence needs ${lenToks(pre + suf)})`);
  }
  // min(len_toks(code), maxToks) without counting all of a huge body. A body within the
  // budget is cut afresh at each step (few steps: the fence costs a handful of tokens); a
  // longer one shares one tokenisation across the steps.
  const fits = fitsToks(body, maxToks);
  let k = fits ? lenToks(body) : maxToks;
  // Clean cuts laid out by lines may drop partial lines and fit below the budget they were cut
  // to: they are also cut to budgets a little above it (see the climb below).
  const top = fits ? k : maxToks + LINE_CLIMB;
  const clean = profile === 'clean' ? cleanMidCutParts(body, top) : undefined;
  // A partial line is dropped for a whole one when its text has at most one unit per token of
  // the budget (about a quarter of what the budget holds), and at most LINE_REACH units.
  const reach = Math.min(LINE_REACH, maxToks);
  const cut =
    clean !== undefined
      ? (j: number): CutParts | string => markLine(lineCutParts(body, clean(j), CUT_MARK, reach))
      : fits
        ? (j: number): CutParts | string => midCutParts(body, j, CUT_MARK, true)(j)
        : midCutParts(body, k, CUT_MARK, false);
  // A cut keeps the body's start and end: counted from the body's pieces and its seams (as
  // parts of the body, the seams of the cut itself, which its fit check has just counted).
  const ok = (c: CutParts | string): boolean =>
    typeof c === 'string' ? fitsToksLike(body, c, maxToks, pre, suf) : spliceFits(body, c.head, c.mid, c.tail, maxToks, pre, suf);
  const first = k;
  for (; k > 0; k--) {
    let c = cut(k);
    if (!ok(c)) continue;
    // The first cut tried fits: one laid out by lines may have left room. Larger budgets are
    // tried while one of a few in a row still fits, the one that keeps most of the code kept.
    if (clean !== undefined && k === first) {
      const kept = (x: CutParts | string): number => (typeof x === 'string' ? x.length : x.head + body.length - x.tail);
      for (let j = k + 1, miss = 0; j <= top && miss < CLIMB_MISSES; j++) {
        const d = cut(j);
        if (ok(d)) {
          if (kept(d) > kept(c)) c = d;
          miss = 0;
        } else miss++;
      }
    }
    return pre + cutText(body, c) + suf;
  }
  return pre + suf;
}

/**
 * A shell command: `'! '` + its Python-stripped non-blank lines joined with `' ¶ '`,
 * middle-truncated to `maxToks` (SPEC §3). The clean profile keeps the program's name where a
 * middle cut would drop it (`! wc …` rather than `! … 40`).
 * @throws InvalidArgumentError on a non-string `command` or a bad budget.
 */
export function bashCall(command: string, maxToks: number, profile: Profile = 'reference'): string {
  needString(command, 'bashCall', 'command');
  checkBudget(maxToks, 'bashCall');
  const text = `! ${joinLines(command)}`;
  if (profile !== 'clean') return truncToksMid(text, maxToks);
  // The lead is the program: the command's first word.
  const word = /^\S*/.exec(text.slice(2))![0];
  return word === '' ? noBareMark(cleanTruncMid(text, maxToks, CUT_MARK, true)) : leadFirst(text, 2 + word.length, [`! ${word} …`], maxToks);
}

/**
 * A call's rendering `s` cut for the clean profile so that it keeps its lead, `s.slice(0, lead)`
 * (`▶ name(` of a tool call, `! program` of a shell command), which says what was run: the
 * middle cut when its head holds the lead; else the first of `short` (the lead and a cut
 * mark: `▶ name(…)`, `▶ name …`, `! wc …`) that fits `maxToks` tokens, when it takes all but
 * at most {@link LEAD_SLACK} tokens of them (a larger budget keeps the middle cut, arguments
 * and all); else the middle cut (`▶ … ')`).
 */
function leadFirst(s: string, lead: number, short: readonly string[], maxToks: number): string {
  const cut = noBareMark(cleanTruncMid(s, maxToks, CUT_MARK, true));
  if (cut === s || cut.startsWith(s.slice(0, lead))) return cut;
  // Only where the lead alone takes about the whole budget: with more, the middle cut keeps
  // arguments too, and the lead's start.
  for (const t of short) {
    const n = lenToks(t);
    if (n <= maxToks) return n + LEAD_SLACK >= maxToks ? t : cut;
  }
  return cut;
}

/** A cut that keeps only the mark (a budget of a token or two) as nothing: a bare ` …` reads as any piece's. */
function noBareMark(cut: string): string {
  return cut.trim() === '…' ? '' : cut;
}

/** Tokens of budget beyond a call's lead form up to which {@link leadFirst} writes that form. */
const LEAD_SLACK = 3;

/**
 * Any other tool call: `'▶ ' + name + '(' + k1=repr(v1), k2=repr(v2), … + ')'`, keys in the
 * object's source order ({@link jsonKeys}), `repr` being Python's ({@link pyRepr}: numbers
 * parsed by `parseJson` keep their int/float kind). Inside each `k=repr(v)` the two characters
 * backslash + `n` become `' ¶ '`. Middle-truncated to `maxToks` (SPEC §3); the clean profile
 * keeps the tool's name where a middle cut would drop it (`▶ read_file(…)` rather than `▶ … ')`).
 * @param args the call's arguments: a JSON object (plain object, as `parseJson` returns).
 * @throws InvalidArgumentError on a non-string name, a non-object `args`, a value `pyRepr`
 *   cannot print, or a bad budget.
 */
export function genericCall(name: string, args: Record<string, unknown>, maxToks: number, profile: Profile = 'reference'): string {
  needString(name, 'genericCall', 'name');
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new InvalidArgumentError(`genericCall: args must be a JSON object, got ${args === null ? 'null' : Array.isArray(args) ? 'array' : typeof args}`);
  }
  checkBudget(maxToks, 'genericCall');
  const items = jsonKeys(args).map((k) => {
    const item = `${k}=${pyRepr(args[k])}`;
    return item.includes('\\n') ? item.replaceAll('\\n', PILCROW_JOIN) : item;
  });
  const text = `▶ ${name}(${items.join(', ')})`;
  if (profile !== 'clean') return truncToksMid(text, maxToks);
  return leadFirst(text, name.length + 3, [`▶ ${name}(…)`, `▶ ${name} …`], maxToks);
}

/**
 * Renders one tool-use part within a token budget; an entry of {@link callRenderers}. The
 * profile is passed along (a renderer may ignore it).
 */
export type CallRenderer = (part: ToolUsePart, maxToks: number, profile?: Profile) => string;

/** A renderer that feeds `part.arguments[key]` (or `''` when the key is absent) to `render`. */
export function argRenderer(render: (payload: string, maxToks: number, profile?: Profile) => string, key: string): CallRenderer {
  return (part, maxToks, profile = 'reference') => {
    const v = Object.hasOwn(part.arguments, key) ? part.arguments[key] : '';
    if (typeof v !== 'string') {
      throw new InvalidArgumentError(`compactCall: argument "${key}" of tool "${part.name}" must be a string, got ${v === null ? 'null' : typeof v}`);
    }
    return render(v, maxToks, profile);
  };
}

/**
 * The call renderer registry (SPEC §3): tool name (without a leading `tools.`) → renderer.
 * Built in: `mcp__clikernel__execute` and `py` render `arguments.code` with {@link fencedCode};
 * `Bash` renders `arguments.command` and `bash` renders `arguments.cmd` with {@link bashCall}.
 * Tools not listed render with {@link genericCall}.
 *
 * It is a public, mutable `Map`; to teach the renderer a new tool, add one entry, e.g.
 * ```ts
 * callRenderers.set('run_sql', argRenderer(fencedCode, 'query'));
 * callRenderers.set('Read', (part, maxToks) => truncToksMid(`📄 ${String(part.arguments.file_path)}`, maxToks));
 * ```
 * A renderer must keep to `maxToks` itself. Changes affect every later render in the process.
 */
export const callRenderers: Map<string, CallRenderer> = new Map<string, CallRenderer>([
  ['mcp__clikernel__execute', argRenderer(fencedCode, 'code')],
  ['py', argRenderer(fencedCode, 'code')],
  ['Bash', argRenderer(bashCall, 'command')],
  ['bash', argRenderer(bashCall, 'cmd')],
]);

/**
 * A tool-use part: dispatched on its name with one leading `tools.` removed through
 * {@link callRenderers}; unregistered tools render with {@link genericCall} under their
 * original name (SPEC §3).
 * @throws InvalidArgumentError on a malformed part or a bad budget; BudgetError from fencedCode.
 */
export function compactCall(part: ToolUsePart, maxToks: number, profile: Profile = 'reference'): string {
  if (part === null || typeof part !== 'object') throw new InvalidArgumentError('compactCall: part must be a tool_use part');
  const name = needString(part.name, 'compactCall', 'part.name');
  const args = part.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new InvalidArgumentError(`compactCall: arguments of tool "${name}" must be a JSON object`);
  }
  checkBudget(maxToks, 'compactCall');
  const render = callRenderers.get(name.startsWith('tools.') ? name.slice(6) : name);
  return render ? render(part, maxToks, profile) : genericCall(name, args, maxToks, profile);
}

// ---------------------------------------------------------------------------------------------
// Messages (SPEC §4)

const PLUMBING_TAGS = ['command-name', 'command-message', 'command-args', 'local-command-stdout', 'local-command-caveat', 'system-reminder'];

/** The text a user skill injection is replaced by. */
export const SKILL_MARKER = '…skill text compacted: re-invoke before relying on it…';
const SKILL_PREFIX = 'Base directory for this skill:';

/**
 * Host plumbing: user text that, after optional (Python) whitespace, starts with one of the tags
 * `<command-name>`, `<command-message>`, `<command-args>`, `<local-command-stdout>`,
 * `<local-command-caveat>`, `<system-reminder>` (SPEC §4).
 */
export function isPlumbing(text: string): boolean {
  const t = pyLstrip(needString(text, 'isPlumbing', 'text'));
  if (!t.startsWith('<')) return false;
  return PLUMBING_TAGS.some((tag) => t.startsWith(`<${tag}>`));
}

/** An injected skill body: user text starting with `Base directory for this skill:` (SPEC §4). */
export function isSkillText(text: string): boolean {
  return needString(text, 'isSkillText', 'text').startsWith(SKILL_PREFIX);
}

/** One user text: `compactText(_, '§', maxToks)`, a skill body replaced by {@link SKILL_MARKER}. */
export function compactUserPart(text: string, maxToks: number, profile: Profile = 'reference'): string {
  return compactText(isSkillText(text) ? SKILL_MARKER : text, '§', maxToks, profile);
}

/**
 * A user message: each text part that is not plumbing through {@link compactUserPart}, joined
 * with `\n`. Other parts are ignored. Like the reference, empty renderings are NOT dropped
 * (with budget 0 two text parts give `'\n'`) (SPEC §4).
 * @throws InvalidArgumentError on a malformed message or a bad budget.
 */
export function compactUser(m: Msg, maxToks: number, profile: Profile = 'reference'): string {
  needMsg(m, 'compactUser');
  checkBudget(maxToks, 'compactUser');
  const out: string[] = [];
  for (const p of m.content) {
    if (p.type !== 'text') continue;
    const text = partText(p, 'compactUser');
    if (!isPlumbing(text)) out.push(compactUserPart(text, maxToks, profile));
  }
  return out.join('\n');
}

/**
 * An assistant message: text parts as `compactText(_, '»', textToks)`, tool-use parts through
 * {@link compactCall} with `callToks`; other parts (thinking, media) dropped; empty renderings
 * dropped; joined with `\n` (SPEC §4).
 * @throws InvalidArgumentError on a malformed message or bad budgets.
 */
export function compactAsst(m: Msg, textToks: number, callToks: number, profile: Profile = 'reference'): string {
  needMsg(m, 'compactAsst');
  checkBudget(textToks, 'compactAsst', 'textToks');
  checkBudget(callToks, 'compactAsst', 'callToks');
  const out: string[] = [];
  for (const p of m.content) {
    let r = '';
    if (p.type === 'text') r = compactText(partText(p, 'compactAsst'), '»', textToks, profile);
    else if (p.type === 'tool_use') r = compactCall(p, callToks, profile);
    if (r) out.push(r);
  }
  return out.join('\n');
}

/**
 * A tool message: each tool-result part through {@link compactResult}, joined with `\n`
 * (empty renderings kept, as the reference does) (SPEC §4).
 * @throws InvalidArgumentError on a malformed message or a bad budget.
 */
export function compactTool(m: Msg, maxToks: number, profile: Profile = 'reference'): string {
  needMsg(m, 'compactTool');
  checkBudget(maxToks, 'compactTool');
  const out: string[] = [];
  for (const p of m.content) if (p.type === 'tool_result') out.push(compactResult(partText(p, 'compactTool'), maxToks, profile));
  return out.join('\n');
}

/**
 * One message, dispatched on its role: user → {@link compactUser} (`userToks`), assistant →
 * {@link compactAsst} (`asstToks`, `callToks`), tool → {@link compactTool} (`resultToks`);
 * any other role renders `''` (SPEC §4).
 * @param policy budgets and profile; missing fields take the default ({@link resolvePolicy}).
 */
export function compactMsg(m: Msg, policy?: Partial<Policy>): string {
  needMsg(m, 'compactMsg');
  const p = resolvePolicy(policy);
  switch (m.role) {
    case 'user':
      return compactUser(m, p.userToks, p.profile);
    case 'assistant':
      return compactAsst(m, p.asstToks, p.callToks, p.profile);
    case 'tool':
      return compactTool(m, p.resultToks, p.profile);
    default:
      return '';
  }
}

/** Budget standing in for "unlimited" on lifted messages (the reference's 10**9). */
const UNLIMITED = 1_000_000_000;

/** A substantive prompt: a user message with a text part that is neither plumbing nor skill text. */
function isPrompt(m: Msg): boolean {
  return m.role === 'user' && m.content.some((p) => p.type === 'text' && !isPlumbing(partText(p, 'compactChat')) && !isSkillText(p.text));
}

/** Has `m` a non-empty text part (whitespace counts as non-empty)? */
function hasText(m: Msg): boolean {
  return m.content.some((p) => p.type === 'text' && partText(p, 'compactChat') !== '');
}

/**
 * A conversation as compact user-led turns (SPEC §4).
 *
 * Every user message (plumbing included) opens a turn; messages before the first user message
 * form a turn of their own. With `lastN > 0`, the last `lastN` substantive prompts and, for
 * each, the last assistant message with a non-empty text part up to the next of those prompts
 * are rendered with unlimited user and assistant budgets (call and result budgets unchanged).
 * A turn is its messages' non-empty renderings joined by `\n`; the result is the non-empty
 * turns joined by `\n\n***\n\n`.
 * @param msgs canonical messages. @param policy budgets (partial → default per field).
 * @param opts.lastN how many final substantive prompts to lift; 0 (default) lifts none.
 * @throws InvalidArgumentError on malformed messages, budgets or `lastN`.
 */
export function compactChat(msgs: readonly Msg[], policy?: Partial<Policy>, opts: { lastN?: number } = {}): string {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('compactChat: msgs must be a list of messages');
  const pol = resolvePolicy(policy);
  const lastN = opts?.lastN ?? 0;
  if (typeof lastN !== 'number' || !Number.isSafeInteger(lastN) || lastN < 0) {
    throw new InvalidArgumentError(
      `compactChat: lastN must be a non-negative integer count of prompts, got ${typeof lastN === 'number' ? String(lastN) : typeof lastN}`,
    );
  }
  msgs.forEach((m) => needMsg(m, 'compactChat'));

  const lifted = new Set<number>();
  if (lastN > 0) {
    const prompts: number[] = [];
    msgs.forEach((m, i) => {
      if (isPrompt(m)) prompts.push(i);
    });
    const win = prompts.slice(Math.max(0, prompts.length - lastN));
    win.forEach((start, j) => {
      lifted.add(start);
      const end = j + 1 < win.length ? win[j + 1]! : msgs.length;
      for (let i = end - 1; i >= start; i--) {
        const m = msgs[i]!;
        if (m.role === 'assistant' && hasText(m)) {
          lifted.add(i);
          break;
        }
      }
    });
  }
  const liftPol: Policy = { ...pol, userToks: UNLIMITED, asstToks: UNLIMITED };

  const turns: string[][] = [];
  msgs.forEach((m, i) => {
    if (m.role === 'user' || turns.length === 0) turns.push([]);
    const r = compactMsg(m, lifted.has(i) ? liftPol : pol);
    if (r) turns[turns.length - 1]!.push(r);
  });
  return turns
    .map((t) => t.join('\n'))
    .filter((t) => t !== '')
    .join(TURN_SEP);
}
