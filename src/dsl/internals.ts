/**
 * Hooks into the process-wide caches of the renderers, for tests and benchmarks only. No
 * package entry exports this module; it may change at any time.
 *
 * - `clearCaches()`: forget what earlier compactions left in the caches keyed by text content
 *   (prepared results and evidence cuts here; the tokenizer's piece cache and encoded fronts),
 *   so that the next compaction does the work a fresh process would (compiled code aside):
 *   a benchmark that repeats the same dialogs then times a first compaction, not a second.
 */
import { tokensInternals } from '../tokens/internals.js';
import { clearPrepared } from './evidence-cut.js';
import { clearPreparedResults } from './render.js';

export const dslInternals = {
  clearCaches(): void {
    clearPrepared();
    clearPreparedResults();
    tokensInternals.clearCache();
  },
};
