/**
 * The canonical, provider-neutral chat model (SPEC §0): a message is a role plus a list of
 * parts. The in-memory shape is the JSON shape of `conformance/README.md`, so a message read
 * from a fixture and one built with {@link mkMsg} look the same.
 */
import { InvalidArgumentError } from '../errors.js';

/** Roles of canonical messages. */
export type Role = 'user' | 'assistant' | 'tool' | 'system';

/** Visible text. */
export interface TextPart { type: 'text'; text: string }
/** Model reasoning; dropped by every compact renderer. */
export interface ThinkingPart { type: 'thinking'; text: string }
/** A tool call: `arguments` is a JSON object (numbers as parsed by `parseJson` keep their kind). */
export interface ToolUsePart { type: 'tool_use'; id: string; name: string; arguments: Record<string, unknown> }
/** The text a tool returned for the call with the same `id`. */
export interface ToolResultPart { type: 'tool_result'; id: string; name: string; text: string }
/** Media: `text` holds a URL or a data URL. */
export interface MediaPart { type: 'image' | 'audio' | 'video' | 'file'; text: string }

/** Any part of a canonical message. */
export type Part = TextPart | ThinkingPart | ToolUsePart | ToolResultPart | MediaPart;

/** A canonical chat message. */
export interface Msg { role: Role; content: Part[] }

const ROLES = new Set<string>(['user', 'assistant', 'tool', 'system']);
const MEDIA = new Set<string>(['image', 'audio', 'video', 'file']);

let callCounter = 0;
/** A fresh call id (`call_` + a counter), used when a builder is not given one. */
export function freshCallId(): string {
  callCounter += 1;
  return `call_${callCounter.toString(36).padStart(6, '0')}`;
}

/**
 * Build a tool-use part (the reference's `tool_part(tool_name, **arguments)`).
 * @param name tool name, e.g. `Bash`, `mcp__clikernel__execute`.
 * @param args the call's arguments, a JSON object.
 * @param id call id; a fresh one when omitted.
 */
export function toolPart(name: string, args: Record<string, unknown> = {}, id: string = freshCallId()): ToolUsePart {
  if (typeof name !== 'string') throw new InvalidArgumentError(`toolPart: name must be a string, got ${typeof name}`);
  return { type: 'tool_use', id, name, arguments: args };
}

/**
 * Build a tool message holding one result (the reference's `tool_result(text, tool_name=None)`).
 * @param text what the tool returned.
 * @param name the tool's name, pairing it with its call; `''` when omitted.
 * @param id the id of the call it answers.
 */
export function toolResult(text: string, name?: string, id: string = ''): Msg {
  if (typeof text !== 'string') throw new InvalidArgumentError(`toolResult: text must be a string, got ${typeof text}`);
  return { role: 'tool', content: [{ type: 'tool_result', id, name: name ?? '', text }] };
}

/**
 * Build a message (the reference's `mk_msg`): a string becomes one text part; an array may
 * mix strings (text parts) and parts.
 * @param content a string, or an array of strings and parts.
 * @param role `user` by default.
 */
export function mkMsg(content: string | Array<string | Part>, role: Role = 'user'): Msg {
  const items = typeof content === 'string' ? [content] : content;
  if (!Array.isArray(items)) throw new InvalidArgumentError('mkMsg: content must be a string or an array');
  const parts = items.map((it): Part => (typeof it === 'string' ? { type: 'text', text: it } : it));
  return { role, content: parts };
}

function str(o: Record<string, unknown>, key: string, where: string, fallback?: string): string {
  const v = o[key];
  // The reference writes `null` for a result's missing id or tool name; read it as the fallback.
  if ((v === undefined || v === null) && fallback !== undefined) return fallback;
  if (typeof v !== 'string') throw new InvalidArgumentError(`${where}: field "${key}" must be a string, got ${v === null ? 'null' : typeof v}`);
  return v;
}

/**
 * Read a message from its JSON shape (`conformance/README.md`).
 * @throws InvalidArgumentError naming the message/part index and field on a malformed shape.
 */
export function msgFromJSON(obj: unknown, where = 'message'): Msg {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new InvalidArgumentError(`${where}: expected an object`);
  const o = obj as Record<string, unknown>;
  const role = str(o, 'role', where);
  if (!ROLES.has(role)) throw new InvalidArgumentError(`${where}: unknown role "${role}"`);
  if (!Array.isArray(o.content)) throw new InvalidArgumentError(`${where}: field "content" must be a list of parts`);
  const content = o.content.map((p, i): Part => {
    const pw = `${where}.content[${i}]`;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new InvalidArgumentError(`${pw}: expected an object`);
    const q = p as Record<string, unknown>;
    const type = str(q, 'type', pw);
    switch (type) {
      case 'text':
      case 'thinking':
        return { type, text: str(q, 'text', pw) };
      case 'tool_use': {
        const args = q.arguments ?? {};
        if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new InvalidArgumentError(`${pw}: field "arguments" must be an object`);
        return { type, id: str(q, 'id', pw, ''), name: str(q, 'name', pw), arguments: args as Record<string, unknown> };
      }
      case 'tool_result':
        return { type, id: str(q, 'id', pw, ''), name: str(q, 'name', pw, ''), text: str(q, 'text', pw) };
      default:
        if (MEDIA.has(type)) return { type: type as MediaPart['type'], text: str(q, 'text', pw) };
        throw new InvalidArgumentError(`${pw}: unknown part type "${type}"`);
    }
  });
  return { role: role as Role, content };
}

/** The JSON shape of a message (a structural copy; argument objects are shared, not cloned). */
export function msgToJSON(m: Msg): Record<string, unknown> {
  return { role: m.role, content: m.content.map((p) => ({ ...p })) };
}

/** The text parts of a message, in order. */
export function textParts(m: Msg): string[] {
  return m.content.filter((p): p is TextPart => p.type === 'text').map((p) => p.text);
}
