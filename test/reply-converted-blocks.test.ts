/**
 * The parser reads tool blocks converted from legacy envelopes from the records they were
 * written from instead of parsing their JSON again (src/chat/legacy-envelope.ts, clean.ts,
 * parse.ts). These tests hold it to the plain reading: `cleanReply`, then every
 * ```` ```json {.tool} ```` fence of the cleaned text read with `readToolBlock` — the same items,
 * number lexemes, key order and all. Also the scan behind `isCompactedReply`'s "call line then
 * result line" test, against the line split it replaced.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanReply, fmt2hist, parseToolBlocks, readToolBlock, scanFences, TOOL_INFO, type ReplyItem } from '../src/chat/index.js';
import { historyOf } from '../src/chat/parse.js';
import { isCompactedReply } from '../src/dsl/compact-reply.js';
import { resolvePolicy } from '../src/dsl/render.js';
import { isJsonObject, isLosslessNumber, jsonKeys, pyStrip } from '../src/python/index.js';
import { fitsToks } from '../src/tokens/index.js';
import { fcParams } from './support.js';

/** Exact text of a parsed value: number kinds and lexemes, key order (jsonKeys), strings. */
function canon(v: unknown): string {
  if (isLosslessNumber(v)) return `N(${v.value})`;
  if (typeof v === 'number') return `J(${String(v)})`;
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (isJsonObject(v))
    return `{${jsonKeys(v)
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? String(v);
}

function canonItems(items: readonly ReplyItem[]): string[] {
  return items.map((it) =>
    it.kind === 'text'
      ? `text ${it.start} ${it.end} ${JSON.stringify(it.text)}`
      : `tool ${it.fence.start} ${it.fence.end} ${it.id} ${it.name} ${canon(it.args)} ${canon(it.result)} ${JSON.stringify(it.resultText)} ${it.server}`,
  );
}

/** The reading the shortcut must agree with: clean, scan, parse every tool fence's body. */
function plainItems(reply: string): { clean: string; items: string[] } {
  const clean = cleanReply(reply);
  const items: ReplyItem[] = [];
  let pos = 0;
  const pushText = (end: number): void => {
    if (end > pos) items.push({ kind: 'text', text: clean.slice(pos, end), start: pos, end });
  };
  for (const fence of scanFences(clean)) {
    if (fence.info !== TOOL_INFO) continue;
    const body = readToolBlock(fence.body);
    if (body === null) continue;
    pushText(fence.start);
    items.push({ kind: 'tool', ...body, fence });
    pos = fence.end;
  }
  pushText(clean.length);
  return { clean, items: canonItems(items) };
}

function sameAsPlain(reply: string): void {
  const got = parseToolBlocks(reply);
  const want = plainItems(reply);
  expect(got.clean).toBe(want.clean);
  expect(canonItems(got.items)).toEqual(want.items);
  // fmt2hist does not write the JSON of blocks it reads from their records (a stand-in takes
  // its place); its messages must be those of the walk over parseToolBlocks' items.
  expect(canonHistory(fmt2hist(reply))).toEqual(canonHistory(historyOf(got.items)));
}

/** Exact text of a history: roles, part kinds, texts, ids, names, arguments (lexemes and key order). */
function canonHistory(h: ReturnType<typeof fmt2hist>): string[] {
  return h.map(
    (m) =>
      `${m.role}: ${m.content
        .map((p) =>
          p.type === 'text'
            ? `text ${JSON.stringify(p.text)}`
            : p.type === 'tool_use'
              ? `use ${p.id} ${p.name} ${canon(p.arguments)}`
              : p.type === 'tool_result'
                ? `result ${p.id} ${p.name} ${JSON.stringify(p.text)}`
                : JSON.stringify(p),
        )
        .join(' | ')}`,
  );
}

const html = (rec: string, summary = 'f()'): string =>
  `<details class='tool-usage-details'>\n<summary>${summary}</summary>\n\n\`\`\`json\n${rec}\n\`\`\`\n\n</details>`;
const div = (rec: string): string => `::: {.details .tool-usage-details}\n## f()\n\n\`\`\`json\n${rec}\n\`\`\`\n\n:::`;
const usage = "<details class='token-usage-details'><summary>Usage</summary>\n\n`in 3, out 4`\n\n</details>";

describe('converted legacy blocks read as their text reads', () => {
  it('keeps what the written JSON reads back as: floats in repr form, ints as Python writes them', () => {
    const rec =
      '{"id": "c1", "call": {"function": "f", "arguments": {"a": 1.0e2, "b": 1E400, "c": -0, "d": 12345678901234567890, "e": 0.10}}, "result": [2.50, NaN]}';
    const [asst, tool] = fmt2hist(`Run it.\n\n${html(rec)}\n\nDone.`);
    expect(asst.content[1]).toMatchObject({ type: 'tool_use', id: 'c1', name: 'f' });
    const args = (asst.content[1] as { arguments: Record<string, unknown> }).arguments;
    expect(canon(args)).toBe('{"a":N(100.0),"b":J(Infinity),"c":N(0),"d":N(12345678901234567890),"e":N(0.1)}');
    expect(tool.content[0]).toMatchObject({ type: 'tool_result', id: 'c1', text: '[2.5, NaN]' });
    sameAsPlain(`Run it.\n\n${html(rec)}\n\nDone.`);
  });

  it('keeps key order, duplicate keys and __proto__ keys as a parse of the text does', () => {
    const rec =
      '{"id": "c2", "call": {"function": "g", "arguments": {"b": 1, "2": 2, "a": 3, "b": 4, "__proto__": {"x": 1}}}, "result": {"10": "x", "9": "y"}}';
    const [asst, tool] = fmt2hist(div(rec));
    expect(canon((asst.content[0] as { arguments: unknown }).arguments)).toBe('{"b":N(4),"2":N(2),"a":N(3),"__proto__":{"x":N(1)}}');
    expect(tool.content[0]).toMatchObject({ text: '{"10": "x", "9": "y"}' });
    sameAsPlain(div(rec));
  });

  it('finds the blocks after usage envelopes and think spans before them are removed', () => {
    const a = html('{"id": "a", "call": {"function": "f", "arguments": {"s": "<!--think_end-->"}}, "result": "one"}');
    const b = div('{"id": "b", "call": {"function": "g", "arguments": null}, "result": "two"}');
    const reply = `${usage}\n<!--think_start-->hidden<!--think_end-->\n${a}\n${usage}\n\n<!--think_start-->x\n<!--think_end-->\n${b}\ntail`;
    const h = fmt2hist(reply);
    expect(h.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(h[1].content.map((p) => (p as { text: string }).text)).toEqual(['one', 'two']);
    sameAsPlain(reply);
  });

  it('reads a block whose JSON holds line breaks other than \\n (U+2028, U+0085) as its text reads', () => {
    const reply = html('{"id": "c3", "call": {"function": "f", "arguments": {"s": "a\\u2028```\\u2028b"}}, "result": "r\\u0085s"}');
    sameAsPlain(reply);
    // The raw U+2028 lines split the written block: its first line of backticks closes the
    // fence early, so the block is no call (the reference reads the converted text the same way).
    expect(fmt2hist(reply).some((m) => m.role === 'tool')).toBe(false);
    sameAsPlain(html('{"id": "c4", "call": {"function": "f", "arguments": {"s": "a\\u2028b"}}, "result": "\\u2029"}'));
  });

  it('reads blocks whose records are no calls (a numeric id, list arguments) as their text reads', () => {
    // Such a record is converted, but its block reads as text: fmt2hist, which writes no JSON
    // for converted blocks, must then read the reply with the JSON written.
    for (const rec of [
      '{"id": 5, "call": {"function": "f", "arguments": {}}, "result": "r"}',
      '{"id": "c5", "call": {"function": "f", "arguments": [1]}, "result": "r"}',
      '{"id": "c6", "call": {"function": "f", "arguments": "s"}}',
    ]) {
      const reply = `Before.\n\n${html(rec)}\n\n${div('{"id": "ok", "call": {"function": "g", "arguments": {"n": 1}}, "result": "x"}')}\nAfter.`;
      sameAsPlain(reply);
      const first = fmt2hist(reply)[0]!.content[0] as { type: string; text: string };
      expect(first.type).toBe('text');
      // The converted block is text, its JSON written out.
      expect(first.text).toContain('```json {.tool}\n{\n  "id": ');
      expect(first.text).toContain('"name": "f"');
    }
  });

  it('drops usage envelopes as the removal of their converted blocks does, whatever follows them', () => {
    const tool = html('{"id": "u", "call": {"function": "f", "arguments": {}}, "result": "r"}');
    const env = (nl: string, summary = 'Usage'): string =>
      `<details class='token-usage-details'><summary>${summary}</summary>${nl}${nl}\`in 3\`${nl}${nl}</details>`;
    const replies: string[] = [];
    for (const nl of ['\n', '\r\n']) {
      for (const after of ['', nl, `${nl}${nl}`, `${nl}   ${nl}x`, `${nl}\t${nl}${nl}y`, `${nl}text`, `${nl}${tool}`, `${nl}${nl}${tool}${nl}`, `${nl} `]) {
        replies.push(`${env(nl)}${after}`, `a${nl}${env(nl)}${after}`, `${tool}${nl}${env(nl)}${after}`);
        // A summary with a line break of its own, and a reply that holds a usage block of its own.
        replies.push(`${env(nl, 'U\u2028sage')}${after}`, `${env(nl)}${after}${nl}\`\`\`json {.usage}${nl}{}${nl}\`\`\`${nl}`);
      }
    }
    // A converted block whose JSON holds a line break but `\n` followed by backticks pairs the
    // fences after it differently: the usage envelopes after it are converted as they were.
    for (const brk of ['\x85', '\u2028']) {
      const odd = div(`{"id": 7, "call": {"function": "f", "arguments": null}, "result": "${brk}\`\`\`\\u2028", "server": true}`);
      replies.push(`${odd}\r\n${env('\n')}\n\n\`\`\`py\r\n${tool}\n`, `${odd}\n${env('\n')}\n`, `${env('\n')}\n${odd}\n${env('\n')}`);
    }
    for (const r of replies) sameAsPlain(r);
  });

  it('agrees with the plain reading on generated replies', () => {
    const lexeme = fc.constantFrom('1', '-0', '1.0', '1.0e2', '1E400', '-1e-400', '12345678901234567890', '0.10', 'NaN', 'Infinity', 'true', 'null');
    const chunk = fc.constantFrom(
      'a',
      ' ',
      '\\n',
      '\\u2028',
      '\u2028',
      '\\u0085',
      '\u0085',
      '<!--think_start-->',
      '<!--think_end-->',
      '```',
      '\\"',
      '\\\\',
      'é',
    );
    const str = fc.array(chunk, { maxLength: 5 }).map((cs) => `"${cs.join('')}"`);
    const key = fc.constantFrom('"a"', '"1"', '"b"', '"__proto__"', '"0"');
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        lexeme,
        str,
        fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
        tie('o'),
      ),
      o: fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    })).v;
    const rec = fc
      .record({
        id: fc.constantFrom('"c1"', '"c2"', 'null', '""', '7'),
        args: value,
        result: fc.option(value),
        server: fc.constantFrom('', ', "server": true', ', "server": 0'),
      })
      .map(
        ({ id, args, result, server }) =>
          `{"id": ${id}, "call": {"function": "f", "arguments": ${args}}${result === null ? '' : `, "result": ${result}`}${server}}`,
      );
    const piece = fc.oneof(
      rec.map((r) => html(r)),
      rec.map((r) => div(r)),
      rec.map((r) => html(r, 's</summary>')),
      fc.constant(usage),
      fc.constant('::: {.details .token-usage-details}\n## S\n\n`D`\n\n:::'),
      fc.constant('```json {.tool}\n{"id": "t1", "name": "h", "args": {"n": 1.50}}\n```'),
      fc.constant('```json {.usage}\n{"summary": "s", "detail": "d"}\n```'),
      fc.constantFrom('prose', '<!--think_start-->', '<!--think_end-->', '<!--think_start-->t<!--think_end-->', '```', '```py', '\r\n', '\u2028', ''),
    );
    const reply = fc.array(fc.tuple(piece, fc.constantFrom('\n', '\n\n', '', '\r\n')), { maxLength: 6 }).map((ps) => ps.map(([p, sep]) => p + sep).join(''));
    fc.assert(
      fc.property(reply, (r) => sameAsPlain(r)),
      fcParams(300),
    );
  });
});

/** `isCompactedReply` as written before its result-line test became a scan (the oracle). */
function compactedBySplit(reply: string): boolean {
  const p = resolvePolicy(undefined);
  const hasResultLine = reply.includes('\n>');
  const hasCut = reply.includes(' … ');
  if (!hasResultLine && !hasCut) return false;
  const msgs = fmt2hist(reply);
  if (msgs.some((m) => m.role === 'tool' || m.content.some((x) => x.type === 'tool_use'))) return false;
  if (hasResultLine) {
    const lines = reply.split('\n');
    for (let i = 0; i + 1 < lines.length; i++) {
      const next = lines[i + 1]!;
      if (next !== '>' && !next.startsWith('> ')) continue;
      const line = lines[i]!;
      if (line.startsWith('▶ ') || line.startsWith('! ') || /^`{3,}$/.test(line)) return true;
    }
  }
  if (!hasCut) return false;
  const cuts = reply.split(' … ').length - 1;
  return fitsToks(pyStrip(reply), cuts * (p.asstToks + 8) + p.asstToks);
}

describe('isCompactedReply: a call line followed by a result line', () => {
  it('recognises the call forms and only them', () => {
    expect(isCompactedReply('▶ f(x=1)\n> 3')).toBe(true);
    expect(isCompactedReply('prose\n! ls -la\n>')).toBe(true);
    expect(isCompactedReply('```py\nx\n```\n> ok\n')).toBe(true);
    expect(isCompactedReply('``\n> ok')).toBe(false);
    expect(isCompactedReply('```py\n> ok')).toBe(false);
    expect(isCompactedReply('▶f()\n> ok')).toBe(false);
    expect(isCompactedReply('▶ f()\n>x')).toBe(false);
    expect(isCompactedReply('▶ f()\r\n> x')).toBe(true);
    expect(isCompactedReply('\n> x')).toBe(false);
    expect(isCompactedReply('a\n▶ g()\n>\n>')).toBe(true);
  });

  it('agrees with the line split on generated replies', () => {
    const part = fc.constantFrom('\n', '>', '> ', ' ', '▶ ', '▶', '! ', '!', '`', '```', 'a', ' … ', '\r', 'x');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 14 }), (ps) => {
        const r = ps.join('');
        expect(isCompactedReply(r)).toBe(compactedBySplit(r));
      }),
      fcParams(500),
    );
  });
});
