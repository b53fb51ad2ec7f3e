/**
 * The fixed strings of the reply format (SPEC §0, §6): the separator between a prompt and its
 * reply, the info strings of tool and usage blocks, think markers and result fences.
 */

/** The separator between a prompt's question and its reply inside a prompt cell (SPEC §0). */
export const REPLY_SEPARATOR = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

/** Info string of a current-form tool block (SPEC §6). */
export const TOOL_INFO = 'json {.tool}';
/** Info string of a current-form usage block (SPEC §6). */
export const USAGE_INFO = 'json {.usage}';

/** Opening marker of a thinking span, which the parser removes (SPEC §6). */
export const THINK_START = '<!--think_start-->';
/** Closing marker of a thinking span. */
export const THINK_END = '<!--think_end-->';

/** How a result fence opens inside assistant text: `\n`````result\n`. */
export const RESULT_OPEN = '\n`````result\n';
/** How a result fence closes: `\n`````\n`. */
export const RESULT_CLOSE = '\n`````\n';

/**
 * True when `s` is exactly one result fence as fmt2hist cuts it out of assistant text into a
 * user message (`\n`````result\n…\n`````\n`); hist2fmt writes such a message back in place.
 */
export function isResultFence(s: string): boolean {
  if (!s.startsWith(RESULT_OPEN) || !s.endsWith(RESULT_CLOSE) || s.length < RESULT_OPEN.length + RESULT_CLOSE.length - 1) return false;
  return s.indexOf(RESULT_CLOSE, RESULT_OPEN.length - 1) === s.length - RESULT_CLOSE.length;
}
