/**
 * Fitting a dialog into a total token budget (`maxTokens`): within budget, monotone,
 * deterministic, the recency gradient and the class order, the structure's minimum, and bad input.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BudgetError, InvalidArgumentError } from '../src/errors.js';
import { compactDialog, dlg2compact, fitDialog, fitFlatDocument } from '../src/dialog/compact.js';
import { FIT_STEPS, FitError, fitPolicy, fitScale } from '../src/dialog/fit.js';
import { dialogContextTokens } from '../src/dialog/measure.js';
import { Dialog } from '../src/dialog/dialog.js';
import { compactPolicy } from '../src/dsl/render.js';
import { lenToks } from '../src/tokens/index.js';
import { fcParams, thrown } from './support.js';

const tool = (id: string, command: string, result: string): string =>
  `\`\`\`json {.tool}\n${JSON.stringify({ id, name: 'Bash', args: { command }, result }, null, 2)}\n\`\`\``;

/** A dialog of `turns` prompts with prose, a shell call and its result, and a code cell each. */
function make(turns = 6): Dialog {
  const d = new Dialog([], { name: 'fit' });
  for (let t = 0; t < turns; t++) {
    const out = Array.from({ length: 40 }, (_, i) => `row ${t}-${i} value ${1000 + i * 13}`).join('\n');
    d.mkMessage(`print(${t})\n${'x = 1\n'.repeat(30)}`, { type: 'code', id: `c${t}`, output: [{ output_type: 'stream', name: 'stdout', text: `${out}\n` }] });
    const prose = `Turn ${t}: ${'the answer goes on at some length. '.repeat(40)}`;
    d.mkMessage(`Request ${t}: ${'please look at data/file.csv and tell me more. '.repeat(30)}`, {
      type: 'prompt',
      id: `p${t}`,
      reply: `${prose}\n\n${tool(`t${t}`, `wc -l data/part${t}.csv`, out)}\n\nDone with turn ${t}.`,
    });
  }
  return d;
}

describe('fitPolicy', () => {
  it('is the floor at step 0 and unlimited at the last step', () => {
    expect(fitScale(0)).toBe(0);
    expect(fitScale(80)).toBe(1);
    const base = { ...compactPolicy };
    expect(fitPolicy(base, 0, 3, 6)).toEqual({ ...base, userToks: 6, asstToks: 0, callToks: 4, resultToks: 0 });
    expect(fitPolicy(base, FIT_STEPS, 3, 6)).toEqual({ ...base, userToks: 1e9, asstToks: 1e9, callToks: 1e9, resultToks: 1e9 });
  });

  it('gives the latest turn four times the base at scale 1, older turns less', () => {
    const base = { ...compactPolicy };
    expect(fitPolicy(base, 80, 0, 5)).toEqual({ ...base, userToks: 8006, asstToks: 600, callToks: 244, resultToks: 140 });
    expect(fitPolicy(base, 80, 4, 5)).toEqual({ ...base, userToks: 1006, asstToks: 75, callToks: 34, resultToks: 17 });
    expect(fitPolicy(base, 80, 4, 5, 4, true).userToks).toBe(81);
  });
});

describe('dlg2compact with maxTokens', () => {
  const d = make();
  const full = lenToks(dlg2compact(d));

  it('stays within the budget and uses most of it', () => {
    for (const n of [full, Math.floor(full / 2), Math.floor(full / 4)]) {
      const out = dlg2compact(d, { maxTokens: n });
      expect(lenToks(out)).toBeLessThanOrEqual(n);
      expect(lenToks(out)).toBeGreaterThan(n * 0.8);
    }
  });

  it('keeps every request start and every turn separator', () => {
    const out = dlg2compact(d, { maxTokens: Math.floor(full / 4) });
    for (let t = 0; t < 6; t++) expect(out).toContain(`§ Request ${t}`);
    expect(out.split('\n\n***\n\n').length).toBe(6);
  });

  it('cuts older turns harder than the latest', () => {
    const { text } = fitFlatDocument(d, Math.floor(full / 3));
    const turns = text.split('\n\n***\n\n').map((t) => lenToks(t));
    expect(turns[5]!).toBeGreaterThan(turns[0]!);
    expect(turns[5]!).toBeGreaterThan(turns[4]!);
  });

  it('returns the whole rendering when the budget allows it', () => {
    const unlimited = { userToks: 1e9, asstToks: 1e9, callToks: 1e9, resultToks: 1e9 };
    const whole = dlg2compact(d, unlimited);
    expect(dlg2compact(d, { maxTokens: 10_000_000 })).toBe(whole);
    expect(dlg2compact(d, { maxTokens: Number.MAX_SAFE_INTEGER })).toBe(whole);
  });

  it('is deterministic and monotone in the budget', () => {
    const small = make(3);
    const lo = fitFlatDocument(small, 300).report.minTokens;
    fc.assert(
      fc.property(fc.integer({ min: lo, max: 6000 }), fc.integer({ min: 0, max: 2000 }), (a, extra) => {
        const x = fitFlatDocument(small, a);
        const y = fitFlatDocument(small, a + extra);
        expect(fitFlatDocument(small, a).text).toBe(x.text);
        expect(y.report.step).toBeGreaterThanOrEqual(x.report.step);
        expect(x.report.tokens).toBeLessThanOrEqual(a);
        expect(lenToks(x.text)).toBe(x.report.tokens);
      }),
      fcParams(40),
    );
  });

  it('counts what wrap adds (a legend) and reports the budget reached', () => {
    const legend = (body: string): string => `LEGEND ${'words '.repeat(50)}\n\n${body}`;
    const { text, report } = fitFlatDocument(d, 2000, {}, legend);
    expect(text.startsWith('LEGEND')).toBe(true);
    expect(lenToks(text)).toBe(report.tokens);
    expect(report.tokens).toBeLessThanOrEqual(2000);
    expect(report.maxTokens).toBe(2000);
  });
});

describe('the smallest budget and bad input', () => {
  const d = make();

  it('below the structure, a FitError names the smallest budget, which fits', () => {
    const e = thrown(() => dlg2compact(d, { maxTokens: 50 }));
    expect(e).toBeInstanceOf(FitError);
    expect(e).toBeInstanceOf(BudgetError);
    const min = (e as FitError).minTokens;
    expect((e as FitError).option).toBe('maxTokens');
    expect((e as Error).message).toContain(`maxTokens >= ${min}`);
    expect(lenToks(dlg2compact(d, { maxTokens: min }))).toBeLessThanOrEqual(min);
    expect(thrown(() => dlg2compact(d, { maxTokens: min - 1 }))).toBeInstanceOf(FitError);
    expect(thrown(() => dlg2compact(d, { maxTokens: 0 }))).toBeInstanceOf(FitError);
  });

  it('a budget that fits only the legend is refused with the smallest budget', () => {
    const legend = (body: string): string => `${'legend '.repeat(100)}\n\n${body}`;
    const e = thrown(() => fitFlatDocument(d, lenToks(legend('')), {}, legend)) as FitError;
    expect(e).toBeInstanceOf(FitError);
    expect(e.minTokens).toBeGreaterThan(lenToks(legend('')));
  });

  it('an empty dialog fits any budget, 0 included', () => {
    expect(dlg2compact(new Dialog([]), { maxTokens: 0 })).toBe('');
  });

  it('rejects a negative, fractional, non-finite or unsafe maxTokens, naming the option', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '100' as unknown as number]) {
      const e = thrown(() => dlg2compact(d, { maxTokens: bad }));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect((e as Error).message).toContain('maxTokens');
    }
  });

  it('one cell larger than the budget is cut to fit', () => {
    const one = new Dialog([]);
    one.mkMessage(`Summarise: ${'lorem ipsum dolor '.repeat(3000)}`, { type: 'prompt', id: 'p', reply: 'ok' });
    const out = dlg2compact(one, { maxTokens: 100 });
    expect(lenToks(out)).toBeLessThanOrEqual(100);
    expect(out.startsWith('§ Summarise: lorem')).toBe(true);
  });

  it('a dialog without prompts fits as one turn', () => {
    const notes = new Dialog([]);
    for (let i = 0; i < 5; i++) notes.mkMessage(`Note ${i}: ${'text '.repeat(400)}`, { type: 'note', id: `n${i}` });
    const out = dlg2compact(notes, { maxTokens: 400 });
    expect(lenToks(out)).toBeLessThanOrEqual(400);
    for (let i = 0; i < 5; i++) expect(out).toContain(`§ Note ${i}`);
  });
});

describe('compactDialog with maxTokens (dialog mode)', () => {
  it('brings the dialog measure within the budget and changes only prompts', () => {
    const d = make();
    const before = dialogContextTokens(d);
    const code = d.messages.filter((m) => m.type === 'code').map((m) => m.content);
    const budget = Math.floor(before / 2);
    const report = fitDialog(d, budget);
    expect(dialogContextTokens(d)).toBe(report.tokens);
    expect(report.tokens).toBeLessThanOrEqual(budget);
    expect(d.messages.filter((m) => m.type === 'code').map((m) => m.content)).toEqual(code);
  });

  it('through compactDialog and Dialog.compact, and refuses a budget below the untouched cells', () => {
    const a = make();
    const b = make();
    compactDialog(a, { maxTokens: 5000 });
    b.compact({ maxTokens: 5000 });
    expect(a.messages.map((m) => m.source)).toEqual(b.messages.map((m) => m.source));
    expect(dialogContextTokens(a)).toBeLessThanOrEqual(5000);
    const c = make();
    const e = thrown(() => c.compact({ maxTokens: 100 })) as FitError;
    expect(e).toBeInstanceOf(FitError);
    expect(c.messages.map((m) => m.source)).toEqual(make().messages.map((m) => m.source));
    expect(dialogContextTokens(c.compact({ maxTokens: e.minTokens }))).toBeLessThanOrEqual(e.minTokens);
  });

  it('a dialog without prompts is unchanged when it fits and refused when it does not', () => {
    const d = new Dialog([]);
    d.mkMessage('text '.repeat(100), { type: 'note', id: 'n' });
    const n = dialogContextTokens(d);
    expect(dialogContextTokens(d.compact({ maxTokens: n }))).toBe(n);
    expect((thrown(() => d.compact({ maxTokens: n - 1 })) as FitError).minTokens).toBe(n);
  });
});

describe('code cells at the floor', () => {
  it('a non-blank source shows the cut mark in its fence, never an empty block', () => {
    const d = new Dialog([], { name: 'fences' });
    for (let k = 0; k < 4; k++) {
      d.mkMessage(`#| default_exp mod${k}\nimport pandas as pd\nframe_${k} = pd.read_csv("part${k}.csv")`, { type: 'code', id: `c${k}` });
      d.mkMessage(`Step ${k}?`, { type: 'prompt', id: `p${k}`, reply: `Done ${k}.` });
    }
    d.mkMessage('   ', { type: 'code', id: 'blank' });
    const min = (thrown(() => fitFlatDocument(d, 1)) as FitError).minTokens;
    const { text } = fitFlatDocument(d, min);
    expect(lenToks(text)).toBeLessThanOrEqual(min);
    // (The mark on a line of its own: the cut of each source keeps neither of its partial lines.)
    for (let k = 0; k < 4; k++) expect(text).toContain(`#_c${k}\n\`\`\`python\n…\n\`\`\``);
    expect(text).toContain('#_blank\n```python\n\n```');
    expect(text).not.toMatch(/#_c\d\n```python\n\n```/);
  });
});
