/**
 * The rank table inflated by a decoder the host registers (`setInflateRaw`, Node's zlib in the
 * package root and the command): the same table, rank by rank, as the JavaScript decoder gives,
 * and a decoder that returns the wrong bytes fails the decoding. Each case loads a fresh copy
 * of ranks.ts, since a table is decoded once per module instance.
 */
import { inflateRawSync } from 'node:zlib';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { TABLE_SHA256 } from '../src/tokens/o200k-data.js';

type Ranks = typeof import('../src/tokens/ranks.js');

async function freshRanks(): Promise<Ranks> {
  vi.resetModules();
  return await import('../src/tokens/ranks.js');
}

/** SHA-256 of a decoded table in rank order (for each rank: its byte length, then its bytes). */
function digest(r: Ranks): string {
  const t = r.tbl();
  const parts: Uint8Array[] = [];
  for (let k = 0; k < t.size; k++) parts.push(Uint8Array.of(t.lens[k]!), t.bytes.subarray(t.offs[k]!, t.offs[k]! + t.lens[k]!));
  return Buffer.from(sha256(Buffer.concat(parts))).toString('hex');
}

describe('setInflateRaw', () => {
  it('decodes the same table with a registered native decoder, calling it once', async () => {
    const r = await freshRanks();
    const calls: number[] = [];
    r.setInflateRaw((src) => {
      calls.push(src.length);
      return inflateRawSync(src);
    });
    expect(r.tableLoaded()).toBe(false);
    expect(digest(r)).toBe(TABLE_SHA256);
    expect(calls.length).toBe(1);
    const t = r.tbl();
    let wrong = 0;
    for (let k = 0; k < t.size; k++) if (r.rankOf(t, t.bytes, t.offs[k]!, t.offs[k]! + t.lens[k]!) !== k) wrong++;
    expect(wrong).toBe(0);
    expect(calls.length).toBe(1);
  });

  it('goes back to the JavaScript decoder with undefined', async () => {
    const r = await freshRanks();
    r.setInflateRaw(() => {
      throw new Error('not used');
    });
    r.setInflateRaw(undefined);
    expect(digest(r)).toBe(TABLE_SHA256);
  });

  it('fails the decoding when the registered decoder returns the wrong number of bytes', async () => {
    const r = await freshRanks();
    r.setInflateRaw((src) => inflateRawSync(src).subarray(1));
    expect(() => r.tbl()).toThrow('tokens: malformed packed rank table');
    expect(r.tableLoaded()).toBe(false);
  });

  it('is registered by the package root for Node', async () => {
    vi.resetModules();
    const seen: number[] = [];
    vi.doMock('node:zlib', async (orig) => {
      const zlib = await orig<typeof import('node:zlib')>();
      return {
        ...zlib,
        inflateRawSync: (src: Uint8Array) => {
          seen.push(src.length);
          return zlib.inflateRawSync(src);
        },
      };
    });
    try {
      const root = await import('../src/index.js');
      expect(root.lenToks('hello world')).toBe(2);
      expect(seen.length).toBe(1);
    } finally {
      vi.doUnmock('node:zlib');
    }
  });
});
