/**
 * `dlg-compact/strategies`: the transcript-level strategies (summary with a verbatim tail,
 * micro-compaction, receipt-backed evidence), their wire shapes, the one summariser type and
 * refusal vocabulary, and LLM settings. Browser-safe; the on-disk transcript writer of
 * auto-compaction is in `dlg-compact/files`. See README.md in this folder.
 */
export * from './summarizer.js';
export * from './refusal.js';
export * from './llm-settings.js';
export * from './summarizer-http.js';
export * from './wire.js';
export * from './summary.js';
export * from './micro.js';
export * from './evidence.js';
