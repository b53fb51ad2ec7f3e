/**
 * Exact o200k_base tokens (SPEC §2): encode, decode, count, budget checks and the reference's
 * middle cut, plus the token-counter contract the strategies share. This is the public surface
 * of the folder; its other modules are internal.
 */
export { decToks, encToks, lenToks } from './encode.js';
export { fitsToks, midCuts, truncToksMid } from './budget.js';
export { utf8Length } from '../python/utf8.js';
export * from './counter.js';
