/**
 * Node's native services for the browser-safe core: its zlib for the packed rank table, its
 * SHA-256 for reproducible cell ids, its UTF-8 check and transcoder for reading notebooks, and
 * the rank table the build wrote (table-file.ts), read on first use instead of decoding. Each
 * changes only speed: the tables, counts, digests and texts are the ones the core computes by
 * itself. The package root and the command call {@link useNodeHost}; nothing is read until the
 * tokenizer first needs its table.
 */
import { isAscii, isUtf8, transcode } from 'node:buffer';
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { setSha256Hex } from '../dialog/hash.js';
import { setUtf8Decoder } from '../python/utf8.js';
import { setInflateRaw, setTableSource } from '../tokens/ranks.js';
import { readTableFile } from './table-file.js';

/** Where the build writes the table: `dist/tokens/o200k.table`, beside the tokenizer's modules. */
export const BUILT_TABLE = new URL('../tokens/o200k.table', import.meta.url);

/** Options of {@link useNodeHost}. */
export interface NodeHostOptions {
  /** the table file to read (default {@link BUILT_TABLE}); `null` decodes the packed table instead */
  tableFile?: string | URL | null;
}

/**
 * Register Node's services with the core. Call before the first count (later calls still switch
 * the hash, but the table is decoded once per thread). A table file that is missing or not
 * valid is passed over silently: the packed table is decoded as without a host.
 */
export function useNodeHost(opts: NodeHostOptions = {}): void {
  setInflateRaw((src) => inflateRawSync(src));
  setSha256Hex((bytes) => createHash('sha256').update(bytes).digest('hex'));
  setUtf8Decoder(decodeUtf8Node);
  const file = opts.tableFile === undefined ? BUILT_TABLE : opts.tableFile;
  setTableSource(file === null ? undefined : () => readTableFile(file));
}

/** Below this many bytes the transcoder's setup costs more than it saves. */
const TRANSCODE_MIN = 4096;

/**
 * Valid UTF-8 holding non-ASCII bytes, decoded by Node's transcoder to UTF-16 (about twice as
 * fast as `TextDecoder` on notebooks); `undefined` for short, ASCII-only or invalid input,
 * which `TextDecoder` then decodes (or rejects with its usual error).
 */
export function decodeUtf8Node(bytes: Uint8Array): string | undefined {
  if (bytes.length < TRANSCODE_MIN || !isUtf8(bytes) || isAscii(bytes)) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return transcode(b, 'utf8', 'utf16le').toString('utf16le');
}
