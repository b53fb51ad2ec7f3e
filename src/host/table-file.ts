/**
 * The rank table built ahead of time (Node only): the decoded o200k_base table of
 * tokens/ranks.ts as the build writes it to `dist/tokens/o200k.table`, so a process reads a few
 * megabytes instead of decoding the packed table (SPEC §2 is unchanged: the same table, so the
 * same counts). A file that is missing, short, of another layout or rank data, or whose CRC-32
 * does not match, is not used; the caller then decodes the packed table. So is anything but a
 * regular file (a FIFO is opened without blocking and refused), and a header of another layout
 * or rank data, or naming more than {@link MAX_TABLE} bytes, before any of the body is read.
 *
 * File layout (integers little-endian):
 *   0  8 bytes  `o200ktab`
 *   8  u32      the table layout version (`TABLE_LAYOUT` of ranks.ts)
 *  12  u32      L, the table's byte length
 *  16  u32      CRC-32 of the table's bytes
 *  20  u32      0
 *  24  32 bytes the SHA-256 of the rank data the table holds (`TABLE_SHA256` of o200k-data.ts)
 *  56  8 bytes  0
 *  64  L bytes  the table buffer (tokens/ranks.ts `shareTable`)
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { TABLE_SHA256 } from '../tokens/o200k-data.js';
import { TABLE_LAYOUT } from '../tokens/ranks.js';

const MAGIC = 'o200ktab';
/** Bytes before the table. */
const HEADER = 64;
/** The most table bytes a header may name (the o200k_base table takes 6.4 MB). */
const MAX_TABLE = 64 * 1024 * 1024;

/** The header that describes a table of `len` bytes whose CRC-32 is `crc`. */
function header(len: number, crc: number): Uint8Array {
  const h = new Uint8Array(HEADER);
  const dv = new DataView(h.buffer);
  for (let i = 0; i < MAGIC.length; i++) h[i] = MAGIC.charCodeAt(i);
  dv.setUint32(8, TABLE_LAYOUT, true);
  dv.setUint32(12, len, true);
  dv.setUint32(16, crc, true);
  for (let i = 0; i < 32; i++) h[24 + i] = Number.parseInt(TABLE_SHA256.slice(2 * i, 2 * i + 2), 16);
  return h;
}

/**
 * The bytes of a table file holding `table` (a buffer from `shareTable` of tokens/ranks.ts):
 * the header, then a copy of the table. Shape checks are the reader's: this writes any buffer.
 */
export function tableFileBytes(table: ArrayBufferLike): Uint8Array {
  const body = new Uint8Array(table);
  const out = new Uint8Array(HEADER + body.length);
  out.set(header(body.length, crc32(body)));
  out.set(body, HEADER);
  return out;
}

/**
 * The table of the file at `path`, read into a SharedArrayBuffer (so worker threads can share
 * it), or `undefined` when the file cannot be read or is not a table of this layout and rank
 * data with a matching CRC-32. Never throws.
 */
export function readTableFile(path: string | URL): ArrayBufferLike | undefined {
  let fd: number | undefined;
  try {
    // Without blocking: opening a FIFO for reading would wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size < HEADER) return undefined;
    const size = st.size;
    const head = new Uint8Array(HEADER);
    if (readSync(fd, head, 0, HEADER, 0) !== HEADER) return undefined;
    const len = new DataView(head.buffer).getUint32(12, true);
    if (len > MAX_TABLE || size !== HEADER + len) return undefined;
    // Everything but the CRC is checked before the body is read.
    const expected = header(len, new DataView(head.buffer).getUint32(16, true));
    for (let i = 0; i < HEADER; i++) if (head[i] !== expected[i]) return undefined;
    const buf = new SharedArrayBuffer(len);
    const body = new Uint8Array(buf);
    for (let at = 0; at < len; ) {
      const n = readSync(fd, body, at, len - at, HEADER + at);
      if (n <= 0) return undefined;
      at += n;
    }
    const want = header(len, crc32(body));
    for (let i = 0; i < HEADER; i++) if (head[i] !== want[i]) return undefined;
    return buf;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
