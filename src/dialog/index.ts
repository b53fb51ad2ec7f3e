/**
 * `dlg-compact/dialog`: the in-memory dialog (SPEC §7–§9): `Dialog` and `Message`, the AI view
 * of code outputs, chat ↔ dialog, the one token measure, reproducible ids, and the dialog-level
 * applications of compaction, summary and micro-compaction. See README.md in this folder.
 */
export * from './cells.js';
export * from './message.js';
export * from './dialog.js';
export * from './ai-output.js';
export * from './chat-bridge.js';
export * from './measure.js';
export * from './ids.js';
export * from './compact.js';
export * from './fit.js';
export * from './summarize.js';
export * from './summarizers.js';
export * from './micro.js';
export { INDEX_HEADING, isSummaryNote, noteBody, replacedIndex } from './summary-note.js';
