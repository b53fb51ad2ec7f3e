/**
 * Adversarial input: bad, hostile and extreme values through the library API. Every case
 * asserts the exact error class and the message fragments that locate the problem (file,
 * cell id or index, field), or the exact result; big inputs also assert a time bound (2 cores,
 * generous limits: these guard against quadratic or catastrophic behaviour, not speed).
 * Expected values are derived from the SPEC rules and checked with Python 3.11 where noted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactReply } from '../src/compact.js';
import { compactResult } from '../src/dsl.js';
import { fmt2hist } from '../src/reply.js';
import { decToks, encToks, fitsToks, lenToks, tokensInternals, truncToksMid } from '../src/tokens.js';

/** Run `f`, assert it took less than `ms` milliseconds, return its value. */
function timed<T>(ms: number, f: () => T): T {
  const t0 = performance.now();
  const v = f();
  const dt = performance.now() - t0;
  expect(dt, `took ${dt.toFixed(0)} ms`).toBeLessThan(ms);
  return v;
}

// ---------------------------------------------------------------------------------------------
// tokens

describe('tokens: giant pre-token pieces', () => {
  // Code points of every category the o200k pattern distinguishes (Lu, Lt, Lm, Lo, Ll, M, N,
  // white space, \r \n, '/', contraction letters, astral, lone surrogates, other).
  const ALPHABET = ['a', 'A', 'ǅ', 'ʰ', '中', '\u0301', '𝐀', '𝐚', '1', '١', '²', ' ', '  ', '\n', '\r', '\t', '\u3000', '\u0085',
    '\u00a0', '/', '!', "'", 's', 'S', 'ſ', 't', 'r', 'R', 'e', 'E', 'v', 'm', 'l', 'L', 'd', '😀', '\ud800', '\udc00', '.',
    '\u200b', '\ufeff', 'x'];

  it('the hand-written piece scanner (fallback for giant pieces) cuts exactly where the regex does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        for (let pos = 0; pos < s.length; ) {
          const want = tokensInternals.regexPieceEnd(s, pos);
          expect(tokensInternals.scanPiece(s, pos)).toBe(want);
          pos = want;
        }
      }),
      { numRuns: 20_000 },
    );
  });

  // V8's regex engine overflows its backtrack stack on greedy runs of a few million non-ASCII
  // letters; these used to throw a raw RangeError ("Maximum call stack size exceeded").
  it('2.5 M letter + combining mark: one piece, counted, cut and round-tripped without a RangeError', () => {
    const s = 'a\u0301'.repeat(2_500_000);
    expect(() => tokensInternals.regexPieceEnd(s, 0)).toThrow(RangeError); // the engine limit this guards against
    expect(tokensInternals.scanPiece(s, 0)).toBe(s.length);
    const ids = timed(8_000, () => encToks(s));
    expect(lenToks(s)).toBe(ids.length);
    expect(decToks(ids)).toBe(s);
    expect(fitsToks(s, 100)).toBe(false);
    const mark = encToks(' … ');
    const room = 100 - mark.length;
    expect(timed(8_000, () => truncToksMid(s, 100))).toBe(
      decToks([...ids.slice(0, Math.ceil(room / 2)), ...mark, ...ids.slice(ids.length - Math.floor(room / 2))]),
    );
  }, 30_000);

  it.each([
    ['5 M CJK', '中'.repeat(5_000_000)],
    ['5 M modifier letters', 'ʰ'.repeat(5_000_000)],
  ])('%s: counted and cut without a RangeError', (_name, s) => {
    const n = timed(8_000, () => lenToks(s));
    expect(n).toBeGreaterThan(s.length / 8);
    const cut = timed(8_000, () => truncToksMid(s, 50));
    expect(cut.startsWith(s.slice(0, 10))).toBe(true);
    expect(cut).toContain(' … ');
    expect(lenToks(cut)).toBeLessThanOrEqual(50);
  }, 30_000);
});

// ---------------------------------------------------------------------------------------------
// reply wire format

describe('reply parsing: hostile shapes stay linear', () => {
  const block = (rec: unknown): string => '```json {.tool}\n' + JSON.stringify(rec) + '\n```';

  it('many legacy envelope heads whose <summary> runs to one shared fence parse its 1 MB body once', () => {
    // Each head line opens a <summary> closed only after the last head; every head then leads
    // to the same ```json fence, and without </details> none matches. This took 3.5 s (one
    // parse of the 1 MB body per head) before legacy records were memoised per fence.
    const rec = { id: 'x', call: { function: 'f', arguments: {} }, result: 'y'.repeat(1_000_000) };
    const reply = "<details class='tool-usage-details'><summary>a\n".repeat(2000) + '</summary>\n\n```json\n' + JSON.stringify(rec) + '\n```\n';
    const msgs = timed(1_500, () => fmt2hist(reply));
    expect(msgs).toEqual([{ role: 'assistant', content: [{ type: 'text', text: reply.trim() }] }]);
  });

  it('the same envelope with its </details> converts once, to one call', () => {
    const rec = { id: 'x', call: { function: 'f', arguments: {} }, result: 'y'.repeat(1_000_000) };
    const reply = "<details class='tool-usage-details'><summary>a\n".repeat(2000) + '</summary>\n\n```json\n' + JSON.stringify(rec) + '\n```\n\n</details>';
    const msgs = timed(1_500, () => fmt2hist(reply));
    expect(msgs.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    // the first head's summary runs over the other heads to the shared </summary>
    expect(msgs[0].content).toEqual([{ type: 'tool_use', id: 'x', name: 'f', arguments: {} }]);
    expect(msgs[1].content).toEqual([{ type: 'tool_result', id: 'x', name: 'f', text: 'y'.repeat(1_000_000) }]);
  });

  it('10,000 tool blocks: parsed and rendered in linear time', () => {
    const reply = Array.from({ length: 10_000 }, (_, i) => `text ${i}\n\n` + block({ id: `id${i}`, name: 'f', args: { a: i }, result: `r${i}` })).join('\n\n');
    const msgs = timed(3_000, () => fmt2hist(reply));
    expect(msgs).toHaveLength(20_001);
    expect(msgs[2]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'text 1' }, { type: 'tool_use', id: 'id1', name: 'f', arguments: { a: expect.anything() } }] });
    const out = timed(5_000, () => compactReply(reply));
    expect(out.split('\n').slice(0, 6)).toEqual(['text 0', '▶ f(a=0)', '> r0', 'text 1', '▶ f(a=1)', '> r1']);
  });

  it('a 5 MB single-line base64 tool result is cut to its budget', () => {
    const b64 = 'QUJD'.repeat(1_250_000);
    const out = timed(3_000, () => compactReply('hi\n\n' + block({ id: 't1', name: 'view', args: { p: 'x' }, result: b64 }) + '\n\ndone'));
    const lines = out.split('\n');
    expect(lines[0]).toBe('hi');
    expect(lines[1]).toBe("▶ view(p='x')");
    expect(lines[2]).toBe(compactResult(b64, 35));
    expect(lines[3]).toBe('done');
    expect(lenToks(lines[2])).toBeLessThanOrEqual(35);
  });
});
