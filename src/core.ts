/**
 * dlg-compact's browser-safe core: everything except file I/O and the command line. Nothing
 * reachable from here imports a `node:` module, so JupyterLab front-end code and companion
 * scripts can bundle it. Node users import the package root (`dlg-compact`), which re-exports
 * this plus the file helpers of `io.ts`.
 */
export * from './errors.js';
export * from './model.js';
export * from './json.js';
export * from './py.js';
export * from './tokens.js';
export * from './dsl.js';
export * from './continuation.js';
export * from './reply.js';
export * from './pyliteral.js';
export * from './aioutput.js';
export * from './dialog.js';
export * from './chat.js';
export * from './notebook.js';
export * from './compact.js';
export * from './summary.js';
export * from './micro.js';
export * from './evidence.js';
export * from './summarizer-http.js';
export * from './dialog-summary.js';
export * from './dialog-micro.js';
