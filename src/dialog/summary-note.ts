/**
 * What a summary note holds besides the summary (SPEC §9 on the dialog model, with the rules of
 * `docs/differences.md`): an earlier note's body folded in once, the deterministic index of
 * what an LLM summary replaced, and the attachments the note's text refers to.
 */
import { eachPath } from '../dsl/evidence-scan.js';
import { fmt2hist, type ToolUsePart } from '../chat/index.js';
import { compactCall } from '../dsl/render.js';
import { TRANSCRIPT_MARKER } from '../dsl/continuation.js';
import { pyStrip } from '../python/index.js';
import { fitsToks, lenToks, truncToksMid } from '../tokens/index.js';
import type { JsonObject, MessageLike as Message } from './cells.js';

/** Cell metadata key under which a summary note records its provenance. */
export const SUMMARY_META_KEY = 'dlg_compact';

/** The header line of a summary note (with the blank line after it). */
export function noteHeader(n: number): string {
  return `[Conversation summary - ${n} earlier cell(s) condensed]\n\n`;
}

/** The line that opens the index of replaced cells at the end of a note. */
export const INDEX_HEADING = '\n\n[Index of what this summary replaced]\n';

const HEADER_RE = /^\[Conversation summary - \d+ earlier cell\(s\) condensed\]\n\n/;

/** True when `m` is a summary note this library wrote (its metadata says so). */
export function isSummaryNote(m: Message): boolean {
  if (m.type !== 'note' || m.meta === null || typeof m.meta !== 'object') return false;
  const v = (m.meta as Record<string, unknown>)[SUMMARY_META_KEY];
  return v !== null && typeof v === 'object' && (v as Record<string, unknown>).kind === 'summary';
}

/**
 * The summary an earlier note holds, without its header, its index and its transcript line:
 * what a new summary folds in, once (so notes never nest whole inside notes).
 */
export function noteBody(content: string): string {
  let s = content.replace(HEADER_RE, '');
  const idx = s.indexOf(INDEX_HEADING);
  if (idx >= 0) s = s.slice(0, idx);
  const tr = s.indexOf(TRANSCRIPT_MARKER);
  if (tr >= 0) s = s.slice(0, tr);
  return pyStrip(s);
}

/** Argument keys whose string values name files. */
const PATH_KEYS = new Set(['path', 'file', 'file_path', 'filepath', 'filename', 'fname', 'dest', 'dir', 'directory', 'cwd']);
const EXIT_RE = /(?:exit(?:ed)?(?: with)?(?: code| status)?|return ?code|returncode)[:= ]+(-?\d+)/i;

/**
 * Paths among a call's string arguments: a value under a path key, or the file paths in the
 * first 4,000 characters of any other, as the flat document's evidence index finds them
 * (`eachPath`: a MIME type such as `application/octet-stream`, `self.html` or a path with a
 * dot at its end is none).
 */
function pathsOf(args: Record<string, unknown>, into: Set<string>): void {
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') continue;
    if (PATH_KEYS.has(k.toLowerCase()) && v.length <= 200 && !v.includes('\n')) {
      into.add(v);
      continue;
    }
    eachPath(v.slice(0, 4000), false, (p) => {
      if (p.length >= 3) into.add(p);
    });
  }
}

/** Budget of one call line in the index (tokens). */
const CALL_TOKENS = 30;

/**
 * A deterministic index of the cells a summary replaced: each tool call (`▶ name(short
 * args)`, with `→ exit N` when its result states an exit code), each code cell (`#_id`, with
 * `→ error NAME` when an output is an error), then the paths the calls touched. At most
 * `maxToks` tokens: a longer list is cut in the middle, keeping its first and last lines.
 * Returns `''` when the cells hold no call, no code and no path.
 */
export function replacedIndex(cells: readonly Message[], maxToks: number): string {
  const lines: string[] = [];
  const paths = new Set<string>();
  for (const m of cells) {
    if (m.skipped) continue;
    if (m.type === 'code') {
      const err = m.output.find((o) => o !== null && typeof o === 'object' && (o as Record<string, unknown>).output_type === 'error') as
        | Record<string, unknown>
        | undefined;
      lines.push(`- #_${m.id}${err ? ` → error ${String(err.ename ?? '')}` : ''}`);
      continue;
    }
    if (m.type !== 'prompt' || m.reply === '') continue;
    const results = new Map<string, string>();
    const hist = fmt2hist(m.reply);
    for (const msg of hist) for (const p of msg.content) if (p.type === 'tool_result') results.set(p.id, p.text);
    for (const msg of hist) {
      for (const p of msg.content) {
        if (p.type !== 'tool_use') continue;
        const use = p as ToolUsePart;
        pathsOf(use.arguments, paths);
        const exit = EXIT_RE.exec((results.get(use.id) ?? '').slice(0, 4000));
        const call = compactCall(use, CALL_TOKENS).split('\n')[0]!;
        lines.push(`- ${call}${exit ? ` → exit ${exit[1]}` : ''}`);
      }
    }
  }
  if (paths.size > 0) lines.push(`- paths: ${[...paths].join(', ')}`);
  if (lines.length === 0 || maxToks <= 0) return '';
  const text = lines.join('\n');
  if (fitsToks(text, maxToks)) return text;
  // Keep whole lines from both ends.
  const head: string[] = [];
  const tail: string[] = [];
  let used = lenToks('\n- …\n');
  for (let a = 0, b = lines.length - 1; a <= b; ) {
    const x = lines[a]!;
    const n = lenToks(x) + 1;
    if (used + n > maxToks) break;
    head.push(x);
    used += n;
    a++;
    if (a > b) break;
    const y = lines[b]!;
    const k = lenToks(y) + 1;
    if (used + k > maxToks) break;
    tail.unshift(y);
    used += k;
    b--;
  }
  if (head.length === 0) return truncToksMid(text, maxToks);
  return [...head, '- …', ...tail].join('\n');
}

const IMAGE_RE = /!\[([^\]\n]*)\]\(attachment:([^\s)]+)[^)\n]*\)|attachment:([^\s)"'>\]]+)/g;

/**
 * The attachments a note needs: every `attachment:NAME` reference in `content` (in a Markdown
 * image or bare) whose attachment one of `cells` holds is kept, with the attachment copied (the
 * first holder wins); a reference to an attachment none of them holds (a cut name, say)
 * becomes the marker `[image ALT: attachment NAME not kept]` (`[attachment NAME not kept]`
 * when bare), so no written notebook refers to an attachment it lacks.
 * @returns the note's text and its attachments (`undefined` when none).
 */
export function noteAttachments(content: string, cells: readonly Message[]): { content: string; attachments: JsonObject | undefined } {
  if (!content.includes('attachment:')) return { content, attachments: undefined };
  const found: JsonObject = {};
  let any = false;
  const holds = (raw: string): boolean => {
    let name = raw;
    try {
      name = decodeURIComponent(raw);
    } catch {
      // keep the raw name
    }
    if (Object.hasOwn(found, name)) return true;
    for (const m of cells) {
      const a = m.attachments;
      if (a && Object.hasOwn(a, name)) {
        found[name] = structuredClone(a[name]!);
        any = true;
        return true;
      }
    }
    return false;
  };
  const out = content.replace(IMAGE_RE, (whole, alt: string | undefined, img: string | undefined, bare: string | undefined) => {
    if (img !== undefined) return holds(img) ? whole : `[image${alt ? ' ' + alt : ''}: attachment ${img} not kept]`;
    return holds(bare!) ? whole : `[attachment ${bare!} not kept]`;
  });
  return { content: out, attachments: any ? found : undefined };
}
