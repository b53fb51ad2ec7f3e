/**
 * The rank table built ahead of time (src/host/table-file.ts, read by the Node host instead of
 * decoding the packed table): a file written from a decoded table reads back byte for byte; a
 * file that is damaged, short, of another layout or rank data is refused, and the tokenizer
 * then decodes the packed table, so counts never depend on the file. The file the build writes
 * (dist/tokens/o200k.table) is checked against the decoded table when a build is present.
 * Cases that need a fresh tokenizer load a fresh copy of ranks.ts (one table per instance).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readTableFile, tableFileBytes } from '../src/host/table-file.js';
import { shareTable } from '../src/tokens/ranks.js';
import { BUILT_TABLE, ensureBuilt } from './built-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'dlg-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Write `bytes` as a table file in the temporary folder and return its path. */
function file(name: string, bytes: Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

const decoded = new Uint8Array(shareTable());
const good = tableFileBytes(shareTable());

describe('table file', () => {
  it('holds a 64-byte header and the table, and reads back byte for byte into a SharedArrayBuffer', () => {
    expect(good.length).toBe(64 + decoded.length);
    expect(Buffer.from(good.subarray(0, 8)).toString('latin1')).toBe('o200ktab');
    const back = readTableFile(file('good.table', good));
    expect(back).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.compare(Buffer.from(new Uint8Array(back!)), Buffer.from(decoded))).toBe(0);
  });

  it('refuses a missing, short, damaged or foreign file', () => {
    const damaged = (at: number): Uint8Array => {
      const b = good.slice();
      b[at] = b[at]! ^ 0x40;
      return b;
    };
    expect(readTableFile(join(dir, 'none.table'))).toBeUndefined();
    expect(readTableFile(dir)).toBeUndefined(); // a folder
    expect(readTableFile(file('empty.table', new Uint8Array(0)))).toBeUndefined();
    expect(readTableFile(file('head.table', good.subarray(0, 64)))).toBeUndefined();
    expect(readTableFile(file('short.table', good.subarray(0, good.length - 1)))).toBeUndefined();
    expect(readTableFile(file('long.table', Buffer.concat([good, Uint8Array.of(0)])))).toBeUndefined();
    expect(readTableFile(file('magic.table', damaged(0)))).toBeUndefined();
    expect(readTableFile(file('layout.table', damaged(8)))).toBeUndefined();
    expect(readTableFile(file('crc.table', damaged(16)))).toBeUndefined();
    expect(readTableFile(file('ranks.table', damaged(24)))).toBeUndefined();
    expect(readTableFile(file('body.table', damaged(64 + 1_000_000)))).toBeUndefined();
    expect(readTableFile(file('tail.table', damaged(good.length - 1)))).toBeUndefined();
  });

  it('refuses a FIFO without waiting for a writer, and a header naming more than 64 MiB without reading it', () => {
    const fifo = join(dir, 'fifo.table');
    const made = spawnSync('mkfifo', [fifo]);
    expect(made.status).toBe(0);
    expect(readTableFile(fifo)).toBeUndefined();
    // A sparse file as long as its header says (64 MiB + 1 byte of table), with a good header.
    const big = join(dir, 'big.table');
    const head = good.slice(0, 64);
    new DataView(head.buffer).setUint32(12, 64 * 1024 * 1024 + 1, true);
    writeFileSync(big, head);
    truncateSync(big, 64 + 64 * 1024 * 1024 + 1);
    expect(readTableFile(big)).toBeUndefined();
  });
});

type Ranks = typeof import('../src/tokens/ranks.js');
type Encode = typeof import('../src/tokens/encode.js');

/** A fresh tokenizer (ranks.ts and the modules above it) whose table source is `source`. */
async function freshTokenizer(source: () => ArrayBufferLike | undefined): Promise<{ r: Ranks; e: Encode; calls: () => number }> {
  vi.resetModules();
  const r = await import('../src/tokens/ranks.js');
  let n = 0;
  r.setTableSource(() => {
    n++;
    return source();
  });
  const e = await import('../src/tokens/encode.js');
  return { r, e, calls: () => n };
}

describe('setTableSource', () => {
  it('takes the table from the source on first use, once, without decoding the packed table', async () => {
    const buf = readTableFile(file('src.table', good))!;
    const { r, e, calls } = await freshTokenizer(() => buf);
    r.setInflateRaw(() => {
      throw new Error('the packed table was decoded');
    });
    expect(e.encToks('hello world')).toEqual([24912, 2375]);
    expect(e.lenToks('naïve café, 日本語のテキスト')).toBe(e.encToks('naïve café, 日本語のテキスト').length);
    expect(r.shareTable()).toBe(buf);
    expect(calls()).toBe(1);
  });

  it('decodes the packed table when the source has none, throws, or gives a malformed buffer', async () => {
    const bad: (() => ArrayBufferLike | undefined)[] = [
      () => undefined,
      () => {
        throw new Error('unreadable');
      },
      () => new ArrayBuffer(0),
      () => decoded.slice(0, decoded.length - 4).buffer,
      () => {
        const b = decoded.slice();
        new Int32Array(b.buffer, 0, 1)[0] = 100; // a vocabulary too small for its buffer
        return b.buffer;
      },
    ];
    for (const source of bad) {
      const { r, e, calls } = await freshTokenizer(source);
      expect(e.encToks('hello world')).toEqual([24912, 2375]);
      expect(calls()).toBe(1);
      expect(Buffer.compare(Buffer.from(new Uint8Array(r.shareTable())), Buffer.from(decoded))).toBe(0);
    }
  });
});

describe('the built table', () => {
  it('dist/tokens/o200k.table holds the decoded table', () => {
    ensureBuilt();
    const bytes = readFileSync(BUILT_TABLE);
    expect(Buffer.compare(bytes, Buffer.from(good))).toBe(0);
  });
});
