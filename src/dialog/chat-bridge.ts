/**
 * Chats <-> dialogs (SPEC §0, §6): {@link chat2dlg} builds a dialog from canonical chat
 * messages — one prompt per user message, its reply carrying the assistant's text and tool
 * calls (the reference's `chat2dlg`) — and {@link dlg2chat} is the minimal inverse. Every user
 * message starts a prompt; nothing about its text (skill text, host plumbing) is special.
 */
import { REPLY_SEPARATOR } from '../chat/index.js';
import type { MsgType } from './cells.js';
import { Dialog } from './dialog.js';
import { Message } from './message.js';
import { DlgError, InvalidArgumentError } from '../errors.js';
import type { Msg, Part, ToolResultPart, ToolUsePart } from '../chat/message.js';
import { fmt2hist, hist2fmt, isResultFence } from '../chat/index.js';

/** Options of {@link chat2dlg}. */
export interface Chat2DlgOptions {
  /** Source of candidate cell ids (default: 8 random hex digits); kept as the dialog's id source. */
  newId?: () => string;
}

/** A user message that is exactly one result fence as fmt2hist makes it: part of a reply. */
function isResultFenceMsg(m: Msg): boolean {
  if (m.role !== 'user' || m.content.length !== 1) return false;
  const p = m.content[0] as Part;
  if (p.type !== 'text') return false;
  return isResultFence(p.text);
}

/**
 * The text of a user or system message: its text parts joined by a blank line (`\n\n`, a
 * Markdown paragraph break), each kept verbatim (not stripped).
 * @throws InvalidArgumentError for any other part type (a dialog cell holds text only).
 */
function messageText(m: Msg, i: number): string {
  const texts: string[] = [];
  for (const p of m.content) {
    if (p === null || typeof p !== 'object') throw new InvalidArgumentError(`chat2dlg: message ${i} holds a part that is not an object`);
    if (p.type !== 'text') {
      throw new InvalidArgumentError(
        `chat2dlg: ${m.role} message ${i} holds a part of type ${JSON.stringify(String(p.type))}; only text parts can become a ${m.role === 'user' ? 'prompt' : 'raw cell'}`,
      );
    }
    texts.push(p.text);
  }
  const text = texts.join('\n\n');
  if (text.includes(REPLY_SEPARATOR)) {
    throw new InvalidArgumentError(`chat2dlg: ${m.role} message ${i} holds the reply separator, so the cell would not read back the same`);
  }
  return text;
}

/**
 * Give tool results without an id the id of their call: in a tool message that follows an
 * assistant message, a result whose id is `''` answers the first call of the assistant message
 * not answered yet that has the result's name (any unanswered call when the result has no
 * name). This is how the reference pairs them (`tool_result(text, tool_name)` and
 * `tool_part(tool_name, …)` both derive the id `call_<tool_name>`), and `toolResult` of
 * model.ts leaves the id empty by default. Returns new message objects where something
 * changed; the input is not modified.
 */
function pairResults(msgs: Msg[]): Msg[] {
  const out = msgs.slice();
  for (let i = 1; i < out.length; i++) {
    const m = out[i] as Msg;
    const prev = out[i - 1] as Msg;
    if (m.role !== 'tool' || prev.role !== 'assistant') continue;
    if (!m.content.some((p) => p.type === 'tool_result' && p.id === '')) continue;
    const calls = prev.content.filter((p): p is ToolUsePart => p.type === 'tool_use');
    const answered = new Array<boolean>(calls.length).fill(false);
    const take = (pred: (c: ToolUsePart) => boolean): ToolUsePart | undefined => {
      const k = calls.findIndex((c, j) => !answered[j] && pred(c));
      if (k < 0) return undefined;
      answered[k] = true;
      return calls[k];
    };
    // Results that carry an id answer their call first, wherever they stand.
    for (const p of m.content) if (p.type === 'tool_result' && p.id !== '') take((c) => c.id === p.id);
    const content = m.content.map((p): Part => {
      if (p.type !== 'tool_result' || p.id !== '') return p;
      const call = take((c) => p.name === '' || c.name === p.name);
      return call === undefined ? p : ({ ...p, id: call.id } satisfies ToolResultPart);
    });
    out[i] = { role: m.role, content };
  }
  return out;
}

/** hist2fmt of one turn's assistant/tool messages, with errors placed in the whole chat. */
function replyOf(turn: Msg[], first: number): string {
  if (turn.length === 0) return '';
  try {
    return hist2fmt(pairResults(turn));
  } catch (e) {
    if (!(e instanceof DlgError)) throw e;
    throw new InvalidArgumentError(
      `chat2dlg: the reply that starts at message ${first} cannot be written (message numbers below count from there): ${e.message}`,
      { cause: e },
    );
  }
}

/**
 * Build a dialog from a chat (the reference's `chat2dlg`). In the reference's worked example a
 * 12-message conversation with three user messages (two requests and an injected skill text)
 * becomes exactly three prompts, the first reply holding the two tool calls before the skill text.
 *
 * - Every `user` message starts a prompt whose content is its text parts joined by `\n\n`
 *   (verbatim, not stripped). Exception: a user message that is exactly one `` `````result ``
 *   fence as {@link fmt2hist} cuts it out of a reply stays in the current reply.
 * - The `assistant` and `tool` messages that follow, up to the next prompt-starting message,
 *   become that prompt's reply, written with {@link hist2fmt} (current `json {.tool}` blocks,
 *   each call with its result). Tool results with an empty id are first paired with their call
 *   by name (see below). A prompt with no such messages gets the reply `''` (and is written
 *   without the separator).
 * - A `system` message closes the current turn and becomes a `raw` message holding its text
 *   parts joined by `\n\n`.
 * - Assistant/tool messages before the first user message (or right after a system message)
 *   become the reply of a prompt with empty content `''`.
 * - Pairing: in a tool message, a result whose id is `''` answers the first unanswered call of
 *   the assistant message before it with the same tool name (any unanswered call when the
 *   result has no name) — the reference derives both ids from the tool name. The input
 *   messages are not modified.
 *
 * Ids are fresh (8 hex digits by default, unique in the dialog); prompts get `solveit_ai`. The
 * dialog has empty notebook metadata and validates.
 *
 * @param msgs the chat, canonical messages (model.ts).
 * @param name the dialog's name (used in error messages, usually a file name); default `'<chat>'`.
 * @param opts `newId`: id source (e.g. a counter, for reproducible ids).
 * @returns a new {@link Dialog} of prompts (and raws for system messages).
 * @throws InvalidArgumentError when `msgs` is not an array of messages, a user or system
 *   message holds a part other than text or holds the reply separator, or a reply cannot be
 *   written by hist2fmt (media or tool-result parts in an assistant message, a tool message
 *   that follows no assistant message, a call without an id, a result that answers no call);
 *   the message names the index in `msgs` where that reply starts; also when the id source
 *   keeps repeating used ids (1000 tries).
 */
export function chat2dlg(msgs: Msg[], name = '<chat>', opts: Chat2DlgOptions = {}): Dialog {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('chat2dlg: msgs must be an array of messages');
  const d = new Dialog([], { name, newId: opts.newId });
  // Messages are appended directly with ids checked against one set (mkMessage would rebuild
  // the set of ids for every message: quadratic on long chats).
  const used = new Set<string>();
  const add = (content: string, type: MsgType): Message => {
    let id = d.idSource();
    for (let tries = 1; used.has(id); tries++) {
      if (tries >= 1000) throw new InvalidArgumentError('chat2dlg: could not find a fresh cell id (the id source keeps repeating)');
      id = d.idSource();
    }
    used.add(id);
    const m = new Message(content, { type, id });
    d.messages.push(m);
    return m;
  };
  let prompt: Message | undefined;
  let turn: Msg[] = [];
  let turnStart = 0;
  const close = (): void => {
    const reply = replyOf(turn, turnStart);
    if (prompt === undefined && reply !== '') prompt = add('', 'prompt');
    if (prompt !== undefined) prompt.reply = reply;
    prompt = undefined;
    turn = [];
  };
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m === null || typeof m !== 'object' || !Array.isArray(m.content)) throw new InvalidArgumentError(`chat2dlg: message ${i} is not a message`);
    if (m.role === 'user' && !isResultFenceMsg(m)) {
      const content = messageText(m, i);
      close();
      prompt = add(content, 'prompt');
      turnStart = i + 1;
    } else if (m.role === 'system') {
      const content = messageText(m, i);
      close();
      add(content, 'raw');
      turnStart = i + 1;
    } else if (m.role === 'assistant' || m.role === 'tool' || m.role === 'user') {
      turn.push(m);
    } else {
      throw new InvalidArgumentError(`chat2dlg: message ${i} has the unknown role ${JSON.stringify(m.role)}`);
    }
  }
  close();
  return d;
}

/**
 * The chat a dialog's prompts carry — the inverse of {@link chat2dlg}, kept minimal. This is
 * not the reference's `dlg2chat` wire form (which renders notes and code cells as XML with
 * ids, times and metadata); it only undoes `chat2dlg`.
 *
 * In cell order, skipped messages left out:
 * - a prompt gives a `user` message with its content as one text part (none when the content
 *   is `''`, as for the prompt chat2dlg makes for leading assistant messages), then, when its
 *   reply is not `''`, the messages of `fmt2hist(reply)` (assistant, tool, and user result
 *   fences) — including fmt2hist's final assistant `'.'` when the reply ends with a tool result;
 * - a raw message gives a `system` message with its content;
 * - notes and code cells are left out (authored cells, not chat turns).
 *
 * Round trip: `dlg2chat(chat2dlg(c))` gives back `c` up to what the reply format normalises:
 * assistant texts are stripped (blank ones dropped), consecutive assistant texts merge into
 * one, consecutive call/result pairs with no prose between them come back as one assistant
 * message holding the calls followed by one tool message holding the results, a turn ending with a tool result gains the `'.'` placeholder, multi-part user texts come
 * back as one part, and results without ids carry their call's id.
 *
 * @param dialog the dialog; not modified.
 * @returns new canonical messages (tool-call arguments are shared with fmt2hist's parse, not
 *   with the dialog).
 * @throws InvalidArgumentError if `dialog` is not a Dialog.
 */
export function dlg2chat(dialog: Dialog): Msg[] {
  if (!(dialog instanceof Dialog)) throw new InvalidArgumentError('dlg2chat: expected a Dialog');
  const out: Msg[] = [];
  for (const m of dialog.messages) {
    if (m.skipped) continue;
    if (m.type === 'prompt') {
      if (m.content !== '') out.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
      if (m.reply !== '') out.push(...fmt2hist(m.reply));
    } else if (m.type === 'raw') {
      out.push({ role: 'system', content: [{ type: 'text', text: m.content }] });
    }
  }
  return out;
}
