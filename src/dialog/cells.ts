/**
 * The vocabulary of the dialog model (SPEC §0, §7) that every module of `dialog/` shares:
 * message types, cell ids, JSON values as the model holds them, and the structural shapes
 * {@link MessageLike} / {@link DialogLike} that operations on dialogs (compaction, summaries,
 * micro-compaction, measuring) are written against, so that they need not import the classes
 * that declare them as methods.
 *
 * JSON values held by the model (metadata, outputs, attachments, execution counts) are kept
 * exactly as `parseJson` produced them: numbers are `LosslessNumber`s (kind and digits kept),
 * object key order is available through `jsonKeys`, a `__proto__` key is an ordinary own
 * property. Values set by callers may also use JS numbers and bigints (an integral safe JS
 * number is written as a Python int, anything else as a Python float).
 */
import { KEY_ORDER, LosslessNumber, isJsonObject, isLosslessNumber } from '../python/index.js';

/** The four message types of a dialog (SPEC §0). */
export type MsgType = 'code' | 'note' | 'prompt' | 'raw';

/** Message types, in a set for membership tests. */
export const MSG_TYPES: ReadonlySet<string> = new Set<MsgType>(['code', 'note', 'prompt', 'raw']);

/** A JSON object as the model holds it (see the module note for the value conventions). */
export type JsonObject = Record<string, unknown>;

/** Cell ids the nbformat 4.5 schema accepts: 1–64 of ASCII letters, digits, `-`, `_` (SPEC §7). */
export const CELL_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A fresh random id: 8 lowercase hex digits (32 random bits from `crypto.getRandomValues`),
 * the form nbformat gives new cells. Not checked for uniqueness; see `Dialog.newId`.
 */
export function randomId(): string {
  const buf = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buf);
  return (buf[0] as number).toString(16).padStart(8, '0');
}

/**
 * nbformat's test for a JSON-typed mime type (`application/json`, `application/…+json`), whose
 * data is a JSON value and is never split into or joined from lines.
 */
export function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
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

/**
 * What operations read and change of a cell: the public fields of `Message` (dialog/message.ts),
 * which implements it. See `Message` for each field's meaning.
 */
export interface MessageLike {
  id: string;
  type: MsgType;
  content: string;
  reply: string;
  output: unknown[];
  meta: JsonObject;
  skipped: boolean;
  pinned: boolean;
  attachments: JsonObject | undefined;
  executionCount: unknown;
  /** The id was generated on reading (it is not in the file). */
  idGenerated: boolean;
  /** The AI view of the cell's output (a prompt: its reply). */
  readonly aiOutput: string;
  /** The cell source as written (a prompt: request, separator, reply). */
  readonly source: string;
  /** A deep copy of the same class. */
  clone(): MessageLike;
}

/** Raw cells whose metadata has `rec_kind` are records, not conversation (SPEC §8): never rendered. */
export function isRecordCell(m: MessageLike): boolean {
  return m.type === 'raw' && m.meta !== null && typeof m.meta === 'object' && Object.hasOwn(m.meta, 'rec_kind');
}

/**
 * What operations read and change of a dialog: the public fields of `Dialog` (dialog/dialog.ts),
 * which implements it with `M = Message`.
 */
export interface DialogLike<M extends MessageLike = MessageLike> {
  /** The messages, in cell order. */
  messages: M[];
  /** Notebook-level metadata. */
  metadata: JsonObject;
  /** Name used in error messages (usually the file path). */
  name: string;
  /** A fresh id not used by any message (nor in `taken`). */
  newId(taken?: ReadonlySet<string>): string;
}

/**
 * True when `v` has the shape of a {@link DialogLike} (an object with a `messages` array, a
 * string `name`, an object `metadata` and a `newId` function): the check operations use
 * instead of `instanceof Dialog`. The messages themselves are not inspected.
 */
export function isDialogLike(v: unknown): v is DialogLike {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Partial<DialogLike>;
  return Array.isArray(d.messages) && typeof d.name === 'string' && d.metadata !== null && typeof d.metadata === 'object' && typeof d.newId === 'function';
}
