/**
 * The notebook layer (SPEC §7): `.ipynb` text to dialogs and back (read.ts, write.ts),
 * validation before writing (validate.ts), JupyterLab notebook objects (content.ts) and the flat
 * notebook of a compact rendering (flat-notebook.ts). Browser-safe; Node file I/O is files.ts,
 * exported by the Node entry only. See README.md in this folder.
 */
export { readsIpynb, readsIpynbBytes, type ReadOptions } from './read.js';
export { dumpsIpynb, type WriteOptions } from './write.js';
export { validateDialog } from './validate.js';
export { fromNotebookContent, toNotebookContent, type NotebookContentOptions } from './content.js';
export { flatDocument, flatNotebook, measureFlatDocument, type FlatDocumentOptions, type FlatNotebookInfo } from './flat-notebook.js';
