/**
 * A host's SHA-256 (`setSha256Hex`, registered by the command with Node's crypto) gives the
 * same ids as the JavaScript one: seeded ids and the flat notebook's cell id.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { setSha256Hex, sha256Hex } from '../src/dialog/hash.js';
import { seededIds } from '../src/dialog/ids.js';
import { flatNotebook } from '../src/notebook/flat-notebook.js';

const node = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('host SHA-256', () => {
  afterEach(() => setSha256Hex(undefined));

  it('gives the digests, seeded ids and flat cell ids of the JavaScript hash', () => {
    const texts = ['', 'abc', 'é😀', 'lone \ud800 surrogate', 'x'.repeat(100_000)];
    const enc = new TextEncoder();
    const js = texts.map((t) => sha256Hex(enc.encode(t)));
    expect(js[1]).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const d = new Dialog([new Message('a prompt\n', { type: 'prompt', id: 'p1', reply: 'an answer with é and \ud800' })]);
    const ids = (() => {
      const next = seededIds('seed text');
      return [next(), next(), next()];
    })();
    const flatId = flatNotebook(d).messages[0]!.id;
    setSha256Hex(node);
    expect(texts.map((t) => sha256Hex(enc.encode(t)))).toEqual(js);
    const next = seededIds('seed text');
    expect([next(), next(), next()]).toEqual(ids);
    expect(flatNotebook(d).messages[0]!.id).toBe(flatId);
  });
});
