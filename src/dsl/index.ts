/**
 * `dlg-compact/dsl`: the compact DSL (SPEC §3–§6): renderers of canonical messages under token
 * budgets, reply compaction, and continuation documents. See README.md in this folder.
 */
export * from './render.js';
export * from './compact-reply.js';
export * from './continuation.js';
export * from './evidence-cut.js';
export { cleanTruncMid, graphemeCeil, graphemeFloor } from './graphemes.js';
export { cleanProse, dropThinkingLines, isThinkingLine, type CleanProseOptions } from './clean-text.js';
export { closeOpenFence } from './fences-repair.js';
export { formatSize, htmlText, markBinaryRuns, mediaMarker } from './media.js';
export { UNNAMED_SOURCE, flatLegend, wrapFlat } from './legend.js';
