/**
 * The cache behind `Message.aiOutput` (src/dialog/message.ts): the view is rendered once while
 * nothing it depends on changes, and every ordinary edit of the outputs is seen.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const renders = vi.hoisted(() => ({ n: 0 }));
vi.mock('../src/dialog/ai-output.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/dialog/ai-output.js')>();
  return {
    ...real,
    aiOutput: (...args: Parameters<typeof real.aiOutput>) => {
      renders.n++;
      return real.aiOutput(...args);
    },
  };
});

const { Message } = await import('../src/dialog/message.js');
const { Dialog } = await import('../src/dialog/dialog.js');
const { dlg2compact } = await import('../src/dialog/compact.js');

const stream = (text: string | string[]) => ({ output_type: 'stream', name: 'stdout', text });
const result = (plain: string | string[]) => ({ output_type: 'execute_result', execution_count: 1, metadata: {}, data: { 'text/plain': plain } });

beforeEach(() => {
  renders.n = 0;
});

describe('Message.aiOutput cache', () => {
  it('renders once while nothing changes', () => {
    const c = new Message('x', { type: 'code', output: [stream('[1, 2]\n')] });
    expect(c.aiOutput).toBe('[1, 2]');
    expect(c.aiOutput).toBe('[1, 2]');
    expect(c.aiOutput).toBe('[1, 2]');
    expect(renders.n).toBe(1);
  });

  it('sees assignment, push, splice, element replacement and in-place text edits', () => {
    const c = new Message('x', { type: 'code', output: [stream('one\n')] });
    expect(c.aiOutput).toBe('one\n');
    c.output[0] = stream('two\n');
    expect(c.aiOutput).toBe('two\n');
    (c.output[0] as { text: string }).text = 'three\n';
    expect(c.aiOutput).toBe('three\n');
    c.output.splice(0, 1, stream('four\n'));
    expect(c.aiOutput).toBe('four\n');
    c.output.push(stream('five\n'));
    expect(c.aiOutput).toBe('four\nfive\n');
    const a = c.output;
    c.output = [];
    expect(c.aiOutput).toBe('');
    a[0] = stream('six\n');
    c.output = a; // an array seen before, changed meanwhile
    expect(c.aiOutput).toBe('six\nfive\n');
    expect(renders.n).toBe(7);
  });

  it('sees edits one level inside a field: a list of lines, a mime bundle entry', () => {
    const c = new Message('x', { type: 'code', output: [stream(['a\n', 'b\n']), result('1')] });
    expect(c.aiOutput).toBe('a\nb\n\n1');
    (c.output[0] as { text: string[] }).text[1] = 'B\n';
    expect(c.aiOutput).toBe('a\nB\n\n1');
    (c.output[1] as { data: Record<string, unknown> }).data['text/plain'] = '2';
    expect(c.aiOutput).toBe('a\nB\n\n2');
  });

  it('outputsChanged() forces a new render', () => {
    const c = new Message('x', { type: 'code', output: [stream('s\n')] });
    expect(c.aiOutput).toBe('s\n');
    c.outputsChanged();
    expect(c.aiOutput).toBe('s\n');
    expect(renders.n).toBe(2);
  });

  it('a flat document follows an edited output', () => {
    const d = new Dialog([new Message('print(1)', { type: 'code', id: 'c1', output: [stream('OLD-OUTPUT\n')] })]);
    expect(dlg2compact(d)).toContain('> OLD-OUTPUT');
    (d.messages[0]!.output[0] as { text: string }).text = 'NEW-OUTPUT\n';
    const doc = dlg2compact(d);
    expect(doc).toContain('> NEW-OUTPUT');
    expect(doc).not.toContain('OLD-OUTPUT');
  });

  it("a prompt's view is its reply", () => {
    const p = new Message('q', { type: 'prompt', reply: 'r' });
    expect(p.aiOutput).toBe('r');
    p.reply = 's';
    expect(p.aiOutput).toBe('s');
  });
});
