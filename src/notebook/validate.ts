/**
 * Checking that a dialog can be written as a valid notebook (SPEC §7): the cell-id, type and
 * separator rules of the dialog model plus the constraints of the official nbformat 4.5 schema
 * that the writer relies on, so that whatever passes is written schema-valid.
 */
import { REPLY_SEPARATOR } from '../chat/index.js';
import { CELL_ID_RE, MSG_TYPES, type JsonObject } from '../dialog/cells.js';
import type { Dialog } from '../dialog/dialog.js';
import { Message } from '../dialog/message.js';
import { cellWire, dialogWire } from '../dialog/wire-state.js';
import { InvalidArgumentError, NotebookError } from '../errors.js';
import { isJsonObject, isLosslessNumber, pyNumberKind } from '../python/index.js';

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
 * @param dialog the dialog to check.
 * @returns the dialog.
 * @throws NotebookError naming the dialog, the cell (id, or `#index` when the id itself is
 *   bad) and the field; InvalidArgumentError when `dialog` is not an object.
 */
export function validateDialog<D extends Dialog>(dialog: D): D {
  return checkDialog(dialog, false);
}

/**
 * (Internal to `notebook/`.) {@link validateDialog} for a dialog whose native view
 * (write-native.ts) has just been made: the JSON values that view turned into plain form are
 * JSON (it gives up on everything the JSON check rejects), so only the values it leaves out are
 * walked again. Same result and same first error as {@link validateDialog}.
 */
export function validateViewed<D extends Dialog>(dialog: D): D {
  return checkDialog(dialog, true);
}

/** The notebook metadata keys the native view leaves out (nbformat's `strip_transient`). */
const TRANSIENT_KEYS = ['orig_nbformat', 'orig_nbformat_minor', 'signature'];
/** Cell metadata keys whose values the native view leaves out or replaces. */
const UNVIEWED_META_KEYS = ['trusted', 'skipped', 'pinned', 'solveit_ai'];

const hasOwn = Object.prototype.hasOwnProperty;

function hasAnyKey(o: object, keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (hasOwn.call(o, keys[i] as string)) return true;
  return false;
}

/**
 * Whether the native view skipped part of an output list: the `__type` entry of an
 * `execute_result` or `display_data` output's metadata is dropped unseen.
 */
function outputsPartlyViewed(outputs: unknown[]): boolean {
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i];
    if (!isJsonObject(o) || (o.output_type !== 'execute_result' && o.output_type !== 'display_data')) continue;
    const md = o.metadata;
    if (isJsonObject(md) && hasOwn.call(md, '__type')) return true;
  }
  return false;
}

function checkDialog<D extends Dialog>(dialog: D, viewed: boolean): D {
  if (dialog === null || typeof dialog !== 'object')
    throw new InvalidArgumentError(`validateDialog: expected a Dialog, got ${dialog === null ? 'null' : typeof dialog}`);
  const file = dialog.name;
  if (!Array.isArray(dialog.messages)) throw new NotebookError('messages must be an array', file, undefined, 'cells');
  const md = dialog.metadata;
  if (!(viewed && isJsonObject(md) && !hasAnyKey(md, TRANSIENT_KEYS))) checkJson(md, file, undefined, 'metadata');
  if (!isJsonObject(dialog.metadata)) throw new NotebookError('notebook metadata must be an object', file, undefined, 'metadata');
  checkNotebookMetadata(dialog.metadata, file);
  for (const k of Object.keys(dialogWire(dialog).extra)) {
    throw new NotebookError(`unexpected top-level field ${JSON.stringify(k)} (not allowed by the nbformat 4.5 schema)`, file, undefined, k);
  }
  const seen = new Set<string>();
  dialog.messages.forEach((m, i) => {
    if (!(m instanceof Message)) throw new NotebookError('not a Message', file, i);
    if (typeof m.id !== 'string' || !CELL_ID_RE.test(m.id)) {
      throw new NotebookError(`invalid cell id ${JSON.stringify(m.id)}: ids are 1-64 characters from A-Z a-z 0-9 - _`, file, i, 'id');
    }
    if (seen.has(m.id)) throw new NotebookError(`duplicate cell id ${JSON.stringify(m.id)}`, file, m.id, 'id');
    seen.add(m.id);
    validateMessage(m, file, viewed);
  });
  return dialog;
}

const OUTPUT_FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  execute_result: { required: ['output_type', 'data', 'metadata', 'execution_count'], optional: [] },
  display_data: { required: ['output_type', 'data', 'metadata'], optional: [] },
  stream: { required: ['output_type', 'name', 'text'], optional: [] },
  error: { required: ['output_type', 'ename', 'evalue', 'traceback'], optional: [] },
};

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
  if (isFlatJsonObject(v)) return;
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

/**
 * True for a plain object whose values are all strings, booleans, `null` or finite JS numbers
 * (a cell's flag values, say): JSON as it stands, with nothing below it to walk.
 */
function isFlatJsonObject(v: unknown): boolean {
  if (!isJsonObject(v)) return false;
  for (const k in v) {
    if (!hasOwn.call(v, k)) continue;
    const x = v[k];
    if (typeof x === 'string' || typeof x === 'boolean' || x === null) continue;
    if (typeof x === 'number' && Number.isFinite(x)) continue;
    return false;
  }
  return true;
}

function checkMimebundle(b: unknown, file: string, cell: string, field: string): void {
  if (!isJsonObject(b)) throw new NotebookError('a mimebundle must be an object', file, cell, field);
  for (const k of Object.keys(b)) {
    // The schema's own pattern for JSON mime keys (`.` stops at line breaks, as in the schema),
    // kept rather than `isJsonMime` so that exactly what the schema accepts passes.
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
  const ok = Array.isArray(v) && v.every((t) => typeof t === 'string' && t.length > 0 && !t.includes(',')) && new Set(v).size === v.length;
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

function validateMessage(m: Message, file: string, viewed: boolean): void {
  const cell = m.id;
  const wire = cellWire(m);
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
  if (!viewed || outputsPartlyViewed(m.output)) checkJson(m.output, file, cell, 'outputs');
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
  if (!viewed || hasAnyKey(m.meta, UNVIEWED_META_KEYS)) checkJson(m.meta, file, cell, 'metadata');
  checkJson(wire.flagValues, file, cell, 'metadata');
  checkCellMetadata(m.meta, m.type === 'code' ? 'code' : m.type === 'raw' ? 'raw' : 'markdown', file, cell);
  if (typeof m.skipped !== 'boolean') throw new NotebookError('skipped must be a boolean', file, cell, 'metadata.skipped');
  if (typeof m.pinned !== 'boolean') throw new NotebookError('pinned must be a boolean', file, cell, 'metadata.pinned');
  if (m.attachments !== undefined) {
    if (m.type === 'code') throw new NotebookError('code cells carry no attachments (nbformat schema)', file, cell, 'attachments');
    if (!viewed) checkJson(m.attachments, file, cell, 'attachments');
    if (!isJsonObject(m.attachments)) throw new NotebookError('attachments must be an object', file, cell, 'attachments');
    const att = m.attachments;
    for (const k of Object.keys(att)) checkMimebundle(att[k], file, cell, `attachments.${k}`);
  }
  checkJson(wire.extra, file, cell, 'cell');
  for (const k of Object.keys(wire.extra)) {
    throw new NotebookError(`unexpected cell field ${JSON.stringify(k)} (not allowed by the nbformat 4.5 schema)`, file, cell, k);
  }
}
