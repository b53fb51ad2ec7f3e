/**
 * The chat layer: the canonical message model (SPEC §0) and the reply wire format (SPEC §6) —
 * fences, tool blocks, legacy envelopes, parsing (`fmt2hist`) and writing (`hist2fmt`). See
 * README.md in this folder.
 */
export * from './message.js';
export { REPLY_SEPARATOR, RESULT_CLOSE, RESULT_OPEN, THINK_END, THINK_START, TOOL_INFO, USAGE_INFO, isResultFence } from './format.js';
export { fenceBodyStart, isLineBreak, lineBreakLength, scanFences, type Fence } from './fences.js';
export { jsonStringEnd, jsonValueEnd, lastKeyValueSpan, skipJsonWhitespace } from './json-span.js';
export {
  isLegacyToolRecord,
  legacyToCurrentRecord,
  readToolBlock,
  resultText,
  toolBlockFields,
  toolBlockText,
  type ReplyItem,
  type ReplyText,
  type ReplyTool,
  type ToolBlockFields,
} from './tool-block.js';
export { convTools } from './legacy-envelope.js';
export { cleanReply } from './clean.js';
export { fmt2hist, parseToolBlocks } from './parse.js';
export { hist2fmt } from './write.js';
/** Descriptive alias of {@link fmt2hist} (the reference's name): a reply's Markdown to canonical messages. */
export { fmt2hist as parseReply } from './parse.js';
/** Descriptive alias of {@link hist2fmt} (the reference's name): canonical messages to a reply's Markdown. */
export { hist2fmt as formatReply } from './write.js';
