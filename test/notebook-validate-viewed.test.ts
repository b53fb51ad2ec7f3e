/**
 * `dumpsIpynb` makes the native view first and then validates without walking again the JSON
 * values that view has already checked (`validateViewed` in src/notebook/validate.ts). It must
 * give exactly what validating first and then writing value by value gives: the same text, or
 * the same error (class, message, file, cell, field), for every dialog, including ones whose
 * values the view leaves out (transient notebook metadata, `trusted` and flag keys in a cell's
 * metadata, an output metadata's `__type`, unwritten flag values, extra fields).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPLY_SEPARATOR as SEP } from '../src/chat/index.js';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { cellWire, dialogWire } from '../src/dialog/wire-state.js';
import { readsIpynb } from '../src/notebook/read.js';
import { nativeIpynbText } from '../src/notebook/write-native.js';
import { validateDialog, validateViewed } from '../src/notebook/validate.js';
import { dumpsIpynb, writerText } from '../src/notebook/write.js';
import { LosslessNumber } from '../src/python/index.js';
import { fcParams } from './support.js';

/** What validating first and then writing value by value gives: the text, or the error. */
function reference(d: Dialog): { text?: string; error?: unknown } {
  try {
    validateDialog(d);
    return { text: writerText(d) };
  } catch (e) {
    return { error: e };
  }
}

function actual(d: Dialog): { text?: string; error?: unknown } {
  try {
    return { text: dumpsIpynb(d) };
  } catch (e) {
    return { error: e };
  }
}

/** An error as far as a caller can see it. */
function shape(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const x = e as Error & { file?: unknown; cell?: unknown; field?: unknown };
  return { cls: e.constructor.name, message: e.message, file: x.file, cell: x.cell, field: x.field };
}

function expectSame(d: Dialog): void {
  const want = reference(d);
  const got = actual(d);
  expect(got.text).toBe(want.text);
  expect(shape(got.error)).toEqual(shape(want.error));
}

class Box {
  constructor(readonly v: number) {}
}

/** Values JSON can hold and values it cannot, each made fresh (cycles included). */
const ODD: (() => unknown)[] = [
  () => 'text',
  () => 1,
  () => 1.5,
  () => new LosslessNumber('2.0'),
  () => new LosslessNumber('1e400'),
  () => new LosslessNumber('1e-05'),
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => undefined,
  () => () => 1,
  () => 10n,
  () => Symbol('s'),
  () => new Box(1),
  () => new Map([['a', 1]]),
  () => new Date(0),
  () => null,
  () => true,
  () => [],
  () => [1, 'a', null],
  () => [, 1],
  () => ({}),
  () => ({ b: 1, a: [2] }),
  () => ({ __proto__: null, x: 1 }),
  () => ({ '0': 'index key' }),
  () => JSON.parse('{"__proto__": 1}'),
  () => {
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    return o;
  },
  () => {
    const a: unknown[] = [1];
    a.push(a);
    return a;
  },
];
const odd = fc.integer({ min: 0, max: ODD.length - 1 });

/** Where an odd value goes in a dialog read from a small notebook. */
const PLACES = [
  'nb-metadata',
  'nb-transient',
  'nb-metadata-whole',
  'nb-extra',
  'meta',
  'meta-trusted',
  'meta-skipped',
  'meta-pinned',
  'meta-solveit_ai',
  'meta-whole',
  'flag-value',
  'output-data',
  'output-data-text',
  'output-metadata',
  'output-__type',
  'output-whole',
  'output-stream-text',
  'outputs-whole',
  'attachment',
  'attachments-whole',
  'cell-extra',
  'execution-count',
  'content',
] as const;
const place = fc.constantFrom(...PLACES);

const NOTEBOOK = JSON.stringify({
  cells: [
    {
      cell_type: 'code',
      id: 'c1',
      metadata: { tags: ['x'] },
      source: ['print(1)\n', 'x'],
      outputs: [
        { output_type: 'stream', name: 'stdout', text: ['1\n', '2\n'] },
        { output_type: 'execute_result', data: { 'text/plain': ['3'], 'image/png': 'iVBOR' }, metadata: { w: 2 }, execution_count: 4 },
        { output_type: 'display_data', data: { 'text/html': '<b>\nx</b>' }, metadata: {} },
      ],
      execution_count: 4,
    },
    { cell_type: 'markdown', id: 'p1', metadata: { solveit_ai: true, pinned: 1 }, source: `ask${SEP}answer\n` },
    { cell_type: 'raw', id: 'r1', metadata: {}, source: 'raw', attachments: { 'a.png': { 'image/png': 'AAA' } } },
    { cell_type: 'markdown', id: 'n1', metadata: {}, source: 'note', attachments: { 'b.png': { 'text/plain': ['a\n', 'b'] } } },
  ],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' }, signature: 's' },
  nbformat: 4,
  nbformat_minor: 5,
});

/** The read dialog with `value` put at `where` (in cell `k % 4` where a cell is meant). */
function withValue(where: (typeof PLACES)[number], value: unknown, k: number): Dialog {
  return edit(readsIpynb(NOTEBOOK, 'gen.ipynb'), where, value, k);
}

/** Put `value` at `where` in `d` (read from {@link NOTEBOOK}, perhaps edited already). */
function edit(d: Dialog, where: (typeof PLACES)[number], value: unknown, k: number): Dialog {
  const m = d.messages[k % d.messages.length] as Message;
  const code = d.messages[0] as Message;
  const out = (Array.isArray(code.output) ? code.output : []) as Record<string, unknown>[];
  const set = (o: unknown, key: string, v: unknown): void => {
    if (o === null || typeof o !== 'object') return; // replaced by an earlier edit
    Object.defineProperty(o, key, { value: v, writable: true, enumerable: true, configurable: true });
  };
  switch (where) {
    case 'nb-metadata':
      set(d.metadata, 'zz', value);
      break;
    case 'nb-transient':
      set(d.metadata, k % 2 === 0 ? 'orig_nbformat' : 'signature', value);
      break;
    case 'nb-metadata-whole':
      (d as { metadata: unknown }).metadata = value;
      break;
    case 'nb-extra':
      set(dialogWire(d).extra, 'top', value);
      break;
    case 'meta':
    case 'meta-trusted':
    case 'meta-skipped':
    case 'meta-pinned':
    case 'meta-solveit_ai':
      set(m.meta, where === 'meta' ? 'k' : where.slice('meta-'.length), value);
      break;
    case 'meta-whole':
      (m as { meta: unknown }).meta = value;
      break;
    case 'flag-value':
      set(cellWire(m).flagValues, ['skipped', 'pinned', 'solveit_ai'][k % 3] as string, value);
      break;
    case 'output-data':
      set(out[1]?.data, 'application/x', value);
      break;
    case 'output-data-text':
      set(out[1]?.data, 'text/plain', value);
      break;
    case 'output-metadata':
      set(out[1]?.metadata, 'm', value);
      break;
    case 'output-__type':
      set(out[2]?.metadata, k % 2 === 0 ? '__type' : 'other', value);
      break;
    case 'output-whole':
      if (out.length > 0) out[k % out.length] = value as Record<string, unknown>;
      break;
    case 'output-stream-text':
      set(out[0], 'text', value);
      break;
    case 'outputs-whole':
      (m as { output: unknown }).output = value;
      break;
    case 'attachment':
      set((d.messages[2] as Message).attachments, 'c.png', value);
      break;
    case 'attachments-whole':
      (m as { attachments: unknown }).attachments = value;
      break;
    case 'cell-extra':
      set(cellWire(m).extra, k % 2 === 0 ? 'zextra' : 'source', value);
      break;
    case 'execution-count':
      (code as { executionCount: unknown }).executionCount = value;
      break;
    case 'content':
      (m as { content: unknown }).content = value;
      break;
  }
  return d;
}

describe('dumpsIpynb validates after the native view as validateDialog does before writing', () => {
  it('on the read notebook itself', () => {
    const d = readsIpynb(NOTEBOOK, 'gen.ipynb');
    expectSame(d);
    expect(dumpsIpynb(d)).toBe(writerText(d));
  });

  it('on every odd value at every place', () => {
    for (const where of PLACES) {
      for (let v = 0; v < ODD.length; v++) {
        for (let k = 0; k < 4; k++) expectSame(withValue(where, (ODD[v] as () => unknown)(), k));
      }
    }
  });

  it('on generated combinations of odd values', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(place, odd, fc.nat(7)), { minLength: 1, maxLength: 4 }), (edits) => {
        const d = readsIpynb(NOTEBOOK, 'gen.ipynb');
        for (const [where, v, k] of edits) edit(d, where, (ODD[v] as () => unknown)(), k);
        expectSame(d);
      }),
      fcParams(300),
    );
  });

  it('on dialogs built in code, with ids, types and separators the schema rejects', () => {
    const cases: Dialog[] = [];
    const mk = (ms: Message[]): Dialog => new Dialog(ms, { name: 'made.ipynb' });
    cases.push(mk([new Message('a', { id: 'x' }), new Message('b', { id: 'x' })]));
    cases.push(mk([new Message('a', { id: 'bad id' })]));
    cases.push(mk([new Message(`a${SEP}b`, { id: 'n', type: 'note' })]));
    cases.push(mk([new Message('a', { id: 'c', type: 'code', output: [{ output_type: 'nope' }] })]));
    cases.push(mk([new Message('a', { id: 'c', type: 'code', output: [{ output_type: 'stream', name: 'o', text: Number.NaN }] })]));
    cases.push(mk([new Message('a', { id: 'c', type: 'code', executionCount: -1 })]));
    cases.push(mk([new Message('a', { id: 'm', type: 'note', output: [{ output_type: 'stream', name: 'o', text: 'x' }] })]));
    const notMessage = mk([new Message('a', { id: 'ok' })]);
    (notMessage.messages as unknown[]).push({ id: 'plain', type: 'note', content: 'x', reply: '', output: [], meta: {} });
    cases.push(notMessage);
    const notList = mk([]);
    (notList as { messages: unknown }).messages = { length: 2 };
    cases.push(notList);
    for (const d of cases) expectSame(d);
  });

  it('validateViewed agrees with validateDialog wherever the native view is made', () => {
    const outcome = (f: () => unknown): unknown => {
      try {
        f();
        return 'ok';
      } catch (e) {
        return shape(e);
      }
    };
    let viewed = 0;
    for (const where of PLACES) {
      for (let v = 0; v < ODD.length; v++) {
        for (let k = 0; k < 4; k++) {
          const d = withValue(where, (ODD[v] as () => unknown)(), k);
          if (nativeIpynbText(d) === undefined) continue;
          viewed++;
          expect(outcome(() => validateViewed(d))).toEqual(outcome(() => validateDialog(d)));
        }
      }
    }
    expect(viewed).toBeGreaterThan(PLACES.length * 4);
  });
});
