/**
 * Adversarial input: bad, hostile and extreme values through the library API. Every case
 * asserts the exact error class and the message fragments that locate the problem (file,
 * cell id or index, field), or the exact result; big inputs also assert a time bound (2 cores,
 * generous limits: these guard against quadratic or catastrophic behaviour, not speed).
 * Expected values are derived from the SPEC rules and checked with Python 3.11 where noted.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactDialog, dlg2compact, measureFlat } from '../src/dialog/compact.js';
import { compactReply } from '../src/dsl/compact-reply.js';
import { measureDialog } from '../src/dialog/measure.js';
import { aiOutput } from '../src/dialog/ai-output.js';
import { BudgetError, InvalidArgumentError, NotebookError } from '../src/errors.js';
import { dumpsIpynb, readsIpynb } from '../src/notebook/index.js';
import { Dialog } from '../src/dialog/dialog.js';
import { readIpynb, readIpynbSync, writeIpynb, writeIpynbSync } from '../src/notebook/files.js';
import { compactChat } from '../src/dsl/render.js';
import { autoCompact, microCompact } from '../src/strategies/micro.js';
import { cpLen } from '../src/python/index.js';
import { microCompactDialog } from '../src/dialog/micro.js';
import { summarizeCompaction } from '../src/strategies/summary.js';
import type { SummaryWireMessage as SummaryMessage } from '../src/strategies/wire.js';
import { summarizeDialog } from '../src/dialog/summarize.js';
import { compactResult } from '../src/dsl/render.js';
import { fmt2hist } from '../src/chat/index.js';
import { decToks, encToks, fitsToks, lenToks, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { cpuMs, fcParams } from './support.js';

/**
 * Await `f()`, assert it settled within `ms` milliseconds of the clock, return its value: for
 * work that waits (an abandoned summariser), where the clock is what a hang would stop.
 */
async function timedAsync<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  const dt = performance.now() - t0;
  expect(dt, `took ${dt.toFixed(0)} ms`).toBeLessThan(ms);
  return v;
}

/** Run `f`, assert it used less than `ms` milliseconds of CPU time, return its value. */
function timed<T>(ms: number, f: () => T): T {
  const t0 = cpuMs();
  const v = f();
  const dt = cpuMs() - t0;
  expect(dt, `used ${dt.toFixed(0)} ms of CPU time`).toBeLessThan(ms);
  return v;
}

// ---------------------------------------------------------------------------------------------
// tokens

describe('tokens: giant pre-token pieces', () => {
  // Code points of every category the o200k pattern distinguishes (Lu, Lt, Lm, Lo, Ll, M, N,
  // white space, \r \n, '/', contraction letters, astral, lone surrogates, other).
  const ALPHABET = [
    'a',
    'A',
    'ǅ',
    'ʰ',
    '中',
    '\u0301',
    '𝐀',
    '𝐚',
    '1',
    '١',
    '²',
    ' ',
    '  ',
    '\n',
    '\r',
    '\t',
    '\u3000',
    '\u0085',
    '\u00a0',
    '/',
    '!',
    "'",
    's',
    'S',
    'ſ',
    't',
    'r',
    'R',
    'e',
    'E',
    'v',
    'm',
    'l',
    'L',
    'd',
    '😀',
    '\ud800',
    '\udc00',
    '.',
    '\u200b',
    '\ufeff',
    'x',
  ];

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
      fcParams(20_000),
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
  ])(
    '%s: counted and cut without a RangeError',
    (_name, s) => {
      const n = timed(8_000, () => lenToks(s));
      expect(n).toBeGreaterThan(s.length / 8);
      const cut = timed(8_000, () => truncToksMid(s, 50));
      expect(cut.startsWith(s.slice(0, 10))).toBe(true);
      expect(cut).toContain(' … ');
      expect(lenToks(cut)).toBeLessThanOrEqual(50);
    },
    30_000,
  );
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
    expect(msgs[2]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'text 1' },
        { type: 'tool_use', id: 'id1', name: 'f', arguments: { a: expect.anything() } },
      ],
    });
    const out = timed(5_000, () => compactReply(reply));
    expect(out.split('\n').slice(0, 6)).toEqual(['text 0', '▶ f(a=0)', '> r0', 'text 1', '▶ f(a=1)', '> r1']);
  });

  it('a 5 MB single-line base64 tool result is cut to its budget', () => {
    const b64 = 'QUJD'.repeat(1_250_000);
    const out = timed(3_000, () =>
      compactReply('hi\n\n' + block({ id: 't1', name: 'view', args: { p: 'x' }, result: b64 }) + '\n\ndone', { profile: 'reference' }),
    );
    const lines = out.split('\n');
    expect(lines[0]).toBe('hi');
    expect(lines[1]).toBe("▶ view(p='x')");
    expect(lines[2]).toBe(compactResult(b64, 35));
    expect(lines[3]).toBe('done');
    expect(lenToks(lines[2])).toBeLessThanOrEqual(35);
  });
});

// ---------------------------------------------------------------------------------------------
// notebooks whose cells read but cannot be rendered

/** A notebook text with the given cells (JSON values). */
function nbText(cells: unknown[]): string {
  return JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells });
}
const codeCell = (id: string | null, outputs: unknown[], source = 'print(1)') => ({
  cell_type: 'code',
  id,
  metadata: {},
  source,
  outputs,
  execution_count: null,
});

/** The error `f` throws (fails when it returns). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('rendering errors name the file, the cell and the field', () => {
  // [case, output, the aiOutput message after "aiOutput: output 0"]
  const badOutputs: Array<[string, unknown, string]> = [
    ['a stream without a name', { output_type: 'stream', text: 'x' }, ': a stream needs a string "name"'],
    ['a stream without text', { output_type: 'stream', name: 'stdout' }, ': a stream needs "text"'],
    ['stream text that is a number', { output_type: 'stream', name: 'stdout', text: 5 }, ' "text": expected a string or a list of strings, got a number'],
    ['an output that is not an object', 3, ': expected an object'],
    ['data that is not an object', { output_type: 'execute_result', data: 5, metadata: {}, execution_count: 1 }, ': "data" must be an object'],
    ['a traceback that is not a list', { output_type: 'error', ename: 'E', evalue: 'v', traceback: 'x' }, ': "traceback" must be a list of strings'],
  ];

  it.each(badOutputs)('%s: flat rendering and token counting throw NotebookError(file, cell id, outputs)', (_name, out, why) => {
    const d = readsIpynb(nbText([{ cell_type: 'markdown', id: 'n1', metadata: {}, source: 'hi' }, codeCell('cellX', [out])]), 'bad.ipynb');
    for (const f of [() => dlg2compact(d), () => measureFlat(d), () => measureDialog(d)]) {
      const e = thrown(f);
      expect(e).toBeInstanceOf(NotebookError);
      expect(e.message).toBe(`bad.ipynb: cell cellX: outputs: aiOutput: output 0${why}`);
      expect((e as NotebookError).file).toBe('bad.ipynb');
      expect((e as NotebookError).cell).toBe('cellX');
      expect((e as NotebookError).field).toBe('outputs');
      expect(e.cause).toBeInstanceOf(InvalidArgumentError);
    }
  });

  it('a cell whose id was generated on reading is named by its index', () => {
    const d = readsIpynb(nbText([codeCell('a', []), codeCell(null, [{ output_type: 'stream', text: 'x' }])]), 'gen.ipynb');
    const e = thrown(() => dlg2compact(d));
    expect(e).toBeInstanceOf(NotebookError);
    expect(e.message).toBe('gen.ipynb: cell #1: outputs: aiOutput: output 0: a stream needs a string "name"');
  });

  it('an invalid id (control characters, spaces) is named by its index, never printed raw', () => {
    const d = readsIpynb(nbText([codeCell('ok', []), codeCell('\u001b[2J x', [3])]), 'esc.ipynb');
    expect(thrown(() => dlg2compact(d)).message).toBe('esc.ipynb: cell #1: outputs: aiOutput: output 0: expected an object');
  });

  it('a duplicate id (renamed on reading) is named by its index', () => {
    const d = readsIpynb(nbText([codeCell('a', []), codeCell('a', [3])]), 'dup.ipynb');
    expect(thrown(() => dlg2compact(d)).message).toBe('dup.ipynb: cell #1: outputs: aiOutput: output 0: expected an object');
  });

  it('callToks below the empty fence: BudgetError located at the first code cell (SPEC §3 raises there)', () => {
    const d = readsIpynb(nbText([{ cell_type: 'markdown', id: 'n1', metadata: {}, source: 'hi' }, codeCell('c1', [])]), 'b.ipynb');
    for (const budget of [0, 3]) {
      const e = thrown(() => dlg2compact(d, { callToks: budget, profile: 'reference' }));
      expect(e).toBeInstanceOf(NotebookError);
      expect(e.message).toBe(`b.ipynb: cell c1: source: fencedCode: a budget of ${budget} tokens is too small for a fenced block (the empty fence needs 4)`);
      expect(e.cause).toBeInstanceOf(BudgetError);
    }
    // 4 tokens hold the empty fence; the code is cut away entirely
    expect(dlg2compact(d, { callToks: 4, profile: 'reference' })).toBe('§ hi §\n#_c1\n```python\n\n```');
  });

  it('budgets of 0 elsewhere render, they do not throw (SPEC §2: a cut to 0 tokens is empty)', () => {
    const reply = 'Sure.\n\n```json {.tool}\n{"id": "t", "name": "f", "args": {"a": 1}, "result": "r"}\n```';
    const d = readsIpynb(
      nbText([
        { cell_type: 'markdown', id: 'p', metadata: { solveit_ai: true }, source: 'q' + '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n' + reply },
        codeCell('c1', [{ output_type: 'stream', name: 'stdout', text: 'out' }]),
      ]),
      'z.ipynb',
    );
    expect(dlg2compact(d, { userToks: 0, asstToks: 0, callToks: 60, resultToks: 0, profile: 'reference' })).toBe(
      '▶ f(a=1)\n\n***\n\n#_c1\n```python\nprint(1)\n```',
    );
    const c = compactDialog(d, { userToks: 0, asstToks: 0, callToks: 0, resultToks: 0, profile: 'reference' });
    expect(c.messages[0].content).toBe('');
    // SPEC §8 joins the pieces cut to nothing by newlines ('\n\n'); compaction settles at its
    // fixed point (docs/differences.md item 9), and '\n\n' renders as ''.
    expect(c.messages[0].reply).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// AI view of outputs

describe('aiOutput on extreme outputs', () => {
  const result = (text: string) => [{ output_type: 'execute_result', data: { 'text/plain': text }, metadata: {}, execution_count: 1 }];

  it('a 5 M-letter CJK name is not a literal and comes back as is (was a RangeError in the set() check)', () => {
    const s = '中'.repeat(5_000_000);
    expect(timed(3_000, () => aiOutput(result(s)))).toBe(s);
  });

  it('fullwidth ｓｅｔ() is still the empty set (Python folds names with NFKC)', () => {
    expect(aiOutput(result('ｓｅｔ()'))).toBe('set()');
    expect(aiOutput(result('𝐬𝐞𝐭()'))).toBe('set()');
  });

  it.each([
    ['5 MB of progress-bar frames (\\r) on one line', 'progress 10%\r'.repeat(384_615) + 'done\n', 'done\n'],
    ['2.5 M carriage returns without a newline', 'x\r'.repeat(2_500_000), 'x'],
    ['unterminated ANSI escapes', '\x1b['.repeat(2_500_000), ''],
  ])('stream: %s', (_name, text, want) => {
    expect(timed(3_000, () => aiOutput([{ output_type: 'stream', name: 'stdout', text }]))).toBe(want);
  });

  it('5 MB of backspaces over astral characters', () => {
    const text = '😀😀\b'.repeat(1_000_000);
    expect(timed(3_000, () => aiOutput([{ output_type: 'stream', name: 'stdout', text }]))).toBe('😀'.repeat(1_000_000));
  });

  it.each([
    ['100,000 nested lists', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['100,000 nested parentheses', '('.repeat(100_000) + '1' + ')'.repeat(100_000)],
    ['a million unary minus signs', '-'.repeat(1_000_000) + '1'],
  ])('%s: no stack overflow, the text is returned unchanged', (_name, text) => {
    // Python's parser gives up on such nesting (RecursionError / "too many nested parentheses"),
    // so literal_eval fails and the view is the text itself.
    expect(timed(2_000, () => aiOutput(result(text)))).toBe(text);
  });
});

// ---------------------------------------------------------------------------------------------
// API misuse

describe('API misuse gets typed errors, not silent results', () => {
  it.each([[5], [null], [undefined], [{}], [[]], [new String('x')]])('cpLen(%j) -> InvalidArgumentError (was undefined / a raw TypeError)', (v) => {
    expect(() => cpLen(v as unknown as string)).toThrow(InvalidArgumentError);
    expect(() => cpLen(v as unknown as string)).toThrow(/^cpLen: expected a string, got /);
  });

  it('microCompact: preserveTools as a bare string is rejected (it iterated as characters and preserved nothing)', () => {
    const msgs: Array<Parameters<typeof microCompact>[0][number]> = [];
    for (let i = 0; i < 5; i++) {
      msgs.push({ role: 'assistant', content: [{ type: 'tool_use', id: `u${i}`, name: 'read_file', input: {} }] });
      msgs.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `u${i}`, content: 'y'.repeat(200) }] });
    }
    expect(() => microCompact(msgs, { preserveTools: 'read_file' as unknown as string[] })).toThrow(
      new InvalidArgumentError('microCompact: preserveTools must be a list or set of tool names, got a string'),
    );
    expect(() => microCompact(msgs, { preserveTools: 5 as unknown as string[] })).toThrow(
      new InvalidArgumentError('microCompact: preserveTools must be a list or set of tool names, got 5'),
    );
    // the list form keeps every read_file result
    expect(microCompact(msgs, { preserveTools: ['read_file'] })).toEqual(msgs);
  });

  it('compactChat: lastN is a count of prompts, and says so', () => {
    for (const bad of [-1, 1.5, NaN, '2']) {
      expect(() => compactChat([], undefined, { lastN: bad as number })).toThrow(InvalidArgumentError);
      expect(() => compactChat([], undefined, { lastN: bad as number })).toThrow(/^compactChat: lastN must be a non-negative integer count of prompts, got /);
    }
  });

  it('a reply tool call with a non-string command fails the cell with its location (the reference raises there too)', () => {
    const reply = '```json {.tool}\n{"id": "t", "name": "Bash", "args": {"command": ["ls", "-la"]}, "result": "a"}\n```';
    const d = readsIpynb(
      nbText([
        { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'list\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n' + reply },
      ]),
      'r.ipynb',
    );
    const want = 'r.ipynb: cell p1: source: compactCall: argument "command" of tool "Bash" must be a string, got object';
    expect(thrown(() => dlg2compact(d)).message).toBe(want);
    const e = thrown(() => compactDialog(d));
    expect(e).toBeInstanceOf(NotebookError);
    expect(e.message).toBe(want);
  });
});

// ---------------------------------------------------------------------------------------------
// summarisers that misbehave

describe('summarisers that throw, return garbage or never settle', () => {
  const mkDialog = (): Dialog => {
    const d = new Dialog([], { name: 'x.ipynb' });
    for (let i = 0; i < 8; i++) d.mkMessage(`message number ${i} ` + 'words '.repeat(50), { type: 'note' });
    return d;
  };
  const never = () => new Promise<string>(() => {});

  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
      'summarizer-failed',
    ],
    [
      'rejects',
      async () => {
        throw new TypeError('boom');
      },
      'summarizer-failed',
    ],
    ['returns a number', () => 42, 'empty-summary'],
    ['returns null', () => null, 'empty-summary'],
    ['returns a String object', () => new String('summary'), 'empty-summary'],
    ['returns only white space', () => ' \n\t\u3000', 'empty-summary'],
    ['returns a huge string', () => 'x '.repeat(2_500_000), 'not-shrinking'],
    ['returns the reply separator', () => 'a\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\nb', 'invalid-summary'],
  ])('summarizeDialog: a summariser that %s is refused and the dialog is untouched', async (_name, summ, reason) => {
    const d = mkDialog();
    const before = d.messages.slice();
    const r = await summarizeDialog(d, summ as unknown as () => string, { force: true });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe(reason);
    expect(d.messages).toEqual(before);
  });

  it('summarizeDialog: a summariser that never settles is abandoned when the signal aborts (it used to hang)', async () => {
    const d = mkDialog();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const r = await timedAsync(2_000, () => summarizeDialog(d, never, { force: true, signal: ac.signal }));
    expect(r.changed).toBe(false);
    expect(r.reason).toBe('summarizer-failed');
    expect((r.error as Error).name).toBe('AbortError');
    expect(d.messages).toHaveLength(8);
  });

  it('summarizeDialog: AbortSignal.timeout gives a TimeoutError refusal', async () => {
    const r = await timedAsync(2_000, () => summarizeDialog(mkDialog(), never, { force: true, signal: AbortSignal.timeout(50) }));
    expect(r.reason).toBe('summarizer-failed');
    expect((r.error as Error).name).toBe('TimeoutError');
  });

  it('summarizeDialog: an already aborted signal refuses without calling the summariser (it used to compact)', async () => {
    const d = mkDialog();
    let called = false;
    const r = await summarizeDialog(d, () => ((called = true), 'short'), { force: true, signal: AbortSignal.abort() });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe('summarizer-failed');
    expect(called).toBe(false);
    expect(d.messages).toHaveLength(8);
  });

  it('summarizeDialog: a signal that is not an AbortSignal is an argument error', async () => {
    await expect(summarizeDialog(mkDialog(), () => 'x', { force: true, signal: {} as AbortSignal })).rejects.toThrow(
      new InvalidArgumentError('summarizeDialog: signal must be an AbortSignal'),
    );
  });

  it('summarizeCompaction and autoCompact: abandoned on abort too, and they hand the signal on', async () => {
    const msgs: SummaryMessage[] = Array.from({ length: 8 }, (_, i) => ({ id: `m${i}`, type: i % 2 ? 'bot' : 'user', text: 'words '.repeat(50) }));
    let seen: AbortSignal | undefined;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const r = await timedAsync(2_000, () =>
      summarizeCompaction(msgs, (_p, signal) => ((seen = signal), never()), { maxTokens: 10, force: true, signal: ac.signal }),
    );
    expect(r.compacted).toBe(false);
    expect(r.reason).toBe('summarizer-failed');
    expect(r.messages).toBe(msgs);
    expect(seen).toBe(ac.signal);

    const transcript = [{ role: 'user', content: 'hello '.repeat(100) }];
    const r2 = await timedAsync(2_000, () =>
      autoCompact(transcript, never, { writeTranscript: () => 't.jsonl', force: true, signal: AbortSignal.timeout(50) }),
    );
    expect(r2.compacted).toBe(false);
    expect(r2.reason).toBe('summarizer-failed');
    expect(r2.transcriptPath).toBe('t.jsonl');
    expect(r2.messages).toBe(transcript);
  });

  it('summarizeCompaction and autoCompact: an answer that reads as an error is refused error-summary', async () => {
    const msgs: SummaryMessage[] = Array.from({ length: 8 }, (_, i) => ({ id: `m${i}`, type: i % 2 ? 'bot' : 'user', text: 'words '.repeat(50) }));
    const err = async (): Promise<string> => 'Error generating summary: 503 upstream';
    const r = await summarizeCompaction(msgs, err, { maxTokens: 10, force: true });
    expect([r.compacted, r.reason, r.messages === msgs]).toEqual([false, 'error-summary', true]);
    const transcript = [{ role: 'user', content: 'hello '.repeat(100) }];
    const r2 = await autoCompact(transcript, err, { writeTranscript: () => 't.jsonl', force: true });
    expect([r2.compacted, r2.reason, r2.messages === transcript]).toEqual([false, 'error-summary', true]);
  });
});

// ---------------------------------------------------------------------------------------------
// hostile dialogs end to end

describe('hostile dialogs: compact in place, write, read back', () => {
  const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';
  const block = (id: string, name: string, args: unknown, result: unknown) =>
    '```json {.tool}\n' + JSON.stringify({ id, name, args, result }, null, 2) + '\n```';
  const legacy = (id: string, fn: string, args: unknown, close: boolean) =>
    `<details class='tool-usage-details'>\n<summary>${fn}()</summary>\n\n\`\`\`json\n${JSON.stringify({ id, call: { function: fn, arguments: args }, result: 'r' })}\n\`\`\`\n\n${close ? '</details>' : ''}`;
  // Pieces of replies, sources and stream text: line breaks of every kind, fences, markers,
  // sigils, control and non-characters, current/legacy/broken tool blocks, the separator.
  const PIECES = [
    '\n',
    '\r\n',
    '\r',
    'text',
    'é',
    '𝍁',
    '\u2028',
    '\u0085',
    '\ufeff',
    '\ud800',
    '\x00',
    '\x1b[31m',
    '```',
    '````',
    '```python\n',
    '`````result\n',
    'x\n`````\n',
    SEP,
    ' … ',
    '> ',
    '▶ f()',
    '! ls',
    '»',
    '§',
    '¶',
    '<!--think_start-->',
    '<!--think_end-->',
    '```json {.usage}\n{"a":1}\n```',
    '<warn>',
    '</warn>',
    "'",
    '"',
    '\\',
    block('a1', 'f', { x: 1 }, 'res'),
    block('a2', 'Bash', { command: 'ls\n-la' }, 'out\nput'),
    block('a3', 'py', { code: 'print(1)' }, '1'),
    block('', 'f', {}, 'r'),
    block('a1', 'f', {}, { k: [1, 2.0] }),
    legacy('l1', 'g', { a: 'b' }, true),
    legacy('l2', 'g', {}, false),
    '```json {.tool}\n[1]\n```',
    '```json {.tool}\n{bad\n```',
    '::: {.details .tool-usage-details}\n## s\n```json\n{"id":"d1","call":{"function":"h","arguments":{}},"result":"q"}\n```\n:::',
  ];
  const text = fc.tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), fc.constantFrom('\n', '\n\n')).map(([a, join]) => a.join(join));
  const cell = fc.record({ t: fc.constantFrom('prompt', 'code', 'note', 'raw'), a: text, b: text });

  it('every compacted dialog validates, keeps ids and types, and compacting again changes nothing', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 6 }), (cells) => {
        const nbCells = cells.map((c, i) => {
          const id = `c${i}`;
          const clean = c.a.split(SEP).join('');
          if (c.t === 'prompt') return { cell_type: 'markdown', id, metadata: { solveit_ai: true }, source: clean + SEP + c.b };
          if (c.t === 'code')
            return { cell_type: 'code', id, metadata: {}, source: c.a, outputs: [{ output_type: 'stream', name: 'stdout', text: c.b }], execution_count: null };
          return { cell_type: c.t === 'note' ? 'markdown' : 'raw', id, metadata: {}, source: clean };
        });
        const d = readsIpynb(nbText(nbCells), 'h.ipynb');
        expect(typeof dlg2compact(d)).toBe('string');
        const once = dumpsIpynb(compactDialog(d));
        const back = readsIpynb(once, 'h2.ipynb');
        expect(back.messages.map((m) => [m.id, m.type])).toEqual(nbCells.map((_c, i) => [`c${i}`, cells[i]!.t]));
        expect(dumpsIpynb(compactDialog(back))).toBe(once);
      }),
      fcParams(600),
    );
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// file I/O

describe('file I/O: reading never writes, a failed write leaves nothing behind', () => {
  const GOOD = nbText([
    { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'q\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\nr' },
    codeCell('c1', []),
  ]);
  let dir = '';
  const fresh = (): string => {
    dir = mkdtempSync(join(tmpdir(), 'dlg-adv-io-'));
    writeFileSync(join(dir, 'a.ipynb'), GOOD);
    mkdirSync(join(dir, 'd.ipynb'));
    return dir;
  };

  it('reading leaves the file byte for byte and its mtime as it was', async () => {
    const d = fresh();
    const p = join(d, 'a.ipynb');
    const before = statSync(p).mtimeMs;
    expect((await readIpynb(p)).messages.map((m) => m.id)).toEqual(['p1', 'c1']);
    expect(readIpynbSync(p).messages).toHaveLength(2);
    expect(readFileSync(p, 'utf8')).toBe(GOOD);
    expect(statSync(p).mtimeMs).toBe(before);
    rmSync(d, { recursive: true });
  });

  it('a directory, a missing file: NotebookError naming the path', async () => {
    const d = fresh();
    for (const name of ['d.ipynb', 'missing.ipynb']) {
      const p = join(d, name);
      await expect(readIpynb(p)).rejects.toThrow(NotebookError);
      await expect(readIpynb(p)).rejects.toThrow(`${p}: cannot read: `);
      expect(() => readIpynbSync(p)).toThrow(`${p}: cannot read: `);
    }
    rmSync(d, { recursive: true });
  });

  it.each([[null], [undefined], [5], ['']])('path %j: InvalidArgumentError (Node said "Received null" and named no file)', async (p) => {
    await expect(readIpynb(p as string)).rejects.toThrow(InvalidArgumentError);
    expect(() => readIpynbSync(p as string)).toThrow(/^readIpynbSync: path must be a non-empty string, got /);
  });

  it('an invalid dialog is not written: the target keeps its bytes, no temporary file is left', async () => {
    const d = fresh();
    const dlg = readIpynbSync(join(d, 'a.ipynb'));
    dlg.messages[1]!.id = 'bad id';
    writeFileSync(join(d, 'out.ipynb'), 'ORIGINAL');
    await expect(writeIpynb(dlg, join(d, 'out.ipynb'))).rejects.toThrow('cell #1: id: invalid cell id "bad id"');
    expect(() => writeIpynbSync(dlg, join(d, 'out.ipynb'))).toThrow(NotebookError);
    expect(readFileSync(join(d, 'out.ipynb'), 'utf8')).toBe('ORIGINAL');
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'd.ipynb', 'out.ipynb']);
    rmSync(d, { recursive: true });
  });

  it('writing into a missing directory or over a directory fails naming the path, leaving no temporary file', async () => {
    const d = fresh();
    const dlg = readIpynbSync(join(d, 'a.ipynb'));
    await expect(writeIpynb(dlg, join(d, 'no', 'such', 'x.ipynb'))).rejects.toThrow(`${join(d, 'no', 'such', 'x.ipynb')}: cannot write: `);
    await expect(writeIpynb(dlg, join(d, 'd.ipynb'))).rejects.toThrow(`${join(d, 'd.ipynb')}: cannot write: `);
    expect(() => writeIpynbSync(dlg, join(d, 'd.ipynb'))).toThrow(NotebookError);
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'd.ipynb']);
    expect(readdirSync(join(d, 'd.ipynb'))).toEqual([]);
    rmSync(d, { recursive: true });
  });
});

describe('dialog micro-compaction over hostile replies', () => {
  const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';
  const R = 'long result '.repeat(20);
  const block = (id: string, name: string, args: unknown, result: unknown, indent?: number, extra: Record<string, unknown> = {}) =>
    '```json {.tool}\n' + JSON.stringify({ id, name, args, result, ...extra }, null, indent) + '\n```';
  const legacy = (id: string, fn: string, result: unknown, close = true, indent?: number) =>
    `<details class='tool-usage-details'>\n<summary>${fn}()</summary>\n\n\`\`\`json\n${JSON.stringify({ id, call: { function: fn, arguments: { a: 1 } }, result }, null, indent)}\n\`\`\`\n\n${close ? '</details>' : ''}`;
  // Blocks in every layout (indents 1/2/4 and none, ASCII escapes via a lone surrogate), server
  // and id-less blocks, non-string and placeholder results, duplicate keys, legacy envelopes
  // (closed, unclosed, pandoc div), mixed with fences, think spans and usage blocks.
  const PIECES = [
    'text',
    '\n',
    '\r\n',
    'é\u2028',
    '```',
    '````',
    '<!--think_start-->x<!--think_end-->',
    '```json {.usage}\n{}\n```',
    block('a1', 'f', { x: 1 }, R, 2),
    block('a2', 'Bash', { command: 'ls' }, R + '\u00e9\ud800'),
    block('a3', 'read_file', {}, R, 2),
    block('a4', 'f', {}, { k: R }, 1),
    block('a5', 'f', {}, R, 2, { server: true }),
    block('', 'f', {}, R, 2),
    block('a6', 'f', {}, 12345678901234567890, 2),
    block('a7', 'f', {}, '[Previous: used f]', 2),
    block('a8', 'f', {}, R, 4),
    '```json {.tool}\n{"id": "a9", "name": "f", "args": {}, "result": "' + R + '", "result": "dup"}\n```',
    legacy('l1', 'g', R),
    legacy('l2', 'g', R, false),
    legacy('l3', 'g', { r: [R] }, true, 2),
    '::: {.details .tool-usage-details}\n## s\n```json\n{"id":"d1","call":{"function":"h","arguments":{}},"result":"' + R + '"}\n```\n:::',
  ];
  const reply = fc.tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }), fc.constantFrom('\n', '\n\n', '')).map(([a, j]) => a.join(j));

  it('clears only results (to the placeholder), keeps every call, text run and id, survives a write and read; a second run clears nothing', () => {
    fc.assert(
      fc.property(fc.array(reply, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 4 }), (replies, keepRecent) => {
        const cells = replies.map((r, i) => ({ cell_type: 'markdown', id: `p${i}`, metadata: { solveit_ai: true }, source: 'q' + SEP + r }));
        const d = readsIpynb(nbText(cells), 'm.ipynb');
        const before = d.messages.map((m) => fmt2hist(m.reply));
        // A block that only exists once think spans are removed (its closing fence shares a
        // line with one) cannot be located in the raw reply: that reply is refused, unchanged.
        const refused = new Set(microCompactDialog(d, { keepRecent }).refused.map((r) => r.messageId));
        d.messages.forEach((m, i) => {
          if (refused.has(m.id)) expect(m.reply).toBe(replies[i]);
        });
        const back = readsIpynb(dumpsIpynb(d), 'm2.ipynb');
        back.messages.forEach((m, i) => {
          const was = before[i]!;
          const now = fmt2hist(m.reply);
          expect(now.map((x) => x.role)).toEqual(was.map((x) => x.role));
          now.forEach((msg, j) =>
            msg.content.forEach((p, k) => {
              const q = was[j]!.content[k]!;
              if (p.type === 'tool_result' && q.type === 'tool_result') {
                expect(p.id).toBe(q.id);
                if (p.text !== q.text) expect(p.text).toMatch(/^\[Previous: used .*\]$/);
              } else expect(p).toEqual(q);
            }),
          );
        });
        expect(microCompactDialog(back, { keepRecent }).cleared).toEqual([]);
      }),
      fcParams(300),
    );
  }, 120_000);
});
