/**
 * The dialog model (SPEC §0, §7): a {@link Dialog} is a Jupyter notebook seen as a
 * conversation, an ordered list of `Message`s (message.ts) plus notebook metadata.
 *
 * This module holds the in-memory model only. Reading, writing and validating `.ipynb` text
 * live in `notebook/`; the operations declared here as methods (`compact`, `summarize`,
 * `microCompact`) are implemented in compact.ts, summarize.ts and micro.ts against the
 * structural `DialogLike` (cells.ts), so those modules do not import this one.
 */
import type { Policy } from '../dsl/render.js';
import { InvalidArgumentError, NotebookError } from '../errors.js';
import { cloneJson, randomId, type DialogLike, type JsonObject } from './cells.js';
import { compactDialog, type FitOptions } from './compact.js';
import { Message, type MessageInit } from './message.js';
import { microCompactDialog, type DialogMicroOptions, type MicroCompactDialogResult } from './micro.js';
import { summarizeDialog, type SummarizeDialogOptions, type SummarizeDialogResult } from './summarize.js';
import type { DialogSummarizer } from './summarizers.js';
import { dialogWire } from './wire-state.js';

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
  /** Source of fresh ids; default {@link randomId}. */
  newId?: () => string;
}

/**
 * A dialog: the ordered messages of a notebook plus its notebook-level metadata.
 * Iterable over its messages. Reading/writing: `readsIpynb`/`dumpsIpynb` (notebook/), checking
 * that it can be written as a valid notebook: `validateDialog` (notebook/).
 */
export class Dialog implements DialogLike<Message> {
  /** The messages, in cell order. Callers may edit this array directly. */
  messages: Message[];
  /** Notebook-level metadata, as read. */
  metadata: JsonObject;
  /** Name used in error messages (usually the file path). */
  name: string;
  /** The `nbformat_minor` the notebook was read with, if read from a file. */
  origNbformatMinor: number | undefined;
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
    const d = new (this.constructor as typeof Dialog)(
      this.messages.map((m) => m.clone()),
      {
        metadata: cloneJson(this.metadata),
        name: this.name,
        origNbformatMinor: this.origNbformatMinor,
        newId: this.idSource,
      },
    );
    dialogWire(d).extra = cloneJson(dialogWire(this).extra);
    return d;
  }

  /**
   * Compact every prompt in place (the reference's `Dialog.compact`): requests truncated and
   * replies re-rendered in the compact DSL; ids and every other cell untouched, so the notebook
   * stays runnable and valid. See `compactDialog` in compact.ts.
   * @param policy token budgets (SPEC §8 defaults for the rest); with `maxTokens`, a total
   *   budget: the policy is scaled (latest turns first) so that the dialog, as
   *   `dialogContextTokens` counts it, has at most that many tokens (see `fitDialog`).
   * @returns this dialog.
   * @throws NotebookError naming the dialog and the cell when a prompt cannot be rendered;
   *   FitError when `maxTokens` cannot hold the dialog's structure (it names the smallest budget).
   */
  compact(policy?: Partial<Policy> & FitOptions): this {
    compactDialog(this, policy);
    return this;
  }

  /**
   * Replace older cells by one summary note written by `summarizer` (SPEC §9 applied to
   * dialogs). Changes this dialog only on success. See `summarizeDialog` in summarize.ts for
   * the options, the refusals and the result.
   * @param summarizer the summariser; `null`/omitted: the offline `dslSummarizer()` (the
   *   compact DSL of the replaced cells; nothing is sent anywhere).
   */
  summarize(summarizer?: DialogSummarizer | null, options?: SummarizeDialogOptions): Promise<SummarizeDialogResult> {
    return summarizeDialog(this, summarizer, options);
  }

  /**
   * Clear older tool results inside prompt replies in place (they become
   * `[Previous: used NAME]`); idempotent. See `microCompactDialog` in micro.ts for the options
   * and the result.
   */
  microCompact(options?: DialogMicroOptions): MicroCompactDialogResult {
    return microCompactDialog(this, options);
  }
}
