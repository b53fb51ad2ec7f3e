/**
 * Conformance of the DSL renderers and continuation documents (SPEC §2–§5) against
 * `test/fixtures/dsl.json`, a verbatim copy of `shared/conformance/dsl.json` (expected values
 * produced by the Python reference). One `it` per case, exact equality; `error` cases must throw
 * a DlgError, every other case must not throw.
 *
 * The fixture is read with our lossless `parseJson`, so budgets arrive as LosslessNumber
 * (converted with {@link num}) and tool arguments keep number kinds (`1.0`) and key order.
 *
 * compact_content: the reference's legend is deliberately replaced by our own wording, so for
 * those cases we check that our document starts with our LEGEND and that everything from the
 * `\n\n## Conversation\n\n` marker on (chat, notes section, transcript pointer, Skill sentence)
 * equals the expected document exactly.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, readText, type ConformanceCase } from './support.js';
import { isLosslessNumber, jsonKeys, parseJson } from '../src/python/index.js';
import { msgFromJSON, type Msg, type ToolUsePart } from '../src/chat/message.js';
import { DlgError } from '../src/errors.js';
import {
  bashCall,
  compactAsst,
  compactCall,
  compactChat,
  compactMsg,
  compactResult,
  compactText,
  compactTool,
  compactUser,
  fencedCode,
  genericCall,
} from '../src/dsl/render.js';
import { CONVERSATION_MARKER, LEGEND, compactBody, compactContent, joinCompacts } from '../src/dsl/continuation.js';
import { lenToks, truncToksMid } from '../src/tokens/index.js';

type Case = ConformanceCase & { kwargs: Record<string, unknown>; note: string };

const cases = parseJson(readText(join(FIXTURES, 'dsl.json'))) as Case[];

/** A fixture number (LosslessNumber) as a JS number. */
function num(v: unknown): number {
  if (isLosslessNumber(v)) return Number(v.value);
  if (typeof v === 'number') return v;
  throw new Error(`fixture: expected a number, got ${typeof v}`);
}
function str(v: unknown): string {
  if (typeof v !== 'string') throw new Error(`fixture: expected a string, got ${typeof v}`);
  return v;
}
/**
 * A fixture message as a canonical Msg. The reference's `tool_result(text)` without a tool name
 * has `id: None, name: None` (16 compact_chat cases); msgFromJSON (src/model.ts) wants strings
 * there, so null ids/names are dropped first and read as the default `''`.
 */
function msg(v: unknown): Msg {
  const o = v as { content?: unknown };
  if (o && Array.isArray(o.content)) {
    const content = o.content.map((p: Record<string, unknown>) => {
      if (p === null || typeof p !== 'object' || (p.id !== null && p.name !== null)) return p;
      const q = { ...p };
      if (q.id === null) delete q.id;
      if (q.name === null) delete q.name;
      return q;
    });
    return msgFromJSON({ ...o, content });
  }
  return msgFromJSON(v);
}
const part = (v: unknown): ToolUsePart => msgFromJSON({ role: 'assistant', content: [v] }).content[0] as ToolUsePart;
const policy = (a: unknown[]) => ({ userToks: num(a[0]), asstToks: num(a[1]), callToks: num(a[2]), resultToks: num(a[3]), profile: 'reference' as const });

const run: Record<string, (a: unknown[], kw: Record<string, unknown>) => unknown> = {
  len_toks: (a) => lenToks(str(a[0])),
  trunctoks_mid: (a, kw) => (kw.mark === undefined ? truncToksMid(str(a[0]), num(a[1])) : truncToksMid(str(a[0]), num(a[1]), str(kw.mark))),
  compact_text: (a) => compactText(str(a[0]), str(a[1]), num(a[2])),
  compact_result: (a) => compactResult(str(a[0]), num(a[1])),
  fenced_code: (a) => fencedCode(str(a[0]), num(a[1])),
  bash_call: (a) => bashCall(str(a[0]), num(a[1])),
  generic_call: (a) => genericCall(str(a[0]), parseJson(str(a[1])) as Record<string, unknown>, num(a[2])),
  compact_call: (a) => compactCall(part(a[0]), num(a[1])),
  compact_user: (a) => compactUser(msg(a[0]), num(a[1])),
  compact_asst: (a) => compactAsst(msg(a[0]), num(a[1]), num(a[2])),
  compact_tool: (a) => compactTool(msg(a[0]), num(a[1])),
  compact_msg: (a) => compactMsg(msg(a[0]), policy(a.slice(1))),
  compact_chat: (a, kw) => compactChat((a[0] as unknown[]).map(msg), policy(a.slice(1)), { lastN: kw.last_n === undefined ? 0 : num(kw.last_n) }),
  compact_content: (a) => compactContent(str(a[0]), str(a[1]), a[2] === undefined ? undefined : str(a[2])),
  compact_body: (a) => compactBody(str(a[0])),
  join_compacts: (a) => joinCompacts(...(a[0] as unknown[]).map(str)),
};

/** Short, printable case title. */
function title(c: Case, i: number): string {
  const args = JSON.stringify(c.args.map((a) => (isLosslessNumber(a) ? Number(a.value) : a)));
  return `#${i} ${c.fn}${c.note ? ` [${c.note}]` : ''} ${args.length > 90 ? args.slice(0, 90) + '…' : args}`;
}

describe('conformance/dsl.json', () => {
  it('loads every case with a known function', () => {
    expect(cases.length).toBe(1077);
    const unknown = cases.filter((c) => !(c.fn in run)).map((c) => c.fn);
    expect(unknown).toEqual([]);
    // every case carries exactly one of expected / error
    expect(cases.filter((c) => (c.expected === undefined) === (c.error === undefined))).toEqual([]);
    // kwargs only ever name mark (trunctoks_mid) and last_n (compact_chat)
    expect([...new Set(cases.flatMap((c) => jsonKeys(c.kwargs)))].sort()).toEqual(['last_n', 'mark']);
  });

  const indexed = cases.map((c, i) => ({ c, i }));
  for (const fn of Object.keys(run)) {
    const mine = indexed.filter(({ c }) => c.fn === fn);
    describe(fn, () => {
      it.each(mine.map(({ c, i }) => [title(c, i), c] as const))('%s', (_t, c) => {
        const call = () => run[c.fn]!(c.args, c.kwargs);
        if (c.error !== undefined) {
          expect(call).toThrow(DlgError);
          return;
        }
        const got = call();
        if (c.fn === 'compact_content') {
          const exp = str(c.expected);
          const doc = str(got);
          expect(doc.startsWith(LEGEND + CONVERSATION_MARKER)).toBe(true);
          expect(doc.slice(doc.indexOf(CONVERSATION_MARKER))).toBe(exp.slice(exp.indexOf(CONVERSATION_MARKER)));
          expect(compactBody(doc)).toBe(compactBody(exp));
          return;
        }
        expect(got).toBe(c.fn === 'len_toks' ? num(c.expected) : c.expected);
      });
    });
  }
});
