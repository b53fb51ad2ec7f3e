/**
 * The AI view of a code cell's outputs (SPEC §7, the reference's `ai_output`): what the model
 * is shown of a cell's results — streams, errors and the preferred text form of each data
 * output, joined, then shown as Python `str()` of the value when the text is a Python literal.
 * Pinned by the `code_outputs` of `conformance/dialogs/NNN.parts.json`.
 */
import { InvalidArgumentError } from '../errors.js';
import { isJsonMime } from './cells.js';
import { NotALiteralError, isJsonObject, isLosslessNumber, literalEval, pyStr, pyStrValue, pyTruthy as truthy } from '../python/index.js';

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

/** Text of an execute_result / display_data output. */
function renderData(out: Record<string, unknown>, where: string): string {
  const data = field(out, 'data');
  if (data === undefined) return '';
  if (!isJsonObject(data)) return bad(where, '"data" must be an object');
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
export function renderOutputsAi(outputs: readonly unknown[]): string {
  if (!Array.isArray(outputs)) bad('outputs', `expected a list, got ${describe(outputs)}`);
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
      last.push(renderData(out, where));
    } else if (type === 'display_data') {
      first.push(renderData(out, where));
    } else {
      first.push(stripAnsi(`Error: Failed to parse unknown output - ${pyStr(out)}`));
    }
  });
  for (const name of ['stdout', 'stderr']) {
    const chunks = streams.get(name);
    if (chunks !== undefined) first.push(stripAnsi(renderTerminal(chunks.join(''))));
  }
  return first.concat(last).join('\n');
}

/**
 * The AI view of a code cell's outputs (SPEC §7): {@link renderOutputsAi}, then,
 * when that text is a Python literal, Python `str()` of its value (`'hello'` -> `hello`,
 * `(1,2)` -> `(1, 2)`, sets in source order).
 *
 * Input: the cell's `outputs` list as parsed by `parseJson` (or plain JSON values).
 * Output: a string (UTF-16). Throws `InvalidArgumentError` for malformed outputs (see
 * {@link renderOutputsAi}); never throws on account of the text's content. Linear time: the
 * literal check gives up at the first token that cannot belong to a literal.
 */
export function aiOutput(outputs: readonly unknown[]): string {
  const text = renderOutputsAi(outputs);
  // Most outputs are not literals, and the parser says so by throwing; capturing a stack trace
  // for each of those throws dominated the cost of this function, so none is captured here.
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
