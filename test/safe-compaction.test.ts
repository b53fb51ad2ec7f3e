/**
 * Never lose a call, never compact twice, never let a summary make things worse: regression
 * tests with exact values for think markers in tool JSON, the shapes on which compaction was
 * not idempotent, located and typed errors, summary acceptance (a local HTTP server on
 * 127.0.0.1 plays the summariser), folding of earlier notes, the newest prompt, the index of
 * replaced calls, attachments, and micro-compaction's protected tools and placeholders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, startLocalServer, type LocalServer } from './local-server.js';
import { fmt2hist, parseToolBlocks } from '../src/chat/index.js';
import { compactDialog, compactPrompt, dlg2compact, measureFlat } from '../src/dialog/compact.js';
import { Dialog } from '../src/dialog/dialog.js';
import { dialogContextTokens } from '../src/dialog/measure.js';
import { Message } from '../src/dialog/message.js';
import { microCompactDialog } from '../src/dialog/micro.js';
import { summarizeDialog, SUMMARY_META_KEY, type SummarizeDialogOptions } from '../src/dialog/summarize.js';
import { httpDialogSummarizer, type DialogSummarizer } from '../src/dialog/summarizers.js';
import { compactReply } from '../src/dsl/compact-reply.js';
import { InvalidArgumentError, NotebookError } from '../src/errors.js';
import { dumpsIpynb, readsIpynb } from '../src/notebook/index.js';
import { pyDumps } from '../src/python/index.js';
import { isFailureRefusal, looksLikeErrorAnswer } from '../src/strategies/refusal.js';
import { formatBytes, sizedPlaceholderFor } from '../src/strategies/micro.js';
import { lenToks, truncToksMid } from '../src/tokens/index.js';
import { thrown } from './support.js';

const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';
const block = (rec: Record<string, unknown>): string => '```json {.tool}\n' + JSON.stringify(rec, null, 2) + '\n```';
const calls = (reply: string): string[] =>
  fmt2hist(reply).flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_use' ? [`${p.id} ${p.name} ${pyDumps(p.arguments)}`] : [])));

// ---------------------------------------------------------------------------------------------
// think markers

describe('think markers inside tool JSON are data', () => {
  it('arguments holding both markers read back whole', () => {
    const reply = block({ id: 't1', name: 'f', args: { a: 'x<!--think_start-->', b: '<!--think_end-->y' }, result: 'ok' });
    expect(calls(reply)).toEqual(['t1 f {"a": "x<!--think_start-->", "b": "<!--think_end-->y"}']);
  });

  it('a start marker in the first result and a real span later: every call survives, the span goes', () => {
    const reply =
      'Running.\n\n' +
      block({ id: 'c1', name: 'bash', args: { cmd: 'cat notes.txt' }, result: 'see <!--think_start--> here' }) +
      '\n\n<!--think_start-->private thought<!--think_end-->\nNow the tests.\n\n' +
      block({ id: 'c2', name: 'bash', args: { cmd: 'make test' }, result: 'exit code: 0' });
    expect(calls(reply)).toEqual(['c1 bash {"cmd": "cat notes.txt"}', 'c2 bash {"cmd": "make test"}']);
    expect(compactReply(reply, { profile: 'reference' })).toBe(
      'Running.\n! cat notes.txt\n> see <!--think_start--> here\nNow the tests.\n! make test\n> exit code: 0',
    );
  });

  it('a span that would reach across a tool block is no span: its start marker stays, the call is kept', () => {
    const reply = '<!--think_start-->hmm\n\n' + block({ id: 'k', name: 'f', args: {}, result: 'r' }) + '\n\ndone<!--think_end-->\ntail';
    expect(calls(reply)).toEqual(['k f {}']);
    expect(fmt2hist(reply)[0]!.content[0]).toEqual({ type: 'text', text: '<!--think_start-->hmm' });
  });

  it('stays linear: many start markers before one block, many broken block openers', () => {
    const many = '<!--think_start-->x\n'.repeat(20_000) + block({ id: 'z', name: 'f', args: {}, result: 'r' }) + '\n<!--think_end-->\n';
    let t0 = performance.now();
    expect(calls(many)).toEqual(['z f {}']);
    expect(performance.now() - t0).toBeLessThan(3_000);
    const broken = '```json {.tool}\n{"a": [1,\n```\n'.repeat(5_000) + '<!--think_start-->a<!--think_end-->';
    t0 = performance.now();
    expect(parseToolBlocks(broken).clean).toBe('```json {.tool}\n{"a": [1,\n```\n'.repeat(5_000));
    expect(performance.now() - t0).toBeLessThan(3_000);
  });

  it('spans in prose are still removed as the reference removes them', () => {
    expect(parseToolBlocks('a<!--think_start-->x\n<!--think_end-->\nb').clean).toBe('ab');
  });
});

// ---------------------------------------------------------------------------------------------
// idempotence: the five shapes

/** Compact a prompt once and twice; return the first result, asserting the second changes nothing. */
function twice(content: string, reply: string, profile: 'clean' | 'reference', extra: Record<string, number> = {}): { content: string; reply: string } {
  const m = new Message(content, { type: 'prompt', reply });
  compactPrompt(m, { profile, ...extra });
  const once = { content: m.content, reply: m.reply };
  compactPrompt(m, { profile, ...extra });
  expect({ content: m.content, reply: m.reply }).toEqual(once);
  return once;
}

const CUT_CALL = '▶ f()\n> word0 word1 word2 word3 word4 word5 word6 word7 …  word54 word55 word56 word57 word58 word59 word60 word61';

describe('compacting a compacted prompt changes nothing', () => {
  it('1. a cut request that re-encodes one token over its budget is cut again', () => {
    const q = '#| export\nclass ZoteroClient:\npass\njson.dumps(self.item, indent=4) ';
    expect(lenToks(truncToksMid(q, 20))).toBe(21); // the reference's single cut
    const ref = twice(q, '', 'reference', { userToks: 20 });
    expect(ref.content).toBe('#| export\nclass ZoteroClient:\n … umps(self.item, indent=4) ');
    expect(lenToks(ref.content)).toBe(20);
    expect(lenToks(twice(q, '', 'clean', { userToks: 20 }).content)).toBeLessThanOrEqual(20);
  });

  const words = (w: string, n: number): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

  it('2. invalid tool-block JSON kept as prose, whose cut repairs it', () => {
    // A stray quote after word23 ends the result string early: the block is prose; the cut of
    // that prose removes the quote, and the reference's second pass then reads a call.
    const reply = '```json {.tool}\n{"id": "a1", "name": "f", "args": {}, "result": "' + words('word', 62).replace('word23 ', 'word23" ') + '"}\n```';
    expect(calls(reply)).toEqual([]);
    expect(compactReply(reply, { profile: 'reference' }).startsWith('```json {.tool}\n')).toBe(true);
    expect(twice('q', reply, 'reference').reply).toBe(CUT_CALL);
    twice('q', reply, 'clean');
  });

  it('3. prose split by an id-less block: pieces within budget, the joined text not', () => {
    const reply =
      words('alpha', 100).slice(0, 500) + '\n\n' + block({ id: null, name: 'w', args: {}, result: 'r' }) + '\n\n' + words('beta', 100).slice(0, 500);
    // The reference's first pass joins the two uncut pieces (over 150 tokens, no cut mark); the
    // fixed point is the joined text cut once.
    const out = twice('q', reply, 'reference').reply;
    expect(out).toBe(`${words('alpha', 37)} …  ${words('beta', 73).slice(words('beta', 36).length + 1)}`);
    expect(lenToks(out)).toBeLessThanOrEqual(150);
    twice('q', reply, 'clean');
  });

  it('4. think markers inside a legacy envelope', () => {
    const rec = { id: 'l1', call: { function: 'g', arguments: { a: 'x<!--think_start-->' } }, result: 'r<!--think_end-->y' };
    const env = `<details class='tool-usage-details'>\n<summary>g()</summary>\n\n\`\`\`json\n${JSON.stringify(rec)}\n\`\`\`\n\n</details>`;
    const reply = 'Before\n\n' + env + '\n\nAfter <!--think_start-->hidden<!--think_end-->';
    for (const profile of ['reference', 'clean'] as const) {
      expect(twice('q', reply, profile).reply).toBe("Before\n▶ g(a='x<!--think_start-->')\n> r<!--think_end-->y\nAfter");
    }
  });

  it('5. a usage envelope holding a backtick line and an id-less block', () => {
    const reply =
      "Text\n\n<details class='token-usage-details'><summary>$0.01</summary>\n\n``\n\n" +
      block({ id: '', name: 'w', args: {}, result: 'r' }) +
      '\n\n</details>\n\n' +
      words('gamma', 80);
    expect(twice('q', reply, 'reference').reply).toBe(
      "Text\n\n<details class='token-usage-details'><summary>$0.01</summary>\n\n``\n</details>\n\n" +
        `${words('gamma', 35)} gamma …  ${words('gamma', 80).slice(words('gamma', 43).length + 1)}`,
    );
    twice('q', reply, 'clean');
  });

  it('a whole dialog: compact, write, read, compact again gives the same bytes', () => {
    const d = readsIpynb(
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          {
            cell_type: 'markdown',
            id: 'p',
            metadata: { solveit_ai: true },
            source: 'q' + SEP + words('alpha', 100) + '\n\n' + block({ id: null, name: 'w', args: {} }) + '\n\n' + words('beta', 100),
          },
        ],
      }),
      'x.ipynb',
    );
    const once = dumpsIpynb(compactDialog(d));
    expect(dumpsIpynb(compactDialog(readsIpynb(once, 'y.ipynb')))).toBe(once);
  });
});

// ---------------------------------------------------------------------------------------------
// errors

const nb = (cells: unknown[]): string => JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells });

describe('errors name the file, the cell and the field; a non-dialog says what was expected', () => {
  const bad = (): Dialog =>
    readsIpynb(
      nb([
        { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true }, source: 'q' + SEP + 'r' },
        { cell_type: 'code', id: 'cellX', metadata: {}, source: 'x', outputs: [3], execution_count: null },
        { cell_type: 'code', id: null, metadata: {}, source: 'y', outputs: [{ output_type: 'stream', text: 'x' }], execution_count: null },
      ]),
      'bad.ipynb',
    );

  it('microCompact and summarize locate a malformed output as compact does', async () => {
    for (const f of [() => microCompactDialog(bad()), () => bad().microCompact()]) {
      const e = thrown(f) as NotebookError;
      expect(e).toBeInstanceOf(NotebookError);
      expect(e.message).toBe('bad.ipynb: cell cellX: outputs: aiOutput: output 0: expected an object');
      expect([e.file, e.cell, e.field]).toEqual(['bad.ipynb', 'cellX', 'outputs']);
    }
    await expect(summarizeDialog(bad(), null, { force: true })).rejects.toThrow('bad.ipynb: cell cellX: outputs: aiOutput: output 0: expected an object');
  });

  it('a cell whose id is not in the file is named by its index', () => {
    const d = bad();
    d.messages.splice(1, 1);
    expect((thrown(() => microCompactDialog(d)) as Error).message).toBe('bad.ipynb: cell #1: outputs: aiOutput: output 0: a stream needs a string "name"');
  });

  it.each([
    ['null', null, 'null'],
    ['raw notebook JSON', JSON.parse(nb([])), 'a notebook JSON object (read it with readsIpynb first)'],
    ['notebook text', nb([]), 'a string (notebook JSON text?)'],
    ['a number', 5, 'a number'],
  ])('%s: InvalidArgumentError saying a Dialog was expected', async (_n, v, what) => {
    for (const [name, f] of [
      ['dlg2compact', () => dlg2compact(v as unknown as Dialog)],
      ['compactDialog', () => compactDialog(v as unknown as Dialog)],
      ['measureFlat', () => measureFlat(v as unknown as Dialog)],
      ['microCompactDialog', () => microCompactDialog(v as unknown as Dialog)],
    ] as const) {
      const e = thrown(f) as Error;
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e.message).toBe(`${name}: expected a Dialog, got ${what}`);
    }
    await expect(summarizeDialog(v as unknown as Dialog, null, { force: true })).rejects.toThrow(`summarizeDialog: expected a Dialog, got ${what}`);
  });
});

// ---------------------------------------------------------------------------------------------
// summaries

/** A dialog of `turns` prompt turns, each with a long reply holding a tool call. */
function turnsDialog(turns: number, from = 0): Dialog {
  const d = new Dialog([], { name: 'turns' });
  for (let i = from; i < from + turns; i++) {
    const reply =
      `Turn ${i} answer. ` +
      'detail '.repeat(120) +
      '\n\n' +
      block({ id: `t${i}`, name: 'bash', args: { cmd: `cat src/f${i}.ts` }, result: 'exit code: 0\n' + 'line\n'.repeat(60) });
    d.mkMessage(`Question ${i}?`, { type: 'prompt', id: `p${i}`, reply });
  }
  return d;
}

const fixed = (text: string): DialogSummarizer => {
  const f: DialogSummarizer = () => text;
  return f;
};

describe('summary acceptance', () => {
  it('an echo of the input saves nothing and is refused not-shrinking; minSaving is the bar', async () => {
    const d = turnsDialog(6);
    const before = dialogContextTokens(d);
    const echo: DialogSummarizer = (head) => dlg2compact(head as Dialog) + '\n' + head.messages.map((m) => m.content + m.reply).join('\n');
    const r = await summarizeDialog(d, echo, { force: true, keepRecent: 1 });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe('not-shrinking');
    expect(r.rejectedTokens! > before * 0.9).toBe(true);
    expect(dialogContextTokens(d)).toBe(before);
  });

  it('a summary saving 5% is refused at the default 10% and accepted at minSaving 0.01', async () => {
    const make = (): Dialog => turnsDialog(4);
    const d0 = make();
    const before = dialogContextTokens(d0);
    const headCount = dialogContextTokens(d0) - (d0.messages[3] ? dialogContextTokens(new Dialog([d0.messages[3]!.clone()])) : 0);
    // A summary about 95% of the head's size saves about 5%.
    const text = 'w '.repeat(Math.floor(headCount * 0.9));
    const opts: SummarizeDialogOptions = { force: true, keepRecent: 1, index: false };
    const r1 = await summarizeDialog(make(), fixed(text), opts);
    expect(r1.reason).toBe('not-shrinking');
    const r2 = await summarizeDialog(make(), fixed(text), { ...opts, minSaving: 0.01 });
    expect(r2.changed).toBe(true);
    expect(r2.tokensAfter).toBeLessThan(before);
    expect(r2.tokensAfter).toBeGreaterThan(before * 0.9);
  });

  it('a result still over maxTokens is flagged overBudget', async () => {
    const d = turnsDialog(6);
    const r = await summarizeDialog(d, fixed('Short.'), { maxTokens: 100, keepRecent: 1 });
    expect(r.changed).toBe(true);
    expect(r.overBudget).toBe(true);
    const d2 = turnsDialog(6);
    const r2 = await summarizeDialog(d2, fixed('Short.'), { maxTokens: 2000, keepRecent: 1, force: true });
    expect(r2.changed).toBe(true);
    expect(r2.overBudget).toBeUndefined();
  });

  it.each([
    'Error generating summary: upstream timed out',
    '**Error:** model overloaded',
    'Internal Server Error',
    '{"error": {"message": "quota"}}',
    'Traceback (most recent call last):\n  File "x"',
    "I'm sorry, but an error occurred while summarising.",
  ])('an answer that reads as an error is refused error-summary (a failure): %j', async (answer) => {
    expect(looksLikeErrorAnswer(answer)).toBe(true);
    const d = turnsDialog(6);
    const r = await summarizeDialog(d, fixed(answer), { force: true, keepRecent: 1 });
    expect(r.reason).toBe('error-summary');
    expect(isFailureRefusal('error-summary')).toBe(true);
    expect(d.messages.map((m) => m.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('summaries that merely mention errors are accepted', () => {
    for (const s of ['The user fixed an error in parse.ts.', 'Errors were handled.\nError: none', 'Summary: errors fixed'])
      expect(looksLikeErrorAnswer(s)).toBe(false);
  });

  it('keepRecent 0 still keeps the newest prompt and its reply', async () => {
    const d = turnsDialog(5);
    d.mkMessage('x = 1', { type: 'code', id: 'after' });
    const r = await summarizeDialog(d, fixed('Summary.'), { force: true, keepRecent: 0, index: false });
    expect(r.changed).toBe(true);
    expect(r.replaced).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(d.messages.map((m) => m.id).slice(1)).toEqual(['p4', 'after']);
  });

  it('an LLM summary ends with the index of the calls, paths and exit states it replaced', async () => {
    const d = turnsDialog(4);
    d.mkMessage('import os', { type: 'code', id: 'c9', output: [{ output_type: 'error', ename: 'KeyError', evalue: 'x', traceback: [] }] });
    d.mkMessage('Last?', { type: 'prompt', id: 'last', reply: 'ok' });
    const r = await summarizeDialog(d, fixed('They read four files.'), { force: true, keepRecent: 1 });
    expect(r.changed).toBe(true);
    expect(d.get(r.summaryId!)!.content).toBe(
      '[Conversation summary - 5 earlier cell(s) condensed]\n\nThey read four files.\n\n[Index of what this summary replaced]\n' +
        '- ! cat src/f0.ts → exit 0\n- ! cat src/f1.ts → exit 0\n- ! cat src/f2.ts → exit 0\n- ! cat src/f3.ts → exit 0\n- #_c9 → error KeyError\n' +
        '- paths: src/f0.ts, src/f1.ts, src/f2.ts, src/f3.ts',
    );
  });

  it('re-summarising folds the earlier note in once; five rounds plus one turn stay within the budget', async () => {
    const d = turnsDialog(4);
    const max = 1500;
    const dsl = undefined; // the offline DSL summariser
    for (let round = 1; round <= 5; round++) {
      for (const m of turnsDialog(3, round * 10).messages) d.messages.push(m);
      const r = await summarizeDialog(d, dsl, { maxTokens: max, keepRecent: 1 });
      expect(r.changed).toBe(true);
      const notes = d.messages.filter((m) => m.meta && SUMMARY_META_KEY in m.meta);
      expect(notes.length).toBe(1);
      expect(notes[0]!.content.split('[Conversation summary').length).toBe(2);
      expect(dialogContextTokens(d)).toBeLessThanOrEqual(max);
    }
    for (const m of turnsDialog(1, 99).messages) d.messages.push(m);
    expect(dialogContextTokens(d)).toBeLessThanOrEqual(max);
  });

  it('attachments referenced by replaced cells travel with the note; a cut reference becomes a marker', async () => {
    const png = { 'image/png': 'iVBORw0KGgo=' };
    const d = new Dialog([], { name: 'att' });
    d.mkMessage('See ![plot](attachment:plot.png) and ' + 'words '.repeat(400), { type: 'note', id: 'n1', attachments: { 'plot.png': png } });
    for (const m of turnsDialog(3).messages) d.messages.push(m);
    const r = await summarizeDialog(d, fixed('The note shows ![plot](attachment:plot.png) and ![gone](attachment:other.png).'), {
      force: true,
      keepRecent: 1,
      index: false,
    });
    expect(r.changed).toBe(true);
    const note = d.get(r.summaryId!)!;
    expect(note.content).toBe(
      '[Conversation summary - 3 earlier cell(s) condensed]\n\nThe note shows ![plot](attachment:plot.png) and [image gone: attachment other.png not kept].',
    );
    expect(note.attachments).toEqual({ 'plot.png': png });
    const back = readsIpynb(dumpsIpynb(d), 'att.ipynb');
    expect(back.get(r.summaryId!)!.attachments).toEqual({ 'plot.png': png });
  });
});

// ---------------------------------------------------------------------------------------------
// the summariser over HTTP

describe('httpDialogSummarizer answers from a local server', () => {
  let server: LocalServer;
  let base = '';
  beforeAll(async () => {
    server = await startLocalServer((path, body) => {
      const mode = path.split('/')[1];
      const sent = (body as { messages: Array<{ content: string }> }).messages.map((m) => m.content).join('\n');
      const content =
        mode === 'echo' ? sent : mode === 'error' ? 'Error generating summary: the model is overloaded' : mode === 'empty' ? '' : 'long '.repeat(50_000);
      return { status: 200, body: completion(content) };
    });
    base = server.base;
  });
  afterAll(() => server.close());
  const summarizer = (mode: string): DialogSummarizer =>
    httpDialogSummarizer({ env: { DLG_COMPACT_BASE_URL: `${base}/${mode}/v1`, DLG_COMPACT_MODEL: 'm', DLG_COMPACT_API_KEY: 'k' } });

  it.each([
    ['echo', 'not-shrinking'],
    ['error', 'error-summary'],
    ['empty', 'summarizer-failed'], // the HTTP client rejects an empty answer itself
    ['long', 'not-shrinking'],
  ])('%s: refused %s, the notebook byte-identical', async (mode, reason) => {
    const d = turnsDialog(6);
    const before = dumpsIpynb(d);
    const r = await summarizeDialog(d, summarizer(mode), { force: true, keepRecent: 1 });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe(reason);
    expect(dumpsIpynb(d)).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
// micro-compaction

describe('micro-compaction: protected tools and placeholders', () => {
  const dialog = (): Dialog => {
    const d = new Dialog([], { name: 'm' });
    const big = 'x'.repeat(12_700);
    const reply = ['memory', 'load_dialog', 'bash', 'bash', 'bash', 'bash']
      .map((name, i) => block({ id: `u${i}`, name, args: { i }, result: big }))
      .join('\n\n');
    d.mkMessage('q', { type: 'prompt', id: 'p', reply });
    return d;
  };
  const results = (d: Dialog): string[] =>
    fmt2hist(d.messages[0]!.reply).flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_result' ? [p.text.slice(0, 60)] : [])));

  it('formats sizes and the clean placeholder', () => {
    expect([formatBytes(512), formatBytes(12_700), formatBytes(3 * 1024 * 1024)]).toEqual(['512 B', '12.4 KB', '3.0 MB']);
    expect(sizedPlaceholderFor('read_file', 12_700)).toBe('[Previous: used read_file · 12.4 KB cleared]');
  });

  it('clean profile (default): sized placeholders; keepTools protects memory tools', () => {
    const d = dialog();
    const r = microCompactDialog(d, { keepTools: ['memory', 'load_dialog'] });
    // The newest three results stay (keepRecent 3); of the older three only bash's is cleared.
    expect(r.cleared.map((c) => c.callId)).toEqual(['u2']);
    const x = 'x'.repeat(60);
    expect(results(d)).toEqual([x, x, '[Previous: used bash · 12.4 KB cleared]', x, x, x]);
    expect(microCompactDialog(dialog()).cleared.map((c) => c.callId)).toEqual(['u0', 'u1', 'u2']);
    expect(microCompactDialog(d, { keepTools: ['memory', 'load_dialog'] }).changed).toBe(false);
  });

  it('reference profile: [Previous: used NAME]', () => {
    const d = dialog();
    microCompactDialog(d, { profile: 'reference' });
    expect(results(d).slice(0, 3)).toEqual(['[Previous: used memory]', '[Previous: used load_dialog]', '[Previous: used bash]']);
  });

  it('a legacy envelope loses the preview of a cleared result in the clean profile only', () => {
    const rec = (i: number) => ({ id: `l${i}`, call: { function: 'read', arguments: { p: i } }, result: 'secret '.repeat(100) });
    const env = (i: number) =>
      `<details class='tool-usage-details' markdown='1'>\n<summary><code>read(p=${i})→&quot;secret secret…&quot;</code></summary>\n\n\`\`\`json\n${JSON.stringify(rec(i), null, 2)}\n\`\`\`\n\n</details>`;
    const mk = (): Dialog => {
      const d = new Dialog([], { name: 'l' });
      d.mkMessage('q', { type: 'prompt', id: 'p', reply: [0, 1, 2, 3].map(env).join('\n\n') });
      return d;
    };
    const clean = mk();
    expect(microCompactDialog(clean).cleared.map((c) => c.callId)).toEqual(['l0']);
    expect(clean.messages[0]!.reply.startsWith("<details class='tool-usage-details' markdown='1'>\n<summary><code>read(p=0)→[cleared]</code></summary>")).toBe(
      true,
    );
    expect(results(clean)[0]).toBe('[Previous: used read · 700 B cleared]');
    const ref = mk();
    microCompactDialog(ref, { profile: 'reference' });
    expect(
      ref.messages[0]!.reply.startsWith(
        "<details class='tool-usage-details' markdown='1'>\n<summary><code>read(p=0)→&quot;secret secret…&quot;</code></summary>",
      ),
    ).toBe(true);
  });

  it('bad keepTools and profile are typed errors', () => {
    expect(() => microCompactDialog(dialog(), { keepTools: 'memory' as unknown as string[] })).toThrow(
      'microCompactDialog: keepTools must be an iterable of strings',
    );
    expect(() => microCompactDialog(dialog(), { profile: 'x' as 'clean' })).toThrow('microCompactDialog: profile must be "clean" or "reference", got x');
  });
});
