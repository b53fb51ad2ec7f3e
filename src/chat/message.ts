/**
 * The canonical, provider-neutral chat model (SPEC §0), the one message model of the library:
 * a message is a role plus a list of parts. The in-memory shape is the JSON shape of
 * `conformance/README.md`, so a message read from a fixture and one built with {@link mkMsg}
 * look the same; other message shapes (summary corpus, provider APIs) are adapters to it.
 */
import { InvalidArgumentError } from '../errors.js';
import { isJsonObject, isLosslessNumber, jsonKeys, parseJson, pyDumps, pyNumberKind } from '../python/index.js';

/** Roles of canonical messages. */
export type Role = 'user' | 'assistant' | 'tool' | 'system';

/** Visible text. */
export interface TextPart {
  type: 'text';
  text: string;
}
/** Model reasoning; dropped by every compact renderer. */
export interface ThinkingPart {
  type: 'thinking';
  text: string;
}
/** A tool call: `arguments` is a JSON object (numbers as parsed by `parseJson` keep their kind). */
export interface ToolUsePart {
  type: 'tool_use';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
/** The text a tool returned for the call with the same `id`. */
export interface ToolResultPart {
  type: 'tool_result';
  id: string;
  name: string;
  text: string;
}
/** Media: `text` holds a URL or a data URL. */
export interface MediaPart {
  type: 'image' | 'audio' | 'video' | 'file';
  text: string;
}

/** Any part of a canonical message. */
export type Part = TextPart | ThinkingPart | ToolUsePart | ToolResultPart | MediaPart;

/** A canonical chat message. */
export interface Msg {
  role: Role;
  content: Part[];
}

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

/** A plain JSON value: what `JSON.parse` returns. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson };

/**
 * A tool argument value as plain JSON (see {@link msgToJSON}); `path` names it in errors.
 */
function plainJson(v: unknown, path: string, active: Set<object>): PlainJson {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) throw new InvalidArgumentError(`msgToJSON: ${path} is ${v}, which JSON cannot hold; use msgToJSONText`);
      return v;
    case 'bigint':
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new InvalidArgumentError(`msgToJSON: ${path} = ${v} is beyond a JS number's exact integers; use msgToJSONText`);
      }
      return Number(v);
    case 'object': {
      if (v === null) return null;
      if (isLosslessNumber(v)) {
        const x = Number(v.value);
        if (pyNumberKind(v) === 'int' && !Number.isSafeInteger(x)) {
          throw new InvalidArgumentError(`msgToJSON: ${path} = ${v.value} is beyond a JS number's exact integers; use msgToJSONText`);
        }
        if (!Number.isFinite(x)) throw new InvalidArgumentError(`msgToJSON: ${path} = ${v.value} overflows a float; use msgToJSONText`);
        return x === 0 ? 0 : x;
      }
      if (active.has(v)) throw new InvalidArgumentError(`msgToJSON: ${path} contains itself`);
      if (Array.isArray(v)) {
        active.add(v);
        const out: PlainJson[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) throw new InvalidArgumentError(`msgToJSON: ${path}[${i}] is an array hole, which is not JSON`);
          out[i] = plainJson(v[i], `${path}[${i}]`, active);
        }
        active.delete(v);
        return out;
      }
      if (!isJsonObject(v)) break;
      active.add(v);
      const out: { [key: string]: PlainJson } = {};
      for (const k of jsonKeys(v)) {
        const x = plainJson(v[k], `${path}.${k}`, active);
        if (k === '__proto__') Object.defineProperty(out, k, { value: x, writable: true, enumerable: true, configurable: true });
        else out[k] = x;
      }
      active.delete(v);
      return out;
    }
  }
  throw new InvalidArgumentError(`msgToJSON: ${path} is a ${typeof v}, which is not JSON`);
}

/**
 * The JSON shape of a message (`conformance/README.md`) as plain JSON values, ready for
 * `JSON.stringify`: a fresh object; tool-call arguments are deep-copied with every number as a
 * JS number (a `LosslessNumber` `1` becomes `1`, not an object).
 *
 * For ordinary numbers — integers within ±(2^53−1) and non-integral floats — the result
 * survives `JSON.stringify` → `JSON.parse` → {@link msgFromJSON} → `hist2fmt` unchanged.
 * What a JS value cannot carry is lost: a float written with an integral value (`1.0`, `1e5`)
 * comes back as an integer (`1`, `100000`), and integer-like object keys (`"2"`) come first in
 * JS objects. Use {@link msgToJSONText} when those must be kept.
 *
 * @throws InvalidArgumentError for an argument value JSON cannot hold exactly as a JS number
 *   (an integer beyond ±(2^53−1), a float that overflows, NaN, ±Infinity), or that is not JSON
 *   (`undefined`, functions, class instances, cycles, array holes); the message names the path.
 */
export function msgToJSON(m: Msg): Record<string, unknown> {
  return {
    role: m.role,
    content: m.content.map((p, i) => (p.type === 'tool_use' ? { ...p, arguments: plainJson(p.arguments, `content[${i}].arguments`, new Set()) } : { ...p })),
  };
}

/**
 * Exact JSON text of a message: its JSON shape written as Python `json.dumps(…,
 * ensure_ascii=False)` (one line, `", "` / `": "` separators) with the numbers of tool-call
 * arguments as their Python values — a float stays a float (`1.0`), integers keep every digit
 * (big ones too), and object keys keep their written order (`jsonKeys`). The inverse is
 * {@link msgFromJSONText}; `hist2fmt` writes the same after the round trip.
 * @throws InvalidArgumentError for values that are not JSON (see `pyDumps`).
 */
export function msgToJSONText(m: Msg): string {
  return pyDumps({ role: m.role, content: m.content }, { ensureAscii: false });
}

/**
 * Read a message from JSON text (the inverse of {@link msgToJSONText}; any JSON text of the
 * message shape is accepted): parsed with `parseJson`, so numbers keep their kind and digits
 * and objects their key order, then checked as by {@link msgFromJSON}.
 * @throws JsonParseError for text that is not JSON; InvalidArgumentError for a malformed shape.
 */
export function msgFromJSONText(text: string, where = 'message'): Msg {
  if (typeof text !== 'string') throw new InvalidArgumentError(`msgFromJSONText: text must be a string, got ${typeof text}`);
  return msgFromJSON(parseJson(text), where);
}

/** The text parts of a message, in order. */
export function textParts(m: Msg): string[] {
  return m.content.filter((p): p is TextPart => p.type === 'text').map((p) => p.text);
}
