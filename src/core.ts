/**
 * `dlg-compact/core`: the curated, browser-safe API — what the README's library section uses.
 * Nothing reachable from here imports a `node:` module, so JupyterLab front ends can bundle it.
 * Everything else is in the subpath entries named in README.md (`dlg-compact/tokens`, `/chat`,
 * `/dsl`, `/dialog`, `/notebook`, `/strategies`, `/python`; `/files` for Node).
 */
export { BudgetError, DlgError, InvalidArgumentError, JsonParseError, NotebookError } from './errors.js';
export { encToks, decToks, lenToks, fitsToks, truncToksMid } from './tokens/index.js';
export { type Msg, type Part, mkMsg, toolPart, toolResult, msgToJSON, msgFromJSON, fmt2hist, hist2fmt } from './chat/index.js';
export {
  type Policy,
  compactPolicy,
  compactText,
  compactResult,
  fencedCode,
  bashCall,
  genericCall,
  compactCall,
  callRenderers,
  compactUser,
  compactAsst,
  compactTool,
  compactMsg,
  compactChat,
  compactReply,
  compactContent,
  compactBody,
  joinCompacts,
} from './dsl/index.js';
export { type Summarizer, httpSummarizer, llmSettingsFromEnv } from './strategies/index.js';
export {
  Dialog,
  Message,
  chat2dlg,
  dlg2chat,
  dlg2compact,
  measureDialog,
  seededIds,
  summarizeDialog,
  planDialogSummary,
  microCompactDialog,
  planDialogMicro,
} from './dialog/index.js';
export { readsIpynb, dumpsIpynb, toNotebookContent, fromNotebookContent, validateDialog, flatNotebook } from './notebook/index.js';
