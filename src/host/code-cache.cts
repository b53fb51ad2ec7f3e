/**
 * V8 code caches for the bundled command (`dist/bin/`, CommonJS). Most of a short run's time
 * is spent parsing and compiling the bundle's functions; the build records, after one run of
 * the command on the demo dialog, the compiled code of each of the bundle's files
 * (`<file>.cache`), and the launchers (`dist/bin/main.js`, `dist/bin/worker.js`) hand it back
 * to V8 when they load the same files again, so those functions are not compiled anew.
 *
 * Nothing here changes what the command does, only how fast it starts: a cache is used only
 * for the file it was made from (same length and CRC-32) on the V8 version and architecture
 * that made it, and only while its own bytes have the CRC-32 recorded with it
 * (`code-cache.json`; V8 does not check a cache's bytes itself); V8 refuses one made with other
 * flags. Otherwise, and for anything that is not a regular file, the file is compiled as usual.
 * A cache keeps the name its script was compiled under, so the bundle's files are compiled
 * under a name that does not depend on where the package is installed
 * (`dlg-compact/dist/bin/<file>`), which stack traces show for them. With source maps enabled
 * (`--enable-source-maps`) the caches are not used, so Node maps stack traces as it does
 * without them. Node only: the core never imports this file.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import { crc32 } from 'node:zlib';

/** Name of the file (in the bundle's folder) that lists the caches and what they were made for. */
export const MANIFEST = 'code-cache.json';

/** Set by the build (any non-empty value) to record the caches of the run instead of using them. */
export const RECORD_ENV = 'DLG_COMPACT_RECORD_CODE_CACHE';

/**
 * What `code-cache.json` holds: the V8 version and architecture, and per file its length
 * (UTF-16 units), the CRC-32 of its UTF-8 bytes and the CRC-32 of its cache's bytes.
 */
interface CacheManifest {
  v8: string;
  arch: string;
  files: Record<string, { units: number; crc32: number; cacheCrc32: number }>;
}

/** The name the bundle's file `name` is compiled under, the same wherever the package lives. */
export function scriptName(name: string): string {
  return `dlg-compact/dist/bin/${name}`;
}

/** How the files of the bundle loaded in this thread were compiled (for tests and diagnosis). */
export interface CodeCacheStats {
  /** Compiled from their cache. */
  used: number;
  /** Given their cache, which V8 refused (other flags). */
  rejected: number;
  /** Compiled without a cache: none recorded, or recorded for other contents. */
  compiled: number;
}

const stats: CodeCacheStats = { used: 0, rejected: 0, compiled: 0 };

/** Counts of this thread's loads since {@link useCodeCache} (a copy). */
export function codeCacheStats(): CodeCacheStats {
  return { ...stats };
}

type Compile = (this: Module, content: string, filename: string) => unknown;
interface ModuleInternals {
  prototype: { _compile: Compile; require(id: string): unknown };
  wrap(source: string): string;
  _resolveFilename(request: string, parent: Module, isMain: boolean, options?: unknown): string;
  _cache: Record<string, Module>;
  _extensions: Record<string, unknown>;
}
const M = Module as unknown as ModuleInternals;

let installed = false;

/**
 * Compile the files of the folder `dir` (the bundle's, absolute) that this thread loads from
 * now on with their recorded code caches, or, when {@link RECORD_ENV} is set, record their
 * caches at exit (`<file>.cache` and {@link MANIFEST}, each written to a temporary file and
 * renamed). Files outside `dir` load as usual. A missing, foreign or damaged manifest or cache
 * only means no cache. Does nothing when source maps are enabled, and the second time.
 * @param dir absolute path of the folder holding the bundle.
 */
export function useCodeCache(dir: string): void {
  if (installed || process.sourceMapsEnabled) return;
  installed = true;
  const record = Boolean(process.env[RECORD_ENV]);
  const manifest = record ? null : readManifest(dir);
  if (!record && manifest === null) return;
  const prefix = join(dir, '/');
  const recorded: Recorded[] = [];
  const original = M.prototype._compile;
  M.prototype._compile = function compileCached(this: Module, content: string, filename: string): unknown {
    if (!filename.startsWith(prefix) || filename.slice(prefix.length).includes('/')) return original.call(this, content, filename);
    const name = filename.slice(prefix.length);
    const source = content.startsWith('#!') ? content.replace(/^#!.*/, '') : content;
    const cachedData = manifest === null ? undefined : cacheFor(dir, name, content, manifest);
    const script = new Script(M.wrap(source), {
      filename: scriptName(name),
      cachedData,
      importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    } as ConstructorParameters<typeof Script>[1]);
    if (cachedData === undefined) stats.compiled++;
    else if (script.cachedDataRejected) stats.rejected++;
    else stats.used++;
    if (record) recorded.push({ name, script, units: content.length, crc: crc32(content) });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dir);
  };
  if (record) process.once('exit', () => writeCaches(dir, recorded));
}

interface Recorded {
  name: string;
  script: Script;
  units: number;
  crc: number;
}

/** Whether `path` is a regular file (not a FIFO, a device or a folder that would block or fail a read). */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** The recorded cache of the bundle's file `name` with contents `content`, when the manifest vouches for both. */
function cacheFor(dir: string, name: string, content: string, manifest: CacheManifest): Buffer | undefined {
  const entry: unknown = Object.hasOwn(manifest.files, name) ? manifest.files[name] : undefined;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { units, crc32: want, cacheCrc32 } = entry as Record<string, unknown>;
  if (typeof units !== 'number' || typeof want !== 'number' || typeof cacheCrc32 !== 'number') return undefined;
  if (units !== content.length || want !== crc32(content)) return undefined;
  const path = join(dir, `${name}.cache`);
  if (!isRegularFile(path)) return undefined;
  try {
    const data = readFileSync(path);
    return crc32(data) === cacheCrc32 ? data : undefined;
  } catch {
    return undefined;
  }
}

/** The `require` a CommonJS module of the bundle is given (the parts the bundle uses, and the usual extras). */
function requireFor(mod: Module): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  req.resolve = ((request: string, options?: unknown) => M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  req.main = require.main;
  req.cache = M._cache as NodeJS.Require['cache'];
  req.extensions = M._extensions as NodeJS.Require['extensions'];
  return req;
}

function readManifest(dir: string): CacheManifest | null {
  const path = join(dir, MANIFEST);
  if (!isRegularFile(path)) return null;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as CacheManifest;
    if (typeof m !== 'object' || m === null || m.v8 !== process.versions.v8 || m.arch !== process.arch) return null;
    if (typeof m.files !== 'object' || m.files === null || Array.isArray(m.files)) return null;
    return m;
  } catch {
    return null;
  }
}

function writeAtomically(path: string, data: string | Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Write the recorded caches and their manifest; a failure is reported and makes the exit status 1. */
function writeCaches(dir: string, recorded: readonly Recorded[]): void {
  try {
    const files: CacheManifest['files'] = {};
    for (const r of recorded) {
      const data = r.script.createCachedData();
      writeAtomically(join(dir, `${r.name}.cache`), data);
      files[r.name] = { units: r.units, crc32: r.crc, cacheCrc32: crc32(data) };
    }
    const manifest: CacheManifest = { v8: process.versions.v8, arch: process.arch, files };
    writeAtomically(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
  } catch (e) {
    process.stderr.write(`dlg-compact: could not record the code caches in ${dir}: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}
