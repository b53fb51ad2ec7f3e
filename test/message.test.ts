/**
 * The canonical message model's JSON forms (src/chat/message.ts): msgToJSON gives plain JSON
 * values that survive JSON.stringify -> msgFromJSON -> hist2fmt; msgToJSONText /
 * msgFromJSONText keep float kinds, big integers and key order exactly.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { fmt2hist, hist2fmt, msgFromJSON, msgFromJSONText, msgToJSON, msgToJSONText, type Msg, type ToolUsePart } from '../src/chat/index.js';
import { thrown } from './support.js';

const block = (args: string): string => '```json {.tool}\n{"id": "c1", "name": "f", "args": ' + args + ', "result": "ok"}\n```';
const reply = (args: string): string => 'Calling.\n\n' + block(args) + '\n\nDone.';
const viaPlainJson = (h: Msg[]): Msg[] => h.map((m) => msgFromJSON(JSON.parse(JSON.stringify(msgToJSON(m)))));
const viaText = (h: Msg[]): Msg[] => h.map((m) => msgFromJSONText(msgToJSONText(m)));

describe('msgToJSON: plain JSON values', () => {
  it('prints ordinary numbers as numbers', () => {
    const h = fmt2hist(reply('{"n": 1, "x": 2.5, "neg": -3, "deep": {"l": [1, 0.25, true, null, "s"]}}'));
    expect(JSON.stringify(msgToJSON(h[0]!))).toBe(
      '{"role":"assistant","content":[{"type":"text","text":"Calling."},' +
        '{"type":"tool_use","id":"c1","name":"f","arguments":{"n":1,"x":2.5,"neg":-3,"deep":{"l":[1,0.25,true,null,"s"]}}}]}',
    );
    expect(JSON.stringify(msgToJSON(h[0]!))).not.toContain('isLosslessNumber');
  });

  it('survives JSON.stringify -> msgFromJSON -> hist2fmt unchanged', () => {
    for (const args of ['{"n": 1}', '{"x": 2.5, "y": -0.001, "z": 1e-07}', '{"a": [1, 2, {"b": 9007199254740991}]}', '{"s": "ünï", "__proto__": 1}']) {
      const h = fmt2hist(reply(args));
      expect(hist2fmt(viaPlainJson(h))).toBe(hist2fmt(h));
      expect(viaPlainJson(h)).toEqual(viaPlainJson(viaPlainJson(h)));
    }
  });

  it('is a copy: changing it leaves the message alone', () => {
    const h = fmt2hist(reply('{"o": {"k": 1}}'));
    const j = msgToJSON(h[0]!) as { content: Array<{ arguments?: { o: { k: number } } }> };
    j.content[1]!.arguments!.o.k = 2;
    expect(hist2fmt(h)).toContain('"k": 1');
  });

  it('refuses values a JS number cannot hold exactly, naming the path', () => {
    const big = fmt2hist(reply('{"id": 12345678901234567890}'));
    const e = thrown(() => msgToJSON(big[0]!));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as Error).message).toContain('content[1].arguments.id');
    expect((e as Error).message).toContain('msgToJSONText');
    const nan: Msg = { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', arguments: { v: NaN } }] };
    expect(thrown(() => msgToJSON(nan))).toBeInstanceOf(InvalidArgumentError);
    const bad: Msg = { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', arguments: { v: new Date(0) } }] };
    expect(thrown(() => msgToJSON(bad))).toBeInstanceOf(InvalidArgumentError);
  });

  it('turns bigint and LosslessNumber integers in range into numbers', () => {
    const m: Msg = { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', arguments: { b: 5n, c: -0 } }] };
    expect(JSON.stringify(msgToJSON(m))).toBe('{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","arguments":{"b":5,"c":0}}]}');
  });
});

describe('msgToJSONText / msgFromJSONText: exact', () => {
  it('keeps 1.0, big integers and key order', () => {
    const h = fmt2hist(reply('{"b": 1.0, "2": 12345678901234567890, "a": 1e5}'));
    const text = msgToJSONText(h[0]!);
    expect(text).toBe(
      '{"role": "assistant", "content": [{"type": "text", "text": "Calling."}, ' +
        '{"type": "tool_use", "id": "c1", "name": "f", "arguments": {"b": 1.0, "2": 12345678901234567890, "a": 100000.0}}]}',
    );
    expect(hist2fmt(viaText(h))).toBe(hist2fmt(h));
    expect(hist2fmt(h)).toContain('"b": 1.0,\n    "2": 12345678901234567890,\n    "a": 100000.0');
    const back = msgFromJSONText(text).content[1] as ToolUsePart;
    expect(Object.keys(back.arguments)).toEqual(['2', 'b', 'a']); // JS order; written order is kept aside
    expect(msgToJSONText(msgFromJSONText(text))).toBe(text);
  });

  it('is lossy only where documented through msgToJSON (1.0 becomes 1)', () => {
    const h = fmt2hist(reply('{"b": 1.0}'));
    expect(hist2fmt(viaPlainJson(h))).toContain('"b": 1\n');
    expect(hist2fmt(viaText(h))).toContain('"b": 1.0\n');
  });

  it('rejects non-strings and malformed shapes', () => {
    expect(thrown(() => msgFromJSONText(1 as unknown as string))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => msgFromJSONText('{"role": "x", "content": []}'))).toBeInstanceOf(InvalidArgumentError);
  });
});
