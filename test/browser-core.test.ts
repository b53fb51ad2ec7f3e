/**
 * The core (src/core.ts and everything it imports) must run in a browser: no `node:` module,
 * and no package beyond the browser-safe ones listed here, anywhere in its import graph.
 * Type-only imports are erased at build time and are not followed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

const BROWSER_SAFE_PACKAGES = new Set(['lossless-json', '@noble/hashes']);

/** Runtime import specifiers of a TypeScript source (static `import`/`export … from`, dynamic `import()`). */
function runtimeImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of src.matchAll(re)) {
    if (m[2]) continue; // `import type` / `export type`
    out.push((m[3] ?? m[4] ?? m[5])!);
  }
  return out;
}

function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

describe('browser-safe core', () => {
  it('imports no node: module and only browser-safe packages', () => {
    const seen = new Set<string>();
    const bad: string[] = [];
    const todo = [join(ROOT, 'src', 'core.ts')];
    while (todo.length) {
      const file = todo.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of runtimeImports(file)) {
        if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        else if (spec.startsWith('node:') || !BROWSER_SAFE_PACKAGES.has(packageOf(spec))) bad.push(`${file}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
    // The graph really was walked: the core reaches the tokenizer, notebook I/O and compaction.
    for (const m of ['tokens/encode.ts', 'notebook/read.ts', 'dialog/compact.ts', 'chat/parse.ts', 'dialog/dialog.ts']) {
      expect([...seen].some((f) => f.endsWith(`/src/${m}`))).toBe(true);
    }
    expect([...seen].some((f) => f.endsWith('/src/notebook/files.ts') || f.includes('/src/cli/'))).toBe(false);
  });

  it('the package maps browsers to the core entry', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['.']!.browser).toBe('./dist/core.js');
    expect(pkg.exports['./core']!.default).toBe('./dist/core.js');
  });
});
