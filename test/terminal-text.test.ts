/**
 * Terminal control sequences in tool results and cell outputs (clean profile, docs/differences.md
 * rule 39): dropped, the text between them kept.
 */
import { describe, expect, it } from 'vitest';
import { compactResult } from '../src/dsl/render.js';
import { dropTerminalControls } from '../src/dsl/terminal-text.js';

describe('terminal control sequences', () => {
  it('colour codes, titles, links, bells and lone escapes are dropped; the text stays', () => {
    // (dialog 011's shape: colour codes in a tool result)
    expect(dropTerminalControls('\x1b[1m\x1b[36mfaststripe\x1b[m\x1b[m')).toBe('faststripe');
    // (dialog 034's: a window title, then a hyperlink around its visible text)
    expect(dropTerminalControls('\x1b]0;π - nbs\x07\x1b]8;;file:///x\x07nbs\x1b]8;;\x07 Hi')).toBe('nbs Hi');
    // (dialog 051's: a query of the background colour, ended by ST)
    expect(dropTerminalControls('\x1b]11;?\x1b\\\x1b]11;?\x1b\\28936f7')).toBe('28936f7');
    expect(dropTerminalControls('a\x1b(Bb\x1b=c\x1b7d\x07e\x08f\x7fg\x1b')).toBe('abcdefg');
    // Parameters and intermediates of a CSI; an unfinished one loses its escape only.
    expect(dropTerminalControls('x\x1b[38;5;196mred\x1b[0m \x1b[?25l')).toBe('xred ');
    expect(dropTerminalControls('50%\x1b[')).toBe('50%[');
    // An OSC with no end on its line loses its escape only.
    expect(dropTerminalControls('\x1b]0;title\nnext')).toBe(']0;title\nnext');
    // Tabs, line ends and carriage returns are text.
    const plain = 'a\tb\r\nc — ∑ 中文';
    expect(dropTerminalControls(plain)).toBe(plain);
  });

  it('a clean result shows none of them; the reference keeps them', () => {
    const out = 'Cloning into \x1b[1mrepo\x1b[0m...\ndone.';
    expect(compactResult(out, 100, 'clean')).toBe('> Cloning into repo... ¶ done.');
    expect(compactResult(out, 100)).toBe('> Cloning into \x1b[1mrepo\x1b[0m... ¶ done.');
  });
});
