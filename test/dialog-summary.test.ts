/**
 * Summary compaction of dialogs (src/dialog-summary.ts): hand-made dialogs (pinned cells
 * hoisted, split on cell boundaries, skipped cells never sent, metadata recorded, ids kept),
 * refusals that leave the written notebook byte-identical, the DSL summariser, request
 * pre-compaction, planning for --check, and the HTTP summariser against a real local server on
 * 127.0.0.1 (success, HTTP 500, timeout, malformed JSON, a summary longer than its input).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dlg2compact } from '../src/dialog/compact.js';
import { REPLY_SEPARATOR } from '../src/chat/index.js';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { SUMMARY_META_KEY, planDialogSummary, summarizeDialog } from '../src/dialog/summarize.js';
import { buildDialogSummaryPrompt, dialogToSummaryMessages, dslSummarizer, httpDialogSummarizer, type DialogSummarizer } from '../src/dialog/summarizers.js';
import { dialogContextTokens, messageContextTokens, type CellTokenCounter as DialogTokenCounter } from '../src/dialog/measure.js';
import '../src/dialog/micro.js';
import { BudgetError, InvalidArgumentError } from '../src/errors.js';
import { dumpsIpynb, readsIpynb, validateDialog } from '../src/notebook/index.js';
import { buildCompactionSummaryPrompt } from '../src/strategies/summary.js';
import { SummarizerError } from '../src/strategies/summarizer-http.js';
import { lenToks } from '../src/tokens/index.js';
import { schemaErrors } from './nbschema.js';
import { HAVE_SHARED, shared } from './support.js';
import { completion, startLocalServer, type LocalServer } from './local-server.js';

const TOOL_REPLY =
  'It has ' +
  'columns '.repeat(40) +
  '\n\n```json {.tool}\n' +
  JSON.stringify({ id: 't1', name: 'bash', args: { cmd: 'ls' }, result: 'a.csv\n' + 'row,'.repeat(400) }, null, 2) +
  '\n```\n\nThat is all.';

/**
 * 9 cells; with keepRecent 3 the cut is at 6: the head is sys (pinned), n1, c1, p1, s1
 * (skipped), pin2 (pinned); the tail p2, c2, p3.
 */
function mkDialog(newIds: string[] = ['new1', 'new2', 'new3']): Dialog {
  const queue = [...newIds];
  const d = new Dialog([], { name: 'hand', newId: () => queue.shift() ?? 'exhausted' });
  d.mkMessage('You are terse.', { type: 'note', id: 'sys', pinned: true });
  d.mkMessage('Loading the data: ' + 'lorem ipsum '.repeat(150), { type: 'note', id: 'n1', meta: { tags: ['data'] } });
  d.mkMessage('import pandas as pd\ndf = pd.read_csv("a.csv")\nprint(len(df))', {
    type: 'code',
    id: 'c1',
    output: [{ output_type: 'stream', name: 'stdout', text: 'rows: 10\n' }],
  });
  d.mkMessage('What is in it?', { type: 'prompt', id: 'p1', reply: TOOL_REPLY });
  d.mkMessage('scratch notes ' + 'zzz '.repeat(50), { type: 'note', id: 's1', skipped: true });
  d.mkMessage('Remember: ids are opaque', { type: 'note', id: 'pin2', pinned: true });
  d.mkMessage('Plot it', { type: 'prompt', id: 'p2', reply: 'Done.' });
  d.mkMessage('x = 2', { type: 'code', id: 'c2' });
  d.mkMessage('Thanks', { type: 'prompt', id: 'p3', reply: 'You are welcome.' });
  return d;
}

/** A simple counter (UTF-16 units of request + reply; skipped cells 0) for hand-checkable totals. */
const chars: DialogTokenCounter = (m) => (m.skipped ? 0 : m.content.length + m.reply.length);

function fixed(text: string, label?: string): DialogSummarizer & { calls: Dialog[] } {
  const calls: Dialog[] = [];
  const f: DialogSummarizer & { calls?: Dialog[] } = (head: Dialog) => {
    calls.push(head);
    return text;
  };
  f.calls = calls;
  if (label !== undefined) f.label = label;
  return f as DialogSummarizer & { calls: Dialog[] };
}

const ids = (d: Dialog): string[] => d.messages.map((m) => m.id);
const HEADER = '[Conversation summary - 4 earlier cell(s) condensed]\n\n';
const TRAILER = '\n\nIf further detail is needed, read the complete transcript at: /tmp/full.ipynb';

describe('summarizeDialog on a hand-made dialog', () => {
  it('hoists pinned head cells, inserts one note, keeps the tail verbatim', async () => {
    const d = mkDialog();
    const kept = new Map(d.messages.map((m) => [m.id, m]));
    const before = d.messages.reduce((s, m) => s + chars(m), 0);
    const s = fixed('  The user loaded a.csv (10 rows).\n', 'test');
    const r = await d.summarize(s, { force: true, keepRecent: 3, countTokens: chars, sourcePath: '/tmp/full.ipynb', index: false });
    const content = HEADER + 'The user loaded a.csv (10 rows).' + TRAILER;
    const after = ['sys', 'pin2', 'p2', 'c2', 'p3'].reduce((n, id) => n + chars(kept.get(id)!), 0) + content.length;
    expect(r).toEqual({
      changed: true,
      replaced: ['n1', 'c1', 'p1', 's1'],
      summaryId: 'new1',
      tokensBefore: before,
      tokensAfter: after,
      summary: content,
    });
    expect(ids(d)).toEqual(['sys', 'pin2', 'new1', 'p2', 'c2', 'p3']);
    for (const id of ['sys', 'pin2', 'p2', 'c2', 'p3']) expect(d.get(id)).toBe(kept.get(id));
    const note = d.get('new1')!;
    expect(note.type).toBe('note');
    expect(note.content).toBe(content);
    expect(note.skipped || note.pinned).toBe(false);
    expect(note.meta).toEqual({
      [SUMMARY_META_KEY]: {
        kind: 'summary',
        replaced: 4,
        ids: ['n1', 'c1', 'p1', 's1'],
        skipped_ids: ['s1'],
        source: '/tmp/full.ipynb',
        summarizer: 'test',
        tokens_before: before,
        tokens_after: after,
      },
    });
    // The summariser saw copies of the non-skipped head cells only.
    expect(s.calls.length).toBe(1);
    expect(ids(s.calls[0]!)).toEqual(['n1', 'c1', 'p1']);
    expect(s.calls[0]!.messages[0]).not.toBe(kept.get('n1'));
  });

  it('writes a valid notebook that reads back with the note and its metadata', async () => {
    const d = mkDialog();
    await d.summarize(fixed('Summary.'), { force: true, keepRecent: 3, index: false });
    const text = dumpsIpynb(d);
    if (HAVE_SHARED) expect(schemaErrors(text)).toBe('');
    const cell = (JSON.parse(text) as { cells: Array<{ id: string; cell_type: string; metadata: unknown; source: unknown }> }).cells[2]!;
    expect(cell.id).toBe('new1');
    expect(cell.cell_type).toBe('markdown');
    expect(cell.source).toEqual(['[Conversation summary - 4 earlier cell(s) condensed]\n', '\n', 'Summary.']);
    const meta = (cell.metadata as Record<string, Record<string, unknown>>)[SUMMARY_META_KEY]!;
    expect(meta.source).toBe(null);
    expect(meta.summarizer).toBe(null);
    expect(Object.keys(meta)).toEqual(['ids', 'kind', 'replaced', 'skipped_ids', 'source', 'summarizer', 'tokens_after', 'tokens_before']);
    const back = readsIpynb(text);
    expect(dumpsIpynb(back)).toBe(text);
    validateDialog(back);
  });

  it('default keepRecent is max(2, ceil(n/4)) cells; the split lands on cell boundaries', async () => {
    const d = mkDialog();
    const r = await summarizeDialog(d, fixed('S.'), { force: true });
    expect(r.replaced).toEqual(['n1', 'c1', 'p1', 's1']);
    const d2 = mkDialog();
    const r2 = await summarizeDialog(d2, fixed('S.'), { force: true, keepRecent: 5 });
    expect(r2.replaced).toEqual(['n1', 'c1', 'p1']);
    expect(ids(d2)).toEqual(['sys', 'new1', 's1', 'pin2', 'p2', 'c2', 'p3']);
  });

  it('a fresh id never collides with an existing cell id', async () => {
    const d = mkDialog(['sys', 'p3', 'fresh']);
    const r = await d.summarize(fixed('S.'), { force: true, keepRecent: 3 });
    expect(r.summaryId).toBe('fresh');
  });

  it('fires at floor(maxTokens * triggerRatio) and not below', async () => {
    const total = mkDialog().messages.reduce((s, m) => s + chars(m), 0);
    const at = Math.ceil(total / 0.9);
    const below = await summarizeDialog(mkDialog(), fixed('S.'), { maxTokens: at + 10, countTokens: chars, keepRecent: 3 });
    expect(below).toEqual({ changed: false, reason: 'not-needed', replaced: [], tokensBefore: total, tokensAfter: total });
    const fires = await summarizeDialog(mkDialog(), fixed('S.'), { maxTokens: Math.floor(total / 0.9), countTokens: chars, keepRecent: 3 });
    expect(fires.changed).toBe(true);
    const ratio = await summarizeDialog(mkDialog(), fixed('S.'), { maxTokens: total, triggerRatio: 1, countTokens: chars, keepRecent: 3 });
    expect(ratio.changed).toBe(true);
  });
});

describe('summarizeDialog refusals leave the dialog untouched', () => {
  const cases: Array<[string, DialogSummarizer, string]> = [
    ['empty summary', () => '', 'empty-summary'],
    ['blank summary', () => ' \n\t ', 'empty-summary'],
    ['non-string summary', (() => 42) as unknown as DialogSummarizer, 'empty-summary'],
    [
      'summariser throws',
      () => {
        throw new Error('no model');
      },
      'summarizer-failed',
    ],
    [
      'summariser rejects',
      async () => {
        throw new Error('offline');
      },
      'summarizer-failed',
    ],
    ['summary longer than the head', () => 'word '.repeat(5000), 'not-shrinking'],
    ['summary holding the reply separator', () => 'a' + REPLY_SEPARATOR + 'b', 'invalid-summary'],
  ];
  it.each(cases)('%s', async (_name, s, reason) => {
    const d = mkDialog();
    const bytes = dumpsIpynb(d);
    const arr = d.messages;
    const copy = [...arr];
    const r = await d.summarize(s, { force: true, keepRecent: 3 });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe(reason);
    expect(r.replaced).toEqual([]);
    expect(r.summaryId).toBeUndefined();
    expect(r.tokensAfter).toBe(r.tokensBefore);
    expect(d.messages).toBe(arr);
    expect(d.messages).toEqual(copy);
    expect(dumpsIpynb(d)).toBe(bytes);
    if (reason === 'summarizer-failed') expect(r.error).toBeInstanceOf(Error);
    if (reason === 'not-shrinking') expect(r.rejectedTokens).toBeGreaterThanOrEqual(r.tokensBefore);
  });

  it('too few cells, or a head of only pinned and skipped cells', async () => {
    const small = new Dialog([new Message('a', { id: 'a' }), new Message('b', { id: 'b' }), new Message('c', { id: 'c' })]);
    expect((await summarizeDialog(small, fixed('S.'), { force: true })).reason).toBe('not-needed');
    const d = new Dialog([
      new Message('sys', { id: 'a', pinned: true }),
      new Message('hidden', { id: 'b', skipped: true }),
      new Message('c', { id: 'c' }),
      new Message('d', { id: 'd' }),
    ]);
    const s = fixed('S.');
    const r = await summarizeDialog(d, s, { force: true, keepRecent: 2 });
    expect(r.reason).toBe('nothing-to-summarize');
    expect(s.calls.length).toBe(0);
    expect(ids(d)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a dialog changed while the summariser ran is not overwritten', async () => {
    const d = mkDialog();
    const s: DialogSummarizer = async () => {
      d.mkMessage('added meanwhile', { id: 'late' });
      return 'S.';
    };
    const r = await d.summarize(s, { force: true, keepRecent: 3 });
    expect(r.reason).toBe('dialog-changed');
    expect(ids(d)).toEqual(['sys', 'n1', 'c1', 'p1', 's1', 'pin2', 'p2', 'c2', 'p3', 'late']);
  });

  it('rejects bad arguments with typed errors', async () => {
    await expect(summarizeDialog(mkDialog(), null, {})).rejects.toThrow(InvalidArgumentError);
    await expect(summarizeDialog(mkDialog(), null, { force: true, maxRequestTokens: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(summarizeDialog(mkDialog(), null, { force: true, countTokens: () => 1.5 })).rejects.toThrow(InvalidArgumentError);
    await expect(summarizeDialog(mkDialog(), null, { force: true, sourcePath: 3 as unknown as string })).rejects.toThrow(InvalidArgumentError);
    await expect(summarizeDialog({} as Dialog, null, { force: true })).rejects.toThrow(InvalidArgumentError);
    await expect(summarizeDialog(mkDialog(), 'dsl' as unknown as DialogSummarizer, { force: true })).rejects.toThrow(InvalidArgumentError);
  });
});

describe('the default DSL summariser and the default counter', () => {
  it('messageContextTokens counts what the AI sees; skipped cells count 0', () => {
    const d = mkDialog();
    const c1 = d.get('c1')!;
    expect(messageContextTokens(c1)).toBe(lenToks(c1.content) + lenToks(c1.aiOutput));
    const p1 = d.get('p1')!;
    expect(messageContextTokens(p1)).toBe(lenToks(p1.content) + lenToks(p1.reply));
    expect(messageContextTokens(d.get('s1')!)).toBe(0);
    expect(dialogContextTokens(d)).toBe(d.messages.reduce((s, m) => s + messageContextTokens(m), 0));
    expect(() => messageContextTokens({} as Message)).toThrow(InvalidArgumentError);
  });

  it('summarises the head as the compact DSL (dlg2compact) of its visible cells', async () => {
    const d = mkDialog();
    const head = new Dialog(['n1', 'c1', 'p1'].map((id) => d.get(id)!.clone()));
    // Rendered evenly: the verbatim tail, not the head, is the recent part (no recency gradient).
    const dsl = dlg2compact(head, { recency: false });
    expect(dsl).not.toBe(dlg2compact(head));
    const r = await summarizeDialog(d, null, { force: true, keepRecent: 3, sourcePath: '/tmp/full.ipynb' });
    expect(r.changed).toBe(true);
    expect(d.get(r.summaryId!)!.content).toBe(HEADER + dsl + TRAILER);
    expect((d.get(r.summaryId!)!.meta[SUMMARY_META_KEY] as Record<string, unknown>).summarizer).toBe('dsl');
    expect(r.tokensAfter).toBe(dialogContextTokens(d));
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
  });

  it('takes a policy', async () => {
    const d = mkDialog();
    const head = new Dialog(['n1', 'c1', 'p1'].map((id) => d.get(id)!.clone()));
    const policy = { userToks: 20, asstToks: 10, callToks: 20, resultToks: 5 };
    await summarizeDialog(d, dslSummarizer(policy), { force: true, keepRecent: 3 });
    expect(d.messages[2]!.content).toBe(HEADER + dlg2compact(head, { ...policy, recency: false }));
    expect(() => dslSummarizer({ userToks: -1 })).toThrow(InvalidArgumentError);
  });

  it('planDialogSummary predicts the run exactly with an offline summariser, changing nothing', async () => {
    const d = mkDialog();
    const bytes = dumpsIpynb(d);
    const opts = { force: true, keepRecent: 3, sourcePath: '/tmp/full.ipynb' };
    const plan = planDialogSummary(d, null, opts);
    expect(dumpsIpynb(d)).toBe(bytes);
    const r = await summarizeDialog(d, null, opts);
    expect(plan).toEqual({ wouldChange: true, replacedIds: r.replaced, tokensBefore: r.tokensBefore, estimatedTokensAfter: r.tokensAfter });
    // Planning drew nothing from the dialog's id source.
    expect(r.summaryId).toBe('new1');
  });

  it('planDialogSummary: refusals, and no estimate for an online summariser', () => {
    const d = mkDialog();
    const before = dialogContextTokens(d);
    expect(planDialogSummary(d, null, { maxTokens: 10 ** 9 })).toEqual({ wouldChange: false, reason: 'not-needed', replacedIds: [], tokensBefore: before });
    expect(
      planDialogSummary(
        d,
        Object.assign(() => 'x '.repeat(5000), { offline: true }),
        { force: true, keepRecent: 3 },
      ),
    ).toEqual({
      wouldChange: false,
      reason: 'not-shrinking',
      replacedIds: [],
      tokensBefore: before,
    });
    const online: DialogSummarizer = async () => 'S.';
    expect(planDialogSummary(d, online, { force: true, keepRecent: 3 })).toEqual({
      wouldChange: true,
      replacedIds: ['n1', 'c1', 'p1', 's1'],
      tokensBefore: before,
    });
  });
});

describe('summary requests: rendering and pre-compaction', () => {
  it('renders the head as planner messages', () => {
    const d = mkDialog();
    const head = new Dialog(['n1', 'c1', 'p1', 's1'].map((id) => d.get(id)!.clone()));
    const c1 = d.get('c1')!;
    expect(dialogToSummaryMessages(head)).toEqual([
      { id: 'n1', type: 'context', text: d.get('n1')!.content },
      { id: 'c1', type: 'user', text: '```python\n' + c1.content + '\n```\nOutput:\n' + c1.aiOutput },
      { id: 'p1', type: 'user', text: 'What is in it?' },
      {
        id: 'p1',
        type: 'bot',
        text: 'It has ' + 'columns '.repeat(39) + 'columns\n[tool call] bash({"cmd": "ls"})\n[tool result] a.csv\n' + 'row,'.repeat(400) + '\nThat is all.',
      },
    ]);
  });

  it('sends the head whole when it fits, else the DSL, else a cut DSL; never over budget', () => {
    const d = mkDialog();
    const head = new Dialog(['n1', 'c1', 'p1'].map((id) => d.get(id)!.clone()));
    const full = buildCompactionSummaryPrompt(dialogToSummaryMessages(head));
    expect(buildDialogSummaryPrompt(head)).toEqual({ prompt: full, level: 'full', tokens: lenToks(full) });
    expect(buildDialogSummaryPrompt(head, { maxRequestTokens: lenToks(full) }).level).toBe('full');
    const dsl = buildDialogSummaryPrompt(head, { maxRequestTokens: lenToks(full) - 1 });
    expect(dsl.level).toBe('dsl-0');
    expect(dsl.prompt).toBe(buildCompactionSummaryPrompt([{ type: 'context', text: dlg2compact(head, { recency: false }) }]));
    const instructions = lenToks(buildCompactionSummaryPrompt([{ type: 'context', text: '' }]));
    for (const max of [instructions + 1, instructions + 7, instructions + 40]) {
      const cut = buildDialogSummaryPrompt(head, { maxRequestTokens: max });
      expect(cut.level).toBe('truncated');
      expect(cut.tokens).toBe(lenToks(cut.prompt));
      expect(cut.tokens).toBeLessThanOrEqual(max);
    }
    const withPrefix = buildDialogSummaryPrompt(head, { maxRequestTokens: instructions + 60, prefix: 'You summarise. '.repeat(5) });
    expect(withPrefix.tokens).toBe(lenToks('You summarise. '.repeat(5) + withPrefix.prompt));
    expect(withPrefix.tokens).toBeLessThanOrEqual(instructions + 60);
    expect(() => buildDialogSummaryPrompt(head, { maxRequestTokens: 10 })).toThrow(BudgetError);
    expect(() => buildDialogSummaryPrompt(head, { maxRequestTokens: -5 })).toThrow(InvalidArgumentError);
  });
});

// ---------------------------------------------------------------------------------------------
// Real dialogs

describe.skipIf(!HAVE_SHARED)('summarizeDialog (DSL) on real dialogs', () => {
  // Dialogs with pinned cells (010, 013, 033), skipped cells (004, 033), and large ones.
  it.each(['001', '004', '010', '013', '014', '033'])('dialog %s', async (name) => {
    const text = readFileSync(shared('conformance', 'dialogs', `${name}.ipynb`), 'utf8');
    const d = readsIpynb(text, name);
    const orig = d.messages.slice();
    const n = orig.length;
    const cut = n - Math.max(2, Math.ceil(n / 4));
    const head = orig.slice(0, cut).filter((m) => !m.pinned);
    const hoisted = orig.slice(0, cut).filter((m) => m.pinned);
    const r = await summarizeDialog(d, null, { force: true, sourcePath: `${name}.full.ipynb` });
    expect(r.changed).toBe(true);
    expect(r.replaced).toEqual(head.map((m) => m.id));
    expect(ids(d)).toEqual([...hoisted.map((m) => m.id), r.summaryId, ...orig.slice(cut).map((m) => m.id)]);
    expect(r.tokensBefore).toBe(orig.reduce((s, m) => s + messageContextTokens(m), 0));
    expect(r.tokensAfter).toBe(dialogContextTokens(d));
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
    const meta = d.get(r.summaryId!)!.meta[SUMMARY_META_KEY] as Record<string, unknown>;
    expect(meta.skipped_ids).toEqual(head.filter((m) => m.skipped).map((m) => m.id));
    expect(meta.source).toBe(`${name}.full.ipynb`);
    // Every kept cell is written exactly as before (as the writer writes the unchanged dialog).
    const out = dumpsIpynb(d);
    expect(schemaErrors(out)).toBe('');
    const before = new Map((JSON.parse(dumpsIpynb(readsIpynb(text, name))) as { cells: Array<{ id: string }> }).cells.map((c) => [c.id, c]));
    for (const c of (JSON.parse(out) as { cells: Array<{ id: string }> }).cells) {
      if (c.id !== r.summaryId) expect(c).toEqual(before.get(c.id));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The HTTP summariser against a real local server

interface Seen {
  path: string;
  auth: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }> };
}

describe('httpDialogSummarizer against a local server', () => {
  let server: LocalServer;
  let base = '';
  const seen: Seen[] = [];
  beforeAll(async () => {
    server = await startLocalServer((path, body, req) => {
      seen.push({ path, auth: req.headers.authorization, body: body as Seen['body'] });
      const mode = path.split('/')[1];
      if (mode === 'ok') return { status: 200, body: completion('Short summary of the head.') };
      if (mode === 'fail') return { status: 500, body: '{"error": "boom"}' };
      if (mode === 'bad') return { status: 200, body: '{"choices": [' };
      if (mode === 'long') return { status: 200, body: completion('blah '.repeat(20000)) };
      if (mode === 'hang') return null; // never answers; the client times out
      return { status: 404, body: '{}' };
    });
    base = server.base;
  });
  afterAll(() => server.close());

  const env = (mode: string): Record<string, string> => ({
    DLG_COMPACT_BASE_URL: `${base}/${mode}/v1`,
    DLG_COMPACT_MODEL: 'test-model',
    DLG_COMPACT_API_KEY: 'sk-test',
  });

  it('success: the summary replaces the head; the request carries the summary prompt', async () => {
    const d = mkDialog();
    const head = new Dialog(['n1', 'c1', 'p1'].map((id) => d.get(id)!.clone()));
    seen.length = 0;
    const r = await d.summarize(httpDialogSummarizer({ env: env('ok') }), { force: true, keepRecent: 3 });
    expect(r.changed).toBe(true);
    // An LLM summary ends with the index of what it replaced (the code cell and the call).
    expect(d.get(r.summaryId!)!.content).toBe(HEADER + 'Short summary of the head.\n\n[Index of what this summary replaced]\n- #_c1\n- ! ls');
    expect((d.get(r.summaryId!)!.meta[SUMMARY_META_KEY] as Record<string, unknown>).summarizer).toBe('http:test-model');
    expect(seen.length).toBe(1);
    expect(seen[0]!.path).toBe('/ok/v1/chat/completions');
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body.model).toBe('test-model');
    expect(seen[0]!.body.messages).toEqual([{ role: 'user', content: buildDialogSummaryPrompt(head).prompt }]);
  });

  it('explicit options win over env; OPENAI_* variables are the fallback', async () => {
    seen.length = 0;
    const s = httpDialogSummarizer({
      baseUrl: `${base}/ok/v1`,
      model: 'explicit',
      env: { OPENAI_BASE_URL: `${base}/fail/v1`, OPENAI_MODEL: 'env-model', OPENAI_API_KEY: 'k2' },
    });
    expect(s.label).toBe('http:explicit');
    expect((await summarizeDialog(mkDialog(), s, { force: true, keepRecent: 3 })).changed).toBe(true);
    expect(seen[0]!.body.model).toBe('explicit');
    expect(seen[0]!.auth).toBe('Bearer k2');
    expect(() => httpDialogSummarizer({ env: {} })).toThrow(InvalidArgumentError);
    expect(() => httpDialogSummarizer()).toThrow(InvalidArgumentError);
    expect(() => httpDialogSummarizer({ model: 'm', env: 'x' as unknown as Record<string, string> })).toThrow(InvalidArgumentError);
  });

  const failures: Array<[string, string, Record<string, unknown>, string]> = [
    ['HTTP 500', 'fail', {}, 'http'],
    ['timeout', 'hang', { timeoutMs: 300 }, 'timeout'],
    ['malformed JSON', 'bad', {}, 'malformed'],
  ];
  it.each(failures)('%s: refused, the notebook stays byte-identical', async (_n, mode, extra, kind) => {
    const d = mkDialog();
    const bytes = dumpsIpynb(d);
    const r = await d.summarize(httpDialogSummarizer({ env: env(mode), ...extra }), { force: true, keepRecent: 3 });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe('summarizer-failed');
    expect(r.error).toBeInstanceOf(SummarizerError);
    expect((r.error as SummarizerError).kind).toBe(kind);
    if (kind === 'http') expect((r.error as SummarizerError).status).toBe(500);
    expect(dumpsIpynb(d)).toBe(bytes);
  });

  it('a summary longer than its input is refused', async () => {
    const d = mkDialog();
    const bytes = dumpsIpynb(d);
    const r = await d.summarize(httpDialogSummarizer({ env: env('long') }), { force: true, keepRecent: 3 });
    expect(r.changed).toBe(false);
    expect(r.reason).toBe('not-shrinking');
    expect(r.rejectedTokens).toBeGreaterThan(r.tokensBefore);
    expect(dumpsIpynb(d)).toBe(bytes);
  });

  it('an oversized head is pre-compacted so the request fits maxRequestTokens', async () => {
    const d = mkDialog();
    d.get('n1')!.content = 'Very long notes: ' + 'alpha beta gamma delta '.repeat(3000);
    const head = new Dialog(['n1', 'c1', 'p1'].map((id) => d.get(id)!.clone()));
    expect(lenToks(buildDialogSummaryPrompt(head).prompt)).toBeGreaterThan(10000);
    for (const [own, theirs, want] of [
      [undefined, 2500, 2500],
      [2500, undefined, 2500],
      [4000, 700, 700],
      [700, 4000, 700],
    ] as const) {
      seen.length = 0;
      const dd = mkDialog();
      dd.get('n1')!.content = d.get('n1')!.content;
      const r = await dd.summarize(httpDialogSummarizer({ env: env('ok'), maxRequestTokens: own }), { force: true, keepRecent: 3, maxRequestTokens: theirs });
      expect(r.changed).toBe(true);
      expect(seen.length).toBe(1);
      const prompt = seen[0]!.body.messages[0]!.content;
      expect(lenToks(prompt)).toBeLessThanOrEqual(want);
      expect(prompt).toBe(buildDialogSummaryPrompt(head, { maxRequestTokens: want }).prompt);
      expect(prompt).toContain('[CONTEXT]: ');
    }
  });
});

describe('the index of replaced cells', () => {
  it('lists the paths a call touched as the evidence index finds them: no MIME types, attributes or dotted ends', async () => {
    const { replacedIndex } = await import('../src/dialog/summary-note.js');
    const tool = {
      id: 'toolu_01',
      name: 'bash',
      args: { cmd: 'curl -H "Accept: application/octet-stream" -o out/data.json x; cat headers/metadata. ; echo {self.html} m.py' },
      result: 'ok',
    };
    const reply = `Fetching.\n\n\`\`\`json {.tool}\n${JSON.stringify(tool, null, 2)}\n\`\`\`\n\nDone.`;
    const d = new Dialog([], { name: 'x' });
    d.mkMessage('fetch it', { type: 'prompt', reply });
    expect(replacedIndex(d.messages, 200).split('\n').at(-1)).toBe('- paths: out/data.json, m.py');
  });
});
