/**
 * Writing canonical messages as a reply (SPEC §6): {@link hist2fmt}, the inverse of `fmt2hist`,
 * in the current block form.
 */
import { InvalidArgumentError } from '../errors.js';
import { pyStrip } from '../python/index.js';
import { cleanReply } from './clean.js';
import { lineTable, scanLineFences, toFence } from './fences.js';
import { THINK_END, THINK_START, TOOL_INFO, isResultFence } from './format.js';
import type { Msg, ToolUsePart } from './message.js';
import { readToolBlock, toolBlockText } from './tool-block.js';

/**
 * A stripped text as it must be written so that fmt2hist reads it back as this one text.
 * fmt2hist strips texts, so a first line that was indented in the source may now start at
 * column 0 — where it can open a fence (swallowing or pairing with later lines), start a usage
 * block or a legacy envelope. When the text read on its own would then not come back as plain
 * text (a tool block, an envelope, a usage block, or — unless it is the last chunk — an
 * unclosed fence that would swallow what follows), one leading space (which fmt2hist strips
 * again) restores the source reading. Chunks are joined by blank lines and every chunk before
 * leaves the scan outside any fence, so reading a chunk alone is reading it in place.
 */
function placeText(s: string, last: boolean): string {
  const c = s.charCodeAt(0);
  if (c !== 0x60 /* ` */ && c !== 0x3c /* < */ && c !== 0x3a /* : */) return s;
  const readsAlone = (x: string): boolean => {
    if (cleanReply(x) !== x) return false;
    const scan = scanLineFences(lineTable(x));
    if (!last && scan.unclosed >= 0) return false;
    if (!x.includes(TOOL_INFO)) return true;
    const t = lineTable(x);
    return !scan.fences.some((f) => f.info === TOOL_INFO && readToolBlock(toFence(t, f).body) !== null);
  };
  if (readsAlone(s)) return s;
  const indented = ' ' + s;
  return readsAlone(indented) ? indented : s;
}

/** A current-form tool block for a call and its result text (absent: no `result` key). */
function toolBlock(use: ToolUsePart, result: string | undefined): string {
  const rec: Record<string, unknown> = { id: use.id, name: use.name, args: use.arguments };
  if (result !== undefined) rec.result = result;
  return toolBlockText(rec);
}

/**
 * Write canonical messages as a reply (the inverse of {@link fmt2hist}, SPEC §6; used to build
 * dialogs from chats). Writes the current block form.
 *
 * - Assistant messages: text parts (Python-stripped, blank ones skipped; one leading space
 *   is added when the text would otherwise start an unclosed fence or a legacy envelope at
 *   column 0 — fmt2hist strips it again), thinking parts as
 *   `<!--think_start-->` spans (which fmt2hist removes again), and each `tool_use` as a
 *   ```` ```json {.tool} ```` block — `{id, name, args, result}` as Python
 *   `json.dumps(indent=2, ensure_ascii=False)`, the result taken from the tool message that
 *   follows (matched by id, repeated ids in order; a call without a result gets no `result`
 *   key).
 * - Tool messages: consumed by the assistant message before them.
 * - User messages: only the result fences fmt2hist produces (`\n`````result\n…\n`````\n`),
 *   written in place.
 * - A final assistant `.` after a tool message (fmt2hist's placeholder) is not written.
 * Pieces are joined with blank lines, except that a result fence is followed by one line
 * break (unless another fence follows), mirroring what fmt2hist's split consumes.
 *
 * Round trip: `fmt2hist(hist2fmt(h))` equals `h` for `h = fmt2hist(reply)` (checked on every
 * fixture and real dialog, and by a property test) when:
 * - no assistant message holds two text parts (possible only when a dropped server/id-less
 *   block separated them; they come back as one text joined by a blank line);
 * - the reply has no unclosed fence, and no text run's first line reads differently once its
 *   indentation is stripped in ways the leading-space repair above cannot see (a fence that
 *   spans a `````result split). These need contrived input; real replies satisfy them.
 *
 * @param msgs canonical messages.
 * @returns the reply text.
 * @throws InvalidArgumentError for a role other than assistant/tool/user, a user message that
 *   is not a result fence, media parts, a tool call with an empty id (fmt2hist would drop
 *   it), or a tool result whose call is not in the assistant message just before it.
 */
export function hist2fmt(msgs: Msg[]): string {
  if (!Array.isArray(msgs)) throw new InvalidArgumentError('hist2fmt: msgs must be an array of messages');
  const chunks: string[] = [];
  const textAt: number[] = []; // indices of assistant text chunks
  const fenceAt = new Set<number>(); // indices of result-fence chunks
  const n = msgs.length;
  for (let i = 0; i < n; i++) {
    const m = msgs[i];
    if (m === null || typeof m !== 'object' || !Array.isArray(m.content)) throw new InvalidArgumentError(`hist2fmt: message ${i} is not a message`);
    if (m.role === 'assistant') {
      if (i === n - 1 && i > 0 && msgs[i - 1].role === 'tool' && m.content.length === 1 && m.content[0].type === 'text' && m.content[0].text === '.') break;
      const next = i + 1 < n ? msgs[i + 1] : undefined;
      // results by call id; repeated ids are matched in order
      const results = new Map<string, string[]>();
      if (next !== undefined && next.role === 'tool') {
        const callIds = new Set(m.content.filter((p): p is ToolUsePart => p.type === 'tool_use').map((p) => p.id));
        for (const p of next.content) {
          if (p.type !== 'tool_result') throw new InvalidArgumentError(`hist2fmt: message ${i + 1} (tool) holds a ${p.type} part`);
          if (!callIds.has(p.id)) throw new InvalidArgumentError(`hist2fmt: tool result "${p.id}" in message ${i + 1} answers no call of message ${i}`);
          const q = results.get(p.id);
          if (q === undefined) results.set(p.id, [p.text]);
          else q.push(p.text);
        }
      }
      for (const p of m.content) {
        switch (p.type) {
          case 'text': {
            const s = pyStrip(p.text);
            if (s !== '') {
              chunks.push(s);
              textAt.push(chunks.length - 1);
            }
            break;
          }
          case 'thinking':
            chunks.push(THINK_START + '\n::: details\n\n## Thinking\n\n' + p.text + '\n\n:::\n' + THINK_END);
            break;
          case 'tool_use':
            if (typeof p.id !== 'string' || p.id === '') throw new InvalidArgumentError(`hist2fmt: tool call "${p.name}" in message ${i} has no id`);
            chunks.push(toolBlock(p, results.get(p.id)?.shift()));
            break;
          default:
            throw new InvalidArgumentError(`hist2fmt: message ${i} (assistant) holds a ${p.type} part, which a reply cannot carry`);
        }
      }
      if (next !== undefined && next.role === 'tool') i++;
    } else if (m.role === 'tool') {
      throw new InvalidArgumentError(`hist2fmt: tool message ${i} does not follow an assistant message`);
    } else if (m.role === 'user') {
      const p = m.content[0];
      if (m.content.length !== 1 || p.type !== 'text' || !isResultFence(p.text)) {
        throw new InvalidArgumentError(`hist2fmt: user message ${i} is not a result fence; a reply holds only assistant and tool messages`);
      }
      chunks.push(p.text.slice(1, -1));
      fenceAt.add(chunks.length - 1);
    } else {
      throw new InvalidArgumentError(`hist2fmt: message ${i} has role "${String(m.role)}", which a reply cannot carry`);
    }
  }
  for (const k of textAt) chunks[k] = placeText(chunks[k], k === chunks.length - 1);
  // A result fence is followed by a single line break, as fmt2hist's split consumes exactly
  // one: a text after it that starts with another `````result fence is then not split again.
  // Two fences in a row keep a blank line between them (fmt2hist splits them apart).
  const out: string[] = [];
  for (let k = 0; k < chunks.length; k++) {
    if (k > 0) out.push(fenceAt.has(k - 1) && !fenceAt.has(k) ? '\n' : '\n\n');
    out.push(chunks[k]);
  }
  return out.join('');
}
