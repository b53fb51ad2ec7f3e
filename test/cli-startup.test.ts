/**
 * The command starts light: what `dlg-compact --version` and `--help` load (the static import
 * graph of src/cli/main.ts) holds no part of the library that compacts — no tokenizer, rank
 * table, notebook reader or DSL — which main.ts loads with `import()` when there is work.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

/** Runtime static imports of a source (`import … from`, `export … from`, bare `import '…'`), type-only ones left out. */
function staticImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const m of src.matchAll(re)) if (!m[2]) out.push((m[3] ?? m[4])!);
  return out;
}

function staticGraph(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const spec of staticImports(f)) if (spec.startsWith('.')) todo.push(resolve(dirname(f), spec.replace(/\.js$/, '.ts')));
  }
  return [...seen].map((f) => relative(join(ROOT, 'src'), f).split(sep).join('/')).sort();
}

describe('command start-up', () => {
  it('main.ts loads statically only the command-line layer', () => {
    const graph = staticGraph(join(ROOT, 'src', 'cli', 'main.ts'));
    expect(graph).toContain('cli/options.ts');
    const heavy = graph.filter(
      (f) => /^(tokens|chat|dsl\/(?!media)|strategies\/(?!llm-settings)|dialog|notebook\/(?!file-errors))/.test(f) || f === 'cli/process-file.ts',
    );
    expect(heavy).toEqual([]);
  });
});
