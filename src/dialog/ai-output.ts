/**
 * The AI view of a code cell's outputs (SPEC §7, the reference's `ai_output`): what the model
 * is shown of a cell's results — streams, errors and the preferred text form of each data
 * output, joined, then shown as Python `str()` of the value when the text is a Python literal.
 * Pinned by the `code_outputs` of `conformance/dialogs/NNN.parts.json`.
 */
import { InvalidArgumentError } from '../errors.js';
import { isJsonMime } from './cells.js';
import { NotALiteralError, isJsonObject, isLosslessNumber, literalEval, pyStr, pyStrValue, pyTruthy as truthy } from '../python/index.js';
import { mayBeLiteral } from '../python/literal-eval.js';
import type { Profile } from '../dsl/profile.js';
import { base64Size, htmlText, mediaMarker, utf8Size } from '../dsl/media.js';

const hasOwn = Object.prototype.hasOwnProperty;

function field(o: Record<string, unknown>, key: string): unknown {
  return hasOwn.call(o, key) ? o[key] : undefined;
}

/**
 * Remove ANSI CSI escape sequences as the reference's `strip_ansi` does: each `ESC [`
 * followed by the shortest run of characters other than `\n` that ends in a character in
 * `@`..`~` is deleted (so OSC sequences such as `ESC ] 0;title BEL` stay, and an `ESC [` with
 * no final character before the line break stays). Input/output: strings. Linear time.
 */
export function stripAnsi(s: string): string {
  let i = s.indexOf('\x1b[');
  if (i < 0) return s;
  const n = s.length;
  const parts: string[] = [];
  let last = 0;
  while (i >= 0) {
    let j = i + 2;
    let c = s.charCodeAt(j);
    while (j < n && c !== 10 && !(c >= 0x40 && c <= 0x7e)) c = s.charCodeAt(++j);
    if (j < n && c !== 10) {
      parts.push(s.slice(last, i));
      last = j + 1;
      i = s.indexOf('\x1b[', last);
    } else {
      // No final character before the line break. Any later `ESC [` in (i, j) would have
      // stopped the scan at its `[` (which is in @..~), so the search resumes at j.
      i = j < n ? s.indexOf('\x1b[', j) : -1;
    }
  }
  parts.push(s.slice(last));
  return parts.join('');
}

/**
 * Render stream text as a terminal leaves it, the rule the reference's stream cleaning
 * follows on every conformance dialog: the text is split at `\n`; in each line a carriage
 * return starts the line over, and what remains is the last non-empty `\r`-separated segment
 * (so a trailing `\r`, as in `\r\r\n` or a progress bar's last frame, keeps the line); then
 * each backspace (U+0008) deletes the code point before it (nothing at the line start).
 * Everything else — including ANSI sequences, removed later — passes through.
 * Input/output: strings. Linear time.
 */
export function renderTerminal(s: string): string {
  if (!s.includes('\r') && !s.includes('\b')) return s;
  const lines = s.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.includes('\r')) {
      const segs = line.split('\r');
      line = '';
      for (let j = segs.length - 1; j >= 0; j--) {
        if (segs[j] !== '') {
          line = segs[j];
          break;
        }
      }
    }
    if (line.includes('\b')) {
      const kept: string[] = [];
      for (const ch of line) {
        if (ch === '\b') kept.pop();
        else kept.push(ch);
      }
      line = kept.join('');
    }
    lines[i] = line;
  }
  return lines.join('\n');
}

const DISPLAY_ENV = /^\\begin\{(?:align|equation|gather|multline|eqnarray)/;

/**
 * Re-delimit a `text/latex` payload as the reference's `normalize_text_latex` does: a payload
 * wrapped whole in `\[…\]` or `$$…$$` is display math, in `\(…\)` or `$…$` inline math (tried
 * in that order: `\[`, `\(`, `$$`, `$`); otherwise the whole payload is the TeX, display when
 * it starts with `\begin{align|equation|gather|multline|eqnarray`. Result: `\[tex\]` or
 * `\(tex\)`; the empty string stays empty. Input/output: strings.
 */
export function normalizeLatex(s: string): string {
  if (!s) return s;
  let display: boolean;
  let tex: string;
  const wrapped = (open: string, close: string): boolean => s.length >= open.length + close.length && s.startsWith(open) && s.endsWith(close);
  if (wrapped('\\[', '\\]')) [display, tex] = [true, s.slice(2, -2)];
  else if (wrapped('\\(', '\\)')) [display, tex] = [false, s.slice(2, -2)];
  else if (wrapped('$$', '$$')) [display, tex] = [true, s.slice(2, -2)];
  else if (wrapped('$', '$')) [display, tex] = [false, s.slice(1, -1)];
  else [display, tex] = [DISPLAY_ENV.test(s), s];
  return display ? `\\[${tex}\\]` : `\\(${tex}\\)`;
}

function isStrList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function bad(where: string, what: string): never {
  throw new InvalidArgumentError(`aiOutput: ${where}: ${what}`);
}

/** A mime payload or stream text as one string: a list of strings is joined. */
function joinText(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (isStrList(v)) return v.join('');
  return bad(where, `expected a string or a list of strings, got ${describe(v)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list with non-string items';
  if (isLosslessNumber(v)) return 'a number';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const PREFERRED = ['text/markdown', 'text/html', 'application/javascript', 'text/latex', 'text/plain'];

/** Is a MIME type text the AI view can show (rather than binary data)? */
function isTextMime(mime: string): boolean {
  const m = mime.toLowerCase();
  if (m.startsWith('text/') || isJsonMime(m) || m.endsWith('+json') || m.endsWith('/json')) return true;
  return m === 'application/javascript' || m === 'application/x-javascript' || m === 'application/xml' || m === 'application/x-tex';
}

/** Binary MIME types in the order a marker picks them (others follow in bundle order). */
const BINARY_FIRST = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/gif', 'image/webp', 'application/pdf'];

/** A label for a binary output from its metadata: alt text, a file name or a title, when one is given. */
function mediaLabel(out: Record<string, unknown>, mime: string): string | undefined {
  const md = field(out, 'metadata');
  if (!isJsonObject(md)) return undefined;
  const own = field(md, mime);
  for (const o of isJsonObject(own) ? [own, md] : [md]) {
    for (const k of ['alt', 'filename', 'file_name', 'name', 'title']) {
      const v = field(o, k);
      if (typeof v === 'string' && v.trim() !== '') return v.trim().slice(0, 200);
    }
  }
  return undefined;
}

/** A binary payload of an output: its MIME type, decoded size and label. */
interface Binary {
  mime: string;
  size: number;
  label?: string;
}

/** The first binary payload of a bundle (in {@link BINARY_FIRST} order), or `null` when it has none. */
function binaryOf(out: Record<string, unknown>, data: Record<string, unknown>): Binary | null {
  const keys = Object.keys(data).filter((k) => !isTextMime(k));
  if (keys.length === 0) return null;
  const rank = (k: string): number => {
    const i = BINARY_FIRST.indexOf(k.toLowerCase());
    return i < 0 ? BINARY_FIRST.length : i;
  };
  const mime = keys.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  const v = field(data, mime);
  const text = typeof v === 'string' ? v : isStrList(v) ? v.join('') : '';
  // SVG is XML text; other payloads are base64 (a malformed one is still sized by its length).
  const size = mime.toLowerCase() === 'image/svg+xml' ? utf8Size(text) : base64Size(text);
  return { mime, size, label: mediaLabel(out, mime) };
}

/**
 * One marker for several binary outputs of a cell, so that a result cut cannot drop some of
 * them: `[N × mime SIZE]` per MIME type (sizes summed), joined by `, ` inside one bracket.
 */
function combinedMarker(bins: readonly Binary[]): string {
  const by = new Map<string, { n: number; size: number }>();
  for (const b of bins) {
    const e = by.get(b.mime) ?? { n: 0, size: 0 };
    e.n++;
    e.size += b.size;
    by.set(b.mime, e);
  }
  return `[${[...by].map(([mime, e]) => `${e.n} × ${mediaMarker(mime, e.size).slice(1, -1)}`).join(', ')}]`;
}

/**
 * Does a list of outputs hold a binary or HTML payload, where the clean view differs from
 * the reference's? (Malformed outputs answer `true`, so the view reports them.)
 */
export function hasRichOutput(outputs: readonly unknown[]): boolean {
  if (!Array.isArray(outputs)) return true;
  for (const out of outputs) {
    if (!isJsonObject(out)) return true;
    const data = field(out, 'data');
    if (data === undefined) continue;
    if (!isJsonObject(data)) return true;
    for (const k of Object.keys(data)) if (!isTextMime(k) || k === 'text/html') return true;
  }
  return false;
}

/** Text of an execute_result / display_data output. */
function renderData(out: Record<string, unknown>, where: string, profile: Profile = 'reference', bins?: Binary[]): string {
  const data = field(out, 'data');
  if (data === undefined) return '';
  if (!isJsonObject(data)) return bad(where, '"data" must be an object');
  if (profile === 'clean') {
    const bin = binaryOf(out, data);
    if (bin !== null) bins?.push(bin);
    return renderText(data, where, true);
  }
  return renderText(data, where, false);
}

/** The preferred text form of a bundle (clean: HTML as its text). */
function renderText(data: Record<string, unknown>, where: string, clean: boolean): string {
  for (const mime of PREFERRED) {
    let d = field(data, mime);
    // nbformat joins list-of-lines payloads on reading (JSON mime types stay as they are)
    if (!isJsonMime(mime) && isStrList(d)) d = d.join('');
    if (!truthy(d)) continue;
    const at = `${where} "${mime}"`;
    switch (mime) {
      case 'text/plain':
        return stripAnsi(typeof d === 'string' ? d : pyStr(d));
      case 'application/javascript':
        return `<script>${typeof d === 'string' ? d : pyStr(d)}</script>`;
      case 'text/latex':
        return normalizeLatex(joinText(d, at));
      case 'text/html':
        return clean ? htmlText(joinText(d, at)) : joinText(d, at);
      default:
        return joinText(d, at);
    }
  }
  return '';
}

/**
 * The joined text of `outputs` before the literal step of {@link aiOutput}: the reference's
 * `render_outputs_ai` (over fastcore's `concat_streams` / `preferred_msg_out`).
 *
 * 1. Streams are concatenated per name (`stdout`, then `stderr`; other stream names are
 *    dropped, as in the reference) and rendered as a terminal shows them (see
 *    {@link renderTerminal}). Display outputs (and outputs of unknown type) keep their order
 *    and come first, then the two streams, then errors and execute results in their order.
 * 2. Each output becomes text: a stream its text, an error its traceback lines joined with
 *    `\n`, a data output its preferred mime type among markdown, HTML, JavaScript, LaTeX and
 *    plain text (first non-empty; images never), rendered as: markdown/HTML verbatim,
 *    JavaScript as `<script>…</script>`, LaTeX re-delimited ({@link normalizeLatex}), plain
 *    text with ANSI CSI sequences removed ({@link stripAnsi}). Streams and tracebacks count as
 *    plain text. An output with nothing to show gives an empty string.
 *
 * Input: a list of nbformat output dicts as `parseJson` gives them (numbers may be
 * `LosslessNumber`s; multi-line strings may be lists of strings, joined as nbformat does on
 * reading). Lengths and offsets are UTF-16 units. Output: the texts of the reordered outputs joined
 * with `\n`. Throws `InvalidArgumentError` (naming the output index) where the reference
 * fails or the output is malformed: `outputs` not a list, an output not an object or without
 * `output_type`, a stream without a string `name` or without `text`, text/traceback/markdown/
 * HTML/LaTeX payloads that are not strings or lists of strings, `data` not an object.
 * Linear in the size of the outputs.
 */
export function renderOutputsAi(outputs: readonly unknown[], profile: Profile = 'reference'): string {
  if (!Array.isArray(outputs)) bad('outputs', `expected a list, got ${describe(outputs)}`);
  const bins: Binary[] = [];
  const first: string[] = [];
  const last: string[] = [];
  const streams = new Map<string, string[]>();
  outputs.forEach((out, i) => {
    const where = `output ${i}`;
    if (!isJsonObject(out)) bad(where, 'expected an object');
    if (!hasOwn.call(out, 'output_type')) bad(where, 'missing "output_type"');
    const type = out.output_type;
    if (type === 'stream') {
      const name = field(out, 'name');
      if (typeof name !== 'string') bad(where, 'a stream needs a string "name"');
      if (!hasOwn.call(out, 'text')) bad(where, 'a stream needs "text"');
      const text = joinText(out.text, `${where} "text"`);
      const chunks = streams.get(name);
      if (chunks === undefined) streams.set(name, [text]);
      else chunks.push(text);
    } else if (type === 'error') {
      const tb = hasOwn.call(out, 'traceback') ? out.traceback : [];
      if (!isStrList(tb)) bad(where, '"traceback" must be a list of strings');
      last.push(stripAnsi(tb.join('\n')));
    } else if (type === 'execute_result') {
      last.push(renderData(out, where, profile, bins));
    } else if (type === 'display_data') {
      first.push(renderData(out, where, profile, bins));
    } else {
      first.push(stripAnsi(`Error: Failed to parse unknown output - ${pyStr(out)}`));
    }
  });
  for (const name of ['stdout', 'stderr']) {
    const chunks = streams.get(name);
    if (chunks !== undefined) first.push(stripAnsi(renderTerminal(chunks.join(''))));
  }
  if (bins.length === 0) return first.concat(last).join('\n');
  const text = first
    .concat(last)
    .filter((t) => t !== '')
    .join('\n');
  // Clean profile: the binary outputs' marker leads, where no result cut can drop it.
  const b = bins[0]!;
  const marker = bins.length === 1 ? mediaMarker(b.mime, b.size, b.label) : combinedMarker(bins);
  return text === '' ? marker : `${marker}\n${text}`;
}

/**
 * The AI view of a code cell's outputs (SPEC §7): {@link renderOutputsAi}, then,
 * when that text is a Python literal, Python `str()` of its value (`'hello'` -> `hello`,
 * `(1,2)` -> `(1, 2)`, sets in source order).
 *
 * Input: the cell's `outputs` list as parsed by `parseJson` (or plain JSON values).
 * With `profile` `'clean'`, data outputs holding a binary payload (image, PDF, audio, video,
 * any MIME type that is not text) are shown by a sized marker on the view's first line, before
 * the texts: `[image/png 412 KB]` for one (with alt text or a file name from the output's
 * metadata when there is one, `[image/png 412 KB "plot.png"]`), `[6 × image/png 720 KB]` for
 * several (sizes summed per MIME type); HTML shows as its text (tags stripped, `htmlText`).
 * Output: a string (UTF-16). Throws `InvalidArgumentError` for malformed outputs (see
 * {@link renderOutputsAi}); never throws on account of the text's content. Linear time: the
 * literal check gives up at the first token that cannot belong to a literal.
 */
export function aiOutput(outputs: readonly unknown[], profile: Profile = 'reference'): string {
  if (Array.isArray(outputs) && outputs.length === 0) return '';
  const text = renderOutputsAi(outputs, profile);
  // Most texts that are not literals are told by their first token, without a throw.
  if (!mayBeLiteral(text)) return text;
  // For the others the parser says so by throwing; capturing a stack trace for each of those
  // throws dominated the cost of this function, so none is captured here.
  const E = Error as { stackTraceLimit?: number };
  const limit = E.stackTraceLimit;
  E.stackTraceLimit = 0;
  try {
    return pyStrValue(literalEval(text));
  } catch (e) {
    if (e instanceof NotALiteralError) return text;
    throw e;
  } finally {
    E.stackTraceLimit = limit;
  }
}
