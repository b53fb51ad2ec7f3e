/**
 * Notebook bytes decoded by the decoder Node's host registers (`setUtf8Decoder`, the package
 * root and the command): the same text as `TextDecoder` (fatal, BOM kept), declined for short,
 * ASCII-only and invalid input, and the same dialogs and errors from `readsIpynbBytes`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeUtf8Node } from '../src/host/node.js';
import { dumpsIpynb, readsIpynbBytes } from '../src/notebook/index.js';
import { decodeUtf8, setUtf8Decoder } from '../src/python/utf8.js';

const enc = new TextEncoder();
const strict = (b: Uint8Array): string => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b);

/** A notebook of one markdown cell whose source is `text`, as bytes. */
function notebookBytes(text: string, prefix: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = JSON.stringify(
    { cells: [{ cell_type: 'markdown', id: 'c1', metadata: {}, source: [text] }], metadata: {}, nbformat: 4, nbformat_minor: 5 },
    null,
    1,
  );
  const body = enc.encode(`${json}\n`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
}

afterEach(() => setUtf8Decoder(undefined));

describe('decodeUtf8Node', () => {
  it('decodes valid UTF-8 with non-ASCII bytes as TextDecoder does, BOM kept', () => {
    const text = `\ufeff${'abc '.repeat(1500)}é中😀\u2028${'x'.repeat(10)}`;
    const bytes = enc.encode(text);
    const got = decodeUtf8Node(bytes);
    expect(got).toBe(text);
    expect(got?.length).toBe(1 + 6000 + 1 + 1 + 2 + 1 + 10);
    // a view into a larger buffer, at an odd offset
    const big = new Uint8Array(bytes.length + 3);
    big.set(bytes, 1);
    expect(decodeUtf8Node(big.subarray(1, 1 + bytes.length))).toBe(text);
  });
  it('declines short, ASCII-only and invalid input', () => {
    expect(decodeUtf8Node(enc.encode('é'.repeat(100)))).toBe(undefined);
    expect(decodeUtf8Node(enc.encode('a'.repeat(10_000)))).toBe(undefined);
    for (const bad of [[0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff]]) {
      const bytes = new Uint8Array([...enc.encode('é'.repeat(3000)), ...bad]);
      expect(decodeUtf8Node(bytes)).toBe(undefined);
    }
  });
});

describe('readsIpynbBytes with the host decoder', () => {
  it('reads the same dialog', () => {
    const bytes = notebookBytes(`${'line of text\n'.repeat(500)}naïve café — 中文 😀`);
    const before = dumpsIpynb(readsIpynbBytes(bytes, 'nb'));
    setUtf8Decoder(decodeUtf8Node);
    expect(decodeUtf8(bytes)).toBe(strict(bytes));
    const d = readsIpynbBytes(bytes, 'nb');
    expect(d.messages[0]?.content.endsWith('naïve café — 中文 😀')).toBe(true);
    expect(dumpsIpynb(d)).toBe(before);
  });
  it('reports invalid UTF-8 with the same error', () => {
    const good = notebookBytes('é'.repeat(3000));
    const bytes = new Uint8Array(good);
    bytes[5000] = 0xff;
    const message = (): string => {
      try {
        readsIpynbBytes(bytes, 'nb');
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message} / ${((e as Error).cause as Error).name}`;
      }
      return 'no error';
    };
    const plain = message();
    expect(plain).toBe('NotebookError: nb: not valid UTF-8 (bad byte sequence at byte offset 5000) / TypeError');
    setUtf8Decoder(decodeUtf8Node);
    expect(message()).toBe(plain);
  });
  it('keeps a byte order mark, which is then a JSON error', () => {
    const bytes = notebookBytes('é'.repeat(3000), new Uint8Array([0xef, 0xbb, 0xbf]));
    const message = (): string => {
      try {
        readsIpynbBytes(bytes, 'nb');
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    const plain = message();
    expect(plain.startsWith('nb: ')).toBe(true);
    setUtf8Decoder(decodeUtf8Node);
    expect(message()).toBe(plain);
  });
});
