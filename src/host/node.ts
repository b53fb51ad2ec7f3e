/**
 * Node's native services for the browser-safe core: its zlib for the packed rank table, its
 * SHA-256 for reproducible cell ids, and the rank table the build wrote (table-file.ts), read
 * on first use instead of decoding. Each changes only speed: the tables, counts and digests
 * are the ones the core computes by itself. The package root and the command call
 * {@link useNodeHost}; nothing is read until the tokenizer first needs its table.
 */
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { setSha256Hex } from '../dialog/hash.js';
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
  const file = opts.tableFile === undefined ? BUILT_TABLE : opts.tableFile;
  setTableSource(file === null ? undefined : () => readTableFile(file));
}
