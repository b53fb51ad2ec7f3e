/**
 * Continuation documents (SPEC §5): a compact conversation (see `dsl.ts`) wrapped with a
 * legend, optional notes and a pointer to the full transcript, so a fresh session can pick up
 * the work; and the way back from such a document to its conversation body, for repeated
 * compaction.
 *
 * Document layout (the section markers are the reference's, so documents written by either
 * implementation read back with {@link compactBody}):
 * ```text
 * <legend>
 *
 * ## Conversation
 *
 * <chat>
 *
 * ## Auto-generated continuation notes      (only when there are notes)
 *
 * <notes>
 *
 * If further detail is needed, read the complete transcript at: <path>
 *
 * Skill contents were compacted out above. …: Skill(a), Skill(b).   (only when skills were loaded)
 * ```
 * The legend is written in this project's own words and differs from the reference's; the
 * rest of the layout is byte-for-byte the reference's (`conformance/dsl.json`).
 */
import { DocumentFormatError, InvalidArgumentError } from '../errors.js';
import { TURN_SEP } from './render.js';

/** Opens the conversation section. */
export const CONVERSATION_MARKER = '\n\n## Conversation\n\n';
/** Opens the optional notes section. */
export const NOTES_MARKER = '\n\n## Auto-generated continuation notes\n\n';
/** Opens the closing pointer to the full transcript (followed by `' ' + path`). */
export const TRANSCRIPT_MARKER = '\n\nIf further detail is needed, read the complete transcript at:';

/**
 * How to read a compact conversation. Our own wording; it must contain none of the section
 * markers above (and no Markdown fence), so a document always splits where intended.
 */
export const LEGEND =
  'What follows is a condensed record of an earlier conversation, carried over so that the work can go on. ' +
  'Reading key: `§ … §` wraps what the user wrote and `» … »` what the assistant wrote. ' +
  'A code block tagged `python` is code the assistant ran in a Python tool, a line opening with `!` is a shell command, ' +
  'and `▶ name(…)` is any other tool call; a line opening with `>` is what the call just above it returned. ' +
  '`¶` stands where a line break was folded away, ` … ` shows where the middle of a passage was cut out, ' +
  'and `***` sits between one user-led turn and the next. ' +
  'Much was shortened, so use this as a map rather than a source: before reusing any code, command or quotation, ' +
  'look it up again in the full transcript or in the file itself.';

const SKILL_CALL = /▶ Skill\(skill='([^']+)'/g;

function needString(v: unknown, fn: string, what: string): string {
  if (typeof v !== 'string') throw new InvalidArgumentError(`${fn}: ${what} must be a string, got ${v === null ? 'null' : typeof v}`);
  return v;
}

/**
 * Names of the skills loaded in a compact conversation: every `▶ Skill(skill='NAME'` call
 * (NAME = one or more characters other than `'`), unique, in first-seen order.
 */
export function skillNames(chat: string): string[] {
  const seen = new Set<string>();
  for (const m of needString(chat, 'skillNames', 'chat').matchAll(SKILL_CALL)) seen.add(m[1]!);
  return [...seen];
}

/**
 * Wrap a compact conversation as a continuation document (SPEC §5): {@link LEGEND}, the
 * conversation section, the notes section when `notes` is non-empty, the transcript pointer
 * `… at: ` + `path`, and, when the chat shows `▶ Skill(skill='NAME'…` calls, a closing sentence
 * asking the reader to re-invoke each skill as `Skill(NAME)` before relying on its guidance.
 * @param chat the compact conversation (e.g. from `compactChat`). @param path where the full
 *   transcript lives (written verbatim). @param notes optional free text.
 * @throws InvalidArgumentError when an argument is not a string.
 */
export function compactContent(chat: string, path: string, notes = ''): string {
  needString(chat, 'compactContent', 'chat');
  needString(path, 'compactContent', 'path');
  needString(notes, 'compactContent', 'notes');
  let doc = LEGEND + CONVERSATION_MARKER + chat;
  if (notes) doc += NOTES_MARKER + notes;
  doc += `${TRANSCRIPT_MARKER} ${path}`;
  const skills = skillNames(chat);
  if (skills.length) {
    doc +=
      '\n\nSkill contents were compacted out above. Before relying on any skill guidance, re-invoke it: ' + skills.map((s) => `Skill(${s})`).join(', ') + '.';
  }
  return doc;
}

/**
 * The conversation back out of a continuation document (SPEC §5), ours or the Python
 * reference's: the text after the first {@link CONVERSATION_MARKER}, cut before the first
 * {@link NOTES_MARKER}, then cut before the last {@link TRANSCRIPT_MARKER} in what remains
 * (the reference's order of cuts).
 * @throws DocumentFormatError when the document has no `## Conversation` section.
 * @throws InvalidArgumentError when `doc` is not a string.
 */
export function compactBody(doc: string): string {
  needString(doc, 'compactBody', 'doc');
  const at = doc.indexOf(CONVERSATION_MARKER);
  if (at < 0) {
    throw new DocumentFormatError('compactBody: not a continuation document: no "\\n\\n## Conversation\\n\\n" section marker found');
  }
  let body = doc.slice(at + CONVERSATION_MARKER.length);
  const notes = body.indexOf(NOTES_MARKER);
  if (notes >= 0) body = body.slice(0, notes);
  const tail = body.lastIndexOf(TRANSCRIPT_MARKER);
  return tail >= 0 ? body.slice(0, tail) : body;
}

/**
 * Join compact conversation segments (e.g. an earlier document's body and a new chat): the
 * non-empty ones, separated by `\n\n***\n\n` (SPEC §5).
 * @throws InvalidArgumentError when a part is not a string.
 */
export function joinCompacts(...parts: string[]): string {
  parts.forEach((p, i) => needString(p, 'joinCompacts', `part ${i}`));
  return parts.filter((p) => p !== '').join(TURN_SEP);
}
