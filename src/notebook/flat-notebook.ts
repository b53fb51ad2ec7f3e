/**
 * The flat forms of a dialog (SPEC §8): the flat document — the whole dialog rendered as one
 * compact document (`dlg2compact`), in the clean profile wrapped with a legend that names the
 * source notebook (`dsl/legend.ts`) — and the flat notebook, which holds that document in a
 * single raw cell of a new notebook (what the command writes by default).
 */
import { InvalidArgumentError } from '../errors.js';
import { resolvePolicy, type Policy, type Profile } from '../dsl/profile.js';
import { wrapFlat } from '../dsl/legend.js';
import { cloneJson, type DialogLike } from '../dialog/cells.js';
import { dlg2compact, fitFlatDocument, flatMemo, measureFlat, withFlatIndex } from '../dialog/compact.js';
import { Dialog } from '../dialog/dialog.js';
import { sha256Hex } from '../dialog/hash.js';
import { lenToks, type ClassTokens } from '../tokens/index.js';

/** Options of {@link flatDocument}. */
export interface FlatDocumentOptions {
  /**
   * The source notebook as the reader should find it (a path relative to where the document
   * is written); named by the legend. `null` or absent: read from standard input.
   */
  source?: string | null;
  /** Budgets and profile (default: `compactPolicy`, the clean profile). */
  policy?: Partial<Policy>;
  /**
   * Wrap the body with the legend and follow it with the evidence index of what the cuts left
   * out (default `true`); the reference profile never does.
   */
  legend?: boolean;
  /** Fit the whole document, legend included, into this many tokens (`fitFlatDocument`). */
  maxTokens?: number;
  /**
   * Clean profile: spend the budgets with the recency gradient (docs/differences.md rule 32;
   * default `true`); `false` renders every turn with the one policy. A fit has its own gradient.
   */
  recency?: boolean;
}

/** Does this rendering carry the legend? Only the clean profile does, unless `legend: false`. */
function withLegend(profile: Profile, legend: boolean | undefined): boolean {
  if (legend !== undefined && typeof legend !== 'boolean') throw new InvalidArgumentError('flatDocument: legend must be a boolean');
  return profile === 'clean' && legend !== false;
}

function checkRecency(recency: unknown, fn: string): boolean | undefined {
  if (recency !== undefined && typeof recency !== 'boolean') throw new InvalidArgumentError(`${fn}: recency must be a boolean`);
  return recency;
}

function checkSource(source: unknown): string | null {
  if (source === undefined || source === null) return null;
  if (typeof source !== 'string') throw new InvalidArgumentError('flatDocument: source must be a string or null');
  return source;
}

/**
 * The flat document of a dialog as the command writes it: `dlg2compact` under the policy,
 * wrapped (clean profile, unless `legend: false`) with the legend naming `source` and a closing
 * pointer to it, so `compactBody(flatDocument(d, opts))` is the body. With `maxTokens` the
 * document, legend included, is fitted into that budget. The dialog is not modified.
 * @throws NotebookError as `dlg2compact`; InvalidArgumentError on bad options; FitError as
 *   `fitFlatDocument`.
 */
export function flatDocument(d: DialogLike, opts: FlatDocumentOptions = {}): string {
  const p = resolvePolicy(opts.policy);
  const source = checkSource(opts.source);
  const recency = checkRecency(opts.recency, 'flatDocument');
  const wrap = withLegend(p.profile, opts.legend) ? (body: string, brief = false) => wrapFlat(body, source, brief) : undefined;
  if (opts.maxTokens !== undefined) return fitFlatDocument(d, opts.maxTokens, p, wrap, wrap !== undefined).text;
  // The index reads the replies and outputs the body parsed and viewed.
  const memo = wrap ? flatMemo() : undefined;
  const body = dlg2compact(d, { ...p, recency }, memo);
  return wrap ? wrap(withFlatIndex(d, body, undefined, memo)) : body;
}

/**
 * {@link flatDocument} (without `maxTokens`) together with the token counts of its body by
 * class (`measureFlat`: `tokens.total` is the body's, as the command reports it) and of the
 * whole document, legend and evidence index included (`documentTokens`; `body` is the body
 * with its index).
 */
export function measureFlatDocument(
  d: DialogLike,
  opts: Omit<FlatDocumentOptions, 'maxTokens'> = {},
): { text: string; body: string; tokens: ClassTokens; documentTokens: number } {
  const p = resolvePolicy(opts.policy);
  const source = checkSource(opts.source);
  const legend = withLegend(p.profile, opts.legend);
  const memo = legend ? flatMemo() : undefined;
  const flat = measureFlat(d, { ...p, recency: checkRecency(opts.recency, 'measureFlatDocument') }, memo);
  if (!legend) return { text: flat.text, body: flat.text, tokens: flat.tokens, documentTokens: flat.tokens.total };
  const body = withFlatIndex(d, flat.text, undefined, memo);
  const text = wrapFlat(body, source);
  return { text, body, tokens: flat.tokens, documentTokens: lenToks(text) };
}

/** What a flat notebook's metadata says about its making (`metadata.dlg_compact`). */
export interface FlatNotebookInfo {
  /** The source notebook as named in the legend (relative to the output), `null` when unknown. */
  source: string | null;
  /** The profile of the rendering. */
  profile: Profile;
  /** The version of dlg-compact that wrote it, when the caller gives it. */
  version?: string;
}

/**
 * A new dialog holding a flat document in one raw cell, with the source dialog's notebook
 * metadata (deep-copied) plus `metadata.dlg_compact` = {@link FlatNotebookInfo}
 * (`{source, profile}` and `version` when given), and the source's name. The cell id is the
 * first 8 hex digits of the document's SHA-256 (of its UTF-8 bytes), so the same document
 * always gives the same bytes (an up-to-date output can be recognised as unchanged).
 * @param d the dialog to render (not modified).
 * @param policy token budgets and profile of the rendering (SPEC §8 defaults for the rest).
 * @param text the document when the caller already rendered it (e.g. by
 *   {@link measureFlatDocument}); otherwise `dlg2compact(d, policy)`, the body alone.
 * @param info `source` and `version` for the metadata (default: no source, no version).
 * @throws NotebookError as `dlg2compact`, when a cell cannot be rendered.
 */
export function flatNotebook(d: DialogLike, policy?: Partial<Policy>, text?: string, info: { source?: string | null; version?: string } = {}): Dialog {
  const p = resolvePolicy(policy);
  const doc = text ?? dlg2compact(d, p);
  const metadata = cloneJson(d.metadata);
  const own: FlatNotebookInfo = { source: checkSource(info.source), profile: p.profile };
  if (info.version !== undefined) own.version = info.version;
  metadata.dlg_compact = own as unknown as (typeof metadata)[string];
  const out = new Dialog([], { metadata, name: d.name });
  out.mkMessage(doc, { type: 'raw', id: sha256Hex(new TextEncoder().encode(doc)).slice(0, 8) });
  return out;
}
