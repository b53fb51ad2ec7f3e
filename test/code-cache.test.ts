/**
 * The V8 code caches of the bundled command (src/host/code-cache.cts): recorded once, used for
 * the same file on the same V8, passed over for changed contents, another V8, a damaged cache
 * or enabled source maps, and in every case the module runs as it would without them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CODE_CACHE_MANIFEST, cliEnv, ensureBuilt } from './built-cli.js';
import { ROOT } from './support.js';

const HOOK = join(ROOT, 'dist', 'bin', 'code-cache.cjs');
const RECORD = 'DLG_COMPACT_RECORD_CODE_CACHE';

// A module of a few functions, compiled lazily when called; its answer depends on its text.
const MODULE_A = `'use strict';
function twice(x) { return 2 * x; }
function describe(n) { return 'n=' + twice(n) + ' at ' + require.resolve('./b.js').split('/').pop(); }
module.exports = { describe, file: __filename.split('/').pop(), dir: __dirname === globalThis.DIR };
`;
// The same length, another answer.
const MODULE_A2 = MODULE_A.replace('2 * x', '3 * x');
const MODULE_B = `#!/usr/bin/env node
module.exports = 'b';
`;

let dir = '';

function mkfifo(path: string): void {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
}

/** Run a child node that installs the hook for `dir`, loads a.js and b.js, and prints what they gave and the hook's counts. */
function load(opts: { record?: boolean; nodeArgs?: string[] } = {}): { out: unknown; stats: unknown; status: number | null; stderr: string } {
  const script = `const DIR = ${JSON.stringify(dir)};
globalThis.DIR = DIR;
const cc = require(${JSON.stringify(HOOK)});
cc.useCodeCache(DIR);
const a = require(DIR + '/a.js');
const b = require(DIR + '/b.js');
console.log(JSON.stringify({ out: [a.describe(4), a.file, a.dir, b], stats: cc.codeCacheStats() }));`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env[RECORD];
  if (opts.record) env[RECORD] = '1';
  const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), '-e', script], { encoding: 'utf8', env });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  const parsed = line.startsWith('{') ? (JSON.parse(line) as { out: unknown; stats: unknown }) : { out: null, stats: null };
  return { ...parsed, status: r.status, stderr: r.stderr };
}

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'dlg-code-cache-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('code caches', () => {
  it('records each file of the folder and its manifest, then loads from them', () => {
    writeFileSync(join(dir, 'a.js'), MODULE_A);
    writeFileSync(join(dir, 'b.js'), MODULE_B);
    const rec = load({ record: true });
    expect(rec.status).toBe(0);
    expect(rec.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
    expect(rec.stats).toEqual({ used: 0, rejected: 0, compiled: 2 });
    expect(readdirSync(dir).sort()).toEqual(['a.js', 'a.js.cache', 'b.js', 'b.js.cache', 'code-cache.json']);
    const manifest = JSON.parse(readFileSync(join(dir, 'code-cache.json'), 'utf8'));
    const a = MODULE_A;
    expect(manifest).toEqual({
      v8: process.versions.v8,
      arch: process.arch,
      files: {
        'a.js': { units: a.length, crc32: crc32(a), cacheCrc32: crc32(readFileSync(join(dir, 'a.js.cache'))) },
        'b.js': { units: MODULE_B.length, crc32: crc32(MODULE_B), cacheCrc32: crc32(readFileSync(join(dir, 'b.js.cache'))) },
      },
    });
    const used = load();
    expect(used.status).toBe(0);
    expect(used.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
    expect(used.stats).toEqual({ used: 2, rejected: 0, compiled: 0 });
  });

  it('compiles a file whose contents changed (same length) without its cache', () => {
    writeFileSync(join(dir, 'a.js'), MODULE_A2);
    const r = load();
    expect(r.out).toEqual(['n=12 at b.js', 'a.js', true, 'b']);
    expect(r.stats).toEqual({ used: 1, rejected: 0, compiled: 1 });
    writeFileSync(join(dir, 'a.js'), MODULE_A);
  });

  it('never hands V8 a cache whose bytes changed, even by one byte', () => {
    const good = readFileSync(join(dir, 'a.js.cache'));
    // A string constant of the cached code ('n=') edited in place: V8 would run it as it stands.
    const at = good.indexOf(Buffer.from('n='));
    expect(at).toBeGreaterThan(0);
    const bad = Buffer.from(good);
    bad[at] = 'm'.charCodeAt(0);
    writeFileSync(join(dir, 'a.js.cache'), bad);
    const r = load();
    expect(r.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
    expect(r.stats).toEqual({ used: 1, rejected: 0, compiled: 1 });
    writeFileSync(join(dir, 'a.js.cache'), Buffer.alloc(good.length, 7));
    expect(load().stats).toEqual({ used: 1, rejected: 0, compiled: 1 });
    writeFileSync(join(dir, 'a.js.cache'), good);
  });

  it('passes over manifest entries of the wrong shape and files that are not regular', () => {
    const path = join(dir, 'code-cache.json');
    const manifest = readFileSync(path, 'utf8');
    const m = JSON.parse(manifest);
    for (const entry of [null, 7, 'x', { units: '1' }, []]) {
      writeFileSync(path, JSON.stringify({ ...m, files: { ...m.files, 'a.js': entry } }));
      const r = load();
      expect(r.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
      expect(r.stats).toEqual({ used: 1, rejected: 0, compiled: 1 });
    }
    writeFileSync(path, manifest);
    rmSync(join(dir, 'b.js.cache'));
    mkfifo(join(dir, 'b.js.cache'));
    expect(load().stats).toEqual({ used: 1, rejected: 0, compiled: 1 });
    rmSync(join(dir, 'b.js.cache'));
    rmSync(path);
    mkfifo(path);
    expect(load().stats).toEqual({ used: 0, rejected: 0, compiled: 0 });
    rmSync(path);
    // Record again: the folder is as the first test left it.
    expect(load({ record: true }).status).toBe(0);
    expect(load().stats).toEqual({ used: 2, rejected: 0, compiled: 0 });
  });

  it('says so and exits 1 when recording fails, leaving no temporary file', () => {
    const blocked = join(dir, 'a.js.cache');
    const good = readFileSync(blocked);
    rmSync(blocked);
    mkdirSync(join(blocked, 'inside'), { recursive: true }); // a folder the rename cannot replace
    const r = load({ record: true });
    expect(r.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`dlg-compact: could not record the code caches in ${dir}: `);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(blocked, { recursive: true });
    writeFileSync(blocked, good);
    expect(load({ record: true }).status).toBe(0);
  });

  it('uses no cache recorded by another V8, none when source maps are on, none without a manifest', () => {
    const path = join(dir, 'code-cache.json');
    const manifest = readFileSync(path, 'utf8');
    writeFileSync(path, manifest.replace(process.versions.v8, '0.0.0'));
    expect(load().stats).toEqual({ used: 0, rejected: 0, compiled: 0 });
    writeFileSync(path, '{ not json');
    expect(load().stats).toEqual({ used: 0, rejected: 0, compiled: 0 });
    writeFileSync(path, manifest);
    const mapped = load({ nodeArgs: ['--enable-source-maps'] });
    expect(mapped.out).toEqual(['n=8 at b.js', 'a.js', true, 'b']);
    expect(mapped.stats).toEqual({ used: 0, rejected: 0, compiled: 0 });
    expect(load().stats).toEqual({ used: 2, rejected: 0, compiled: 0 });
  });

  it('keeps the file name and line of an error thrown by a cached module', () => {
    writeFileSync(join(dir, 'c.js'), `'use strict';\n\nmodule.exports = () => {\n  throw new Error('boom');\n};\n`);
    const script = `const cc = require(${JSON.stringify(HOOK)}); cc.useCodeCache(${JSON.stringify(dir)});
try { require(${JSON.stringify(join(dir, 'c.js'))})(); } catch (e) { console.log(e.stack.split('\\n')[1].trim()); }`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    // Named as the package's file, wherever it lives (a cache keeps the name it was made under).
    expect(r.stdout.trim()).toBe('at module.exports (dlg-compact/dist/bin/c.js:4:9)');
  });
});

describe('the built command', () => {
  it('ships a cache for each file of the bundle the demo run loads, made by this V8', () => {
    const manifest = JSON.parse(readFileSync(CODE_CACHE_MANIFEST, 'utf8')) as { v8: string; files: Record<string, unknown> };
    expect(manifest.v8).toBe(process.versions.v8);
    const names = Object.keys(manifest.files);
    expect(names).toContain('command.js');
    expect(names.filter((n) => n.startsWith('render-') || n.startsWith('process-file-') || n.startsWith('ranks-')).length).toBe(3);
    for (const n of names) expect(existsSync(join(ROOT, 'dist', 'bin', `${n}.cache`))).toBe(true);
  });

  it('answers as before through its launcher', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    const r = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', env: cliEnv() });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
  });
});
