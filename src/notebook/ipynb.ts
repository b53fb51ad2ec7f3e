/**
 * `.ipynb` text I/O for dialogs (SPEC §7, §10.2): notebook JSON text -> {@link Dialog} and back,
 * writing exactly the text Python's nbformat tooling writes.
 *
 * Reading (`readsIpynb`): the text is parsed losslessly — the result is always what
 * `parseJson` gives (number kinds and digits, key order, `__proto__` keys kept), computed with
 * native `JSON.parse` plus a scan for number lexemes when that is provably equivalent. Cells become messages: the cell id is the message id (a
 * cell without an id, with a `null` id, or repeating an earlier cell's id gets a fresh
 * 8-hex-digit id unique in the dialog — nbformat's own repair of duplicates); list-form sources
 * are joined; markdown cells whose metadata `solveit_ai` is truthy, or whose source holds the
 * reply separator (SPEC §10.2), are prompts split at the FIRST separator; only markdown cells
 * are ever split. Metadata `skipped`/`pinned` (and `solveit_ai` on markdown cells) become
 * message fields; everything else is kept verbatim, as are attachments and code outputs.
 *
 * Writing (`dumpsIpynb`): what nbformat's `writes` + `write` produce for the notebook the
 * reference builds from the dialog — Python
 * `json.dumps(nb, sort_keys=True, indent=1, separators=(',', ': '), ensure_ascii=False)` plus a
 * trailing `"\n"`, after nbformat's `split_lines`: cell sources, `stream` text, and in
 * `execute_result`/`display_data` data and in attachments every `text/*`,
 * `application/javascript` and `image/svg+xml` string become lists of lines split as Python's
 * `str.splitlines(keepends=True)` splits. Before splitting, lists of strings are joined as
 * nbformat's `rejoin_lines` does on reading (any non-JSON mime key; `text` of any output), so a
 * list that is not in split form is normalised and a list-form `image/png` becomes one string.
 * JSON mime data (`application/json`, `application/*+json`) is left as it is. `nbformat` is 4
 * and `nbformat_minor` 5; code cells always get `outputs` and `execution_count`; output
 * metadata key `__type` is dropped (conformance roundtrip fixtures); nbformat's transient keys
 * are dropped (`strip_transient`: notebook metadata `orig_nbformat`, `orig_nbformat_minor`,
 * `signature`; cell metadata `trusted`). A notebook already in this form round-trips byte for
 * byte.
 *
 * Notebook objects (`toNotebookContent` / `fromNotebookContent`): for JupyterLab front-end
 * code, which holds notebooks as plain JSON objects typed `INotebookContent` from
 * `@jupyterlab/nbformat` (imported for its types only; nothing of it is loaded at run time).
 * They reuse the writer and the reader above; plain objects carry JS numbers, so number kinds
 * (`1.0` vs `1`) and integers beyond 2^53 are only kept by the text functions.
 *
 * One deliberate difference: a lone surrogate (possible only through a `\udXXX` escape) is
 * written as a lowercase `\udxxx` escape. Python would put the raw surrogate into the text and
 * then fail to encode the file as UTF-8; the escape keeps the data and the file valid.
 *
 * Speed: reading and writing are linear in the text size; the heavy lifting is native
 * (`JSON.parse`, `JSON.stringify` of whole strings, one regex pass to cut lines). On a 20 MB
 * dialog, read + write costs about 2–3.5 times `JSON.parse` + `JSON.stringify`
 * (scripts/bench-notebook.mjs). The core of the library must run in a browser: no `node:`
 * imports.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { CELL_ID_RE, Dialog, Message, REPLY_SEPARATOR, cloneJson, isJsonMime, pyTruthy, type JsonObject } from '../dialog/dialog.js';
import { InvalidArgumentError, JsonParseError, NotebookError } from '../errors.js';
import { LosslessNumber, MAX_JSON_DEPTH, isJsonObject, isLosslessNumber, parseJson, pyNumberKind } from '../python/json.js';
import { cpCompare, pyFloatRepr, pyNumberRepr } from '../python/py.js';

/** Options of {@link readsIpynb}. */
export interface ReadOptions {
  /**
   * Source of candidate ids for cells that need a fresh one (default: 8 random hex digits).
   * Candidates already used in the notebook are skipped. Also kept as the dialog's id source.
   */
  newId?: () => string;
  /**
   * `'auto'` (default): native `JSON.parse` plus number lexemes when that is provably the same
   * as `parseJson`, else `parseJson`. `'lossless'`: always `parseJson` (for tests/benchmarks;
   * the result is the same).
   */
  parser?: 'auto' | 'lossless';
}

/** Options of {@link dumpsIpynb}. */
export interface WriteOptions {
  /** Run `dialog.validate()` first (default true), so what is written passes the nbformat 4.5 schema. */
  validate?: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isLosslessNumber(v)) return v.value;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function allStrings(a: unknown[]): a is string[] {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

/** Flag keys taken out of cell metadata into message fields. */
const FLAG_KEYS_MARKDOWN = ['skipped', 'pinned', 'solveit_ai'] as const;
const FLAG_KEYS_OTHER = ['skipped', 'pinned'] as const;

const CELL_KEYS_COMMON = new Set(['id', 'cell_type', 'metadata', 'source', 'attachments']);
const CELL_KEYS_CODE = new Set([...CELL_KEYS_COMMON, 'outputs', 'execution_count']);

/**
 * Read a notebook from its JSON text (SPEC §7, §10.2; see the module note for the rules).
 *
 * @param text the whole `.ipynb` text (a JS string; a leading U+FEFF is an error, as in Python).
 * @param name names the notebook in error messages and becomes `dialog.name`.
 * @param opts `newId`: deterministic id source for cells that need one.
 * @returns a new {@link Dialog}; every JSON value in it comes from `parseJson`.
 * @throws NotebookError (naming `name`, and the cell id or `#index` and the field where one is
 *   at fault) when the text is not JSON, the JSON is not an nbformat 4 notebook (not an object,
 *   `nbformat` missing or not 4, `cells` not a list, `metadata` not an object), a cell is not
 *   an object, has an unknown `cell_type`, an id that is neither a string nor null, a source
 *   that is neither a string nor a list of strings, metadata or attachments that are not
 *   objects, or (code cells) outputs that are not a list. Finer checks (id syntax, output
 *   shapes) are `Dialog.validate`'s, run before writing.
 */
export function readsIpynb(text: string, name = '<string>', opts: ReadOptions = {}): Dialog {
  if (typeof text !== 'string') throw new NotebookError(`expected the notebook text as a string, got ${typeof text}`, name);
  let nb: unknown;
  try {
    nb = opts.parser === 'lossless' ? parseJson(text) : parseNotebookJson(text);
  } catch (e) {
    if (e instanceof JsonParseError) {
      const err = new NotebookError(e.message, name);
      Object.defineProperty(err, 'cause', { value: e, enumerable: false });
      throw err;
    }
    throw e;
  }
  return readNotebookValue(nb, name, opts.newId);
}

/**
 * The reading rules of {@link readsIpynb} applied to an already parsed notebook value (shared
 * with {@link fromNotebookContent}). The value's objects are taken over by the dialog (cell
 * metadata loses its flag keys), so callers pass a value of their own.
 */
function readNotebookValue(value: unknown, name: string, newId: (() => string) | undefined): Dialog {
  if (!isJsonObject(value)) throw new NotebookError(`not a notebook: the JSON value is ${describe(value)}, not an object`, name);
  const nb: Unchecked<nbformat.INotebookContent> = value;
  if (!hasOwn.call(nb, 'nbformat')) throw new NotebookError('not a notebook: no nbformat field', name, undefined, 'nbformat');
  const major = nb.nbformat;
  // Python compares numbers by value: nbformat reads a notebook whose `nbformat` is 4.0 too.
  if (!(pyNumberKind(major) !== null && Number(isLosslessNumber(major) ? major.value : major) === 4)) {
    throw new NotebookError(`unsupported nbformat ${describe(major)}: only nbformat 4 notebooks can be read`, name, undefined, 'nbformat');
  }
  let minor: number | undefined;
  if (hasOwn.call(nb, 'nbformat_minor')) {
    const m = nb.nbformat_minor;
    if (pyNumberKind(m) !== 'int') throw new NotebookError(`nbformat_minor must be an integer, got ${describe(m)}`, name, undefined, 'nbformat_minor');
    minor = Number(isLosslessNumber(m) ? m.value : m);
  }
  const cells = nb.cells;
  if (!Array.isArray(cells)) {
    throw new NotebookError(`not a notebook: ${cells === undefined ? 'no cells list' : `cells is ${describe(cells)}, not a list`}`, name, undefined, 'cells');
  }
  let metadata: JsonObject = {};
  if (hasOwn.call(nb, 'metadata')) {
    if (!isJsonObject(nb.metadata)) throw new NotebookError(`notebook metadata must be an object, got ${describe(nb.metadata)}`, name, undefined, 'metadata');
    metadata = nb.metadata;
  }
  const extra: JsonObject = {};
  for (const k of Object.keys(value)) {
    if (k !== 'nbformat' && k !== 'nbformat_minor' && k !== 'cells' && k !== 'metadata') setOwn(extra, k, value[k]);
  }

  const dialog = new Dialog([], { metadata, name, origNbformatMinor: minor, extra, newId });

  // Ids written in the file, so that a generated id never collides with a later cell's id.
  const written = new Set<string>();
  for (const c of cells) if (isJsonObject(c) && typeof c.id === 'string') written.add(c.id);
  const used = new Set<string>();
  const freshId = (): string => {
    for (let tries = 0; tries < 1000; tries++) {
      const id = dialog.idSource();
      if (!written.has(id) && !used.has(id)) return id;
    }
    throw new NotebookError('could not find a fresh cell id (the id source keeps repeating)', name);
  };

  const messages = dialog.messages;
  for (let i = 0; i < cells.length; i++) {
    const m = readCell(cells[i], i, name);
    if (m.id === '' && m.idGenerated) {
      m.id = freshId();
    } else if (used.has(m.id)) {
      m.id = freshId();
      m.idGenerated = true;
    }
    used.add(m.id);
    messages.push(m);
  }
  return dialog;
}

// A JSON string literal, or a number token. Scanned left to right over valid JSON, string
// literals are consumed whole, so every number match is a number outside strings.
const STRING_OR_NUMBER = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?[0-9][0-9.eE+-]*/g;

/**
 * Tokens of valid JSON text that `JSON.parse` loses: the number lexemes in document order,
 * and the number of object keys (to detect duplicate keys, which `JSON.parse` merges).
 * `null` when an object key is an array index (JS would list it out of written order) or holds
 * an escape (it might decode to one). Linear.
 */
function scanNumbers(text: string): { numbers: string[]; keys: number } | null {
  const re = STRING_OR_NUMBER;
  re.lastIndex = 0;
  const numbers: string[] = [];
  let keys = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const tok = m[0];
    if (tok.charCodeAt(0) === 0x22) {
      let p = re.lastIndex;
      let c = text.charCodeAt(p);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++p);
      if (c === 0x3a) {
        keys++;
        const c1 = tok.charCodeAt(1);
        if (c1 === 0x5c || (c1 >= 48 && c1 <= 57 && isArrayIndexKey(tok))) return null;
      }
    } else {
      numbers.push(tok);
    }
  }
  return { numbers, keys };
}

/**
 * Whether a key literal (with its quotes, no escapes) is an array index, the keys JS objects
 * list before all others: `"0"`…`"4294967294"` in canonical form. Other keys starting with a
 * digit (`"13a4911c-….png"`) keep their written order.
 */
function isArrayIndexKey(literal: string): boolean {
  return /^"(?:0|[1-9][0-9]{0,9})"$/.test(literal) && Number(literal.slice(1, -1)) < 4294967295;
}

/**
 * Parse notebook JSON to exactly what `parseJson` gives (lossless numbers, key order,
 * `__proto__` keys, Python's acceptance rules and error messages), faster: the text is parsed
 * natively and each number replaced by a `LosslessNumber` with its lexeme, taken in document
 * order from a scan of the text. The native tree is used only when that correspondence is
 * certain: no integer-like keys (JS reorders them), as many keys and numbers in the tree as in
 * the text (no duplicate keys), every lexeme equal in value to its number, nesting within
 * `MAX_JSON_DEPTH`. Otherwise, and on any syntax error or `NaN`/`Infinity`, `parseJson` decides.
 */
function parseNotebookJson(text: string): unknown {
  let scan: ReturnType<typeof scanNumbers>;
  try {
    scan = scanNumbers(text);
  } catch (err) {
    // V8's regex engine runs out of stack on a string with millions of escapes; the scan is
    // only a shortcut, so let the lossless parser read such a file.
    if (err instanceof RangeError) scan = null;
    else throw err;
  }
  if (scan === null) return parseJson(text);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return parseJson(text); // throws Python's message, or accepts NaN/Infinity
  }
  return attachLexemes(v, scan.numbers, scan.keys) ? v : parseJson(text);
}

/**
 * Replace, in place and in document order, the JS numbers of a `JSON.parse` tree by
 * `LosslessNumber`s of `lexemes`. False (tree then unusable) if the counts of numbers or keys
 * differ from the scan, a lexeme's value differs from its number, or nesting is too deep.
 */
function attachLexemes(root: unknown, lexemes: string[], keyCount: number): boolean {
  let next = 0;
  let keys = 0;
  const lossless = (x: number): LosslessNumber | undefined => {
    const lex = lexemes[next++];
    return lex !== undefined && Number(lex) === x ? new LosslessNumber(lex) : undefined;
  };
  const visit = (node: object, depth: number): boolean => {
    if (depth > MAX_JSON_DEPTH) return false;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const x: unknown = node[i];
        if (typeof x === 'number') {
          const n = lossless(x);
          if (n === undefined) return false;
          node[i] = n;
        } else if (typeof x === 'object' && x !== null && !visit(x, depth + 1)) return false;
      }
      return true;
    }
    const o = node as JsonObject;
    const ks = Object.keys(o);
    keys += ks.length;
    for (const k of ks) {
      const x = o[k];
      if (typeof x === 'number') {
        const n = lossless(x);
        if (n === undefined) return false;
        setOwn(o, k, n);
      } else if (typeof x === 'object' && x !== null && !visit(x, depth + 1)) return false;
    }
    return true;
  };
  // A bare scalar is not a notebook; numbers there go to parseJson, which keeps the lexeme.
  if (root === null || typeof root !== 'object') return typeof root !== 'number' && lexemes.length === 0;
  return visit(root, 1) && next === lexemes.length && keys === keyCount;
}

/** Define an own enumerable property, safe for the key `__proto__`. */
function setOwn(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/**
 * The declared fields of an nbformat interface (its index signature left out), e.g.
 * `cell_type | id | metadata | source | attachments` for a markdown cell.
 */
type DeclaredKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 };

/**
 * An nbformat structure as found in a file: the fields `@jupyterlab/nbformat` declares for it,
 * each of unknown type until the reader has checked it. (Type-level only: nothing from that
 * package is loaded at run time.)
 */
type Unchecked<T> = { [K in DeclaredKeys<T>]?: unknown };

/** A cell before checking: the fields of code, markdown and raw cells (`nbformat.ICell`). */
type UncheckedCell = Unchecked<nbformat.ICodeCell> & Unchecked<nbformat.IMarkdownCell> & Unchecked<nbformat.IRawCell>;

/** One cell -> one message. A missing/null id is returned as `''` with `idGenerated` set. */
function readCell(value: unknown, i: number, file: string): Message {
  if (!isJsonObject(value)) throw new NotebookError(`a cell must be an object, got ${describe(value)}`, file, i);
  const c: UncheckedCell = value;
  const rawId = c.id;
  // Errors name the cell by its id when that is a well-formed id (safe to print), else by index.
  const where: string | number = typeof rawId === 'string' && CELL_ID_RE.test(rawId) ? rawId : i;
  if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') {
    throw new NotebookError(`cell id must be a string, got ${describe(rawId)}`, file, i, 'id');
  }
  const ct = c.cell_type;
  if (ct !== 'code' && ct !== 'markdown' && ct !== 'raw') {
    throw new NotebookError(`unknown cell type ${describe(ct)} (expected code, markdown or raw)`, file, where, 'cell_type');
  }

  let source: string;
  const s = c.source;
  if (s === undefined) source = '';
  else if (typeof s === 'string') source = s;
  else if (Array.isArray(s) && allStrings(s)) source = s.join('');
  else throw new NotebookError(`source must be a string or a list of strings, got ${describe(s)}`, file, where, 'source');

  let meta: JsonObject;
  if (c.metadata === undefined) meta = {};
  else if (isJsonObject(c.metadata)) meta = c.metadata;
  else throw new NotebookError(`cell metadata must be an object, got ${describe(c.metadata)}`, file, where, 'metadata');

  let attachments: JsonObject | undefined;
  if (c.attachments !== undefined) {
    if (!isJsonObject(c.attachments)) {
      throw new NotebookError(`attachments must be an object, got ${describe(c.attachments)}`, file, where, 'attachments');
    }
    attachments = c.attachments;
  }

  const flagValues: Message['flagValues'] = {};
  for (const k of ct === 'markdown' ? FLAG_KEYS_MARKDOWN : FLAG_KEYS_OTHER) {
    if (hasOwn.call(meta, k)) {
      flagValues[k] = meta[k];
      delete meta[k]; // jsonKeys keeps the written order of the remaining keys
    }
  }

  let type: Message['type'];
  let content = source;
  let reply = '';
  let hadSeparator = false;
  if (ct === 'markdown') {
    const at = source.indexOf(REPLY_SEPARATOR);
    if (at >= 0 || pyTruthy(flagValues.solveit_ai)) {
      type = 'prompt';
      if (at >= 0) {
        content = source.slice(0, at);
        reply = source.slice(at + REPLY_SEPARATOR.length);
        hadSeparator = true;
      }
    } else {
      type = 'note';
    }
  } else {
    type = ct === 'code' ? 'code' : 'raw';
  }

  let output: unknown[] = [];
  let executionCount: unknown = null;
  if (ct === 'code') {
    if (c.outputs !== undefined) {
      if (!Array.isArray(c.outputs)) throw new NotebookError(`outputs must be a list, got ${describe(c.outputs)}`, file, where, 'outputs');
      output = c.outputs;
    }
    if (c.execution_count !== undefined) executionCount = c.execution_count;
  }

  const m = new Message(content, {
    type,
    id: typeof rawId === 'string' ? rawId : '',
    reply,
    output,
    meta,
    skipped: pyTruthy(flagValues.skipped),
    pinned: pyTruthy(flagValues.pinned),
    attachments,
    executionCount,
  });
  m.solveitAi = type === 'prompt' && pyTruthy(flagValues.solveit_ai);
  m.hadSeparator = hadSeparator;
  m.idGenerated = typeof rawId !== 'string';
  m.flagValues = flagValues;
  const known = ct === 'code' ? CELL_KEYS_CODE : CELL_KEYS_COMMON;
  for (const k of Object.keys(value)) if (!known.has(k)) setOwn(m.extra, k, value[k]);
  return m;
}

// ---------------------------------------------------------------------------------------------
// UTF-8

/**
 * Read a notebook from its bytes: strict UTF-8 (SPEC §7; Python opens notebooks as UTF-8),
 * then {@link readsIpynb}. A byte order mark is not removed (it is then a JSON error, as in
 * Python).
 * @param bytes the file contents.
 * @param name names the notebook in error messages and becomes `dialog.name`.
 * @param opts as for {@link readsIpynb}.
 * @returns a new {@link Dialog}.
 * @throws NotebookError for invalid UTF-8 (with the byte offset of the first bad sequence), and
 *   everything {@link readsIpynb} throws.
 */
export function readsIpynbBytes(bytes: Uint8Array, name = '<bytes>', opts: ReadOptions = {}): Dialog {
  if (!(bytes instanceof Uint8Array)) {
    throw new InvalidArgumentError(`readsIpynbBytes: expected the file's bytes as a Uint8Array, got ${bytes === null ? 'null' : typeof bytes}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (e) {
    const at = firstInvalidUtf8(bytes);
    const err = new NotebookError(`not valid UTF-8${at >= 0 ? ` (bad byte sequence at byte offset ${at})` : ''}`, name);
    Object.defineProperty(err, 'cause', { value: e, enumerable: false });
    throw err;
  }
  return readsIpynb(text, name, opts);
}

/** Byte offset of the first ill-formed UTF-8 sequence (Unicode Table 3-7), or -1. */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined) return i;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** A string to be written as the list of its Python `splitlines(keepends=True)` lines. */
class Lines {
  constructor(readonly text: string) {}
}

/** An object given as entries (keys unique); written with keys sorted by code point. */
class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

const SPLIT_MIMES = new Set(['application/javascript', 'image/svg+xml']);
const NB_TRANSIENT = new Set(['orig_nbformat', 'orig_nbformat_minor', 'signature']);
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

/**
 * The value a metadata flag is written with: the value read, if it still has the flag's truth
 * value; else `true` when set; else nothing.
 */
function flagValue(on: boolean, read: unknown): unknown {
  if (read !== undefined && pyTruthy(read) === on) return read;
  return on ? true : undefined;
}

function cellView(m: Message): Entries {
  const ct = m.cellType;
  const md = new Map<string, unknown>();
  for (const k of Object.keys(m.meta)) if (k !== 'trusted') md.set(k, m.meta[k]);
  // The flags decide their keys; a same-named key left in `meta` does not override them.
  // `solveit_ai` is a flag of markdown cells only (on code and raw cells it is plain metadata).
  const flags: [keyof Message['flagValues'], boolean][] = [
    ['skipped', m.skipped],
    ['pinned', m.pinned],
  ];
  if (ct === 'markdown') flags.push(['solveit_ai', m.type === 'prompt' && m.solveitAi]);
  for (const [k, on] of flags) {
    const v = flagValue(on, m.flagValues[k]);
    if (v !== undefined) md.set(k, v);
    else md.delete(k);
  }
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
  for (const k of Object.keys(m.extra)) if (!taken.has(k)) e.push([k, m.extra[k]]);
  return new Entries(e);
}

/** Python `json.dumps` text of a number value (ints exact, floats as repr; NaN/Infinity spelled as Python's json). */
function numberText(v: unknown): string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    return Number.isSafeInteger(v) ? String(v === 0 ? 0 : v) : pyFloatRepr(v);
  }
  if (typeof v === 'bigint') return v.toString();
  const lexeme = (v as { value: string }).value;
  if (pyNumberKind(v) === 'int') return /^(?:0|-?[1-9][0-9]*)$/.test(lexeme) ? lexeme : pyNumberRepr(v);
  const x = Number(lexeme);
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pyFloatRepr(x);
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return cpCompare(a[0], b[0]);
}

/** Serialiser with nbformat's layout: indent 1, `",\n"` item separators, `": "` key separator. */
class Writer {
  readonly out: string[] = [];
  private readonly nl: string[] = [];
  constructor(private readonly file: string) {}

  newline(level: number): string {
    let s = this.nl[level];
    if (s === undefined) s = this.nl[level] = '\n' + ' '.repeat(level);
    return s;
  }

  value(v: unknown, level: number): void {
    const out = this.out;
    switch (typeof v) {
      case 'string':
        out.push(JSON.stringify(v));
        return;
      case 'boolean':
        out.push(v ? 'true' : 'false');
        return;
      case 'number':
      case 'bigint':
        out.push(numberText(v));
        return;
      case 'object': {
        if (v === null) {
          out.push('null');
          return;
        }
        if (v instanceof Lines) return this.lines(v.text, level);
        if (v instanceof Entries) return this.entries(v.entries.slice(), level);
        if (isLosslessNumber(v)) {
          out.push(numberText(v));
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
    const out = this.out;
    if (a.length === 0) {
      out.push('[]');
      return;
    }
    const inner = this.newline(level + 1);
    out.push('[' + inner);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) out.push(',' + inner);
      this.value(a[i], level + 1);
    }
    out.push(this.newline(level) + ']');
  }

  entries(e: [string, unknown][], level: number): void {
    const out = this.out;
    if (e.length === 0) {
      out.push('{}');
      return;
    }
    e.sort(byKey);
    const inner = this.newline(level + 1);
    out.push('{' + inner);
    for (let i = 0; i < e.length; i++) {
      const [k, v] = e[i] as [string, unknown];
      out.push((i > 0 ? ',' + inner : '') + JSON.stringify(k) + ': ');
      this.value(v, level + 1);
    }
    out.push(this.newline(level) + '}');
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
      this.out.push('[]');
      return;
    }
    const inner = this.newline(level + 1);
    let body = JSON.stringify(s).replace(ESCAPED_BREAK, '$&",' + inner + '"');
    // A final break leaves an empty last piece, which splitlines does not produce.
    const empty = ',' + inner + '""';
    if (body.endsWith(empty)) body = body.slice(0, body.length - empty.length);
    this.out.push('[' + inner + body + this.newline(level) + ']');
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
 * @param opts `validate: false` skips `dialog.validate()` (the output may then break the schema).
 * @returns the notebook text, ending with `"\n"`. Encode it as UTF-8 to get the file bytes.
 * @throws NotebookError from `dialog.validate()`, or for a value that is not JSON.
 */
export function dumpsIpynb(dialog: Dialog, opts: WriteOptions = {}): string {
  if (!(dialog instanceof Dialog)) throw new NotebookError('dumpsIpynb: expected a Dialog', '<dialog>');
  if (opts.validate !== false) dialog.validate();
  const top: [string, unknown][] = [
    ['cells', dialog.messages.map(cellView)],
    ['metadata', new Entries(entriesOf(dialog.metadata, NB_TRANSIENT))],
    ['nbformat', 4],
    ['nbformat_minor', 5],
  ];
  const taken = new Set(top.map(([k]) => k));
  for (const k of Object.keys(dialog.extra)) if (!taken.has(k)) top.push([k, dialog.extra[k]]);
  const w = new Writer(dialog.name);
  w.entries(top, 0);
  w.out.push('\n');
  return w.out.join('');
}

// ---------------------------------------------------------------------------------------------
// Notebook content objects (JupyterLab)

/** Options of {@link toNotebookContent}. */
export interface NotebookContentOptions {
  /**
   * What to do with an integer outside JS's safe range (|n| > 2^53 − 1), which a plain JSON
   * object can only hold as a `number` that is in general rounded and that reads back as a
   * float: `'round'` (default) takes the nearest double, as `JSON.parse` (and so JupyterLab)
   * does; `'throw'` refuses with a NotebookError.
   */
  unsafeIntegers?: 'round' | 'throw';
}

/**
 * The dialog as a plain notebook JSON object (`nbformat.INotebookContent`, the shape JupyterLab
 * front ends hold, e.g. from `model.toJSON()` / `model.fromJSON()`): exactly what
 * `JSON.parse` makes of {@link dumpsIpynb}'s text, so keys, line-split sources and texts,
 * dropped transient keys and prompt cells are as nbformat writes them (SPEC §7).
 *
 * Plain JSON means JS numbers: a float that is integral (`1.0`) becomes the number `1` (its
 * float kind is lost; read back it is an int), and integers beyond ±(2^53 − 1) become the
 * nearest double (see {@link NotebookContentOptions.unsafeIntegers}). Keep the notebook text
 * when those matter.
 *
 * @param dialog the dialog; not modified. It is validated first (`Dialog.validate`).
 * @param opts `unsafeIntegers: 'throw'` to refuse integers outside the safe range.
 * @returns a new object; nothing in it is shared with the dialog.
 * @throws NotebookError from `dialog.validate()`, or (with `unsafeIntegers: 'throw'`) naming the
 *   first integer outside the safe range.
 */
export function toNotebookContent(dialog: Dialog, opts: NotebookContentOptions = {}): nbformat.INotebookContent {
  const text = dumpsIpynb(dialog);
  if (opts.unsafeIntegers === 'throw') {
    const bad = firstUnsafeInteger(text);
    if (bad !== undefined) {
      throw new NotebookError(`the integer ${bad} is outside the safe integer range of JS numbers (±(2^53 − 1)); keep the notebook text instead`, dialog.name);
    }
  }
  return JSON.parse(text) as nbformat.INotebookContent;
}

/** The first integer lexeme of (valid) JSON text outside the safe integer range, if any. Linear. */
function firstUnsafeInteger(text: string): string | undefined {
  const re = STRING_OR_NUMBER;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const tok = m[0];
    if (tok.charCodeAt(0) === 0x22 || /[.eE]/.test(tok)) continue;
    if (!Number.isSafeInteger(Number(tok))) return tok;
  }
  return undefined;
}

/**
 * A dialog from a notebook JSON object (`nbformat.INotebookContent`), for front-end code that
 * already holds the notebook model's JSON (JupyterLab's `model.toJSON()`). The same reading
 * rules as {@link readsIpynb} (same code): cell ids, prompts split at the first reply
 * separator (SPEC §10.2 included), flags taken out of metadata, everything else kept.
 *
 * The object is deep-copied first, so the caller's object is not modified and not shared.
 * Numbers are JS numbers: a safe integer reads as an int, any other number as a float, so a
 * notebook holding `1.0` (read by `JSON.parse` as `1`) is written back with `1`. Where number
 * kinds matter, read the text with {@link readsIpynb} instead. Values may also be
 * `LosslessNumber`s (an object from `parseJson`), which keep their kind.
 *
 * @param nb the notebook object (nbformat 4; any minor version; sources as strings or lists).
 * @param name names the notebook in error messages and becomes `dialog.name`; default `'<notebook>'`.
 * @param opts `newId`: id source for cells that need a fresh id (no `parser`: nothing is parsed).
 * @returns a new {@link Dialog}.
 * @throws NotebookError as {@link readsIpynb} does for a value that is not an nbformat 4
 *   notebook (not an object, `nbformat` not 4, `cells` not a list, a bad cell).
 */
export function fromNotebookContent(nb: nbformat.INotebookContent, name = '<notebook>', opts: Omit<ReadOptions, 'parser'> = {}): Dialog {
  return readNotebookValue(cloneJson(nb as unknown), name, opts.newId);
}
