/**
 * The dialog model (SPEC §0, §7): a {@link Dialog} is a Jupyter notebook seen as a conversation,
 * its cells are {@link Message}s of four types — `code`, `note` (markdown), `prompt` (markdown
 * holding the user's request, the reply separator and the AI's reply) and `raw`.
 *
 * This module holds the in-memory model only: reading and writing `.ipynb` text lives in
 * `notebook.ts` (browser-safe) and file I/O in `io.ts` (Node). Compaction lives elsewhere
 * (`compact.ts` etc.) and works on these classes from outside, so nothing here knows about
 * token budgets.
 *
 * JSON values held by the model (metadata, outputs, attachments, execution counts) are kept
 * exactly as `parseJson` (src/json.ts) produced them: numbers are `LosslessNumber`s (kind and
 * digits kept), object key order is available through `jsonKeys`, a `__proto__` key is an
 * ordinary own property. Values set by callers may also use JS numbers and bigints (an integral
 * safe JS number is written as a Python int, anything else as a Python float).
 *
 * Extension points: compaction and other strategies add methods from their own modules with
 * TypeScript declaration merging — `declare module './dialog.js' { interface Dialog { m(): this } }`
 * plus `Dialog.prototype.m = function (this: Dialog) {…}` — so these classes stay free of their
 * logic. `clone()` gives deep copies for strategies that must not touch their input, and
 * `cloneJson` copies single JSON values the same way.
 *
 * The core of the library must run in a browser: nothing here imports `node:` modules.
 */
import { aiOutput as outputsAiView } from './ai-output.js';
import { REPLY_SEPARATOR } from '../chat/reply.js';
import { InvalidArgumentError, NotebookError } from '../errors.js';
import { KEY_ORDER, LosslessNumber, isJsonObject, isLosslessNumber, pyNumberKind } from '../python/json.js';

/** The four message types of a dialog (SPEC §0). */
export type MsgType = 'code' | 'note' | 'prompt' | 'raw';

/** Message types, in a set for membership tests. */
export const MSG_TYPES: ReadonlySet<string> = new Set<MsgType>(['code', 'note', 'prompt', 'raw']);

/** The reply separator (SPEC §0), defined with the reply wire format; re-exported here for dialog code. */
export { REPLY_SEPARATOR };

/** A JSON object as the model holds it (see the module note for the value conventions). */
export type JsonObject = Record<string, unknown>;

/** Cell ids the nbformat 4.5 schema accepts: 1–64 of ASCII letters, digits, `-`, `_` (SPEC §7). */
export const CELL_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A fresh random id: 8 lowercase hex digits (32 random bits from `crypto.getRandomValues`),
 * the form nbformat gives new cells. Not checked for uniqueness; see {@link Dialog.newId}.
 */
export function randomId(): string {
  const buf = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buf);
  return (buf[0] as number).toString(16).padStart(8, '0');
}

/**
 * Python truthiness of a JSON value (`bool(v)`): `null`, `false`, zero numbers, `''`, `[]` and
 * `{}` are false; everything else (NaN included) is true. Used for the metadata flags
 * `skipped`, `pinned` and `solveit_ai`, which the reference tests with `if md.get(...)`.
 */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (isLosslessNumber(v)) return Number(v.value) !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/**
 * Deep copy of a JSON value as the model holds it: arrays and plain objects are copied
 * (a `__proto__` key stays an own property, the written key order under `KEY_ORDER` is kept),
 * `LosslessNumber`s are copied with their lexeme, primitives are returned as they are.
 * Anything else (class instances, functions) is returned by reference. The value must be
 * acyclic (a cycle overflows the stack: `RangeError`).
 */
export function cloneJson<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i]);
    return out as T;
  }
  if (isLosslessNumber(v)) return new LosslessNumber(v.value) as T;
  if (!isJsonObject(v)) return v;
  const src = v as JsonObject;
  const out: JsonObject = Object.getPrototypeOf(src) === null ? Object.create(null) : {};
  for (const k of Object.keys(src)) {
    const x = cloneJson(src[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, writable: true, enumerable: true, configurable: true });
    else out[k] = x;
  }
  const order = (src as { [KEY_ORDER]?: readonly string[] })[KEY_ORDER];
  if (order !== undefined) Object.defineProperty(out, KEY_ORDER, { value: order, enumerable: false });
  return out as T;
}

/** Fields accepted by the {@link Message} constructor and {@link Dialog.mkMessage}. */
export interface MessageInit {
  /** Message type; default `'note'`. */
  type?: MsgType;
  /** Cell id; default a fresh random 8-hex-digit id (unique in the dialog via mkMessage). */
  id?: string;
  /** The AI's reply (prompts only); default `''`. */
  reply?: string;
  /** Code outputs (nbformat output objects); default `[]`. */
  output?: unknown[];
  /** Cell metadata other than the flags; default `{}`. */
  meta?: JsonObject;
  /** Default false. */
  skipped?: boolean;
  /** Default false. */
  pinned?: boolean;
  /** Cell attachments (name -> mimebundle); default none. */
  attachments?: JsonObject;
  /** Code cells' `execution_count` (`null`, or an integer); default `null`. */
  executionCount?: unknown;
}

/**
 * One cell of a dialog.
 *
 * The fields that matter to callers are `id`, `type`, `content`, `reply` (alias `aiRes`),
 * `output`, `meta`, `skipped`, `pinned` and `attachments`. The remaining public fields record
 * how the cell was written so that an unchanged dialog is written back byte for byte
 * (SPEC §7); callers normally leave them alone.
 */
export class Message {
  /** Cell id (SPEC §7: 1–64 of `[A-Za-z0-9_-]`, unique in the dialog; checked by validate). */
  id: string;
  /** Message type. Changing it changes the cell type written (note/prompt -> markdown). */
  type: MsgType;
  /** The cell source; for a prompt, the user's request (the source before the first separator). */
  content: string;
  /** Prompts only: the AI's reply (the source after the first separator); `''` if none. */
  reply: string;
  /**
   * Code cells' outputs, exactly as read (nbformat output objects; multi-line fields may be
   * strings or lists of strings; the writer normalises them). Must be empty for other types.
   */
  output: unknown[];
  /**
   * Cell metadata without the flags this class models (`skipped`, `pinned`, and for markdown
   * cells `solveit_ai`), values and key order as read.
   */
  meta: JsonObject;
  /** Metadata flag `skipped`. */
  skipped: boolean;
  /** Metadata flag `pinned`. */
  pinned: boolean;
  /** Cell attachments (file name -> mimebundle), as read; `undefined` when the cell has none. */
  attachments: JsonObject | undefined;
  /** Code cells: `execution_count` as read (`null`, `LosslessNumber`, or a JS number); `undefined` = `null`. */
  executionCount: unknown;
  /**
   * Prompts: write metadata `solveit_ai: true`. True for prompts read from cells that had it
   * and for prompts made here; false for prompts recognised only by their separator
   * (SPEC §10.2: such cells are written back without `solveit_ai`).
   */
  solveitAi: boolean;
  /**
   * Prompts: the source held the separator. When the reply is empty the separator is written
   * only if this is true, so an unanswered prompt (no separator) and a prompt whose reply is
   * empty (separator at the end) both round-trip.
   */
  hadSeparator: boolean;
  /** The id was generated on reading (the cell had none, a `null` one, or a duplicate). */
  idGenerated: boolean;
  /**
   * Values of the metadata flags as read (`skipped`, `pinned`, `solveit_ai`), kept so that a
   * non-boolean spelling (`"skipped": 1`, `"solveit_ai": false`) is written back unchanged
   * while the flag keeps its Python truth value.
   */
  flagValues: { skipped?: unknown; pinned?: unknown; solveit_ai?: unknown };
  /** Other top-level cell fields, verbatim (not allowed by the nbformat schema: validate rejects them). */
  extra: JsonObject;

  /**
   * Make a message.
   * @param content cell source (a prompt's request). Must be a string.
   * @param init the other fields (see {@link MessageInit}); id defaults to a fresh random one.
   * @throws InvalidArgumentError for a non-string content or an unknown type.
   */
  constructor(content: string, init: MessageInit = {}) {
    if (typeof content !== 'string') throw new InvalidArgumentError(`Message: content must be a string, got ${typeof content}`);
    const type = init.type ?? 'note';
    if (!MSG_TYPES.has(type)) throw new InvalidArgumentError(`Message: unknown message type ${JSON.stringify(type)}`);
    this.id = init.id ?? randomId();
    this.type = type;
    this.content = content;
    this.reply = init.reply ?? '';
    this.output = init.output ?? [];
    this.meta = init.meta ?? {};
    this.skipped = init.skipped ?? false;
    this.pinned = init.pinned ?? false;
    this.attachments = init.attachments;
    this.executionCount = init.executionCount ?? null;
    this.solveitAi = type === 'prompt';
    this.hadSeparator = false;
    this.idGenerated = false;
    this.flagValues = {};
    this.extra = {};
  }

  /** The AI's reply (the reference's `ai_res`); same as {@link reply}. */
  get aiRes(): string {
    return this.reply;
  }
  set aiRes(v: string) {
    this.reply = v;
  }

  /**
   * The AI view of this message's output (SPEC §7, the reference's `ai_output`): a prompt's
   * view is its reply; otherwise `aiOutput(this.output)` from src/aioutput.ts (`''` for no
   * outputs).
   */
  get aiOutput(): string {
    if (this.type === 'prompt') return this.reply;
    return outputsAiView(this.output);
  }

  /** The cell type this message is written as: `code`, `markdown` (notes and prompts) or `raw`. */
  get cellType(): 'code' | 'markdown' | 'raw' {
    return this.type === 'note' || this.type === 'prompt' ? 'markdown' : this.type;
  }

  /**
   * The cell source as written: for a prompt `content + REPLY_SEPARATOR + reply` (the
   * separator omitted when the reply is empty and the cell had none), else `content`.
   */
  get source(): string {
    if (this.type !== 'prompt') return this.content;
    if (this.reply === '' && !this.hadSeparator) return this.content;
    return this.content + REPLY_SEPARATOR + this.reply;
  }

  /**
   * Deep copy (JSON values copied with number kinds and key order kept), of the same class as
   * `this` (subclasses must keep the constructor's signature).
   */
  clone(): Message {
    const m = new (this.constructor as typeof Message)(this.content, { type: this.type, id: this.id });
    m.reply = this.reply;
    m.output = cloneJson(this.output);
    m.meta = cloneJson(this.meta);
    m.skipped = this.skipped;
    m.pinned = this.pinned;
    m.attachments = cloneJson(this.attachments);
    m.executionCount = cloneJson(this.executionCount);
    m.solveitAi = this.solveitAi;
    m.hadSeparator = this.hadSeparator;
    m.idGenerated = this.idGenerated;
    m.flagValues = cloneJson(this.flagValues);
    m.extra = cloneJson(this.extra);
    return m;
  }
}

/** Options of {@link Dialog.mkMessage}: the {@link MessageInit} fields plus where to insert. */
export interface MkMessageOptions extends MessageInit {
  /** Insert right after this message (a Message of the dialog, or its id). */
  after?: Message | string;
  /** Insert right before this message (a Message of the dialog, or its id). */
  before?: Message | string;
}

/** Fields accepted by the {@link Dialog} constructor. */
export interface DialogInit {
  /** Notebook-level metadata; default `{}`. */
  metadata?: JsonObject;
  /** Name used in error messages (usually the file path); default `'<dialog>'`. */
  name?: string;
  /** The `nbformat_minor` the notebook was read with (information only; writing always gives 5). */
  origNbformatMinor?: number;
  /** Other top-level notebook fields, verbatim. */
  extra?: JsonObject;
  /** Source of fresh ids; default {@link randomId}. */
  newId?: () => string;
}

/**
 * A dialog: the ordered messages of a notebook plus its notebook-level metadata.
 * Iterable over its messages. Reading/writing: `readsIpynb`/`dumpsIpynb` in notebook.ts.
 */
export class Dialog {
  /** The messages, in cell order. Callers may edit this array directly. */
  messages: Message[];
  /** Notebook-level metadata, as read. */
  metadata: JsonObject;
  /** Name used in error messages (usually the file path). */
  name: string;
  /** The `nbformat_minor` the notebook was read with, if read from a file. */
  origNbformatMinor: number | undefined;
  /** Other top-level notebook fields, verbatim (not allowed by the schema: validate rejects them). */
  extra: JsonObject;
  /** Source of candidate ids for {@link newId} (retried until unique). */
  idSource: () => string;

  /**
   * @param messages initial messages (the array is used, not copied).
   * @param init metadata, name and write-back details; see {@link DialogInit}.
   */
  constructor(messages: Message[] = [], init: DialogInit = {}) {
    this.messages = messages;
    this.metadata = init.metadata ?? {};
    this.name = init.name ?? '<dialog>';
    this.origNbformatMinor = init.origNbformatMinor;
    this.extra = init.extra ?? {};
    this.idSource = init.newId ?? randomId;
  }

  /** Number of messages. */
  get length(): number {
    return this.messages.length;
  }

  /** Iterate over the messages in order. */
  [Symbol.iterator](): Iterator<Message> {
    return this.messages[Symbol.iterator]();
  }

  /** Index of the message with this id, or -1. Linear. */
  index(id: string): number {
    const ms = this.messages;
    for (let i = 0; i < ms.length; i++) if ((ms[i] as Message).id === id) return i;
    return -1;
  }

  /** The message with this id, or `undefined`. Linear. */
  get(id: string): Message | undefined {
    const i = this.index(id);
    return i < 0 ? undefined : this.messages[i];
  }

  /** Whether a message has this id. */
  has(id: string): boolean {
    return this.index(id) >= 0;
  }

  /**
   * A fresh id not used by any message (and not in `taken`, if given), drawn from
   * {@link idSource} (random 8 hex digits by default).
   * @throws NotebookError if 1000 candidates in a row are taken (a broken id source).
   */
  newId(taken?: ReadonlySet<string>): string {
    const used = new Set<string>(this.messages.map((m) => m.id));
    for (let tries = 0; tries < 1000; tries++) {
      const id = this.idSource();
      if (!used.has(id) && !(taken?.has(id) ?? false)) return id;
    }
    throw new NotebookError('could not find a fresh cell id (the id source keeps repeating)', this.name);
  }

  /**
   * Make a message and insert it (the reference's `mk_message`): after `opts.after`, before
   * `opts.before`, or at the end. It gets `opts.id` or a fresh id unique in the dialog.
   * @param content the source (a prompt's request).
   * @param opts type (default `'note'`), position, and any {@link MessageInit} field.
   * @returns the new message.
   * @throws InvalidArgumentError if both `after` and `before` are given, the anchor is not in
   *   the dialog, or `opts.id` is already used.
   */
  mkMessage(content: string, opts: MkMessageOptions = {}): Message {
    const { after, before, ...init } = opts;
    if (after !== undefined && before !== undefined) {
      throw new InvalidArgumentError('mkMessage: give either after or before, not both');
    }
    if (init.id !== undefined && this.has(init.id)) {
      throw new InvalidArgumentError(`mkMessage: id ${JSON.stringify(init.id)} is already used in ${this.name}`);
    }
    let at = this.messages.length;
    const anchor = after ?? before;
    if (anchor !== undefined) {
      const aid = typeof anchor === 'string' ? anchor : anchor.id;
      const i = this.index(aid);
      if (i < 0) throw new InvalidArgumentError(`mkMessage: no message ${JSON.stringify(aid)} in ${this.name}`);
      at = after !== undefined ? i + 1 : i;
    }
    const m = new Message(content, { ...init, id: init.id ?? this.newId() });
    this.messages.splice(at, 0, m);
    return m;
  }

  /**
   * Deep copy: messages, metadata and write-back details (number kinds and key order kept), of
   * the same class as `this` (subclasses must keep the constructor's signature). The id source
   * is shared.
   */
  clone(): Dialog {
    return new (this.constructor as typeof Dialog)(
      this.messages.map((m) => m.clone()),
      {
        metadata: cloneJson(this.metadata),
        name: this.name,
        origNbformatMinor: this.origNbformatMinor,
        extra: cloneJson(this.extra),
        newId: this.idSource,
      },
    );
  }

  /**
   * Check the dialog can be written as a valid notebook (SPEC §7, plus the constraints of the
   * official nbformat 4.5 schema, so that whatever passes is written schema-valid):
   * - ids: strings of 1–64 characters from `[A-Za-z0-9_-]`, unique;
   * - types: one of the four; `content`/`reply` strings; only prompts have a reply; no note or
   *   prompt request holds the reply separator (it would not read back the same);
   * - outputs: code outputs are a list of well-formed nbformat outputs (`execute_result`,
   *   `display_data`, `stream`, `error` with their required fields and types); other types
   *   carry none; code `execution_count` is `null` or a non-negative integer;
   * - metadata, attachments and outputs are JSON (no `undefined`, functions, class instances,
   *   cycles, non-finite numbers); schema-typed metadata keys have their schema types
   *   (`name`, `tags`, `collapsed`, `scrolled`, `jupyter`, `execution`, `format`;
   *   notebook `kernelspec`, `language_info`, `title`, `authors`); attachments only on markdown
   *   and raw cells, as mimebundles; no fields outside the schema.
   * @returns this.
   * @throws NotebookError naming the dialog, the cell (id, or `#index` when the id itself is
   *   bad) and the field.
   */
  validate(): this {
    const file = this.name;
    if (!Array.isArray(this.messages)) throw new NotebookError('messages must be an array', file, undefined, 'cells');
    checkJson(this.metadata, file, undefined, 'metadata');
    if (!isJsonObject(this.metadata)) throw new NotebookError('notebook metadata must be an object', file, undefined, 'metadata');
    checkNotebookMetadata(this.metadata, file);
    for (const k of Object.keys(this.extra)) {
      throw new NotebookError(`unexpected top-level field ${JSON.stringify(k)} (not allowed by the nbformat 4.5 schema)`, file, undefined, k);
    }
    const seen = new Set<string>();
    this.messages.forEach((m, i) => {
      if (!(m instanceof Message)) throw new NotebookError('not a Message', file, i);
      if (typeof m.id !== 'string' || !CELL_ID_RE.test(m.id)) {
        throw new NotebookError(
          `invalid cell id ${JSON.stringify(m.id)}: ids are 1-64 characters from A-Z a-z 0-9 - _`,
          file,
          i,
          'id',
        );
      }
      if (seen.has(m.id)) throw new NotebookError(`duplicate cell id ${JSON.stringify(m.id)}`, file, m.id, 'id');
      seen.add(m.id);
      validateMessage(m, file);
    });
    return this;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation helpers

const OUTPUT_FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  execute_result: { required: ['output_type', 'data', 'metadata', 'execution_count'], optional: [] },
  display_data: { required: ['output_type', 'data', 'metadata'], optional: [] },
  stream: { required: ['output_type', 'name', 'text'], optional: [] },
  error: { required: ['output_type', 'ename', 'evalue', 'traceback'], optional: [] },
};

/** nbformat's test for JSON-typed mime data, which is never split into lines. */
export function isJsonMime(key: string): boolean {
  return key === 'application/json' || (key.startsWith('application/') && key.endsWith('+json'));
}

function isIntegral(v: unknown): boolean {
  if (pyNumberKind(v) === null) return false;
  const x = isLosslessNumber(v) ? Number(v.value) : Number(v as number);
  return Number.isFinite(x) && Math.floor(x) === x;
}

function numValue(v: unknown): number {
  return isLosslessNumber(v) ? Number(v.value) : Number(v as number);
}

function isMultiline(v: unknown): boolean {
  if (typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== 'string') return false;
  return true;
}

/**
 * Check that `v` is a JSON value the writer can serialise: null, booleans, strings, finite
 * numbers (JS numbers, bigints, LosslessNumbers), arrays without holes, plain objects; no
 * cycles. Throws NotebookError(file, cell, field) naming the path of the offending value.
 */
function checkJson(v: unknown, file: string, cell: string | number | undefined, field: string): void {
  // The path to the offending value is only spelled out on failure (`trail` holds the keys).
  const active = new Set<object>();
  const trail: (string | number)[] = [];
  const fail = (why: string): never => {
    const path = field + trail.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('');
    throw new NotebookError(`${path}: ${why}`, file, cell, field);
  };
  const walk = (x: unknown): void => {
    switch (typeof x) {
      case 'string':
      case 'boolean':
      case 'bigint':
        return;
      case 'number':
        if (!Number.isFinite(x)) fail(`${x} is not valid JSON`);
        return;
      case 'object': {
        if (x === null) return;
        if (isLosslessNumber(x)) {
          if (!Number.isFinite(Number(x.value))) fail(`${x.value} overflows a float (Python would write Infinity, which is not JSON)`);
          return;
        }
        if (active.has(x)) fail('circular reference');
        if (Array.isArray(x)) {
          active.add(x);
          for (let i = 0; i < x.length; i++) {
            const y: unknown = x[i];
            if (typeof y === 'string') continue;
            trail.push(i);
            if (!(i in x)) fail('array hole is not JSON');
            walk(y);
            trail.pop();
          }
          active.delete(x);
          return;
        }
        if (!isJsonObject(x)) break;
        active.add(x);
        const o = x as JsonObject;
        for (const k of Object.keys(o)) {
          const y = o[k];
          if (typeof y === 'string') continue;
          trail.push(k);
          walk(y);
          trail.pop();
        }
        active.delete(x);
        return;
      }
    }
    fail(`a value of type ${typeof x} is not JSON-serialisable`);
  };
  walk(v);
}

function checkMimebundle(b: unknown, file: string, cell: string, field: string): void {
  if (!isJsonObject(b)) throw new NotebookError('a mimebundle must be an object', file, cell, field);
  for (const k of Object.keys(b)) {
    if (/^application\/(.*\+)?json$/.test(k)) continue;
    if (!isMultiline(b[k])) {
      throw new NotebookError(`mime data ${JSON.stringify(k)} must be a string or a list of strings`, file, cell, field);
    }
  }
}

function checkOutput(o: unknown, i: number, file: string, cell: string): void {
  const field = `outputs[${i}]`;
  if (!isJsonObject(o)) throw new NotebookError('an output must be an object', file, cell, field);
  const ot = o.output_type;
  const spec = typeof ot === 'string' ? OUTPUT_FIELDS[ot] : undefined;
  if (spec === undefined) {
    throw new NotebookError(`unknown output_type ${JSON.stringify(ot)} (expected execute_result, display_data, stream or error)`, file, cell, field);
  }
  for (const k of spec.required) {
    if (!(k in o)) throw new NotebookError(`${ot} output lacks ${JSON.stringify(k)}`, file, cell, field);
  }
  for (const k of Object.keys(o)) {
    if (!spec.required.includes(k) && !spec.optional.includes(k)) {
      throw new NotebookError(`unexpected field ${JSON.stringify(k)} in a ${ot} output`, file, cell, field);
    }
  }
  if (ot === 'execute_result' || ot === 'display_data') {
    checkMimebundle(o.data, file, cell, `${field}.data`);
    if (!isJsonObject(o.metadata)) throw new NotebookError('output metadata must be an object', file, cell, `${field}.metadata`);
    if (ot === 'execute_result') {
      const ec = o.execution_count;
      if (ec !== null && !(isIntegral(ec) && numValue(ec) >= 0)) {
        throw new NotebookError('execution_count must be null or a non-negative integer', file, cell, `${field}.execution_count`);
      }
    }
  } else if (ot === 'stream') {
    if (typeof o.name !== 'string') throw new NotebookError('stream name must be a string', file, cell, `${field}.name`);
    if (!isMultiline(o.text)) throw new NotebookError('stream text must be a string or a list of strings', file, cell, `${field}.text`);
  } else {
    if (typeof o.ename !== 'string') throw new NotebookError('ename must be a string', file, cell, `${field}.ename`);
    if (typeof o.evalue !== 'string') throw new NotebookError('evalue must be a string', file, cell, `${field}.evalue`);
    const tb = o.traceback;
    if (!Array.isArray(tb) || !tb.every((x) => typeof x === 'string')) {
      throw new NotebookError('traceback must be a list of strings', file, cell, `${field}.traceback`);
    }
  }
}

function checkTags(v: unknown, file: string, cell: string): void {
  const ok =
    Array.isArray(v) &&
    v.every((t) => typeof t === 'string' && t.length > 0 && !t.includes(',')) &&
    new Set(v).size === v.length;
  if (!ok) throw new NotebookError('tags must be a list of unique non-empty strings without commas', file, cell, 'metadata.tags');
}

// The schema's `^.+$` for `name`: non-empty, no line terminator (JS `.` excludes \n \r \u2028 \u2029).
const NAME_RE = /^.+$/;

function checkCellMetadata(md: JsonObject, cellType: string, file: string, cell: string): void {
  if ('name' in md && !(typeof md.name === 'string' && NAME_RE.test(md.name))) {
    throw new NotebookError('metadata name must be a non-empty one-line string', file, cell, 'metadata.name');
  }
  if ('tags' in md) checkTags(md.tags, file, cell);
  if ('jupyter' in md && !isJsonObject(md.jupyter)) throw new NotebookError('metadata jupyter must be an object', file, cell, 'metadata.jupyter');
  if (cellType === 'code') {
    if ('collapsed' in md && typeof md.collapsed !== 'boolean') {
      throw new NotebookError('metadata collapsed must be a boolean', file, cell, 'metadata.collapsed');
    }
    if ('scrolled' in md && !(typeof md.scrolled === 'boolean' || md.scrolled === 'auto')) {
      throw new NotebookError('metadata scrolled must be true, false or "auto"', file, cell, 'metadata.scrolled');
    }
    if ('execution' in md) {
      const ex = md.execution;
      if (!isJsonObject(ex) || !Object.keys(ex).every((k) => typeof ex[k] === 'string')) {
        throw new NotebookError('metadata execution must be an object of strings', file, cell, 'metadata.execution');
      }
    }
  }
  if (cellType === 'raw' && 'format' in md && typeof md.format !== 'string') {
    throw new NotebookError('metadata format must be a string', file, cell, 'metadata.format');
  }
}

function checkNotebookMetadata(md: JsonObject, file: string): void {
  const fail = (msg: string, field: string): never => {
    throw new NotebookError(msg, file, undefined, `metadata.${field}`);
  };
  if ('kernelspec' in md) {
    const ks = md.kernelspec;
    if (!isJsonObject(ks) || typeof ks.name !== 'string' || typeof ks.display_name !== 'string') {
      fail('kernelspec must be an object with string name and display_name', 'kernelspec');
    }
  }
  if ('language_info' in md) {
    const li = md.language_info;
    if (!isJsonObject(li) || typeof li.name !== 'string') fail('language_info must be an object with a string name', 'language_info');
    const l = li as JsonObject;
    if ('codemirror_mode' in l && !(typeof l.codemirror_mode === 'string' || isJsonObject(l.codemirror_mode))) {
      fail('codemirror_mode must be a string or an object', 'language_info');
    }
    for (const k of ['file_extension', 'mimetype', 'pygments_lexer']) {
      if (k in l && typeof l[k] !== 'string') fail(`${k} must be a string`, 'language_info');
    }
  }
  if ('title' in md && typeof md.title !== 'string') fail('title must be a string', 'title');
  if ('authors' in md && !Array.isArray(md.authors)) fail('authors must be a list', 'authors');
}

function validateMessage(m: Message, file: string): void {
  const cell = m.id;
  if (!MSG_TYPES.has(m.type)) throw new NotebookError(`unknown message type ${JSON.stringify(m.type)}`, file, cell, 'type');
  if (typeof m.content !== 'string') throw new NotebookError('content must be a string', file, cell, 'source');
  if (typeof m.reply !== 'string') throw new NotebookError('reply must be a string', file, cell, 'source');
  if (m.type !== 'prompt' && m.reply !== '') {
    throw new NotebookError(`a ${m.type} message has no reply (only prompts do)`, file, cell, 'reply');
  }
  if ((m.type === 'prompt' || m.type === 'note') && m.content.includes(REPLY_SEPARATOR)) {
    throw new NotebookError(
      `the ${m.type === 'prompt' ? "prompt's request" : 'note'} holds the reply separator, so it would not read back the same`,
      file,
      cell,
      'source',
    );
  }
  if (!Array.isArray(m.output)) throw new NotebookError('outputs must be a list', file, cell, 'outputs');
  checkJson(m.output, file, cell, 'outputs');
  if (m.type === 'code') {
    m.output.forEach((o, i) => checkOutput(o, i, file, cell));
    const ec = m.executionCount;
    if (ec !== null && ec !== undefined && !(isIntegral(ec) && numValue(ec) >= 0)) {
      throw new NotebookError('execution_count must be null or a non-negative integer', file, cell, 'execution_count');
    }
  } else if (m.output.length > 0) {
    throw new NotebookError(`a ${m.type} message carries no outputs (only code cells do)`, file, cell, 'outputs');
  }
  if (!isJsonObject(m.meta)) throw new NotebookError('metadata must be an object', file, cell, 'metadata');
  checkJson(m.meta, file, cell, 'metadata');
  checkJson(m.flagValues, file, cell, 'metadata');
  checkCellMetadata(m.meta, m.type === 'code' ? 'code' : m.type === 'raw' ? 'raw' : 'markdown', file, cell);
  if (typeof m.skipped !== 'boolean') throw new NotebookError('skipped must be a boolean', file, cell, 'metadata.skipped');
  if (typeof m.pinned !== 'boolean') throw new NotebookError('pinned must be a boolean', file, cell, 'metadata.pinned');
  if (m.attachments !== undefined) {
    if (m.type === 'code') throw new NotebookError('code cells carry no attachments (nbformat schema)', file, cell, 'attachments');
    checkJson(m.attachments, file, cell, 'attachments');
    if (!isJsonObject(m.attachments)) throw new NotebookError('attachments must be an object', file, cell, 'attachments');
    const att = m.attachments;
    for (const k of Object.keys(att)) checkMimebundle(att[k], file, cell, `attachments.${k}`);
  }
  checkJson(m.extra, file, cell, 'cell');
  for (const k of Object.keys(m.extra)) {
    throw new NotebookError(`unexpected cell field ${JSON.stringify(k)} (not allowed by the nbformat 4.5 schema)`, file, cell, k);
  }
}
