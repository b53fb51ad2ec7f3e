/**
 * Reading `.ipynb` text into a dialog (SPEC §7, §10.2).
 *
 * The text is parsed losslessly — the result is always what `parseJson` gives (number kinds and
 * digits, key order, `__proto__` keys kept; json-text.ts). Cells become messages: the cell id
 * is the message id (a cell without an id, with a `null` id, or repeating an earlier cell's id
 * gets a fresh 8-hex-digit id unique in the dialog — nbformat's own repair of duplicates);
 * list-form sources are joined; markdown cells whose metadata `solveit_ai` is truthy, or whose
 * source holds the reply separator (SPEC §10.2), are prompts split at the FIRST separator; only
 * markdown cells are ever split. Metadata `skipped`/`pinned` (and `solveit_ai` on markdown
 * cells) become message fields; everything else is kept verbatim, as are attachments and code
 * outputs, and how the cell was spelled is recorded for the writer (dialog/wire-state.ts).
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { REPLY_SEPARATOR } from '../chat/index.js';
import { CELL_ID_RE, type JsonObject } from '../dialog/cells.js';
import { Dialog } from '../dialog/dialog.js';
import { Message } from '../dialog/message.js';
import { cellWire, dialogWire, type FlagValues } from '../dialog/wire-state.js';
import { InvalidArgumentError, JsonParseError, NotebookError } from '../errors.js';
import { isJsonObject, isLosslessNumber, parseJson, pyNumberKind, pyTruthy } from '../python/index.js';
import { decodeUtf8 } from '../python/utf8.js';
import { parseNotebookJson, setOwn } from './json-text.js';

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

const hasOwn = Object.prototype.hasOwnProperty;

/** A short description of a JSON value for error messages (internal to `notebook/`). */
export function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isLosslessNumber(v)) return v.value;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** True when every element is a string (internal to `notebook/`). */
export function allStrings(a: unknown[]): a is string[] {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

/**
 * `a.join('')`; for the few lines most cells' sources have, by concatenation, which is quicker
 * (the engine flattens the result once, where it is first searched). Long lists are joined, so
 * their result holds no chain of many pieces.
 */
function concatAll(a: readonly string[]): string {
  if (a.length > 64) return a.join('');
  let out = '';
  for (let i = 0; i < a.length; i++) out += a[i];
  return out;
}

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
 *   shapes) are `validateDialog`'s, run before writing.
 */
export function readsIpynb(text: string, name = '<string>', opts: ReadOptions = {}): Dialog {
  if (typeof text !== 'string') throw new NotebookError(`expected the notebook text as a string, got ${typeof text}`, name);
  let nb: unknown;
  try {
    nb = opts.parser === 'lossless' ? parseJson(text) : parseNotebookJson(text);
  } catch (e) {
    if (e instanceof JsonParseError) {
      // Said as the other reasons a file is not a notebook are (a text file is one of them).
      const err = new NotebookError(`not a notebook: ${e.message}`, name);
      Object.defineProperty(err, 'cause', { value: e, enumerable: false });
      throw err;
    }
    throw e;
  }
  return readNotebookValue(nb, name, opts.newId);
}

/**
 * The reading rules of {@link readsIpynb} applied to an already parsed notebook value (shared
 * with `fromNotebookContent`). The value's objects are taken over by the dialog (cell
 * metadata loses its flag keys), so callers pass a value of their own.
 */
export function readNotebookValue(value: unknown, name: string, newId: (() => string) | undefined): Dialog {
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

  const dialog = new Dialog([], { metadata, name, origNbformatMinor: minor, newId });
  dialogWire(dialog).extra = extra;

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
  // (Worked out only for an error.)
  const where = (): string | number => (typeof rawId === 'string' && CELL_ID_RE.test(rawId) ? rawId : i);
  if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') {
    throw new NotebookError(`cell id must be a string, got ${describe(rawId)}`, file, i, 'id');
  }
  const ct = c.cell_type;
  if (ct !== 'code' && ct !== 'markdown' && ct !== 'raw') {
    throw new NotebookError(`unknown cell type ${describe(ct)} (expected code, markdown or raw)`, file, where(), 'cell_type');
  }

  let source: string;
  const s = c.source;
  if (s === undefined) source = '';
  else if (typeof s === 'string') source = s;
  else if (Array.isArray(s) && allStrings(s)) source = concatAll(s);
  else throw new NotebookError(`source must be a string or a list of strings, got ${describe(s)}`, file, where(), 'source');

  let meta: JsonObject;
  if (c.metadata === undefined) meta = {};
  else if (isJsonObject(c.metadata)) meta = c.metadata;
  else throw new NotebookError(`cell metadata must be an object, got ${describe(c.metadata)}`, file, where(), 'metadata');

  let attachments: JsonObject | undefined;
  if (c.attachments !== undefined) {
    if (!isJsonObject(c.attachments)) {
      throw new NotebookError(`attachments must be an object, got ${describe(c.attachments)}`, file, where(), 'attachments');
    }
    attachments = c.attachments;
  }

  const flagValues: FlagValues = {};
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
      if (!Array.isArray(c.outputs)) throw new NotebookError(`outputs must be a list, got ${describe(c.outputs)}`, file, where(), 'outputs');
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
  m.idGenerated = typeof rawId !== 'string';
  const wire = cellWire(m);
  wire.solveitAi = type === 'prompt' && pyTruthy(flagValues.solveit_ai);
  wire.readAsPrompt = type === 'prompt';
  wire.hadSeparator = hadSeparator;
  wire.flagValues = flagValues;
  const known = ct === 'code' ? CELL_KEYS_CODE : CELL_KEYS_COMMON;
  for (const k of Object.keys(value)) if (!known.has(k)) setOwn(wire.extra, k, value[k]);
  return m;
}

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
    text = decodeUtf8(bytes);
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
