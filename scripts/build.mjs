// The build (`npm run build`): compile src/ to dist/ with tsc, then
//   1. write dist/tokens/o200k.table, the decoded rank table the Node host reads instead of
//      decoding the packed one (src/host/table-file.ts describes the file), and
//   2. bundle the command (dist/cli/main.js and its worker) into dist/bin/, the package's
//      `bin`: a few minified CommonJS files (dist/bin/package.json says so) load faster than a
//      hundred small ES modules: no module resolution per file, no ES module loader, less to
//      parse. Source maps sit beside them (`node --enable-source-maps` uses them).
// dist/bin/ sits two levels under the package root, like dist/cli/, so the command's relative
// paths (package.json, the table, the worker) resolve the same from either.
// Usage: node scripts/build.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const lib = (p) => import(pathToFileURL(join(dist, p)).href);
const [{ setTableSource, shareTable }, { tableFileBytes, readTableFile }] = await Promise.all([lib('tokens/ranks.js'), lib('host/table-file.js')]);
setTableSource(undefined); // decode the packed table itself, never an earlier build's file
const tableFile = join(dist, 'tokens', 'o200k.table');
writeFileSync(tableFile, tableFileBytes(shareTable()));
if (readTableFile(tableFile) === undefined) throw new Error(`build: ${tableFile} does not read back`);

const { build } = await import('rolldown');
const out = join(dist, 'bin');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
await build({
  input: { main: join(dist, 'cli', 'main.js'), worker: join(dist, 'cli', 'worker.js') },
  platform: 'node',
  logLevel: 'warn',
  output: { dir: out, format: 'cjs', minify: true, sourcemap: true, entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
