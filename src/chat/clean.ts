/**
 * The reply as the current-form parser reads it (SPEC §6): legacy envelopes converted
 * ({@link convTools}), ```` ```json {.usage} ```` blocks removed, then
 * `<!--think_start-->…<!--think_end-->` spans removed.
 */
import { InvalidArgumentError } from '../errors.js';
import { lineTable, scanLineFences } from './fences.js';
import { THINK_END, THINK_START, USAGE_INFO } from './format.js';
import { convTools } from './legacy-envelope.js';

/** Remove ```` ```json {.usage} ```` blocks, each with its closing line's break. */
function removeUsageBlocks(s: string): string {
  if (!s.includes(USAGE_INFO)) return s;
  const t = lineTable(s);
  const out: string[] = [];
  let copied = 0;
  for (const f of scanLineFences(t).fences) {
    if (f.info !== USAGE_INFO) continue;
    out.push(s.slice(copied, t.offs[f.open]));
    copied = t.offs[f.close + 1];
  }
  if (copied === 0) return s;
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * Remove `<!--think_start-->…<!--think_end-->` spans (shortest match, across lines) and the
 * one `\n` that may follow each, as Python `re.sub(r'<!--think_start-->.*?<!--think_end-->\n?',
 * '', s, flags=re.S)` does. A start marker without an end marker stays.
 */
function removeThinkSpans(s: string): string {
  let a = s.indexOf(THINK_START);
  if (a < 0) return s;
  const out: string[] = [];
  let copied = 0;
  while (a >= 0) {
    const b = s.indexOf(THINK_END, a + THINK_START.length);
    if (b < 0) break;
    out.push(s.slice(copied, a));
    copied = b + THINK_END.length;
    if (s.charCodeAt(copied) === 0x0a) copied++;
    a = s.indexOf(THINK_START, copied);
  }
  out.push(s.slice(copied));
  return out.join('');
}

/**
 * The reply as the current-form parser sees it: {@link convTools}, then usage blocks removed
 * (whole lines), then think spans removed (SPEC §6). Linear.
 * @throws InvalidArgumentError if `reply` is not a string.
 */
export function cleanReply(reply: string): string {
  if (typeof reply !== 'string') throw new InvalidArgumentError(`cleanReply: reply must be a string, got ${typeof reply}`);
  return removeThinkSpans(removeUsageBlocks(convTools(reply)));
}
