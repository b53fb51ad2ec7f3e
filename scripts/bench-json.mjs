#!/usr/bin/env node
// Benchmark of parseJson (src/python/json.ts) and pyDumps (src/python/dumps.ts) against native JSON on a
// notebook-like document built in memory (~20 MB by default: many short source lines, long
// base64 outputs, escapes, non-ASCII text so the JS string is two-byte, as real dialogs are).
//
// Usage: node scripts/bench-json.mjs [sizeMB=20] [rounds=5] [file.ipynb ...]
// Times are medians of `rounds` runs: wall-clock and CPU (user+system of this process, which
// includes V8's GC threads); on a loaded machine compare the CPU ratios.
// Loads the TypeScript sources directly (transpiled with the project's `typescript` into a
// temporary directory), so it needs no build.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sizeMB = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 5);
const files = process.argv.slice(4);

const dir = mkdtempSync(join(tmpdir(), 'bench-json-'));
try {
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'src', 'python'));
  const sources = [
    'errors.ts',
    ...readdirSync(join(root, 'src', 'python'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `python/${f}`),
  ];
  for (const f of sources) {
    const out = ts.transpileModule(readFileSync(join(root, 'src', f), 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    });
    writeFileSync(join(dir, 'src', f.replace(/\.ts$/, '.js')), out.outputText);
  }
  const { parseJson } = await import(pathToFileURL(join(dir, 'src', 'python', 'json.js')).href);
  const { pyDumps } = await import(pathToFileURL(join(dir, 'src', 'python', 'dumps.js')).href);

  const docs = [['built notebook-like document', buildNotebookText(sizeMB * 1e6)]];
  for (const f of files) docs.push([f, readFileSync(f, 'utf8')]);
  for (const [name, text] of docs) {
    console.log(`${name}: ${(text.length / 1e6).toFixed(1)} M UTF-16 units`);
    const native = JSON.parse(text);
    const ours = parseJson(text);
    const opts = { indent: 1, sortKeys: true, ensureAscii: false };
    const report = (what, a, b) =>
      console.log(
        `  ${what.padEnd(44)} wall ${a.wall.toFixed(0).padStart(5)} vs ${b.wall.toFixed(0).padStart(5)} ms (x${(a.wall / b.wall).toFixed(2)})` +
          `   cpu ${a.cpu.toFixed(0).padStart(5)} vs ${b.cpu.toFixed(0).padStart(5)} ms (x${(a.cpu / b.cpu).toFixed(2)})`,
      );
    report(
      'parseJson vs JSON.parse',
      time(() => parseJson(text)),
      time(() => JSON.parse(text)),
    );
    const nativeDump = time(() => JSON.stringify(native, null, 1));
    report(
      'pyDumps nbformat style vs JSON.stringify',
      time(() => pyDumps(ours, opts)),
      nativeDump,
    );
    report(
      'pyDumps ensure_ascii vs JSON.stringify',
      time(() => pyDumps(ours, { indent: 1, sortKeys: true })),
      nativeDump,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Median wall and CPU time of `rounds` runs after one warm-up, in ms. */
function time(fn) {
  fn();
  const walls = [];
  const cpus = [];
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = fn();
    if (typeof out === 'string') out.charCodeAt(out.length >> 1); // flatten a rope result
    walls.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wall: median(walls), cpu: median(cpus) };
}

/** A notebook-shaped JSON text of about `target` UTF-16 units, pretty-printed like nbformat. */
function buildNotebookText(target) {
  let seed = 12345;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const words = [
    'def',
    'return',
    'import',
    'numpy',
    'value',
    'the',
    'reply',
    'données',
    'naïve',
    '数据',
    'x',
    '=',
    '"quoted"',
    '\\path',
    'tab\there',
    '🤖',
    'print(f"{x!r}")',
  ];
  const line = () => {
    const n = 3 + rnd(12);
    const w = [];
    for (let i = 0; i < n; i++) w.push(words[rnd(words.length)]);
    return '    '.repeat(rnd(3)) + w.join(' ') + '\n';
  };
  const b64chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const b64 = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += b64chars[rnd(64)];
    return s;
  };
  const cells = [];
  let size = 0;
  let k = 0;
  while (size < target) {
    const lines = [];
    const nl = 5 + rnd(60);
    for (let i = 0; i < nl; i++) lines.push(line());
    const cell = {
      cell_type: k % 3 === 0 ? 'markdown' : 'code',
      id: ((k * 2654435761) >>> 0).toString(16).padStart(8, '0'),
      metadata: k % 3 === 0 ? { solveit_ai: true } : { collapsed: false, tags: ['t' + (k % 7)] },
      source: lines,
    };
    if (cell.cell_type === 'code') {
      cell.execution_count = k;
      cell.outputs = [
        { name: 'stdout', output_type: 'stream', text: lines.slice(0, 10) },
        {
          data: { 'image/png': k % 4 === 1 ? b64(40000 + rnd(80000)) : b64(200), 'text/plain': ['<Figure size 640x480 with 1 Axes>'] },
          execution_count: k,
          metadata: { needs_background: 'light' },
          output_type: 'execute_result',
        },
      ];
    }
    size += JSON.stringify(cell).length;
    cells.push(cell);
    k++;
  }
  const nb = { cells, metadata: { kernelspec: { display_name: 'python3', language: 'python', name: 'python3' } }, nbformat: 4, nbformat_minor: 5 };
  return JSON.stringify(nb, null, 1) + '\n';
}
