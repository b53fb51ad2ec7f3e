/** Types of md-check.mjs (the Markdown check of flat documents shared by the tests and scripts/profile-check.mjs). */
export function codeRanges(doc: string): [number, number][];
export function misplacedLines(turns: readonly (readonly { cls: string; text: string }[])[]): {
  doc: string;
  misplaced: { kind: 'separator' | 'piece'; offset: number; line: string }[];
};
