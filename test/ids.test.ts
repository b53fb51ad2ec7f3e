/**
 * Reproducible cell ids (src/dialog/ids.ts): the sequence is pinned against an independent
 * SHA-256 (node:crypto), and a notebook read twice with it gets the same ids.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededIds } from '../src/dialog/ids.js';
import { InvalidArgumentError } from '../src/errors.js';
import { dumpsIpynb, readsIpynbBytes } from '../src/notebook/index.js';

const hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** A notebook of nbformat 4.4, whose cells have no ids. */
const OLD_NOTEBOOK = JSON.stringify({
  cells: [
    { cell_type: 'markdown', metadata: {}, source: ['# Title'] },
    { cell_type: 'code', metadata: {}, source: ['1 + 1'], outputs: [], execution_count: null },
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 4,
});

describe('seededIds', () => {
  it('gives 8 hex digits of SHA-256("SEED:k"), SEED the hex SHA-256 of the input', () => {
    const bytes = new TextEncoder().encode('some input bytes');
    const seed = hex(bytes);
    const next = seededIds(bytes);
    const got = [next(), next(), next()];
    expect(got).toEqual([0, 1, 2].map((k) => hex(`${seed}:${k}`).slice(0, 8)));
    for (const id of got) expect(id).toMatch(/^[0-9a-f]{8}$/);
  });

  it('is the same sequence for the same input, bytes or string; another input gives another', () => {
    const text = 'naïve — ✓';
    const a = seededIds(text);
    const b = seededIds(new TextEncoder().encode(text));
    const c = seededIds(text + ' ');
    const [a1, a2] = [a(), a()];
    expect([b(), b()]).toEqual([a1, a2]);
    expect(c()).not.toBe(a1);
    expect(a1).not.toBe(a2);
  });

  it.each([[null], [42], [[1, 2, 3]], [{}]])('rejects %j with a typed error', (bad) => {
    expect(() => seededIds(bad as never)).toThrow(InvalidArgumentError);
    expect(() => seededIds(bad as never)).toThrow(/^seededIds: expected the input's bytes/);
  });

  it('the empty input has a sequence too', () => {
    expect(seededIds(new Uint8Array())()).toBe(hex(`${hex('')}:0`).slice(0, 8));
  });

  it('reading an id-less notebook twice gives the same ids and the same bytes', () => {
    const bytes = new TextEncoder().encode(OLD_NOTEBOOK);
    const one = readsIpynbBytes(bytes, 'old.ipynb', { newId: seededIds(bytes) });
    const two = readsIpynbBytes(bytes, 'old.ipynb', { newId: seededIds(bytes) });
    const seed = hex(bytes);
    expect(one.messages.map((m) => m.id)).toEqual([0, 1].map((k) => hex(`${seed}:${k}`).slice(0, 8)));
    expect(dumpsIpynb(two)).toBe(dumpsIpynb(one));
  });
});
