/**
 * Tests of the reply wire format (src/reply.ts): the fmt2hist / conv_tools cases of
 * conformance/reply.json (copied to test/fixtures/reply.json), every prompt reply of the 44
 * real dialogs against NNN.parts.json, hand-checked scanner and writer cases, and properties.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, pyDumps } from '../src/python/index.js';
import type { Msg } from '../src/chat/message.js';
import { REPLY_SEPARATOR, cleanReply, convTools, fmt2hist, hist2fmt, parseToolBlocks, resultText, scanFences } from '../src/chat/index.js';
import { FIXTURES, HAVE_SHARED, shared, fcParams, type ConformanceCase } from './support.js';

/** Canonical text of a JSON-like value (LosslessNumbers keep their lexeme kind, keys their order). */
const dump = (v: unknown): string => pyDumps(v, { ensureAscii: false });

type Case = ConformanceCase;

const CASES = parseJson(readFileSync(join(FIXTURES, 'reply.json'), 'utf8')) as Case[];
const label = (c: Case, i: number): string => `#${i} ${JSON.stringify(String(c.args[0])).slice(0, 60)}`;

/** Every structural promise fmt2hist makes about its output (see its TSDoc). */
function historyProblem(h: Msg[]): string | null {
  if (!Array.isArray(h) || h.length === 0) return 'empty history';
  for (let i = 0; i < h.length; i++) {
    const m = h[i];
    if (!['assistant', 'tool', 'user'].includes(m.role)) return `message ${i}: role ${m.role}`;
    if (m.content.length === 0) return `message ${i}: no parts`;
    if (m.role === 'assistant') {
      for (const p of m.content) {
        if (p.type === 'text') {
          if (p.text === '' || p.text.trim() !== p.text) return `message ${i}: unstripped or empty text`;
        } else if (p.type === 'tool_use') {
          if (p.id === '') return `message ${i}: call without id`;
        } else return `message ${i}: ${p.type} part in assistant message`;
      }
      const calls = m.content.filter((p) => p.type === 'tool_use');
      const next = h[i + 1];
      if (calls.length > 0 && (next === undefined || next.role !== 'tool')) return `message ${i}: calls without a tool message`;
    } else if (m.role === 'tool') {
      const prev = h[i - 1];
      if (prev === undefined || prev.role !== 'assistant') return `message ${i}: tool message not after assistant`;
      const calls = prev.content.flatMap((p) => (p.type === 'tool_use' ? [`${p.id}/${p.name}`] : []));
      const res = m.content.map((p) => (p.type === 'tool_result' ? `${p.id}/${p.name}` : `!${p.type}`));
      if (JSON.stringify(calls) !== JSON.stringify(res)) return `message ${i}: results ${res} do not answer calls ${calls}`;
    } else {
      if (m.content.length !== 1 || m.content[0].type !== 'text' || !m.content[0].text.startsWith('\n`````result\n')) return `message ${i}: odd user message`;
    }
  }
  if (h[h.length - 1].role !== 'assistant') return 'does not end with an assistant message';
  return null;
}

describe('reply.json fmt2hist cases', () => {
  const cases = CASES.map((c, i) => [label(c, i), c] as const).filter(([, c]) => c.fn === 'fmt2hist');
  it('has the expected number of cases', () => expect(cases.length).toBe(38));
  it.each(cases)('%s', (_, c) => {
    if (c.error !== undefined) {
      expect(() => fmt2hist(c.args[0] as string)).toThrow();
      return;
    }
    const got = fmt2hist(c.args[0] as string);
    expect(dump(got)).toBe(dump(c.expected));
    expect(historyProblem(got)).toBeNull();
  });
});

describe('reply.json conv_tools cases', () => {
  const cases = CASES.map((c, i) => [label(c, i), c] as const).filter(([, c]) => c.fn === 'conv_tools');
  it('has the expected number of cases', () => expect(cases.length).toBe(29));
  it.each(cases)('%s', (_, c) => {
    expect(convTools(c.args[0] as string)).toBe(c.expected);
  });
});

describe('round trip fmt2hist(hist2fmt(h)) on the fixtures', () => {
  const cases = CASES.map((c, i) => [label(c, i), c] as const).filter(([, c]) => c.fn === 'fmt2hist' && c.expected !== undefined);
  it.each(cases)('%s', (_, c) => {
    const h = fmt2hist(c.args[0] as string);
    expect(dump(fmt2hist(hist2fmt(h)))).toBe(dump(h));
  });
});

// ---------------------------------------------------------------------------------------------
// Real dialogs

interface NbCell {
  id?: string;
  cell_type: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
}

/** The prompt replies of a notebook: markdown cells holding the separator, split at the first one. */
function notebookReplies(path: string): Array<{ id: string | undefined; reply: string }> {
  const nb = JSON.parse(readFileSync(path, 'utf8')) as { cells: NbCell[] };
  const out: Array<{ id: string | undefined; reply: string }> = [];
  for (const c of nb.cells) {
    if (c.cell_type !== 'markdown') continue;
    const src = Array.isArray(c.source) ? c.source.join('') : c.source;
    const at = src.indexOf(REPLY_SEPARATOR);
    // solveit_ai cells without the separator have no reply; parts.json lists none for them
    if (at < 0) continue;
    out.push({ id: c.id, reply: src.slice(at + REPLY_SEPARATOR.length) });
  }
  return out;
}

describe.skipIf(!HAVE_SHARED)('real dialogs: fmt2hist of every reply equals NNN.parts.json', () => {
  const names = HAVE_SHARED
    ? (JSON.parse(readFileSync(shared('conformance', 'dialogs', 'manifest.json'), 'utf8')) as Array<{ name: string }>).map((e) => e.name)
    : [];
  it('lists 44 dialogs', () => expect(names.length).toBe(44));
  it.each(names)('dialog %s', (name) => {
    const dir = shared('conformance', 'dialogs');
    const replies = notebookReplies(join(dir, `${name}.ipynb`));
    const parts = parseJson(readFileSync(join(dir, `${name}.parts.json`), 'utf8')) as { replies: Array<{ id: string; msgs: unknown }> };
    expect(replies.map((r) => r.id)).toEqual(parts.replies.map((r) => r.id));
    for (let k = 0; k < replies.length; k++) {
      const got = fmt2hist(replies[k].reply);
      const gotText = dump(got);
      const want = dump(parts.replies[k].msgs);
      if (gotText !== want) expect(`${replies[k].id}: ${gotText}`).toBe(`${replies[k].id}: ${want}`);
      const problem = historyProblem(got);
      if (problem !== null) expect(`${replies[k].id}: ${problem}`).toBe(`${replies[k].id}: ok`);
      const back = dump(fmt2hist(hist2fmt(got)));
      if (back !== gotText) expect(`${replies[k].id} round trip: ${back}`).toBe(`${replies[k].id} round trip: ${gotText}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-checked cases

describe('REPLY_SEPARATOR', () => {
  it('is the Solveit separator', () => {
    expect(REPLY_SEPARATOR).toBe('\n\n##### \u{1F916}Reply\u{1F916}<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n');
  });
});

describe('scanFences', () => {
  it('reports info, body and offsets', () => {
    const s = 'a\n```py x \nprint(1)\n```\nb';
    expect(scanFences(s)).toEqual([{ info: 'py x', body: 'print(1)\n', start: 2, end: 23 }]);
    expect(s.slice(2, 23)).toBe('```py x \nprint(1)\n```');
  });
  it('closes only at a line with at least as many backticks and nothing else', () => {
    const s = '````md\n```\n``` x\n````  \nafter\n```\n```';
    expect(scanFences(s)).toEqual([
      { info: 'md', body: '```\n``` x\n', start: 0, end: 23 },
      { info: '', body: '', start: 30, end: 37 },
    ]);
  });
  it('ignores indented openers and stops at an unclosed one', () => {
    expect(scanFences(' ```a\nx\n```')).toEqual([]);
    expect(scanFences(' ```a\nx\n```\ny\n```')).toEqual([{ info: '', body: 'y\n', start: 8, end: 17 }]);
    expect(scanFences('````a\nx\n```\n```b\ny\n```')).toEqual([]);
  });
  it('walks Python lines: \\r, \\r\\n and U+2028 end lines', () => {
    expect(scanFences('```a\r\nx\r```\r\nz')).toEqual([{ info: 'a', body: 'x\r', start: 0, end: 11 }]);
    expect(scanFences('t\u2028```b\u2028y\u2028```')).toEqual([{ info: 'b', body: 'y\u2028', start: 2, end: 12 }]);
  });
  it('gives nothing for text without fences', () => {
    expect(scanFences('')).toEqual([]);
    expect(scanFences('``inline``')).toEqual([]);
  });
  it('rejects non-strings', () => {
    expect(() => scanFences(1 as unknown as string)).toThrow(/must be a string/);
  });
});

describe('resultText', () => {
  it('renders values as the reference does', () => {
    expect(resultText('x')).toBe('x');
    expect(resultText(parseJson('{"b": 1.0, "2": [true, null, "é"]}'))).toBe('{"b": 1.0, "2": [true, null, "é"]}');
    expect(resultText(parseJson('1.0'))).toBe('1.0');
    expect(resultText(parseJson('12345678901234567890'))).toBe('12345678901234567890');
    expect(resultText(true)).toBe('True');
    expect(resultText(null)).toBe('None');
  });
});

describe('convTools', () => {
  const legacy = (body: string, head = "<details class='tool-usage-details'>"): string => `${head}\n\n\`\`\`json\n${body}\n\`\`\`\n\n</details>`;
  it('leaves envelopes inside fences alone', () => {
    const s = '````md\n' + legacy('{"id": "a", "call": {"function": "f", "arguments": {}}, "result": "r"}') + '\n````';
    expect(convTools(s)).toBe(s);
  });
  it('leaves indented envelopes alone', () => {
    const s = '  ' + legacy('{"id": "a", "call": {"function": "f", "arguments": {}}, "result": "r"}');
    expect(convTools(s)).toBe(s);
  });
  it('leaves a record without call.function alone', () => {
    const s = legacy('{"id": "a", "result": "r"}');
    expect(convTools(s)).toBe(s);
  });
  it('keeps number kinds, key order and non-ASCII, omits an absent result and a false server', () => {
    const s = legacy('{"id": "a", "call": {"function": "f", "arguments": {"b": 1.0, "2": 10000000000000000000001, "s": "\\u00e9"}}, "server": 0}');
    expect(convTools(s)).toBe(
      '```json {.tool}\n{\n  "id": "a",\n  "name": "f",\n  "args": {\n    "b": 1.0,\n    "2": 10000000000000000000001,\n    "s": "é"\n  }\n}\n```',
    );
  });
  it('takes a summary spanning lines, and a summary on the <details> line', () => {
    const rec = '{"id": "a", "call": {"function": "f", "arguments": {}}, "result": "r"}';
    const want = '```json {.tool}\n{\n  "id": "a",\n  "name": "f",\n  "args": {},\n  "result": "r"\n}\n```';
    expect(convTools("<details class='tool-usage-details'>\n<summary>f(x=1,\ny=2)</summary>\n\n```json\n" + rec + '\n```\n\n</details>\ntail')).toBe(
      want + '\ntail',
    );
    expect(convTools("<details class='tool-usage-details'><summary>s</summary>\n```json\n" + rec + '\n```\n</details>')).toBe(want);
  });
  it('converts a token-usage envelope with its line break', () => {
    const s = "x\n\n<details class='token-usage-details'><summary>$0.01</summary>\n\n`total=3 | in=2`\n\n</details>\n\nmore";
    expect(convTools(s)).toBe('x\n\n```json {.usage}\n{"summary": "$0.01", "detail": "total=3 | in=2"}\n```\nmore');
    // text right on the next line keeps its line break, so the block stays closed
    const s2 = "<details class='token-usage-details' markdown='1'><summary>S</summary>\n`D`\n</details>\nmore";
    expect(convTools(s2)).toBe('```json {.usage}\n{"summary": "S", "detail": "D"}\n```\nmore');
    expect(dump(fmt2hist(s2))).toBe('[{"role": "assistant", "content": [{"type": "text", "text": "more"}]}]');
  });
  it('returns replies without envelopes unchanged', () => {
    expect(convTools('')).toBe('');
    expect(convTools('tool-usage-details mentioned')).toBe('tool-usage-details mentioned');
  });
});

describe('parseToolBlocks', () => {
  it('yields text runs and tool blocks that rebuild the cleaned reply', () => {
    const reply =
      'Hi\n\n```json {.tool}\n{"id": "t1", "name": "f", "args": {"a": 1}, "result": {"k": [1, 2]}}\n```\n' +
      '```json {.tool}\n{"id": null, "name": "g", "result": "x", "server": true}\n```\nbye';
    const { clean, items } = parseToolBlocks(reply);
    expect(clean).toBe(reply);
    expect(items.map((x) => x.kind)).toEqual(['text', 'tool', 'text', 'tool', 'text']);
    const rebuilt = items.map((x) => (x.kind === 'text' ? x.text : clean.slice(x.fence.start, x.fence.end))).join('');
    expect(rebuilt).toBe(clean);
    const [t1, t2] = items.filter((x) => x.kind === 'tool');
    expect(t1).toMatchObject({ id: 't1', name: 'f', resultText: '{"k": [1, 2]}', server: false });
    expect(dump(t1.kind === 'tool' ? t1.args : null)).toBe('{"a": 1}');
    expect(t2).toMatchObject({ id: null, name: 'g', resultText: 'x', server: true });
    expect(dump(t2.kind === 'tool' ? t2.args : null)).toBe('{}');
  });
  it('keeps malformed blocks as text', () => {
    for (const body of ['[1]', '{"id": 3, "name": "f"}', '{"id": "a", "name": 1}', '{"id": "a", "args": [1]}', '{bad']) {
      const reply = 'x\n```json {.tool}\n' + body + '\n```';
      expect(parseToolBlocks(reply).items).toEqual([{ kind: 'text', text: reply, start: 0, end: reply.length }]);
    }
  });
  it('cleans usage blocks and think spans before looking for blocks', () => {
    expect(cleanReply('a\n```json {.usage}\n{}\n```\nb<!--think_start-->x\n<!--think_end-->\nc')).toBe('a\nbc');
    expect(cleanReply('<!--think_start-->a<!--think_end--><!--think_start-->b')).toBe('<!--think_start-->b');
  });
});

describe('fmt2hist details', () => {
  it('drops server and id-less calls, keeping the texts around them in one message', () => {
    const h = fmt2hist('A\n\n```json {.tool}\n{"id": "s", "name": "w", "args": {}, "result": "r", "server": true}\n```\n\nB');
    expect(dump(h)).toBe('[{"role": "assistant", "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}]');
  });
  it('gives "." for a reply of dropped blocks only', () => {
    const h = fmt2hist('```json {.tool}\n{"id": "", "name": "w", "args": {}, "result": "r"}\n```');
    expect(dump(h)).toBe('[{"role": "assistant", "content": [{"type": "text", "text": "."}]}]');
  });
  it('splits a text before a tool call at a result fence, the call moving to the last piece', () => {
    const h = fmt2hist('A\n`````result\n1\n`````\nB\n```json {.tool}\n{"id": "t", "name": "f", "args": {}, "result": "r"}\n```');
    expect(dump(h)).toBe(
      '[{"role": "assistant", "content": [{"type": "text", "text": "A"}]}, ' +
        '{"role": "user", "content": [{"type": "text", "text": "\\n`````result\\n1\\n`````\\n"}]}, ' +
        '{"role": "assistant", "content": [{"type": "text", "text": "B"}, {"type": "tool_use", "id": "t", "name": "f", "arguments": {}}]}, ' +
        '{"role": "tool", "content": [{"type": "tool_result", "id": "t", "name": "f", "text": "r"}]}, ' +
        '{"role": "assistant", "content": [{"type": "text", "text": "."}]}]',
    );
  });
  it('does not see escaped envelopes inside JSON strings', () => {
    const inner = "<details class='tool-usage-details'>\\n\\n```json\\n{}\\n```\\n\\n</details>";
    const reply = '```json {.tool}\n{"id": "t", "name": "f", "args": {}, "result": "' + inner + '"}\n```';
    const h = fmt2hist(reply);
    expect(h[1].content[0]).toEqual({ type: 'tool_result', id: 't', name: 'f', text: inner.replaceAll('\\n', '\n') });
  });
  it('rejects non-strings', () => {
    expect(() => fmt2hist(null as unknown as string)).toThrow(/must be a string/);
  });
});

describe('hist2fmt', () => {
  it('writes current tool blocks with results matched by id', () => {
    const h = fmt2hist(
      'Go\n\n```json {.tool}\n{"id": "a", "name": "f", "args": {"x": 1.0}, "result": "1"}\n```\n```json {.tool}\n{"id": "b", "name": "g", "args": {}, "result": "é"}\n```\n\nDone',
    );
    expect(hist2fmt(h)).toBe(
      'Go\n\n```json {.tool}\n{\n  "id": "a",\n  "name": "f",\n  "args": {\n    "x": 1.0\n  },\n  "result": "1"\n}\n```\n\n' +
        '```json {.tool}\n{\n  "id": "b",\n  "name": "g",\n  "args": {},\n  "result": "é"\n}\n```\n\nDone',
    );
  });
  it('omits the final "." placeholder and writes result fences in place', () => {
    const block = '```json {.tool}\n{\n  "id": "a",\n  "name": "f",\n  "args": {},\n  "result": "r"\n}\n```';
    const h = fmt2hist('A\n\n`````result\n2\n`````\n\nB\n\n' + block);
    expect(h.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(hist2fmt(h)).toBe('A\n\n`````result\n2\n`````\nB\n\n' + block);
    // a fence that ends the text is not split off (nothing follows its closing line break)
    const h2 = fmt2hist('A\n\n`````result\n2\n`````\n\n' + block);
    expect(h2.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(hist2fmt(h2)).toBe('A\n\n`````result\n2\n`````\n\n' + block);
  });
  it('writes thinking as a think span that fmt2hist removes', () => {
    const s = hist2fmt([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'hmm' },
          { type: 'text', text: 'Hi' },
        ],
      },
    ]);
    expect(s).toBe('<!--think_start-->\n::: details\n\n## Thinking\n\nhmm\n\n:::\n<!--think_end-->\n\nHi');
    expect(dump(fmt2hist(s))).toBe('[{"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}]');
  });
  it('throws on what a reply cannot carry', () => {
    expect(() => hist2fmt([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }])).toThrow(/not a result fence/);
    expect(() => hist2fmt([{ role: 'system', content: [{ type: 'text', text: 'hi' }] }])).toThrow(/role "system"/);
    expect(() => hist2fmt([{ role: 'tool', content: [{ type: 'tool_result', id: 'a', name: 'f', text: 'r' }] }])).toThrow(/does not follow/);
    expect(() => hist2fmt([{ role: 'assistant', content: [{ type: 'image', text: 'data:' }] }])).toThrow(/image part/);
    expect(() =>
      hist2fmt([
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', arguments: {} }] },
        { role: 'tool', content: [{ type: 'tool_result', id: 'b', name: 'f', text: 'r' }] },
      ]),
    ).toThrow(/answers no call/);
    expect(() => hist2fmt([{ role: 'assistant', content: [{ type: 'tool_use', id: '', name: 'f', arguments: {} }] }])).toThrow(/has no id/);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const FRAGMENTS = [
  '\n',
  '\n\n',
  ' ',
  '`',
  '```',
  '````',
  '```json {.tool}\n',
  '```json {.usage}\n',
  '```json\n',
  '{',
  '}',
  '"id": "a"',
  ',',
  '"name": "f"',
  '"args": {}',
  '"result": "r"',
  '"server": true',
  "<details class='tool-usage-details'>",
  "<details class='token-usage-details'><summary>s</summary>",
  '<summary>',
  '</summary>',
  '</details>',
  '::: {.details .tool-usage-details}',
  ':::',
  '## s',
  '`d`',
  '<!--think_start-->',
  '<!--think_end-->',
  '`````result',
  '`````',
  'x',
  'é',
  '😀',
  '\r',
  '\u2028',
  '.',
  '"call": {"function": "f", "arguments": {"a": 1}}',
];

const toolBlockArb = fc
  .record({
    id: fc.constantFrom('a', 'b', 'toolu_1'),
    name: fc.constantFrom('f', 'read_file', ''),
    args: fc.dictionary(fc.constantFrom('x', 'y', '2', '10'), fc.oneof(fc.integer(), fc.constantFrom('1.0', '1e5', '"s"', 'true', 'null', '[1, "x"]'))),
    result: fc.oneof(fc.string(), fc.constantFrom('{"k": 1}', '[1, 2.5]', 'null', 'false', '3')),
    legacy: fc.boolean(),
  })
  .map(({ id, name, args, result, legacy }) => {
    const a =
      '{' +
      Object.entries(args)
        .map(([k, v]) => `"${k}": ${typeof v === 'number' ? String(v) : v}`)
        .join(', ') +
      '}';
    const r = /^[[{\dnft]/.test(result) && !/^\d.*[^\d]/.test(result) ? result : JSON.stringify(result);
    if (legacy) {
      return `<details class='tool-usage-details'>\n\n\`\`\`json\n{"id": "${id}", "call": {"function": "${name}", "arguments": ${a}}, "result": ${r}}\n\`\`\`\n\n</details>`;
    }
    return '```json {.tool}\n' + `{"id": "${id}", "name": "${name}", "args": ${a}, "result": ${r}}` + '\n```';
  });

// Replies for the round-trip property. No line of a text starts with spaces: fmt2hist strips
// texts (and the pieces a `````result split leaves), so a source line that was indented
// (` ```py`) can read differently once stripped. And a reply uses either code fences or result
// fences, never both, so that no fence spans a `````result split (see hist2fmt's TSDoc).
const CODE_TOKENS = ['Hello', 'a b', 'x', '\n', '\n\n', '`', '```py', '```', '<!--think_start-->', 'é😀', '.'];
const RESULT_TOKENS = ['Hello', 'a b', 'x', '\n', '\n\n', '\n`````result\n1\n`````\n', '<!--think_start-->', 'é😀', '.'];
const replyArb = fc.constantFrom(CODE_TOKENS, RESULT_TOKENS).chain((tokens) =>
  fc.tuple(
    fc.array(
      fc.oneof(
        fc.array(fc.constantFrom(...tokens), { maxLength: 8 }).map((xs) => xs.join('')),
        toolBlockArb,
      ),
      { maxLength: 8 },
    ),
    fc.constantFrom('\n', '\n\n', '\n\n\n'),
  ),
);

describe('properties', () => {
  it('fmt2hist never throws on arbitrary text and returns a valid history', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((xs) => xs.join('')),
        ),
        (s) => {
          const h = fmt2hist(s);
          expect(historyProblem(h)).toBeNull();
        },
      ),
      fcParams(3000),
    );
  });
  it('fmt2hist(hist2fmt(h)) === h for histories fmt2hist builds', () => {
    fc.assert(
      fc.property(replyArb, ([pieces, sep]) => {
        const reply = pieces.join(sep);
        // precondition (see hist2fmt): no unclosed fence — a closing line appended to a reply
        // with one would close it and add a block
        fc.pre(scanFences(reply + '\n' + '`'.repeat(200)).length === scanFences(reply).length);
        const h = fmt2hist(reply);
        expect(historyProblem(h)).toBeNull();
        expect(dump(fmt2hist(hist2fmt(h)))).toBe(dump(h));
      }),
      fcParams(2000),
    );
  });
  it('stays linear on large adversarial replies', () => {
    const big = [
      '`'.repeat(3) + 'x\n' + 'a'.repeat(2_000_000),
      "<details class='tool-usage-details'>\n<summary>\n".repeat(50_000),
      '```json {.tool}\n'.repeat(100_000),
      '<!--think_start-->'.repeat(100_000),
      '\n`````result\n'.repeat(100_000),
      ("<details class='tool-usage-details'>\n\n```json\n{\n" + '\n'.repeat(10)).repeat(20_000),
    ];
    for (const s of big) {
      const t0 = performance.now();
      const h = fmt2hist(s);
      expect(historyProblem(h)).toBeNull();
      expect(performance.now() - t0).toBeLessThan(3000);
    }
  });
});
