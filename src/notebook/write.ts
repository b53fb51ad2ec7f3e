/**
 * Writing a dialog as `.ipynb` text (SPEC §7): the bytes Python's nbformat writes for the
 * reference's notebook — sorted keys, indent 1, no ASCII escaping, a trailing newline — after
 * nbformat's `split_lines` (sources, stream text, `text/*`, JavaScript and SVG data become lists
 * of lines; JSON mime data is left alone) and `strip_transient`. A notebook already in this form
 * round-trips byte for byte. One deliberate difference: a lone surrogate is written as a `\udxxx`
 * escape, where Python would fail to encode the file (docs/differences.md).
 */
import { isJsonMime, type JsonObject } from '../dialog/cells.js';
import { Dialog } from '../dialog/dialog.js';
import type { Message } from '../dialog/message.js';
import { cellWire, dialogWire } from '../dialog/wire-state.js';
import { NotebookError } from '../errors.js';
import { cpCompare, isJsonObject, isLosslessNumber, pyJsonNumber as numberText } from '../python/index.js';
import { allStrings } from './read.js';
import { validateDialog, validateViewed } from './validate.js';
import { cellMetadata, NB_TRANSIENT, nativeIpynbText, SPLIT_MIMES } from './write-native.js';

export interface WriteOptions {
  /** Run `validateDialog` first (default true), so what is written passes the nbformat 4.5 schema. */
  validate?: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

class Lines {
  constructor(readonly text: string) {}
}

/** An object given as entries (keys unique); written with keys sorted by code point. */
class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

/**
 * Line breaks of Python's splitlines as JSON.stringify writes them: escaped (backslash + `n`,
 * `r`, `f`; backslash-r-backslash-n; backslash + `u000b`, `u001c`, `u001d`, `u001e`) or raw
 * (U+0085, U+2028, U+2029). In escaped text a backslash starts an escape only after an even
 * run of backslashes (two backslashes are one escaped backslash, so in backslash, backslash,
 * `n` the `n` is plain text). A match therefore only starts where a run of backslashes starts
 * (the lookbehind), takes the run's escaped backslashes in pairs, then needs a break escape;
 * it never starts inside a run, so no escaped backslash is misread.
 */
const ESCAPED_BREAK = /(?<!\\)(?:\\\\)*(?:\\r\\n|\\[nrf]|\\u00(?:0b|1[cde]))|[\x85\u2028\u2029]/g;

/** Entries of a JSON object minus some keys. */
function entriesOf(o: JsonObject, skip?: ReadonlySet<string>): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const k of Object.keys(o)) if (skip === undefined || !skip.has(k)) out.push([k, o[k]]);
  return out;
}

/**
 * nbformat's `rejoin_lines` then `split_lines` on one mimebundle: lists of strings under
 * non-JSON keys are joined; then `text/*`, `application/javascript`, `image/svg+xml` strings
 * are split into lines.
 */
function bundleView(b: unknown): unknown {
  if (!isJsonObject(b)) return b;
  const out: [string, unknown][] = [];
  for (const k of Object.keys(b)) {
    let v = b[k];
    if (Array.isArray(v) && !isJsonMime(k) && allStrings(v)) v = v.join('');
    if (typeof v === 'string' && (k.startsWith('text/') || SPLIT_MIMES.has(k))) v = new Lines(v);
    out.push([k, v]);
  }
  return new Entries(out);
}

/** One output as nbformat writes it (see the module note). */
function outputView(o: unknown): unknown {
  if (!isJsonObject(o)) return o;
  const ot = o.output_type;
  if (ot === 'execute_result' || ot === 'display_data') {
    const out: [string, unknown][] = [];
    for (const k of Object.keys(o)) {
      let v = o[k];
      if (k === 'data') v = bundleView(v);
      else if (k === 'metadata' && isJsonObject(v) && hasOwn.call(v, '__type')) v = new Entries(entriesOf(v, new Set(['__type'])));
      out.push([k, v]);
    }
    return new Entries(out);
  }
  let text = o.text;
  if (typeof ot === 'string' && ot !== '' && Array.isArray(text) && allStrings(text)) text = text.join('');
  if (ot === 'stream' && typeof text === 'string') text = new Lines(text);
  if (text === o.text) return o;
  return new Entries(entriesOf(o).map(([k, v]) => [k, k === 'text' ? text : v]));
}

function cellView(m: Message): Entries {
  const ct = m.cellType;
  const md = cellMetadata(m);
  const e: [string, unknown][] = [
    ['cell_type', ct],
    ['id', m.id],
    ['metadata', new Entries([...md])],
    ['source', new Lines(m.source)],
  ];
  if (m.attachments !== undefined) {
    const att = m.attachments;
    e.push(['attachments', isJsonObject(att) ? new Entries(Object.keys(att).map((k) => [k, bundleView(att[k])])) : att]);
  }
  if (ct === 'code') {
    e.push(['outputs', m.output.map(outputView)]);
    e.push(['execution_count', m.executionCount === undefined ? null : m.executionCount]);
  } else if (m.output.length > 0) {
    e.push(['outputs', m.output.map(outputView)]);
  }
  const taken = new Set(e.map(([k]) => k));
  const extra = cellWire(m).extra;
  for (const k of Object.keys(extra)) if (!taken.has(k)) e.push([k, extra[k]]);
  return new Entries(e);
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return cpCompare(a[0], b[0]);
}

/**
 * Serialiser with nbformat's layout: indent 1, `",\n"` item separators, `": "` key separator.
 * The text grows by appending to one string, which the engine keeps as a rope until it is
 * read: faster, and lighter at the end, than collecting pieces in an array and joining them.
 */
class Writer {
  text = '';
  private readonly nl: string[] = [];
  private readonly commas: string[] = [];
  /** `JSON.stringify(key) + ': '` of the keys met so far (a notebook repeats a few keys). */
  private readonly keys = new Map<string, string>();
  constructor(private readonly file: string) {}

  newline(level: number): string {
    let s = this.nl[level];
    if (s === undefined) s = this.nl[level] = '\n' + ' '.repeat(level);
    return s;
  }

  comma(level: number): string {
    let s = this.commas[level];
    if (s === undefined) s = this.commas[level] = ',' + this.newline(level);
    return s;
  }

  key(k: string): string {
    let s = this.keys.get(k);
    if (s === undefined) {
      s = JSON.stringify(k) + ': ';
      this.keys.set(k, s);
    }
    return s;
  }

  value(v: unknown, level: number): void {
    switch (typeof v) {
      case 'string':
        this.text += JSON.stringify(v);
        return;
      case 'boolean':
        this.text += v ? 'true' : 'false';
        return;
      case 'number':
      case 'bigint':
        this.text += numberText(v);
        return;
      case 'object': {
        if (v === null) {
          this.text += 'null';
          return;
        }
        if (v instanceof Lines) return this.lines(v.text, level);
        if (v instanceof Entries) return this.entries(v.entries.slice(), level);
        if (isLosslessNumber(v)) {
          this.text += numberText(v);
          return;
        }
        if (Array.isArray(v)) return this.array(v, level);
        if (isJsonObject(v)) return this.entries(entriesOf(v), level);
        break;
      }
    }
    throw new NotebookError(`a value of type ${typeof v} is not JSON-serialisable`, this.file);
  }

  array(a: unknown[], level: number): void {
    if (a.length === 0) {
      this.text += '[]';
      return;
    }
    this.text += '[';
    this.text += this.newline(level + 1);
    const comma = this.comma(level + 1);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.text += comma;
      this.value(a[i], level + 1);
    }
    this.text += this.newline(level);
    this.text += ']';
  }

  entries(e: [string, unknown][], level: number): void {
    if (e.length === 0) {
      this.text += '{}';
      return;
    }
    e.sort(byKey);
    this.text += '{';
    this.text += this.newline(level + 1);
    const comma = this.comma(level + 1);
    for (let i = 0; i < e.length; i++) {
      const [k, v] = e[i] as [string, unknown];
      if (i > 0) this.text += comma;
      this.text += this.key(k);
      this.value(v, level + 1);
    }
    this.text += this.newline(level);
    this.text += '}';
  }

  /**
   * A string as the JSON list of its splitlines(keepends=True) lines, without building the
   * list: the whole string is escaped once (`JSON.stringify`), then the escaped text is cut
   * after each escaped line break (`\\n`, `\\r`, `\\r\\n`, `\\f`, `\\u000b`, `\\u001c`–`\\u001e`)
   * and each raw U+0085, U+2028, U+2029 (JSON.stringify leaves those raw, as Python does),
   * in one native `replace` (see {@link ESCAPED_BREAK} for how escaped backslashes are told apart).
   */
  lines(s: string, level: number): void {
    if (s === '') {
      this.text += '[]';
      return;
    }
    const inner = this.newline(level + 1);
    let body = JSON.stringify(s).replace(ESCAPED_BREAK, '$&",' + inner + '"');
    // A final break leaves an empty last piece, which splitlines does not produce.
    const empty = ',' + inner + '""';
    if (body.endsWith(empty)) body = body.slice(0, body.length - empty.length);
    this.text += '[';
    this.text += inner;
    this.text += body;
    this.text += this.newline(level);
    this.text += ']';
  }
}

/**
 * Write a dialog as `.ipynb` text: the exact text (as a JS string) that Python's nbformat
 * tooling writes for it — see the module note (SPEC §7). Prompts are written as markdown cells
 * with source `content + REPLY_SEPARATOR + reply` (no separator when the reply is empty and the
 * cell had none) and metadata `solveit_ai: true` (unless the prompt was read from a cell without
 * it, SPEC §10.2). `skipped`/`pinned` are written as `true` when set (or with the value read,
 * if it has the same truth value), and left out when unset.
 *
 * @param dialog the dialog; not modified.
 * @param opts `validate: false` skips `validateDialog` (the output may then break the schema).
 * @returns the notebook text, ending with `"\n"`. Encode it as UTF-8 to get the file bytes.
 * @throws NotebookError from `validateDialog`, or for a value that is not JSON.
 */
export function dumpsIpynb(dialog: Dialog, opts: WriteOptions = {}): string {
  if (!(dialog instanceof Dialog)) throw new NotebookError('dumpsIpynb: expected a Dialog', '<dialog>');
  // Unvalidated fields may hold anything: only the value-by-value writer has a rule for each.
  if (opts.validate === false) return writerText(dialog);
  // The native view is made first: where it succeeds it has already checked most values are
  // JSON, and validation need not walk them again (same checks, same first error).
  const text = nativeIpynbText(dialog);
  if (text === undefined) {
    validateDialog(dialog);
    return writerText(dialog);
  }
  validateViewed(dialog);
  return text;
}

/**
 * The text of {@link dumpsIpynb} made value by value (no validation): the definition of the
 * written form, used whenever the native path of write-native.ts cannot match it. Internal to
 * `notebook/` (exported for the tests that hold the two paths to the same text).
 */
export function writerText(dialog: Dialog): string {
  const top: [string, unknown][] = [
    ['cells', dialog.messages.map(cellView)],
    ['metadata', new Entries(entriesOf(dialog.metadata, NB_TRANSIENT))],
    ['nbformat', 4],
    ['nbformat_minor', 5],
  ];
  const taken = new Set(top.map(([k]) => k));
  const extra = dialogWire(dialog).extra;
  for (const k of Object.keys(extra)) if (!taken.has(k)) top.push([k, extra[k]]);
  const w = new Writer(dialog.name);
  w.entries(top, 0);
  w.text += '\n';
  return w.text;
}
