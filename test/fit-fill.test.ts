/**
 * What a fitted document does with the tokens its step leaves below the next step (the fill,
 * docs/differences.md rule 17), and the floor of short error results (rule 38). The expected
 * values are worked out by hand from the rules: the scale 2^((step − 80) / 8), the recency
 * weights 4, 2/(1 + 1/2) and 1/(1 + 1) of three turns, and the request floor of 6 tokens.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dlg2compact, fitFlatDocument } from '../src/dialog/compact.js';
import { fitFlat, type FlatCells } from '../src/dialog/fit.js';
import { Dialog } from '../src/dialog/dialog.js';
import { compactPolicy } from '../src/dsl/render.js';
import { lenToks } from '../src/tokens/index.js';
import { fcParams } from './support.js';

/** `n` words `ab`, one token each. */
const words = (n: number): string => Array.from({ length: n }, () => 'ab').join(' ');
const SEP = '\n\n***\n\n';

/** Three prompts (three turns, the last the latest) whose text is as many tokens as the request budget, at most 100. */
const threePrompts: FlatCells = {
  count: 3,
  pieces: (_i, p) => [{ cls: 'user', text: words(Math.min(p.userToks, 100)) }],
  rendered: () => true,
  closesTurn: () => true,
  isNote: () => false,
};

describe('the fill: what a step leaves goes to the latest turn first', () => {
  // Request budgets (6 + ⌊2000 × scale × weight⌋), oldest turn first:
  //   step 16 (scale 2^-8):     9, 16, 37
  //   step 17 (scale 2^-7.875): 10, 17, 40
  const at16 = [words(9), words(16), words(37)].join(SEP);
  const latestRaised = [words(9), words(16), words(40)].join(SEP);
  const twoRaised = [words(9), words(17), words(40)].join(SEP);

  it('raises the latest prompt to the next step when only that fits', () => {
    expect(lenToks(twoRaised)).toBe(lenToks(latestRaised) + 1); // the budgets below differ by that token
    const { text, report } = fitFlat(threePrompts, { ...compactPolicy }, lenToks(latestRaised));
    expect(report.step).toBe(16);
    expect(report.raised).toBe(1);
    expect(text).toBe(latestRaised);
    expect(report.tokens).toBe(lenToks(latestRaised));
  });

  it('raises the turn before next, and nothing below the first raise', () => {
    expect(fitFlat(threePrompts, { ...compactPolicy }, lenToks(twoRaised)).text).toBe(twoRaised);
    const low = fitFlat(threePrompts, { ...compactPolicy }, lenToks(latestRaised) - 1);
    expect(low.text).toBe(at16);
    expect(low.report.raised).toBe(0);
  });

  it('keeps the fitted position monotone in the budget, within it', () => {
    const d = new Dialog([], { name: 'fill' });
    for (let t = 0; t < 3; t++) {
      d.mkMessage(`A note ${t}: ${'some words about the data. '.repeat(20)}`, { type: 'note', id: `n${t}` });
      d.mkMessage(`Request ${t}: ${'please look at data/file.csv and tell me more. '.repeat(12)}`, {
        type: 'prompt',
        id: `p${t}`,
        reply: `Answer ${t}: ${'the answer goes on at some length. '.repeat(20)}`,
      });
    }
    const lo = fitFlatDocument(d, 100_000).report.minTokens;
    fc.assert(
      fc.property(fc.integer({ min: lo, max: 1500 }), fc.integer({ min: 0, max: 300 }), (a, extra) => {
        const x = fitFlatDocument(d, a, {}, undefined, true).report;
        const y = fitFlatDocument(d, a + extra, {}, undefined, true).report;
        expect(x.tokens).toBeLessThanOrEqual(a);
        expect(y.step > x.step || (y.step === x.step && y.raised >= x.raised)).toBe(true);
      }),
      fcParams(30),
    );
  });
});

const tool = (id: string, command: string, result: string): string =>
  `\`\`\`json {.tool}\n${JSON.stringify({ id, name: 'Bash', args: { command }, result })}\n\`\`\``;

/** A long request, a reply with a failed and a successful shell call, and a code cell whose output is an error. */
function failing(first = "NameError: name 'x' is not defined"): Dialog {
  const d = new Dialog([], { name: 'errors' });
  d.mkMessage(`Please ${'look at the data and tell me what you see there. '.repeat(6)}`, {
    type: 'prompt',
    id: 'p0',
    reply: `Running it.\n\n${tool('t0', 'python x.py', first)}\n\n${tool('t1', 'python y.py', '42')}`,
  });
  d.mkMessage('print(1/0)', { type: 'code', id: 'c1', output: [{ output_type: 'stream', name: 'stderr', text: 'ZeroDivisionError: division by zero\n' }] });
  return d;
}

/** The smallest budget a dialog fits in. */
const floorOf = (d: Dialog, policy = {}): number => fitFlatDocument(d, 100_000, policy).report.minTokens;

/** Lines `from` to `to` (exclusive) of a dialog's flat rendering at its smallest budget. */
const floorLines = (d: Dialog, from: number, to: number): string[] =>
  dlg2compact(d, { maxTokens: floorOf(d) })
    .split('\n')
    .slice(from, to);

describe('short error results keep a floor of their own', () => {
  it('at the smallest budget, a short error result and error output stay whole, another result is dropped', () => {
    const d = failing();
    expect(dlg2compact(d, { maxTokens: floorOf(d) })).toBe(
      [
        '§ Please … §',
        '! python x.py',
        "> NameError: name 'x' is not defined",
        '! python y.py',
        '',
        '***',
        '',
        '#_c1',
        '```python',
        '…',
        '```',
        '> ZeroDivisionError: division by zero',
      ].join('\n'),
    );
  });

  it('an exit code is an error too; exit code 0 is not', () => {
    const failed = failing('exit code 1');
    expect(floorLines(failed, 1, 4)).toEqual(['! python x.py', '> exit code 1', '! python y.py']);
    const ok = failing('exit code 0');
    expect(floorLines(ok, 1, 3)).toEqual(['! python x.py', '! python y.py']);
  });

  it('an error result over 24 tokens whole has no floor', () => {
    const long = failing(`NameError: name 'x' is not defined ${'and more words follow here '.repeat(5)}`);
    expect(floorLines(long, 1, 3)).toEqual(['! python x.py', '! python y.py']);
  });

  it('the reference profile has no such floor', () => {
    const d = failing();
    const ref = { profile: 'reference' as const };
    expect(dlg2compact(d, { ...ref, maxTokens: floorOf(d, ref) })).not.toContain('NameError');
  });
});

describe('a traceback longer than the floor keeps its exception line', () => {
  it('at the smallest budget the output is the exception line; at a larger one, the cut that names it', () => {
    const d = new Dialog([], { name: 'tb' });
    const frames = Array.from(
      { length: 12 },
      (_, k) => `  File "/srv/app/step${k}.py", line ${k + 10}, in run_${k}\n    result = run_${k + 1}(rows, limit=${k})`,
    );
    d.mkMessage('run()', {
      type: 'code',
      id: 'c1',
      output: [
        {
          output_type: 'error',
          ename: 'KeyError',
          evalue: "'placed'",
          traceback: ['Traceback (most recent call last):', ...frames, "KeyError: 'placed'"],
        },
      ],
    });
    const least = floorOf(d);
    // (the code keeps its floor: the fence and the mark)
    expect(dlg2compact(d, { maxTokens: least })).toBe(['#_c1', '```python', '…', '```', "> KeyError: 'placed'"].join('\n'));
    // Budgets that cut the traceback and name the exception keep that cut.
    const more = dlg2compact(d, { maxTokens: least + 60 });
    expect(more.startsWith('#_c1\n```python\nrun()\n```\n> Traceback (most recent call last):'), more).toBe(true);
    expect(more.endsWith("KeyError: 'placed'")).toBe(true);
  });
});
