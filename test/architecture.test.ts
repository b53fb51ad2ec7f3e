/**
 * The shape of src/: the import graph (static imports, `import type`, `export … from`, dynamic
 * `import()`) has no cycle, and every import goes from a folder to itself or to a folder below
 * it in the layer order. Entries (src/core.ts, src/index.ts) sit on top. Methods are declared in
 * their classes, never assigned onto prototypes from other modules.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

const SRC = join(ROOT, 'src');

/** Bottom to top. A file may import from its own folder or from any folder before it here. */
const LAYERS = ['errors', 'python', 'tokens', 'chat', 'dsl', 'strategies', 'dialog', 'notebook', 'host', 'cli', 'entries'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** Relative import specifiers of a source: every `import`/`export … from` (type-only too) and `import()`. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of text.matchAll(re)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

/** `src/`-relative path with forward slashes. */
const rel = (f: string): string => relative(SRC, f).split(sep).join('/');

/** The layer of a source file: its folder, `errors` for src/errors.ts, `entries` for the other root files. */
function layerOf(file: string): string {
  const r = rel(file);
  if (!r.includes('/')) return r === 'errors.ts' ? 'errors' : 'entries';
  return r.slice(0, r.indexOf('/'));
}

function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of sourceFiles(SRC)) {
    const deps = relativeImports(readFileSync(f, 'utf8')).map((s) => resolve(dirname(f), s.replace(/\.js$/, '.ts')));
    g.set(f, [...new Set(deps)]);
  }
  return g;
}

/** The cycles of a graph: each strongly connected component with more than one file, or a self-import. */
function cycles(g: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (g.get(v) ?? []).includes(v)) out.push(comp.map(rel).sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('architecture of src/', () => {
  const g = graph();

  it('every folder is a known layer', () => {
    const unknown = [...new Set([...g.keys()].map(layerOf))].filter((l) => !LAYERS.includes(l));
    expect(unknown).toEqual([]);
  });

  it('every relative import resolves to a source file', () => {
    const missing: string[] = [];
    for (const [f, deps] of g) for (const d of deps) if (!g.has(d)) missing.push(`${rel(f)} -> ${rel(d)}`);
    expect(missing).toEqual([]);
  });

  it('the import graph has no cycle (type-only imports included)', () => {
    expect(cycles(g)).toEqual([]);
  });

  it('imports go to the same folder or a lower one', () => {
    const upward: string[] = [];
    for (const [f, deps] of g) {
      const from = LAYERS.indexOf(layerOf(f));
      for (const d of deps) {
        if (!g.has(d)) continue;
        const to = LAYERS.indexOf(layerOf(d));
        if (layerOf(f) !== layerOf(d) && to >= from) upward.push(`${rel(f)} (${layerOf(f)}) -> ${rel(d)} (${layerOf(d)})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no module assigns methods onto a prototype', () => {
    const found: string[] = [];
    for (const f of g.keys()) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/^\s*[A-Za-z_$][\w$]*\.prototype\.[A-Za-z_$][\w$]*\s*=/gm)) found.push(`${rel(f)}: ${m[0].trim()}`);
    }
    expect(found).toEqual([]);
  });

  it('the cycle finder finds cycles', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'x', 'b.ts');
    const c = join(SRC, 'c.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
          [c, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'x/b.ts']]);
    expect(cycles(new Map([[a, [a]]]))).toEqual([['a.ts']]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });

  it('the scanner sees multi-line, type-only and re-export imports', () => {
    const text =
      "import {\n  a,\n  b,\n} from './x.js';\nimport type { T } from '../y.js';\nexport * from './z.js';\nexport { q } from './q.js';\nconst m = await import('./d.js');\n";
    expect(relativeImports(text)).toEqual(['./x.js', '../y.js', './z.js', './q.js', './d.js']);
  });
});
