// Size of the browser bundle of `dlg-compact/core`: a vite library build (minified, every
// dependency bundled, as an application would ship it) of dist/core.js, so run after
// `npm run build`. Prints the minified and gzip sizes, and the share of the rank table.
// Usage: node scripts/bench-bundle.mjs [--json]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = mkdtempSync(join(tmpdir(), 'dlg-bundle-'));
try {
  await build({
    root,
    configFile: false,
    logLevel: 'silent',
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: true,
      sourcemap: false,
      lib: { entry: join(root, 'dist', 'core.js'), formats: ['es'], fileName: 'core' },
    },
  });
  const files = readdirSync(out).filter((f) => f.endsWith('.js'));
  let bytes = 0;
  let gz = 0;
  let table = 0;
  for (const f of files) {
    const text = readFileSync(join(out, f));
    bytes += statSync(join(out, f)).size;
    gz += gzipSync(text, { level: 9 }).length;
    // The longest string literal is the rank table.
    const m = text.toString('utf8').match(/['"`][^'"`\n]{100000,}['"`]/);
    if (m) table += m[0].length;
  }
  const r = { files: files.length, minifiedBytes: bytes, gzipBytes: gz, rankTableBytes: table };
  if (process.argv.includes('--json')) console.log(JSON.stringify(r));
  else {
    const mb = (n) => (n / 1e6).toFixed(2);
    console.log(
      `dlg-compact/core, vite ${(await import('vite')).version} library build: ${mb(bytes)} MB minified (${mb(gz)} MB gzip), ` +
        `rank table ${mb(table)} MB (${((100 * table) / bytes).toFixed(0)}%); target <= 1.30 MB minified: ${bytes <= 1.3e6 ? 'met' : 'not met'}`,
    );
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
