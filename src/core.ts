/**
 * dlg-compact's browser-safe core: everything except file I/O and the command line. Nothing
 * reachable from here imports a `node:` module, so JupyterLab front-end code and companion
 * scripts can bundle it. Node users import the package root (`dlg-compact`), which re-exports
 * this plus the file helpers of `io.ts`.
 */
export * from './errors.js';
export * from './chat/message.js';
export * from './python/index.js';
export * from './tokens/index.js';
export * from './dsl/render.js';
export * from './dsl/continuation.js';
export * from './dsl/compact-reply.js';
export * from './chat/index.js';
export * from './dialog/ai-output.js';
export * from './dialog/cells.js';
export * from './dialog/message.js';
export * from './dialog/dialog.js';
export * from './dialog/chat-bridge.js';
export * from './notebook/index.js';
export * from './dialog/compact.js';
export * from './dialog/measure.js';
export * from './strategies/refusal.js';
export * from './strategies/llm-settings.js';
export * from './strategies/summarizer.js';
export * from './strategies/wire.js';
export * from './strategies/summary.js';
export * from './strategies/micro.js';
export * from './strategies/evidence.js';
export * from './strategies/summarizer-http.js';
export * from './dialog/summarize.js';
export * from './dialog/micro.js';
