// A generated dialog for the benchmarks (scripts/bench-compact.mjs, scripts/bench-command.mjs):
// notes, code cells with outputs, and prompts whose replies hold tool calls with long results,
// as .ipynb text of about `size` UTF-8 bytes. Needs the build (dist/).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The .ipynb text of a generated dialog of about `size` bytes; `salt` varies the content. */
export async function generatedDialog(size, salt = 0) {
  const { Dialog } = await import(join(root, 'dist', 'dialog', 'index.js'));
  const { dumpsIpynb } = await import(join(root, 'dist', 'notebook', 'index.js'));
  const d = new Dialog([], { name: 'generated' });
  let i = 0;
  let approx = 0;
  const para = 'The loader reads each CSV row, converts the date column and appends to a list; profiling shows most time in parsing. ';
  while (approx < size) {
    const body = para.repeat(4 + ((i + salt) % 5));
    d.mkMessage(`## Step ${i}\n\n${body}`, { type: 'note' });
    const out = Array.from({ length: 40 + (i % 30) }, (_, k) => `row ${k}: ${(k * 7919 + salt) % 10007} ok`).join('\n') + '\n';
    d.mkMessage(`import pandas as pd\ndf = pd.read_csv("data_${i}.csv")\nprint(df.head(${i % 50}))`, {
      type: 'code',
      output: [{ output_type: 'stream', name: 'stdout', text: out }],
    });
    const result = 'x,y,z\n' + Array.from({ length: 300 }, (_, k) => `${k},${k * 3},${(k * 31 + salt) % 97}`).join('\n');
    const tool = { id: `toolu_${i.toString(16).padStart(8, '0')}`, name: 'read_file', args: { path: `data_${i}.csv`, limit: 300 }, result };
    const reply = `Let me look at the file.\n\n\`\`\`json {.tool}\n${JSON.stringify(tool, null, 2)}\n\`\`\`\n\n${body}\n\nThe parse of column ${i} dominates.`;
    d.mkMessage(`Why is step ${i} slow? ${body.slice(0, 200)}`, { type: 'prompt', reply });
    approx += body.length * 3 + out.length + result.length * 1.3 + 600;
    i++;
  }
  return dumpsIpynb(d);
}
