/**
 * The fast path of `dumpsIpynb` (write.ts): the same text, made by one native
 * `JSON.stringify(view, null, 1)` of a view of the notebook in nbformat's form — objects whose
 * keys were inserted in code-point order, sources and split mime data as lists of lines, numbers
 * as the JS numbers whose text is the one Python writes. Native stringify with indent 1 lays
 * values out exactly as the writer of write.ts does (`",\n"` between items, `": "` after keys,
 * `[]` and `{}` for empty containers, the same string escapes), so the two agree whenever the
 * view can say what that writer says. When it cannot — a key JS objects list out of insertion
 * order (an array index) or `__proto__`, a number whose JS text differs from Python's (`1e-05`,
 * big integers, `NaN`), a value that is not JSON (undefined, functions, class instances, cycles)
 * — {@link nativeIpynbText} gives up and the caller writes with write.ts, whose output and
 * errors are the contract. Nothing here mutates the dialog; unchanged JSON values that are
 * already in written form (sorted keys, plain numbers) are reused, not copied. Internal to
 * `notebook/`.
 */
import { isJsonMime, type JsonObject } from '../dialog/cells.js';
import type { Dialog } from '../dialog/dialog.js';
import type { Message } from '../dialog/message.js';
import { cellWire, dialogWire, type FlagValues } from '../dialog/wire-state.js';
import { cpCompare, isJsonObject, isLosslessNumber, pyJsonNumber, pyTruthy } from '../python/index.js';
import { hasOtherLineBreak } from '../python/strings.js';

/** Mime types split into lines besides `text/*` (nbformat's `split_lines`). */
export const SPLIT_MIMES: ReadonlySet<string> = new Set(['application/javascript', 'image/svg+xml']);
/** Notebook metadata keys nbformat's `strip_transient` drops. */
export const NB_TRANSIENT: ReadonlySet<string> = new Set(['orig_nbformat', 'orig_nbformat_minor', 'signature']);

/**
 * The value a metadata flag is written with: the value read, if it still has the flag's truth
 * value; else `true` when set; else nothing.
 */
export function flagValue(on: boolean, read: unknown): unknown {
  if (read !== undefined && pyTruthy(read) === on) return read;
  return on ? true : undefined;
}

/** Thrown (and caught by {@link nativeIpynbText}) when the view cannot match the writer. */
const GIVE_UP: unique symbol = Symbol('give up');

function giveUp(): never {
  throw GIVE_UP;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** A key that JS objects list before the others, whatever the insertion order. */
function isIndexKey(k: string): boolean {
  const c = k.charCodeAt(0);
  if (!(c >= 48 && c <= 57)) return false;
  return /^(?:0|[1-9][0-9]{0,9})$/.test(k) && Number(k) < 4294967295;
}

/** A key that a plain assignment could not create as a listed own property in order. */
function checkKey(k: string): void {
  if (k === '__proto__' || isIndexKey(k)) giveUp();
}

/**
 * A finite JS number whose JSON text is `text`, or a give-up (native stringify writes `null`
 * for `NaN` and the infinities, which the writer spells out).
 */
function numberFor(text: string): number {
  const x = Number(text);
  if (!Number.isFinite(x) || String(x) !== text) giveUp();
  return x;
}

/** A JSON value as native stringify must see it to write what write.ts's `value` writes. */
function plain(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return numberFor(pyJsonNumber(v));
    case 'object':
      if (v === null) return v;
      if (Array.isArray(v)) return plainArray(v);
      if (isLosslessNumber(v)) return numberFor(pyJsonNumber(v));
      if (isJsonObject(v)) return plainObject(v);
      return giveUp();
    default:
      return giveUp();
  }
}

function plainArray(a: unknown[]): unknown[] {
  if (typeof (a as { toJSON?: unknown }).toJSON === 'function') giveUp();
  let out: unknown[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = plain(x);
    if (y !== x && out === undefined) out = a.slice(0, i);
    if (out !== undefined) out.push(y);
  }
  return out ?? a;
}

function plainObject(o: JsonObject): JsonObject {
  if (typeof o.toJSON === 'function') giveUp();
  const ks = Object.keys(o);
  let same = true;
  const vals: unknown[] = new Array(ks.length);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i] as string;
    checkKey(k);
    if (i > 0 && cpCompare(ks[i - 1] as string, k) > 0) same = false;
    const x = o[k];
    const y = plain(x);
    vals[i] = y;
    if (y !== x) same = false;
  }
  if (same) return o;
  const entries: [string, unknown][] = new Array(ks.length);
  for (let i = 0; i < ks.length; i++) entries[i] = [ks[i] as string, vals[i]];
  return objectOf(entries);
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return cpCompare(a[0], b[0]);
}

/** An object with the entries' (already plain) values, keys inserted in code-point order. */
function objectOf(entries: [string, unknown][]): JsonObject {
  entries.sort(byKey);
  const o: JsonObject = {};
  for (const [k, v] of entries) {
    checkKey(k);
    o[k] = v;
  }
  return o;
}

const ANY_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

/** Python's `s.splitlines(keepends=True)`. */
export function splitLines(s: string): string[] {
  const out: string[] = [];
  const n = s.length;
  let p = 0;
  if (!hasOtherLineBreak(s)) {
    for (let q = s.indexOf('\n'); q >= 0; q = s.indexOf('\n', p)) {
      out.push(s.slice(p, q + 1));
      p = q + 1;
    }
  } else {
    const re = ANY_BREAK;
    re.lastIndex = 0;
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      const end = m.index + m[0].length;
      out.push(s.slice(p, end));
      p = end;
    }
  }
  if (p < n) out.push(s.slice(p));
  return out;
}

/** Line breaks of `splitlines` other than `\n`. */
const OTHER_BREAK = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * Whether `lines` is surely `splitLines(lines.join(''))`, found without joining them: no entry
 * holds a line break other than `\n`, each entry but the last ends with its only `\n`, the
 * last is not empty and holds no `\n` but at its end (an empty entry anywhere is not how
 * splitting writes it: the old writer drops it).
 * @param lines the list (of strings) to test.
 * @returns true only when splitting the joined text gives this very list back; for a list
 *   whose only line breaks are `\n`, exactly then (with other breaks it is false).
 */
export function isSplitList(lines: readonly string[]): boolean {
  const last = lines.length - 1;
  for (let i = 0; i <= last; i++) {
    const e = lines[i] as string;
    if (e === '') return false;
    const q = e.indexOf('\n');
    if (i < last ? q !== e.length - 1 : q >= 0 && q !== e.length - 1) return false;
    if (OTHER_BREAK.test(e)) return false;
  }
  return true;
}

/** The lines of a list of strings joined: the list itself when it already is those lines. */
function linesOfList(list: string[]): readonly string[] {
  return isSplitList(list) ? list : splitLines(list.join(''));
}

/** write.ts's `bundleView`, in plain form. */
function bundleView(b: unknown): unknown {
  if (!isJsonObject(b)) return plain(b);
  const ks = Object.keys(b);
  const entries: [string, unknown][] = new Array(ks.length);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i] as string;
    let v = b[k];
    const split = k.startsWith('text/') || SPLIT_MIMES.has(k);
    if (Array.isArray(v) && !isJsonMime(k) && allStrings(v)) {
      if (split) {
        entries[i] = [k, linesOfList(v)];
        continue;
      }
      v = v.join('');
    }
    entries[i] = [k, typeof v === 'string' && split ? splitLines(v) : plain(v)];
  }
  return keptOrObject(b, entries);
}

/**
 * `objectOf(entries)`, or `o` itself when `entries` are its own entries unchanged (same keys in
 * code-point order, identical values): a value already in written form is not copied.
 */
function keptOrObject(o: JsonObject, entries: [string, unknown][]): JsonObject {
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i] as [string, unknown];
    if (v !== o[k] || (i > 0 && cpCompare((entries[i - 1] as [string, unknown])[0], k) > 0)) return objectOf(entries);
  }
  if (typeof o.toJSON === 'function') giveUp();
  for (let i = 0; i < entries.length; i++) checkKey((entries[i] as [string, unknown])[0]);
  return o;
}

function allStrings(a: unknown[]): a is string[] {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

/** write.ts's `outputView`, in plain form. */
function outputView(o: unknown): unknown {
  if (!isJsonObject(o)) return plain(o);
  const ot = o.output_type;
  if (ot === 'execute_result' || ot === 'display_data') {
    const ks = Object.keys(o);
    const entries: [string, unknown][] = new Array(ks.length);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i] as string;
      const v = o[k];
      let w: unknown;
      if (k === 'data') w = bundleView(v);
      else if (k === 'metadata' && isJsonObject(v) && hasOwn.call(v, '__type')) {
        const mk = Object.keys(v).filter((x) => x !== '__type');
        w = objectOf(mk.map((x) => [x, plain(v[x])]));
      } else w = plain(v);
      entries[i] = [k, w];
    }
    return keptOrObject(o, entries);
  }
  // `text` is rewritten only from strings; any other value is left to `plain` (a `NaN` there is
  // not equal to itself, so identity cannot tell whether it was rewritten).
  let text: unknown = o.text;
  let rewritten = false;
  if (typeof ot === 'string' && ot !== '' && Array.isArray(text) && allStrings(text)) {
    text = ot === 'stream' ? linesOfList(text) : text.join('');
    rewritten = text !== o.text;
  } else if (ot === 'stream' && typeof text === 'string') {
    text = splitLines(text);
    rewritten = true;
  }
  if (!rewritten) return plain(o);
  const ks = Object.keys(o);
  return objectOf(ks.map((k) => [k, k === 'text' ? text : plain(o[k])]));
}

/** `a.map(f)`, but a hole is a give-up (write.ts fails on it, where native stringify writes `null`). */
function mapAll<T>(a: readonly T[], f: (x: T) => unknown): unknown[] {
  const out: unknown[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) {
    if (!(i in a)) giveUp();
    out[i] = f(a[i] as T);
  }
  return out;
}

/**
 * A cell's metadata as written, in order (both writers): `meta` without `trusted`, then the
 * flags, which decide their keys (a same-named key left in `meta` does not override them).
 * `solveit_ai` is a flag of markdown cells only; on code and raw cells it is plain metadata.
 */
export function cellMetadata(m: Message): Map<string, unknown> {
  const md = new Map<string, unknown>();
  for (const k of Object.keys(m.meta)) if (k !== 'trusted') md.set(k, m.meta[k]);
  const wire = cellWire(m);
  const flags: [keyof FlagValues, boolean][] = [
    ['skipped', m.skipped],
    ['pinned', m.pinned],
  ];
  if (m.cellType === 'markdown') flags.push(['solveit_ai', m.type === 'prompt' && (wire.solveitAi || !wire.readAsPrompt)]);
  for (const [k, on] of flags) {
    const v = flagValue(on, wire.flagValues[k]);
    if (v !== undefined) md.set(k, v);
    else md.delete(k);
  }
  return md;
}

/**
 * `cellMetadata(m)` in plain form. When no flag is written and `meta` holds none of the keys
 * the writer drops or decides (`trusted`, the flags), that is `meta` itself in plain form,
 * made without the intermediate map (and `meta` itself when already plain and sorted).
 */
function metadataView(m: Message): JsonObject {
  const meta = m.meta;
  if (isJsonObject(meta) && !m.skipped && !m.pinned) {
    const wire = cellWire(m);
    const fv = wire.flagValues;
    const markdown = m.cellType === 'markdown';
    const noFlags =
      fv.skipped === undefined &&
      fv.pinned === undefined &&
      !(markdown && (fv.solveit_ai !== undefined || (m.type === 'prompt' && (wire.solveitAi || !wire.readAsPrompt))));
    if (
      noFlags &&
      !hasOwn.call(meta, 'trusted') &&
      !hasOwn.call(meta, 'skipped') &&
      !hasOwn.call(meta, 'pinned') &&
      !(markdown && hasOwn.call(meta, 'solveit_ai'))
    ) {
      return plainObject(meta);
    }
  }
  const mdEntries: [string, unknown][] = [];
  for (const [k, v] of cellMetadata(m)) mdEntries.push([k, plain(v)]);
  return objectOf(mdEntries);
}

/** True when `o` has an own enumerable key. */
function hasKeys(o: object): boolean {
  for (const k in o) if (hasOwn.call(o, k)) return true;
  return false;
}

/** write.ts's `cellView`, in plain form. */
function cellView(m: Message): JsonObject {
  const ct = m.cellType;
  const metadata = metadataView(m);
  const source = splitLines(m.source);
  const att = m.attachments;
  const attachments = att === undefined ? undefined : isJsonObject(att) ? objectOf(Object.keys(att).map((k) => [k, bundleView(att[k])])) : plain(att);
  const code = ct === 'code';
  const outputs = code || m.output.length > 0 ? mapAll(m.output, outputView) : undefined;
  const executionCount = code ? (m.executionCount === undefined ? null : plain(m.executionCount)) : undefined;
  const extra = cellWire(m).extra;
  if (!hasKeys(extra)) {
    // The usual cell: its keys inserted in code-point order directly, so cells share a shape.
    const o: JsonObject = {};
    if (att !== undefined) o.attachments = attachments;
    o.cell_type = ct;
    if (code) o.execution_count = executionCount;
    o.id = m.id;
    o.metadata = metadata;
    if (outputs !== undefined) o.outputs = outputs;
    o.source = source;
    return o;
  }
  const e: [string, unknown][] = [
    ['cell_type', ct],
    ['id', m.id],
    ['metadata', metadata],
    ['source', source],
  ];
  if (att !== undefined) e.push(['attachments', attachments]);
  if (outputs !== undefined) e.push(['outputs', outputs]);
  if (code) e.push(['execution_count', executionCount]);
  const taken = new Set(e.map(([k]) => k));
  for (const k of Object.keys(extra)) if (!taken.has(k)) e.push([k, plain(extra[k])]);
  return objectOf(e);
}

/**
 * The text `dumpsIpynb` writes for `dialog` (without validating it), made natively, or
 * `undefined` when the view cannot match write.ts (see the module note).
 */
export function nativeIpynbText(dialog: Dialog): string | undefined {
  try {
    return `${JSON.stringify(nativeView(dialog), null, 1)}\n`;
  } catch {
    return undefined;
  }
}

/** The notebook in the form native stringify writes as write.ts would (throws {@link GIVE_UP}). */
function nativeView(dialog: Dialog): JsonObject {
  const top: [string, unknown][] = [
    ['cells', mapAll(dialog.messages, cellView)],
    [
      'metadata',
      objectOf(
        Object.keys(dialog.metadata)
          .filter((k) => !NB_TRANSIENT.has(k))
          .map((k) => [k, plain(dialog.metadata[k])]),
      ),
    ],
    ['nbformat', 4],
    ['nbformat_minor', 5],
  ];
  const taken = new Set(top.map(([k]) => k));
  const extra = dialogWire(dialog).extra;
  for (const k of Object.keys(extra)) if (!taken.has(k)) top.push([k, plain(extra[k])]);
  return objectOf(top);
}
