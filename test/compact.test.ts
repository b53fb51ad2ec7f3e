/**
 * Dialog compaction (src/compact.ts) against the reference: the compact_reply cases of
 * conformance/reply.json (copied to test/fixtures/reply.json), and for every real dialog of
 * ../shared/conformance/dialogs: the in-place compaction written back equals NNN.compact.ipynb,
 * the flat document equals NNN.flat.md, both byte for byte; compacting twice changes nothing;
 * and what is written passes the nbformat 4.5 schema.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../src/python/index.js';
import { compactReply, isCompactedGiven, isCompactedReply, nextCutMark } from '../src/dsl/compact-reply.js';
import { resolvePolicy } from '../src/dsl/render.js';
import { fmt2hist } from '../src/chat/index.js';
import type { Policy } from '../src/dsl/render.js';
import { dialogContextTokens, measureDialog } from '../src/dialog/measure.js';
import { compactCode, compactDialog, dlg2compact, flatMemo, measureFlat, withFlatIndex } from '../src/dialog/compact.js';
import { flatNotebook } from '../src/notebook/flat-notebook.js';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { dumpsIpynb, readsIpynb, readsIpynbBytes, validateDialog } from '../src/notebook/index.js';
import { lenToks } from '../src/tokens/index.js';
import { schemaErrors } from './nbschema.js';
import { FIXTURES, HAVE_SHARED, ROOT, shared, type ConformanceCase } from './support.js';

type Case = ConformanceCase;

const CASES = (parseJson(readFileSync(join(FIXTURES, 'reply.json'), 'utf8')) as Case[]).filter((c) => c.fn === 'compact_reply');

describe('compact_reply cases of reply.json', () => {
  it('has all 129 cases', () => expect(CASES.length).toBe(129));
  it.each(CASES.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const [reply, ...budgets] = c.args as [string, ...unknown[]];
    // The fixture is read losslessly: budgets arrive as LosslessNumber values.
    const [asst, call, result] = budgets.map((b) => Number(b));
    const policy: Partial<Policy> = { profile: 'reference' };
    if (asst !== undefined) policy.asstToks = asst;
    if (call !== undefined) policy.callToks = call;
    if (result !== undefined) policy.resultToks = result;
    const mark = (c.kwargs?.mark as string | undefined) ?? '';
    expect(compactReply(reply, policy, { mark })).toBe(c.expected);
  });
});

const _SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

describe('compaction of a small dialog', () => {
  const reply =
    'I will look.\n\n```json {.tool}\n' +
    JSON.stringify({ id: 't1', name: 'Bash', args: { command: 'ls -la\nwc -l *.csv' }, result: 'a.csv\nb.csv\n' + 'x'.repeat(4000) }, null, 2) +
    '\n```\n\nDone: two files.';
  const make = (): Dialog => {
    const d = new Dialog([], { name: 'small' });
    d.mkMessage('# Notes', { type: 'note', id: 'n1' });
    d.mkMessage('print(2)', { type: 'code', id: 'c1', output: [{ output_type: 'stream', name: 'stdout', text: '2\n' }] });
    d.mkMessage('How many CSV files?', { type: 'prompt', id: 'p1', reply });
    d.mkMessage('skipped note', { type: 'note', id: 'n2', skipped: true });
    return d;
  };

  it('renders a reply bare and marked', () => {
    const lines = compactReply(reply).split('\n');
    expect(lines.length).toBe(4);
    expect(lines[0]).toBe('I will look.');
    expect(lines[1]).toBe('! ls -la ¶ wc -l *.csv');
    expect(lines[2]!.startsWith('> a.csv ¶ b.csv ¶ xxx')).toBe(true);
    expect(lines[2]!.includes('x … x')).toBe(true);
    expect(lenToks(lines[2]!)).toBeLessThanOrEqual(35 + 2);
    expect(lines[3]).toBe('Done: two files.');
    expect(compactReply(reply, {}, { mark: '»' }).split('\n')[0]).toBe('» I will look. »');
  });

  it('compacts prompts in place, keeping ids and other cells', () => {
    const d = make();
    const ids = d.messages.map((m) => m.id);
    d.compact();
    expect(d.messages.map((m) => m.id)).toEqual(ids);
    expect(d.get('p1')!.content).toBe('How many CSV files?');
    expect(d.get('p1')!.reply).toBe(compactReply(reply));
    expect(d.get('n1')!.content).toBe('# Notes');
    expect(d.get('c1')!.content).toBe('print(2)');
    expect(isCompactedReply(d.get('p1')!.reply)).toBe(true);
    expect(isCompactedReply(reply)).toBe(false);
    expect(isCompactedReply('Plain prose … with a cut')).toBe(true);
    expect(isCompactedReply('> a quote\nwith prose')).toBe(false);
    validateDialog(d);
  });

  it('finds cut marks by their ellipsis, spaces checked beside it', () => {
    const s = '… a…b … c  …  d é … ';
    const at: number[] = [];
    for (let k = nextCutMark(s, 0); k >= 0; k = nextCutMark(s, k + 3)) at.push(k);
    expect(at).toEqual([5, 10, 17]);
    for (let from = 0; from <= s.length; from++) expect(nextCutMark(s, from)).toBe(s.indexOf(' … ', from));
    expect(nextCutMark('plain ASCII ... text', 0)).toBe(-1);
    expect(nextCutMark(' … ', 0)).toBe(0);
    expect(nextCutMark(' … ', 1)).toBe(-1);
    expect(nextCutMark('😀 … 😀', 0)).toBe(2);
    expect(isCompactedReply('é prose…with no cut mark')).toBe(false);
    expect(isCompactedReply('é prose … with a cut')).toBe(true);
  });

  it('parses a rendering for tool blocks only when it may hold one', () => {
    const p = resolvePolicy({});
    let parses = 0;
    const check = (text: string): boolean =>
      isCompactedGiven(text, p, () => {
        parses++;
        return fmt2hist(text);
      });
    expect(check('▶ f()\n> r')).toBe(true);
    expect(check('é prose … cut')).toBe(true);
    expect(parses).toBe(0);
    // A think span whose removal joins the info string, and a legacy envelope: both are calls.
    const joined = '▶ f()\n> r\n```json {.to<!--think_start--><!--think_end-->ol}\n{"id": "x", "name": "f", "args": {}}\n```';
    const legacy =
      "▶ f()\n> r\n<details class='tool-usage-details'>\n\n```json\n" +
      '{"id": "x", "call": {"function": "f", "arguments": {}}, "result": "ok"}\n```\n\n</details>';
    const current = '▶ f()\n> r\n```json {.tool}\n{"id": "x", "name": "f", "args": {}}\n```';
    for (const t of [joined, legacy, current]) {
      expect(
        fmt2hist(t).some((m) => m.role === 'tool'),
        t,
      ).toBe(true);
      expect(check(t), t).toBe(false);
    }
    expect(parses).toBe(3);
    // Markers that hold no block still parse, and the rendering is then recognised.
    expect(check('▶ f()\n> r <!--think_start--> json {.tool}')).toBe(true);
    expect(parses).toBe(4);
  });

  it('is idempotent when prose is split by a dropped server call (two cut pieces)', () => {
    const prose = (w: string) => Array.from({ length: 120 }, (_, i) => `${w}${i}`).join(' ');
    const server = '```json {.tool}\n' + JSON.stringify({ id: 's1', name: 'web_search', args: { q: 'x' }, result: 'r', server: true }) + '\n```';
    const d = new Dialog([], { name: 'srv' });
    d.mkMessage('Search, please.', { type: 'prompt', id: 'p1', reply: `${prose('alpha')}\n\n${server}\n\n${prose('beta')}` });
    d.compact();
    const once = d.get('p1')!.reply;
    const pieces = once.split('\n');
    expect(pieces.length).toBe(2);
    expect(pieces.every((x) => x.includes(' … ') && lenToks(x) <= 151)).toBe(true);
    expect(lenToks(once)).toBeGreaterThan(158); // more than one budget: the old check missed it
    expect(isCompactedReply(once)).toBe(true);
    d.compact();
    expect(d.get('p1')!.reply).toBe(once);
  });

  it('renders code cells with id, fence and result line', () => {
    expect(compactCode(make().get('c1')!)).toBe('#_c1\n```python\nprint(2)\n```\n> 2');
  });

  it('renders the flat document with one turn per prompt, skipping skipped cells', () => {
    const doc = dlg2compact(make());
    // The only turn is the latest: its two results share the recent pool, 8 × 35 tokens each (rule 32).
    expect(doc).toBe('§ # Notes §\n#_c1\n```python\nprint(2)\n```\n> 2\n§ How many CSV files? §\n' + compactReply(reply, { resultToks: 280 }, { mark: '»' }));
    expect(dlg2compact(make(), { profile: 'reference' })).toBe(
      '§ # Notes §\n#_c1\n```python\nprint(2)\n```\n> 2\n§ How many CSV files? §\n' + compactReply(reply, { profile: 'reference' }, { mark: '»' }),
    );
    expect(doc.includes('skipped note')).toBe(false);
  });

  it('measures classes before and after', () => {
    const d = make();
    const before = measureDialog(d);
    expect(before.messages).toBe(4);
    expect(before.prompts).toBe(1);
    expect(before.toolCalls).toBe(1);
    // Skipped cells count 0: the measure is what the model reads (the summary trigger's count).
    expect(before.tokens.user).toBe(lenToks('# Notes') + lenToks('How many CSV files?'));
    expect(before.tokens.total).toBe(dialogContextTokens(d));
    expect(before.tokens.assistant + before.tokens.calls + before.tokens.results).toBe(lenToks(reply));
    expect(before.tokens.code).toBe(lenToks('print(2)') + lenToks('2'));
    expect(before.tokens.results).toBe(lenToks('a.csv\nb.csv\n' + 'x'.repeat(4000)));
    const flat = measureFlat(d);
    expect(flat.text).toBe(dlg2compact(d));
    expect(flat.tokens.total).toBe(lenToks(flat.text));
    expect(flat.tokens.results).toBeLessThan(before.tokens.results);
  });

  it('wraps the flat document in a one-raw-cell notebook', () => {
    const d = make();
    const nb = flatNotebook(d);
    expect(nb.messages.length).toBe(1);
    expect(nb.messages[0]!.type).toBe('raw');
    expect(nb.messages[0]!.content).toBe(dlg2compact(d));
    // The id is the start of the document's SHA-256 (computed independently with node:crypto).
    expect(nb.messages[0]!.id).toBe(createHash('sha256').update(dlg2compact(d), 'utf8').digest('hex').slice(0, 8));
    expect(flatNotebook(d, {}, 'abc').messages[0]!.id).toBe('ba7816bf');
    const text = dumpsIpynb(nb);
    expect(readsIpynb(text).messages[0]!.content).toBe(dlg2compact(d));
    if (HAVE_SHARED) expect(schemaErrors(text)).toBe('');
  });

  it('leaves non-prompt messages alone', () => {
    const m = new Message('A curated note', { type: 'note' });
    expect(m.compact()).toBe(m);
    expect(m.content).toBe('A curated note');
  });
});

interface ManifestEntry {
  name: string;
}
/** The reference profile: what the conformance data pins. */
const REF = { profile: 'reference' } as const;
const dir = (...p: string[]): string => shared('conformance', 'dialogs', ...p);
const manifest: ManifestEntry[] = HAVE_SHARED ? (JSON.parse(readFileSync(dir('manifest.json'), 'utf8')) as ManifestEntry[]) : [];

describe.skipIf(!HAVE_SHARED)('real dialogs: in-place compaction equals NNN.compact.ipynb', () => {
  it.each(manifest.map((e) => [e.name] as const))('%s', (name) => {
    const d = readsIpynbBytes(readFileSync(dir(`${name}.ipynb`)), `${name}.ipynb`);
    const out = dumpsIpynb(d.compact(REF));
    const expected = readFileSync(dir(`${name}.compact.ipynb`), 'utf8');
    expect(out === expected).toBe(true);
    expect(schemaErrors(out)).toBe('');
    validateDialog(d);
    // Compacting again with the same policy changes nothing.
    expect(dumpsIpynb(readsIpynb(out, name).compact(REF)) === out).toBe(true);
  });
});

describe.skipIf(!HAVE_SHARED)('real dialogs: flat document equals NNN.flat.md', () => {
  it.each(manifest.map((e) => [e.name] as const))('%s', (name) => {
    const d = readsIpynbBytes(readFileSync(dir(`${name}.ipynb`)), `${name}.ipynb`);
    const expected = readFileSync(dir(`${name}.flat.md`), 'utf8');
    const doc = dlg2compact(d, REF);
    expect(doc === expected).toBe(true);
    expect(compactDialog(d.clone(), REF).messages.length).toBe(d.messages.length);
  });
});

describe('a flat memo (one document: body, evidence index, fit probes)', () => {
  const demo = () => readsIpynbBytes(readFileSync(join(ROOT, 'notebooks', 'demo.ipynb')), 'demo.ipynb');
  it('keeps the parse of each prompt reply and the clean view of each rich output, and renders the same', () => {
    const d = demo();
    const memo = flatMemo();
    const body = dlg2compact(d, {}, memo);
    // The demo has 4 prompts (cells 3, 6, 9, 12) and one code cell with an HTML output (cell 7).
    expect([memo.replies.size, memo.views.size]).toEqual([4, 1]);
    expect(body).toBe(dlg2compact(demo()));
    const prompt = d.messages[3]!;
    expect(memo.replies.get(prompt)).toEqual(fmt2hist(prompt.reply));
    expect(withFlatIndex(d, body, 40, memo)).toBe(withFlatIndex(demo(), body, 40));
    expect(measureFlat(d, {}, memo)).toEqual(measureFlat(demo()));
  });
});
