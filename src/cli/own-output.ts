/**
 * Recognising the command's own outputs among its inputs, so that a rerun over an unquoted
 * glob (`dlg-compact nbs/*.ipynb`, which the shell expands to the `-comp` copies too) skips
 * them instead of compacting them again (`-comp-comp`):
 *
 * - a notebook whose metadata holds `dlg_compact` (flat notebooks name the tool and their
 *   source there), whatever its name;
 * - a flat notebook by its content: a single raw cell whose id is the first 8 hex digits of
 *   the SHA-256 of its text, as `flatNotebook` makes it;
 * - a dialog-mode or micro copy by name and content: `S-comp.ipynb` beside a source `S.ipynb`
 *   (or `S.json`), or anywhere in the run while `S.ipynb` is one of its inputs (a copy in
 *   `--output-dir`), with the same cell ids in the same order (a byte-for-byte copy included: a
 *   run that cut nothing writes one), or holding a summary note;
 * - a flat Markdown output by name: `S-comp.md` beside a source `S.ipynb`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The line a skipped own output gets in the report. */
export const OWN_OUTPUT_NOTE = 'an output of dlg-compact';

const COMP_NAME = /^(.+)-comp\.(ipynb|md)$/i;

/** True when `name` (no folder) has the name of an output: `S-comp.ipynb` or `S-comp.md`. */
export function hasOutputName(name: string): boolean {
  return COMP_NAME.test(name);
}

type Json = Record<string, unknown>;

function parseObject(bytes: Uint8Array): Json | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

function cellsOf(nb: Json): Json[] {
  return Array.isArray(nb.cells) ? (nb.cells.filter((c) => c !== null && typeof c === 'object') as Json[]) : [];
}

function sourceText(cell: Json): string {
  const s = cell.source;
  return Array.isArray(s) ? s.join('') : typeof s === 'string' ? s : '';
}

function hasMeta(o: unknown): boolean {
  const m = (o as Json | null)?.metadata as Json | undefined;
  return m !== null && typeof m === 'object' && m.dlg_compact !== undefined;
}

/**
 * True when the parsed notebook `nb` says by its content alone that dlg-compact wrote it:
 * `dlg_compact` metadata on the notebook, or the flat notebook's single raw cell whose id is
 * its text's hash. (A summary note's cell metadata counts only with an output's name: a
 * summarised dialog may well be worked on and compacted again under a name of its own.)
 */
export function markedAsOwnOutput(nb: Json): boolean {
  if (hasMeta(nb)) return true;
  const cells = cellsOf(nb);
  if (cells.length !== 1 || cells[0]!.cell_type !== 'raw') return false;
  const text = sourceText(cells[0]!);
  return cells[0]!.id === createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/** {@link markedAsOwnOutput} for a parsed dialog (`metadata`, and `messages` with `type`, `id`, `content`). */
export function dialogIsOwnOutput(d: { metadata: unknown; messages: readonly { type: string; id: string; content: string }[] }): boolean {
  if (hasMeta(d)) return true;
  if (d.messages.length !== 1 || d.messages[0]!.type !== 'raw') return false;
  const m = d.messages[0]!;
  return m.id === createHash('sha256').update(m.content, 'utf8').digest('hex').slice(0, 8);
}

/**
 * Whether the file at `abs` is an output of dlg-compact (see the module note). Reads it (and
 * its source, for a dialog-mode copy); a file that cannot be read or parsed is not one (it
 * then fails as an input, with its reason).
 */
export async function isOwnOutput(abs: string, sources: readonly string[] = []): Promise<boolean> {
  const m = COMP_NAME.exec(basename(abs));
  const dir = dirname(abs);
  if (m && m[2]!.toLowerCase() === 'md') {
    return (await readFile(join(dir, `${m[1]}.ipynb`)).catch(() => null)) !== null;
  }
  const bytes = await readFile(abs).catch(() => null);
  const nb = bytes === null ? null : parseObject(bytes);
  if (nb === null) return false;
  if (markedAsOwnOutput(nb)) return true;
  if (!m) return false;
  if (cellsOf(nb).some(hasMeta)) return true;
  const ids = (cells: Json[]) => JSON.stringify(cells.map((c) => c.id ?? null));
  const mine = ids(cellsOf(nb));
  // The source beside it, or an input of the same run with the source's name (a copy written
  // into --output-dir, found again by a walk of the folder above).
  const candidates = [join(dir, `${m[1]}.ipynb`), join(dir, `${m[1]}.json`), ...sources.filter((x) => x !== abs)];
  for (const path of new Set(candidates)) {
    // A byte-for-byte copy counts too: it is what a run writes when nothing needed cutting, and
    // replacing it loses nothing, since its source holds the same bytes.
    const srcBytes = await readFile(path).catch(() => null);
    if (srcBytes === null) continue;
    const src = parseObject(srcBytes);
    if (src !== null && cellsOf(src).length > 0 && ids(cellsOf(src)) === mine) return true;
  }
  return false;
}
