/**
 * The library's SHA-256 (reproducible cell ids: ids.ts, the flat notebook's cell): the
 * JavaScript one of `@noble/hashes`, or a host's native one registered by {@link setSha256Hex}
 * (the command registers Node's, which gives the same digests without hashing large texts in
 * JavaScript). Internal to the library: no entry point exports it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** SHA-256 of some bytes as 64 lowercase hex digits. */
export type Sha256Hex = (bytes: Uint8Array) => string;
let hostSha256: Sha256Hex | undefined;

/**
 * Hash with `fn` (a host's native SHA-256, such as Node's `crypto`) instead of the JavaScript
 * one; `undefined` goes back to it. Only the speed changes: the digests are the same.
 */
export function setSha256Hex(fn: Sha256Hex | undefined): void {
  hostSha256 = fn;
}

/** SHA-256 of `bytes` as 64 lowercase hex digits (the host's hash when one is registered). */
export function sha256Hex(bytes: Uint8Array): string {
  return hostSha256 === undefined ? bytesToHex(sha256(bytes)) : hostSha256(bytes);
}
