/**
 * dialog.ts: the Message / Dialog model, validation, cloning.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aiOutput } from '../src/dialog/ai-output.js';
import { REPLY_SEPARATOR as SEP } from '../src/chat/index.js';
import { cloneJson, randomId, type MsgType } from '../src/dialog/cells.js';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { cellWire, dialogWire } from '../src/dialog/wire-state.js';
import { InvalidArgumentError, NotebookError } from '../src/errors.js';
import { LosslessNumber, jsonKeys, parseJson } from '../src/python/index.js';
import { dumpsIpynb, readsIpynb, validateDialog } from '../src/notebook/index.js';
import { schemaErrors } from './nbschema.js';
import { FIXTURES, HAVE_SHARED, shared, thrown, fcParams } from './support.js';

const HEX8 = /^[0-9a-f]{8}$/;

function fixture(name: string): Dialog {
  return readsIpynb(readFileSync(join(FIXTURES, 'notebooks', `${name}.expected.ipynb`), 'utf8'), `${name}.ipynb`);
}

/** Run `f`, expect a NotebookError, return it. */
function notebookError(f: () => unknown): NotebookError {
  const e = thrown(f);
  expect(e).toBeInstanceOf(NotebookError);
  return e as NotebookError;
}

describe('Message', () => {
  it('has defaults', () => {
    const m = new Message('hello');
    expect(m.type).toBe('note');
    expect(m.id).toMatch(HEX8);
    expect([m.content, m.reply, m.output, m.meta, m.skipped, m.pinned, m.attachments, m.executionCount]).toEqual([
      'hello',
      '',
      [],
      {},
      false,
      false,
      undefined,
      null,
    ]);
    const w = cellWire(m);
    expect([w.solveitAi, w.hadSeparator, m.idGenerated, w.flagValues, w.extra]).toEqual([false, false, false, {}, {}]);
    expect(cellWire(new Message('q', { type: 'prompt' })).solveitAi).toBe(true);
  });

  it('keeps its write-back state out of sight, and copies it on clone', () => {
    const m = new Message('q', { type: 'prompt', reply: 'r', id: 'a1' });
    const w = cellWire(m);
    w.flagValues.pinned = 0;
    w.hadSeparator = true;
    expect(cellWire(m)).toBe(w);
    expect(Object.keys(m)).toEqual(['id', 'type', 'content', 'reply', 'output', 'meta', 'skipped', 'pinned', 'attachments', 'executionCount', 'idGenerated']);
    expect(Object.getOwnPropertySymbols(m)).toEqual([]);
    expect(JSON.stringify(m)).toBe(
      '{"id":"a1","type":"prompt","content":"q","reply":"r","output":[],"meta":{},"skipped":false,"pinned":false,"executionCount":null,"idGenerated":false}',
    );
    const c = m.clone();
    const cw = cellWire(c);
    expect(cw).not.toBe(w);
    expect([cw.hadSeparator, cw.flagValues]).toEqual([true, { pinned: 0 }]);
    // An object the constructor did not make gets a state of its own, kept for it.
    const other = { type: 'note' };
    const ow = cellWire(other);
    expect([ow.solveitAi, ow.hadSeparator]).toEqual([false, false]);
    expect(cellWire(other)).toBe(ow);
  });

  it('rejects a non-string content and an unknown type', () => {
    expect(() => new Message(5 as unknown as string)).toThrow(InvalidArgumentError);
    expect(() => new Message('x', { type: 'markdown' as MsgType })).toThrow(InvalidArgumentError);
  });

  it('aiRes is the reply', () => {
    const m = new Message('q', { type: 'prompt', reply: 'a' });
    expect(m.aiRes).toBe('a');
    m.aiRes = 'b';
    expect(m.reply).toBe('b');
  });

  it('source joins request and reply with the separator', () => {
    const p = new Message('q', { type: 'prompt' });
    expect(p.source).toBe('q');
    p.reply = 'r';
    expect(p.source).toBe(`q${SEP}r`);
    p.reply = '';
    cellWire(p).hadSeparator = true;
    expect(p.source).toBe(`q${SEP}`);
    expect(new Message('x', { type: 'code', reply: 'ignored' }).source).toBe('x');
  });

  it('cellType', () => {
    const t = (type: MsgType): string => new Message('', { type }).cellType;
    expect([t('code'), t('note'), t('prompt'), t('raw')]).toEqual(['code', 'markdown', 'markdown', 'raw']);
  });

  it('aiOutput: a prompt shows its reply, other messages delegate to aiOutput(outputs)', () => {
    const p = new Message('q', { type: 'prompt', reply: 'the reply' });
    expect(p.aiOutput).toBe('the reply');
    const c = new Message('print(1)', { type: 'code', output: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }] });
    expect(c.aiOutput).toBe(aiOutput(c.output));
    expect(new Message('n').aiOutput).toBe(aiOutput([]));
  });
});

describe('Dialog', () => {
  it('mkMessage appends, inserts after/before (by message or id), with fresh unique ids', () => {
    const d = new Dialog();
    const a = d.mkMessage('a');
    const c = d.mkMessage('c', { type: 'code' });
    const b = d.mkMessage('b', { after: a });
    const z = d.mkMessage('z', { before: a.id });
    const y = d.mkMessage('y', { after: c.id, type: 'raw', id: 'my-id' });
    expect(d.messages.map((m) => m.content)).toEqual(['z', 'a', 'b', 'c', 'y']);
    expect(y.id).toBe('my-id');
    for (const m of [a, b, c, z]) expect(m.id).toMatch(HEX8);
    expect(new Set(d.messages.map((m) => m.id)).size).toBe(5);
    expect(c.type).toBe('code');
    expect(d.length).toBe(5);
    expect([...d].map((m) => m.content)).toEqual(['z', 'a', 'b', 'c', 'y']);
    expect(d.get(b.id)).toBe(b);
    expect(d.index(c.id)).toBe(3);
    expect(d.get('nope')).toBeUndefined();
    expect(d.index('nope')).toBe(-1);
    expect(d.has('my-id')).toBe(true);
  });

  it('mkMessage rejects bad placement and used ids', () => {
    const d = new Dialog();
    const a = d.mkMessage('a', { id: 'a' });
    expect(() => d.mkMessage('x', { after: a, before: a })).toThrow(InvalidArgumentError);
    expect(() => d.mkMessage('x', { after: 'missing' })).toThrow(InvalidArgumentError);
    expect(() => d.mkMessage('x', { id: 'a' })).toThrow(InvalidArgumentError);
    expect(d.length).toBe(1);
  });

  it('newId skips taken candidates and gives up on a stuck id source', () => {
    const seq = ['aaaaaaaa', 'aaaaaaaa', 'bbbbbbbb'];
    const d = new Dialog([new Message('x', { id: 'aaaaaaaa' })], { newId: () => seq.shift() ?? 'zzzzzzzz' });
    expect(d.mkMessage('y').id).toBe('bbbbbbbb');
    const stuck = new Dialog([new Message('x', { id: 'same' })], { newId: () => 'same', name: 'stuck.ipynb' });
    expect(notebookError(() => stuck.newId()).message).toContain('stuck.ipynb');
  });

  it('randomId gives 8 hex digits', () => {
    const ids = new Set(Array.from({ length: 200 }, randomId));
    for (const id of ids) expect(id).toMatch(HEX8);
    expect(ids.size).toBeGreaterThan(195);
  });
});

describe('clone', () => {
  it('is deep and writes the same bytes', () => {
    for (const name of ['numbers-keys', 'prompts', 'outputs', 'strings']) {
      const d = fixture(name);
      const c = d.clone();
      expect(dumpsIpynb(c)).toBe(dumpsIpynb(d));
      expect(c.messages[0]).not.toBe(d.messages[0]);
    }
  });

  it('keeps number kinds, key order and __proto__ keys, and shares nothing mutable', () => {
    const d = fixture('numbers-keys');
    const c = d.clone();
    const m0 = d.messages[0] as Message;
    const c0 = c.messages[0] as Message;
    expect(jsonKeys(c0.meta)).toEqual(jsonKeys(m0.meta));
    expect(jsonKeys(c0.meta)[0]).toBe('10'); // the expected file has sorted keys
    expect(Object.getOwnPropertyDescriptor(c0.meta, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(c0.meta)).toBe(Object.prototype);
    const f = c0.meta.floats as LosslessNumber[];
    expect(f[0]).toBeInstanceOf(LosslessNumber);
    expect(f[0]?.value).toBe('1.0');
    expect(f[0]).not.toBe((m0.meta.floats as LosslessNumber[])[0]);
    (c0.meta.floats as unknown[]).push(1);
    c0.meta.extra = true;
    c.metadata.x = 1;
    expect((m0.meta.floats as unknown[]).length).toBe(9);
    expect('extra' in m0.meta).toBe(false);
    expect('x' in d.metadata).toBe(false);
  });

  it('keeps the class of subclasses', () => {
    class MyMessage extends Message {}
    class MyDialog extends Dialog {}
    const d = new MyDialog([new MyMessage('x', { id: 'x' })], { name: 'mine' });
    const c = d.clone();
    expect(c).toBeInstanceOf(MyDialog);
    expect(c.messages[0]).toBeInstanceOf(MyMessage);
    expect(c.name).toBe('mine');
  });

  it('cloneJson keeps the written order of integer-like keys', () => {
    const v = parseJson('{"b": 1, "2": [1.0, {"1": 2, "a": 3, "0": 4}]}') as Record<string, unknown>;
    const w = cloneJson(v);
    expect(jsonKeys(w)).toEqual(['b', '2']);
    const inner = (w['2'] as unknown[])[1] as Record<string, unknown>;
    expect(jsonKeys(inner)).toEqual(['1', 'a', '0']);
    const nullProto = Object.create(null) as Record<string, unknown>;
    nullProto.k = [1];
    const c = cloneJson(nullProto);
    expect(Object.getPrototypeOf(c)).toBe(null);
    expect(c.k).toEqual([1]);
    expect(c.k).not.toBe(nullProto.k);
  });
});

describe('validate', () => {
  const good = (): Dialog => {
    const d = new Dialog([], { name: 'v.ipynb' });
    d.mkMessage('print(1)', {
      type: 'code',
      id: 'code-1',
      executionCount: 1,
      output: [
        { output_type: 'stream', name: 'stdout', text: ['1\n'] },
        { output_type: 'execute_result', execution_count: 1, metadata: {}, data: { 'text/plain': '1', 'application/json': { a: 1 } } },
        { output_type: 'display_data', metadata: {}, data: { 'image/png': 'iVBO' } },
        { output_type: 'error', ename: 'E', evalue: 'v', traceback: ['t'] },
      ],
      meta: { collapsed: true, scrolled: 'auto', tags: ['a', 'b'], name: 'n', execution: { 'iopub.status.busy': 'x' }, jupyter: {} },
    });
    d.mkMessage('note', { id: 'note-1', attachments: { 'a.png': { 'image/png': 'iVBO' } } });
    d.mkMessage('q', { type: 'prompt', id: 'prompt-1', reply: `a${SEP}b` });
    d.mkMessage('r', { type: 'raw', id: 'raw-1', meta: { format: 'text/plain' } });
    return d;
  };
  const code = (d: Dialog): Message => d.messages[0] as Message;
  const note = (d: Dialog): Message => d.messages[1] as Message;
  const out = (d: Dialog, i: number): Record<string, unknown> => code(d).output[i] as Record<string, unknown>;

  it('accepts a good dialog, returns this, and what it accepts passes the schema', () => {
    const d = good();
    expect(validateDialog(d)).toBe(d);
    if (HAVE_SHARED) expect(schemaErrors(dumpsIpynb(d))).toBe('');
  });

  it.each([[null], [undefined], ['{"cells": []}'], [42]])('rejects %j, which is not a dialog, with a typed error', (bad) => {
    expect(() => validateDialog(bad as never)).toThrow(InvalidArgumentError);
    expect(() => validateDialog(bad as never)).toThrow(/^validateDialog: expected a Dialog, got /);
  });

  it('accepts a 64-character id', () => {
    const d = good();
    code(d).id = 'a'.repeat(64);
    validateDialog(d);
  });

  const cases: [string, (d: Dialog) => void, string, string | number | undefined, string | undefined][] = [
    // label, edit, message part, cell, field
    [
      'empty id',
      (d) => {
        code(d).id = '';
      },
      'invalid cell id',
      0,
      'id',
    ],
    [
      '65-character id',
      (d) => {
        code(d).id = 'a'.repeat(65);
      },
      'invalid cell id',
      0,
      'id',
    ],
    [
      'id with a dot',
      (d) => {
        note(d).id = 'a.b';
      },
      'invalid cell id',
      1,
      'id',
    ],
    [
      'non-ASCII id',
      (d) => {
        note(d).id = 'é';
      },
      'invalid cell id',
      1,
      'id',
    ],
    [
      'duplicate id',
      (d) => {
        note(d).id = 'code-1';
      },
      'duplicate cell id "code-1"',
      'code-1',
      'id',
    ],
    [
      'unknown type',
      (d) => {
        note(d).type = 'markdown' as MsgType;
      },
      'unknown message type',
      'note-1',
      'type',
    ],
    [
      'note with a reply',
      (d) => {
        note(d).reply = 'r';
      },
      'a note message has no reply',
      'note-1',
      'reply',
    ],
    [
      'note holding the separator',
      (d) => {
        note(d).content = `a${SEP}b`;
      },
      'holds the reply separator',
      'note-1',
      'source',
    ],
    [
      'prompt request holding the separator',
      (d) => {
        (d.messages[2] as Message).content = `a${SEP}`;
      },
      'holds the reply separator',
      'prompt-1',
      'source',
    ],
    [
      'non-string content',
      (d) => {
        note(d).content = 1 as unknown as string;
      },
      'content must be a string',
      'note-1',
      'source',
    ],
    [
      'outputs not a list',
      (d) => {
        code(d).output = {} as unknown[];
      },
      'outputs must be a list',
      'code-1',
      'outputs',
    ],
    [
      'note with outputs',
      (d) => {
        note(d).output = [{ output_type: 'stream', name: 'x', text: '' }];
      },
      'carries no outputs',
      'note-1',
      'outputs',
    ],
    [
      'output not an object',
      (d) => {
        code(d).output.push('x');
      },
      'an output must be an object',
      'code-1',
      'outputs[4]',
    ],
    [
      'unknown output type',
      (d) => {
        code(d).output.push({ output_type: 'pyout' });
      },
      'unknown output_type "pyout"',
      'code-1',
      'outputs[4]',
    ],
    [
      'missing output field',
      (d) => {
        delete out(d, 0).name;
      },
      'stream output lacks "name"',
      'code-1',
      'outputs[0]',
    ],
    [
      'extra output field',
      (d) => {
        out(d, 3).extra = 1;
      },
      'unexpected field "extra"',
      'code-1',
      'outputs[3]',
    ],
    [
      'stream text with a number',
      (d) => {
        out(d, 0).text = ['a', 1];
      },
      'stream text must be',
      'code-1',
      'outputs[0].text',
    ],
    [
      'stream name not a string',
      (d) => {
        out(d, 0).name = 1;
      },
      'stream name must be a string',
      'code-1',
      'outputs[0].name',
    ],
    [
      'negative execution_count in a result',
      (d) => {
        out(d, 1).execution_count = -1;
      },
      'execution_count must be',
      'code-1',
      'outputs[1].execution_count',
    ],
    [
      'fractional execution_count in a result',
      (d) => {
        out(d, 1).execution_count = new LosslessNumber('1.5');
      },
      'execution_count must be',
      'code-1',
      'outputs[1].execution_count',
    ],
    [
      'mime data not text',
      (d) => {
        (out(d, 1).data as Record<string, unknown>)['text/plain'] = 5;
      },
      'mime data "text/plain"',
      'code-1',
      'outputs[1].data',
    ],
    [
      'data not an object',
      (d) => {
        out(d, 2).data = [];
      },
      'a mimebundle must be an object',
      'code-1',
      'outputs[2].data',
    ],
    [
      'output metadata not an object',
      (d) => {
        out(d, 2).metadata = null;
      },
      'output metadata must be an object',
      'code-1',
      'outputs[2].metadata',
    ],
    [
      'traceback not a list of strings',
      (d) => {
        out(d, 3).traceback = 'tb';
      },
      'traceback must be a list of strings',
      'code-1',
      'outputs[3].traceback',
    ],
    [
      'ename not a string',
      (d) => {
        out(d, 3).ename = null;
      },
      'ename must be a string',
      'code-1',
      'outputs[3].ename',
    ],
    [
      'cell execution_count negative',
      (d) => {
        code(d).executionCount = -2;
      },
      'execution_count must be',
      'code-1',
      'execution_count',
    ],
    [
      'cell execution_count a string',
      (d) => {
        code(d).executionCount = '1';
      },
      'execution_count must be',
      'code-1',
      'execution_count',
    ],
    [
      'metadata not an object',
      (d) => {
        note(d).meta = [] as unknown as Record<string, unknown>;
      },
      'metadata must be an object',
      'note-1',
      'metadata',
    ],
    [
      'a function in metadata',
      (d) => {
        note(d).meta.f = () => 1;
      },
      'not JSON-serialisable',
      'note-1',
      'metadata',
    ],
    [
      'a Date in metadata',
      (d) => {
        note(d).meta.f = new Date(0);
      },
      'not JSON-serialisable',
      'note-1',
      'metadata',
    ],
    [
      'a cycle in metadata',
      (d) => {
        note(d).meta.self = note(d).meta;
      },
      'circular reference',
      'note-1',
      'metadata',
    ],
    [
      'Infinity in an output',
      (d) => {
        (out(d, 1).data as Record<string, unknown>)['application/json'] = Infinity;
      },
      'Infinity is not valid JSON',
      'code-1',
      'outputs',
    ],
    [
      'tags with a comma',
      (d) => {
        code(d).meta.tags = ['a,b'];
      },
      'tags must be',
      'code-1',
      'metadata.tags',
    ],
    [
      'repeated tags',
      (d) => {
        code(d).meta.tags = ['a', 'a'];
      },
      'tags must be',
      'code-1',
      'metadata.tags',
    ],
    [
      'collapsed not a boolean',
      (d) => {
        code(d).meta.collapsed = 1;
      },
      'collapsed must be a boolean',
      'code-1',
      'metadata.collapsed',
    ],
    [
      'scrolled "yes"',
      (d) => {
        code(d).meta.scrolled = 'yes';
      },
      'scrolled must be',
      'code-1',
      'metadata.scrolled',
    ],
    [
      'name with a newline',
      (d) => {
        code(d).meta.name = 'a\nb';
      },
      'metadata name',
      'code-1',
      'metadata.name',
    ],
    [
      'execution with a number',
      (d) => {
        code(d).meta.execution = { t: 1 };
      },
      'metadata execution',
      'code-1',
      'metadata.execution',
    ],
    [
      'jupyter not an object',
      (d) => {
        note(d).meta.jupyter = 1;
      },
      'metadata jupyter',
      'note-1',
      'metadata.jupyter',
    ],
    [
      'raw format not a string',
      (d) => {
        (d.messages[3] as Message).meta.format = 1;
      },
      'metadata format',
      'raw-1',
      'metadata.format',
    ],
    [
      'skipped not a boolean',
      (d) => {
        note(d).skipped = 1 as unknown as boolean;
      },
      'skipped must be a boolean',
      'note-1',
      'metadata.skipped',
    ],
    [
      'attachments on a code cell',
      (d) => {
        code(d).attachments = {};
      },
      'code cells carry no attachments',
      'code-1',
      'attachments',
    ],
    [
      'attachment not a bundle',
      (d) => {
        note(d).attachments = { 'a.png': 'x' };
      },
      'a mimebundle must be an object',
      'note-1',
      'attachments.a.png',
    ],
    [
      'unknown cell field',
      (d) => {
        cellWire(note(d)).extra.outputs = [];
      },
      'unexpected cell field "outputs"',
      'note-1',
      'outputs',
    ],
    [
      'unknown top-level field',
      (d) => {
        dialogWire(d).extra.worksheets = [];
      },
      'unexpected top-level field "worksheets"',
      undefined,
      'worksheets',
    ],
    [
      'kernelspec without display_name',
      (d) => {
        d.metadata.kernelspec = { name: 'p' };
      },
      'kernelspec must be',
      undefined,
      'metadata.kernelspec',
    ],
    [
      'language_info without name',
      (d) => {
        d.metadata.language_info = {};
      },
      'language_info must be',
      undefined,
      'metadata.language_info',
    ],
    [
      'notebook metadata not an object',
      (d) => {
        d.metadata = [] as unknown as Record<string, unknown>;
      },
      'notebook metadata must be an object',
      undefined,
      'metadata',
    ],
  ];
  it.each(cases)('rejects %s', (_label, edit, part, cellRef, field) => {
    const d = good();
    edit(d);
    const e = notebookError(() => validateDialog(d));
    expect(e.file).toBe('v.ipynb');
    expect(e.message).toContain(part);
    expect(e.message.startsWith('v.ipynb: ')).toBe(true);
    expect(e.cell).toBe(cellRef);
    expect(e.field).toBe(field);
    if (typeof cellRef === 'string') expect(e.message).toContain(`cell ${cellRef}`);
    if (typeof cellRef === 'number') expect(e.message).toContain(`cell #${cellRef}`);
  });
});

describe('property: built dialogs write, read back equal, and pass the schema', () => {
  const text = fc
    .array(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 6 }),
        fc.constantFrom('\n', '\r', '\r\n', '\v', '\f', '\x1c', '\x85', '\u2028', '\u2029', '"', '\\', '\x00', '\ud800', '\udfff', '😀', '`'),
      ),
      { maxLength: 8 },
    )
    .map((a) => a.join(''));
  const msg = fc.record({
    type: fc.constantFrom<MsgType>('code', 'note', 'prompt', 'raw'),
    content: text,
    reply: text,
    skipped: fc.boolean(),
    pinned: fc.boolean(),
    stream: text,
    metaKey: fc.constantFrom('k', '2', '__proto__', 'constructor', 'z\uffff', 'z😀'),
    metaVal: fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
  });
  it('round trip', () => {
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 6 }), (specs) => {
        const d = new Dialog();
        for (const s of specs) {
          const meta: Record<string, unknown> = {};
          Object.defineProperty(meta, s.metaKey, { value: s.metaVal, enumerable: true, writable: true, configurable: true });
          d.mkMessage(s.content, {
            type: s.type,
            reply: s.type === 'prompt' ? s.reply : '',
            skipped: s.skipped,
            pinned: s.pinned,
            meta,
            output: s.type === 'code' ? [{ output_type: 'stream', name: 'stdout', text: s.stream }] : [],
          });
        }
        const out = dumpsIpynb(d);
        const back = readsIpynb(out);
        expect(dumpsIpynb(back)).toBe(out);
        expect(back.messages.map((m) => [m.id, m.type, m.content, m.reply, m.skipped, m.pinned])).toEqual(
          d.messages.map((m) => [m.id, m.type, m.content, m.reply, m.skipped, m.pinned]),
        );
        if (HAVE_SHARED) expect(schemaErrors(out)).toBe('');
      }),
      fcParams(300),
    );
  });
});

describe.skipIf(!HAVE_SHARED)('conformance: Message.aiOutput of code cells equals NNN.parts.json', () => {
  const dir = (...p: string[]): string => shared('conformance', 'dialogs', ...p);
  const names = HAVE_SHARED ? (JSON.parse(readFileSync(dir('manifest.json'), 'utf8')) as { name: string }[]).map((e) => e.name) : [];
  it.each(names)('%s', (name) => {
    const d = readsIpynb(readFileSync(dir(`${name}.ipynb`), 'utf8'), name);
    const parts = JSON.parse(readFileSync(dir(`${name}.parts.json`), 'utf8')) as {
      replies: { id: string }[];
      code_outputs: { id: string; ai_output: string }[];
    };
    const got = parts.code_outputs.map((c) => [c.id, d.get(c.id)?.aiOutput]);
    expect(got).toEqual(parts.code_outputs.map((c) => [c.id, c.ai_output]));
    expect(parts.replies.map((r) => d.get(r.id)?.type)).toEqual(parts.replies.map(() => 'prompt'));
    expect(d.messages.filter((m) => m.type === 'code').length).toBe(parts.code_outputs.length);
  });
});
