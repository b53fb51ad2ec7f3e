/**
 * The flat notebook (SPEC §8): the whole dialog rendered as one compact document
 * (`dlg2compact`) and held in a single raw cell of a new notebook — what the command writes by
 * default.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Policy } from '../dsl/render.js';
import { cloneJson, type DialogLike } from '../dialog/cells.js';
import { dlg2compact } from '../dialog/compact.js';
import { Dialog } from '../dialog/dialog.js';

/**
 * A new dialog holding the flat document of `dlg2compact` in one raw cell, with the source
 * dialog's notebook metadata (deep-copied) and name. The cell id is the first 8 hex digits of
 * the document's SHA-256 (of its UTF-8 bytes), so the same document always gives the same
 * bytes (an up-to-date output can be recognised as unchanged).
 * @param d the dialog to render (not modified).
 * @param policy token budgets of the rendering (SPEC §8 defaults for the rest).
 * @param text the flat document when the caller already rendered it (e.g. by `measureFlat`);
 *   rendered here when omitted.
 * @throws NotebookError as `dlg2compact`, when a cell cannot be rendered.
 */
export function flatNotebook(d: DialogLike, policy?: Partial<Policy>, text?: string): Dialog {
  const doc = text ?? dlg2compact(d, policy);
  const out = new Dialog([], { metadata: cloneJson(d.metadata), name: d.name });
  out.mkMessage(doc, { type: 'raw', id: bytesToHex(sha256(new TextEncoder().encode(doc))).slice(0, 8) });
  return out;
}
