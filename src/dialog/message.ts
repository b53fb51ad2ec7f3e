/**
 * One cell of a dialog (SPEC §0, §7): the {@link Message} class — a `code`, `note` (markdown),
 * `prompt` (markdown holding the user's request, the reply separator and the AI's reply) or
 * `raw` cell.
 */
import { REPLY_SEPARATOR } from '../chat/index.js';
import type { Policy } from '../dsl/render.js';
import { InvalidArgumentError } from '../errors.js';
import { aiOutput as outputsAiView } from './ai-output.js';
import { MSG_TYPES, cloneJson, randomId, type JsonObject, type MessageLike, type MsgType } from './cells.js';
import { compactPrompt } from './compact.js';
import { cellWire, copyCellWire, initCellWire, registerCellWireSlot, type CellWireState } from './wire-state.js';

/** Fields accepted by the {@link Message} constructor and `Dialog.mkMessage`. */
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
 * How the cell was spelled in its file (flag spellings, unknown fields, whether a prompt held
 * the separator) is kept by the notebook reader outside these fields, so that an unchanged
 * dialog is written back byte for byte (SPEC §7).
 */
export class Message implements MessageLike {
  /** Cell id (SPEC §7: 1–64 of `[A-Za-z0-9_-]`, unique in the dialog; checked by `validateDialog`). */
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
   * See {@link aiOutput} for when to call {@link outputsChanged} after editing them in place.
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
  /** The id was generated on reading (the cell had none, a `null` one, or a duplicate). */
  idGenerated: boolean;

  /** Cached AI view of `output`: the array it was computed for, its length then, and the text. */
  #view: { refs: unknown[]; text: string } | undefined;

  /** The write-back state (wire-state.ts), kept here rather than in that module's WeakMap. */
  #wire: CellWireState | undefined = undefined;

  static {
    registerCellWireSlot({
      get: (m) => (#wire in m ? m.#wire : undefined),
      set: (m, s) => {
        if (!(#wire in m)) return false;
        m.#wire = s;
        return true;
      },
    });
  }

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
    this.idGenerated = false;
    initCellWire(this, type === 'prompt');
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
   * view is its reply; otherwise `aiOutput(this.output)` of ai-output.ts (`''` for no outputs).
   *
   * The view of the outputs is cached. Each read compares what the view depends on — the
   * `output` array, each output object, each of its fields, and one level inside those (a mime
   * bundle's entries, a list of lines) — by identity and value, and recomputes when anything
   * differs, so ordinary edits (assigning, pushing, splicing, replacing an output, changing its
   * `text` or a bundle entry) are seen. Only an edit nested deeper than that (inside JSON mime
   * data) needs {@link outputsChanged}. The check costs one step per field, not a re-render.
   * @throws InvalidArgumentError for malformed outputs (not cached: the next read tries again).
   */
  get aiOutput(): string {
    if (this.type === 'prompt') return this.reply;
    const v = this.#view;
    if (v !== undefined && sameRefs(v.refs, this.output)) return v.text;
    const text = outputsAiView(this.output);
    this.#view = { refs: outputRefs(this.output), text };
    return text;
  }

  /** Drop the cached {@link aiOutput} view: call after editing `output` in place. */
  outputsChanged(): void {
    this.#view = undefined;
  }

  /** The cell type this message is written as: `code`, `markdown` (notes and prompts) or `raw`. */
  get cellType(): 'code' | 'markdown' | 'raw' {
    return this.type === 'note' || this.type === 'prompt' ? 'markdown' : this.type;
  }

  /**
   * The cell source as written: for a prompt `content + REPLY_SEPARATOR + reply` (the
   * separator omitted when the reply is empty and the cell was read without one), else `content`.
   */
  get source(): string {
    if (this.type !== 'prompt') return this.content;
    if (this.reply === '' && !cellWire(this).hadSeparator) return this.content;
    return this.content + REPLY_SEPARATOR + this.reply;
  }

  /**
   * Compact this message in place (the reference's `Message.compact`; prompts only): the
   * request middle-truncated to `userToks` tokens, a non-empty reply re-rendered in the compact
   * DSL unless it already is one. See `compactPrompt` in compact.ts.
   * @param policy token budgets (SPEC §8 defaults for the rest).
   * @returns this message.
   */
  compact(policy?: Partial<Policy>): this {
    compactPrompt(this, policy);
    return this;
  }

  /**
   * Deep copy (JSON values copied with number kinds and key order kept, write-back state
   * included), of the same class as `this` (subclasses must keep the constructor's signature).
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
    m.idGenerated = this.idGenerated;
    copyCellWire(this, m);
    return m;
  }
}

/**
 * What the AI view of `outputs` depends on, flattened: the array and its length, then per
 * output the object and each field's key and value, one level into arrays and objects.
 */
function outputRefs(outputs: readonly unknown[]): unknown[] {
  const refs: unknown[] = [outputs, outputs.length];
  const inner = (v: unknown): void => {
    if (Array.isArray(v)) {
      refs.push(v.length);
      for (const x of v) refs.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) refs.push(k, x);
    }
  };
  for (const o of outputs) {
    refs.push(o);
    if (o === null || typeof o !== 'object') continue;
    for (const [k, x] of Object.entries(o)) {
      refs.push(k, x);
      inner(x);
    }
    refs.push(0); // end of this output's fields
  }
  return refs;
}

function sameRefs(refs: readonly unknown[], outputs: readonly unknown[]): boolean {
  const now = outputRefs(outputs);
  if (now.length !== refs.length) return false;
  for (let i = 0; i < now.length; i++) if (!Object.is(now[i], refs[i])) return false;
  return true;
}
