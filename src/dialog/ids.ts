/**
 * Reproducible cell ids: an id source seeded by the bytes of an input, so that reading the
 * same notebook twice gives its id-less cells (and any cell added later, such as a summary
 * note) the same fresh ids, and therefore the same output bytes. Browser-safe: SHA-256 comes
 * from `@noble/hashes`, unless a host registered its own (hash.ts).
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { InvalidArgumentError } from '../errors.js';
import { sha256Hex } from './hash.js';

/**
 * An id source for `ReadOptions.newId` (and the dialog's own id source) derived from an input.
 * Candidate `k` (k = 0, 1, 2, ... in call order) is the first 8 lowercase hex digits of
 * SHA-256(`SEED:k`) as UTF-8, where `SEED` is the 64 hex digits of SHA-256 of the input's
 * bytes. Each call of the returned function gives the next candidate; the dialog skips
 * candidates already used, so ids stay unique.
 *
 * @param input the input's bytes (as read from disk), or a string hashed as its UTF-8 bytes.
 * @returns a function returning 8-hex-digit strings, the same sequence for the same input.
 * @throws InvalidArgumentError when `input` is neither a string nor a `Uint8Array`.
 * @example
 * const bytes = await readFile('demo.ipynb');
 * const dialog = readsIpynbBytes(bytes, 'demo.ipynb', { newId: seededIds(bytes) });
 */
export function seededIds(input: Uint8Array | string): () => string {
  if (typeof input !== 'string' && !(input instanceof Uint8Array))
    throw new InvalidArgumentError(`seededIds: expected the input's bytes (a Uint8Array) or a string, got ${input === null ? 'null' : typeof input}`);
  const bytes = typeof input === 'string' ? utf8ToBytes(input) : input;
  const seed = sha256Hex(bytes);
  let k = 0;
  return () => sha256Hex(utf8ToBytes(`${seed}:${k++}`)).slice(0, 8);
}
