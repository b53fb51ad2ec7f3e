/**
 * Node transcript writer for {@link autoCompact} (SPEC §9; transcripts go under
 * `.transcripts/` by default). Kept out of `micro.ts` so that module stays browser-safe.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, link, mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { autoCompact, type AutoCompactOptions, type AutoCompactResult, type TranscriptWriter } from './micro.js';
import type { Summarizer } from './summarizer.js';
import type { AnthropicWireMessage } from './wire.js';

/** Error codes of filesystems without hard links, where we fall back to an exclusive create. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

function code(e: unknown): string | undefined {
  return e !== null && typeof e === 'object' ? ((e as { code?: unknown }).code as string | undefined) : undefined;
}

/**
 * Write `data` (UTF-8) to `join(dir, name)`, creating `dir` (recursively) when needed.
 * Atomic and exclusive: the text goes to a temporary file in `dir`, is flushed to disk, and is
 * hard-linked to the final name, which fails if that name exists — so a reader never sees a
 * partial transcript and an existing file is never overwritten. Where hard links are not
 * supported, falls back to an exclusive create (`wx`) of the final name.
 * @returns the path written (`join(dir, name)`), or `null` when the name is already taken.
 * @throws the underlying filesystem error on any other failure (the temporary file is removed).
 */
export const nodeTranscriptWriter: TranscriptWriter = async (dir, name, data) => {
  await mkdir(dir, { recursive: true });
  const final = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx');
  try {
    try {
      await fh.writeFile(data, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await link(tmp, final);
      return final;
    } catch (e) {
      if (code(e) === 'EEXIST') return null;
      if (!NO_LINK.has(code(e) ?? '')) throw e;
    }
    // No hard links here: exclusive create of the final name (not atomic for readers).
    let out: FileHandle;
    try {
      out = await open(final, 'wx');
    } catch (e) {
      if (code(e) === 'EEXIST') return null;
      throw e;
    }
    try {
      await out.writeFile(data, 'utf8');
      await out.sync();
    } finally {
      await out.close();
    }
    return final;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
};

/**
 * {@link autoCompact} with {@link nodeTranscriptWriter} as the default writer.
 * Same result and errors as {@link autoCompact}.
 */
export function autoCompactNode(
  messages: readonly AnthropicWireMessage[],
  summarizer: Summarizer,
  options: Partial<AutoCompactOptions> = {},
): Promise<AutoCompactResult> {
  return autoCompact(messages, summarizer, { ...options, writeTranscript: options.writeTranscript ?? nodeTranscriptWriter });
}
