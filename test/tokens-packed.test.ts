/**
 * The packed rank table (src/tokens/o200k-data.ts, built by scripts/pack-ranks.mjs) against
 * the published o200k_base ranks of the js-tiktoken package: the digests recorded in the file,
 * the decoded table rank by rank, the raw DEFLATE decoder it relies on, and the sharing of a
 * decoded table between threads.
 */
import { deflateRawSync } from 'node:zlib';
import { sha256 } from '@noble/hashes/sha2.js';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { inflateRaw } from '../src/tokens/inflate.js';
import { SOURCE_SHA256, SPECIAL, TABLE_SHA256 } from '../src/tokens/o200k-data.js';
import { NONE, adoptTable, rankOf, shareTable, tbl } from '../src/tokens/ranks.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The published tokens by rank, read straight from js-tiktoken's text. */
function published(): Buffer[] {
  const toks: Buffer[] = [];
  for (const line of o200k.bpe_ranks.split('\n')) {
    const parts = line.split(' ');
    if (parts.length < 2) continue;
    let r = Number(parts[1]);
    for (const b64 of parts.slice(2)) toks[r++] = Buffer.from(b64, 'base64');
  }
  return toks;
}

/** The published rank of a token given as text (from js-tiktoken's data, not the table under test). */
function toksRank(text: string): number {
  const want = Buffer.from(text);
  return published().findIndex((b) => b.equals(want));
}

describe('packed o200k_base table', () => {
  it('was built from the published rank text of the installed js-tiktoken', () => {
    expect(hex(sha256(Buffer.from(o200k.bpe_ranks, 'utf8')))).toBe(SOURCE_SHA256);
  });

  it('decodes to the published tokens, rank by rank, with the recorded checksum', () => {
    const toks = published();
    const t = tbl();
    expect(t.size).toBe(199998);
    expect(toks.length).toBe(199998);
    const parts: Uint8Array[] = [];
    let mismatches = 0;
    for (let r = 0; r < toks.length; r++) {
      const mine = t.bytes.subarray(t.offs[r]!, t.offs[r]! + t.lens[r]!);
      if (Buffer.compare(Buffer.from(mine), toks[r]!) !== 0) mismatches++;
      parts.push(Uint8Array.of(mine.length), mine);
    }
    expect(mismatches).toBe(0);
    expect(hex(sha256(Buffer.concat(parts)))).toBe(TABLE_SHA256);
    expect(hex(sha256(Buffer.concat(toks.flatMap((b) => [Uint8Array.of(b.length), b]))))).toBe(TABLE_SHA256);
    expect(t.maxLen).toBe(toks.reduce((m, b) => Math.max(m, b.length), 0));
  });

  it('finds every token by its bytes, the 3- and 4-byte tables included, and no non-token', () => {
    const t = tbl();
    let wrong = 0;
    for (let r = 0; r < t.size; r++) if (rankOf(t, t.bytes, t.offs[r]!, t.offs[r]! + t.lens[r]!) !== r) wrong++;
    expect(wrong).toBe(0);
    // 'zqx' and four 0xff bytes are no o200k_base tokens.
    expect(toksRank('zqx')).toBe(-1);
    expect(published().some((b) => b.equals(Uint8Array.of(255, 255, 255, 255)))).toBe(false);
    expect(rankOf(t, Buffer.from('zqxj'), 0, 3)).toBe(NONE);
    expect(rankOf(t, Uint8Array.of(255, 255, 255, 255), 0, 4)).toBe(NONE);
    expect(rankOf(t, Buffer.from(' the'), 1, 4)).toBe(toksRank('the'));
    expect(rankOf(t, Buffer.from(' the'), 0, 4)).toBe(toksRank(' the'));
  });

  it('keeps the special tokens of the published data', () => {
    expect(SPECIAL).toEqual([
      [199999, '<|endoftext|>'],
      [200018, '<|endofprompt|>'],
    ]);
    expect(Object.entries(o200k.special_tokens).map(([k, v]) => [v, k])).toEqual(SPECIAL);
  });

  it('lives in one shared buffer that another thread can adopt', () => {
    const buf = shareTable();
    expect(buf).toBeInstanceOf(SharedArrayBuffer);
    expect(buf).toBe(tbl().buffer);
    adoptTable(new SharedArrayBuffer(8)); // ignored: this thread has a table already
    expect(tbl().buffer).toBe(buf);
  });
});

describe('inflateRaw', () => {
  it('decodes a fixed-Huffman block', () => {
    expect(Buffer.from(inflateRaw(Uint8Array.of(75, 4, 0), 1)).toString()).toBe('a');
    expect(Buffer.from(inflateRaw(Uint8Array.of(75, 76, 74, 78, 132, 33, 0), 12)).toString()).toBe('abcabcabcabc');
  });

  it('decodes stored, fixed and dynamic blocks as zlib wrote them', () => {
    const text = Buffer.from('the quick brown fox jumps over the lazy dog; '.repeat(300) + 'ünïcödé 東京 '.repeat(50));
    for (const level of [0, 1, 6, 9]) {
      const z = deflateRawSync(text, { level });
      expect(Buffer.from(inflateRaw(z, text.length)).equals(text)).toBe(true);
    }
  });

  it('rejects a size mismatch and a bad block type', () => {
    expect(() => inflateRaw(Uint8Array.of(75, 4, 0), 2)).toThrow('inflate: expected 2 bytes, got 1');
    expect(() => inflateRaw(Uint8Array.of(7), 1)).toThrow('inflate: bad block type');
  });
});
