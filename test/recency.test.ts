/**
 * The recency gradient of clean flat documents (docs/differences.md rule 32): which budgets
 * each cell gets by the age of its turn, what `recency: false` and the reference profile do.
 */
import { describe, expect, it } from 'vitest';
import { compactCode, dlg2compact, measureFlat } from '../src/dialog/compact.js';
import { fmt2hist } from '../src/chat/index.js';
import { Dialog } from '../src/dialog/dialog.js';
import { recencyPolicies } from '../src/dialog/recency.js';
import { compactPolicy } from '../src/dsl/profile.js';
import { thrown } from './support.js';

const tool = (id: string, result: string): string => '```json {.tool}\n' + JSON.stringify({ id, name: 'Bash', args: { command: 'ls' }, result }) + '\n```';

/** Six turns: the first with one code cell, the middle ones with one each, the latest two with many results. */
function six(): Dialog {
  const d = new Dialog([], { name: 'six' });
  const out = (t: number) => [
    { output_type: 'stream', name: 'stdout', text: `${Array.from({ length: 200 }, (_, i) => `row ${t}.${i} = ${i * 7}`).join('\n')}\n` },
  ];
  for (let t = 0; t < 4; t++) {
    d.mkMessage(`print(${t})`, { type: 'code', id: `c${t}`, output: out(t) });
    d.mkMessage(`Question ${t}?`, { type: 'prompt', id: `p${t}`, reply: `Answer ${t}.` });
  }
  // Turn 4 (age 1): a reply with 50 tool results; turn 5 (age 0, open): one code cell.
  d.mkMessage('Run them all.', { type: 'prompt', id: 'p4', reply: Array.from({ length: 50 }, (_, i) => tool(`t${i}`, `ok ${i}`)).join('\n\n') });
  d.mkMessage('print(5)', { type: 'code', id: 'c5', output: out(5) });
  return d;
}

const budgets = (d: Dialog) => recencyPolicies(d, { ...compactPolicy }).map((p) => (p ? [p.asstToks, p.resultToks] : null));

describe('recencyPolicies', () => {
  it("takes the replies' parses from the caller, for the prompts whose results it counts", () => {
    const d = six();
    const asked: string[] = [];
    const got = recencyPolicies(d, { ...compactPolicy }, (m) => {
      asked.push((m as { id: string }).id);
      return fmt2hist(m.reply);
    });
    expect(got).toEqual(recencyPolicies(d, { ...compactPolicy }));
    // Turns 3-5 are of ages 2, 1 and 0 (p3, p4; turn 5 has no prompt), p0 is the first turn's;
    // p1 and p2 are older, their results not counted.
    expect(asked).toEqual(['p0', 'p3', 'p4']);
  });

  it('gives each cell the budgets of its turn', () => {
    expect(budgets(six())).toEqual([
      // first turn (age 5): its one result gets 8 × 35 (pool 64 / 1, at most 8); prose keeps 150
      [150, 280],
      [150, 280],
      // ages 4 and 3: older turns, prose at 0.58 × 150, results at 35
      [87, 35],
      [87, 35],
      [87, 35],
      [87, 35],
      // age 2: pool 24 / 1 result, at most 2 × 35
      [150, 70],
      [150, 70],
      // age 1: 50 results share 200 × 35: 4 × 35 each
      [150, 140],
      // age 0: one result, at most 8 × 35
      [150, 280],
    ]);
  });

  it('counts a closed last turn as the latest, and leaves out skipped cells', () => {
    const d = new Dialog([], { name: 'two' });
    d.mkMessage('print(1)', { type: 'code', id: 'c1', output: [{ output_type: 'stream', name: 'stdout', text: '1\n' }] });
    d.mkMessage('skipped', { type: 'note', id: 'n1', skipped: true });
    d.mkMessage('Why?', { type: 'prompt', id: 'p1', reply: 'Because.' });
    expect(budgets(d)).toEqual([[150, 280], null, [150, 280]]);
  });

  it('never gives a result less than the policy, and scales an explicit policy', () => {
    const d = new Dialog([], { name: 'many' });
    d.mkMessage('Go.', { type: 'prompt', id: 'p1', reply: Array.from({ length: 400 }, (_, i) => tool(`t${i}`, 'ok')).join('\n\n') });
    expect(recencyPolicies(d, { ...compactPolicy, resultToks: 10 })[0]!.resultToks).toBe(10);
    expect(recencyPolicies(d, { ...compactPolicy, resultToks: 0 })[0]!.resultToks).toBe(0);
  });
});

describe('flat documents with the gradient', () => {
  it('cut a middle turn at the base budget and the latest at eight times it', () => {
    const d = six();
    const doc = dlg2compact(d);
    expect(doc).toContain(compactCode(d.get('c2')!, { resultToks: 35 }));
    expect(doc).toContain(compactCode(d.get('c5')!, { resultToks: 280 }));
    expect(doc).toContain(compactCode(d.get('c0')!, { resultToks: 280 }));
    expect(doc).toContain(compactCode(d.get('c3')!, { resultToks: 70 }));
    expect(measureFlat(d).text).toBe(doc);
  });

  it('recency: false and the reference profile render every turn with the one policy', () => {
    const d = six();
    const even = dlg2compact(d, { recency: false });
    for (const id of ['c0', 'c2', 'c3', 'c5']) expect(even).toContain(compactCode(d.get(id)!));
    expect(dlg2compact(d, { profile: 'reference', recency: true })).toBe(dlg2compact(d, { profile: 'reference' }));
    expect(dlg2compact(d, { profile: 'reference' })).toContain(compactCode(d.get('c5')!, { profile: 'reference' }));
  });

  it('a bad recency value is a typed error naming the option', () => {
    const e = thrown(() => dlg2compact(six(), { recency: 'yes' as unknown as boolean })) as Error;
    expect(e.name).toBe('InvalidArgumentError');
    expect(e.message).toBe('dlg2compact: recency must be a boolean');
  });
});

describe('huge budgets', () => {
  it('scale to at most the largest safe integer', () => {
    const d = new Dialog([], { name: 'x' });
    d.mkMessage('print(1)', { type: 'code', id: 'c1', output: [{ output_type: 'stream', name: 'stdout', text: '1\n' }] });
    const max = Number.MAX_SAFE_INTEGER;
    expect(recencyPolicies(d, { ...compactPolicy, resultToks: max })[0]!.resultToks).toBe(max);
    expect(dlg2compact(d, { resultToks: max, asstToks: max })).toBe('#_c1\n```python\nprint(1)\n```\n> 1');
  });
});

describe('blank turns and malformed cells', () => {
  it('an empty code cell or empty prompts at the end do not take the latest turn', () => {
    const base = six();
    const want = budgets(base);
    const cell = new Dialog(base.messages.map((m) => m.clone()));
    cell.mkMessage('', { type: 'code', id: 'e1' });
    expect(budgets(cell)).toEqual([...want, [150, 280]]);
    const prompts = new Dialog(base.messages.map((m) => m.clone()));
    prompts.mkMessage('', { type: 'prompt', id: 'q1', reply: '' });
    prompts.mkMessage(' ', { type: 'prompt', id: 'q2', reply: '' });
    expect(budgets(prompts)).toEqual([...want, [150, 280], [150, 280]]);
  });

  it('a malformed output or reply is reported by the rendering, naming the cell', () => {
    const d = six();
    (d.get('c5') as unknown as { output: unknown }).output = null;
    const e = thrown(() => dlg2compact(d)) as Error;
    expect(e.name).toBe('NotebookError');
    expect(e.message).toContain('c5');
    const r = six();
    (r.get('p4') as unknown as { reply: unknown }).reply = 42;
    const e2 = thrown(() => dlg2compact(r)) as Error;
    expect(e2.name).toBe('NotebookError');
    expect(e2.message).toContain('p4');
  });

  it('an older turn keeps at least one token of prose', () => {
    expect(budgets(six()).map((b) => b?.[0])).toContain(87);
    const tiny = recencyPolicies(six(), { ...compactPolicy, asstToks: 1 }).map((p) => p?.asstToks);
    expect(tiny).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });
});

describe('the recency option at every entry', () => {
  it('is honoured by the flat renderings and rejected by in-place compaction', async () => {
    const { flatDocument, measureFlatDocument } = await import('../src/notebook/flat-notebook.js');
    const { compactDialog, flatPieces } = await import('../src/dialog/compact.js');
    const d = six();
    const even = dlg2compact(d, { recency: false });
    expect(measureFlat(d, { recency: false }).text).toBe(even);
    expect(
      flatPieces(d, { recency: false })
        .map((t) =>
          t
            .map((x) => x.text)
            .filter((x) => x !== '')
            .join('\n'),
        )
        .join('\n\n***\n\n'),
    ).toBe(even);
    expect(flatDocument(d, { legend: false, recency: false })).toBe(even);
    expect(measureFlatDocument(d, { legend: false, recency: false }).text).toBe(even);
    expect(flatDocument(d, { legend: false })).toBe(dlg2compact(d));
    for (const f of [
      () => flatDocument(d, { recency: 1 as unknown as boolean }),
      () => flatDocument(d, { recency: 1 as unknown as boolean, maxTokens: 500 }),
      () => measureFlatDocument(d, { recency: 'no' as unknown as boolean }),
      () => measureFlat(d, { recency: null as unknown as boolean }),
    ]) {
      const e = thrown(f) as Error;
      expect(e.name).toBe('InvalidArgumentError');
      expect(e.message).toMatch(/^(flatDocument|measureFlatDocument|measureFlat): recency must be a boolean$/);
    }
    const e = thrown(() => compactDialog(six(), { recency: false } as never)) as Error;
    expect(e.message).toBe('resolvePolicy: unknown policy field "recency" (expected userToks, asstToks, callToks, resultToks, profile)');
  });
});
