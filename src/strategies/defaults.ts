/**
 * The default settings of the summary and micro strategies, as plain values in a module that
 * imports nothing, so that a caller that only shows them (the command's `--print-config`)
 * loads none of the strategies' code. summary.ts, micro.ts and dialog/summarize.ts use them.
 */

/** Micro-compaction: tool results kept verbatim at the end (the reference's `KEEP_RECENT`). */
export const MICRO_KEEP_RECENT = 3;

/** Micro-compaction: tools whose results are never cleared (more come from `keepTools`). */
export const PRESERVE_RESULT_TOOLS: readonly string[] = Object.freeze(['read_file']);

/** Summary: fraction of the conversation kept verbatim when no explicit count is given. */
export const KEEP_RECENT_RATIO = 0.25;

/** Summary: the fewest cells kept verbatim when the count comes from {@link KEEP_RECENT_RATIO}. */
export const KEEP_RECENT_MIN = 2;

/** Summary: the default least share of the count a summary must save (`minSaving`, 0 to 1). */
export const DEFAULT_MIN_SAVING = 0.1;
