/**
 * What a failed file-system call means, in words (`describeFileError`): kept apart from
 * files.ts, which loads the whole notebook layer, so that the command can word its errors
 * without loading the library (its `--version` and `--help` stay fast).
 */

/** Phrases for the file-system error codes met most often. */
export const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EEXIST: 'file exists',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
  EXDEV: 'cross-device link not permitted',
  EBUSY: 'resource busy',
  ETXTBSY: 'text file busy',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  ENXIO: 'no process is reading it (a FIFO needs a reader)',
  ETIMEDOUT: 'timed out: nothing read what was written for 30 s',
  ESYMLINK: 'is a symbolic link; refusing to write through it (remove the link, or name it with -o to write its target)',
};

/** The `code` of a Node file-system error (`'ENOENT'`, ...), when it has one. */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What went wrong in a file-system call, in words and without Node's syscall and path: a short
 * phrase for common codes (`ENOENT` gives `'no such file or directory'`, `EACCES` `'permission
 * denied'`, also EPERM, EISDIR, ENOTDIR, EROFS, ENOSPC, EEXIST, ENAMETOOLONG, ELOOP), else the
 * error's own message (or `String(err)` for a non-Error).
 */
export function describeFileError(err: unknown): string {
  const code = errorCode(err);
  const known = code !== undefined && Object.hasOwn(FS_REASONS, code) ? FS_REASONS[code] : undefined;
  if (known !== undefined) return known;
  const msg = err instanceof Error ? err.message : String(err);
  // Node's "CODE: description, syscall 'path'": keep the description, drop the (temporary) path.
  const m = /^[A-Z][A-Z0-9_]+: (.*?), [a-z]+ '.*$/s.exec(msg);
  return m ? m[1]! : msg;
}
