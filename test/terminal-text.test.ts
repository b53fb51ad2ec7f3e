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
    // A control string with no end on its line runs to the line's end (a terminal would swallow it).
    expect(dropTerminalControls('\x1b]0;title\nnext')).toBe('\nnext');
    expect(dropTerminalControls('ok\x1bP1$r0m\x1b\\ done')).toBe('ok done');
    // C1 controls: CSI as one unit, the others dropped; NEL, a line break to Python, kept.
    expect(dropTerminalControls('\x9b31mred\x9b0m\x90x\x85y')).toBe('redx\x85y');
    // A character-set choice takes an ASCII character only: never half an emoji, never a line break.
    expect(dropTerminalControls('\x1b(😀 ok')).toBe('(😀 ok');
    expect(dropTerminalControls('line1\x1b(\nline2')).toBe('line1(\nline2');
    // Tabs, line ends and carriage returns are text.
    const plain = 'a\tb\r\nc — ∑ 中文';
    expect(dropTerminalControls(plain)).toBe(plain);
  });

  it('many unended control strings: each runs to its line end when that is within reach, else loses its escape', () => {
    // (each used to be searched again for its end: a megabyte of them took seconds)
    expect(dropTerminalControls('x\x1b]a\n'.repeat(200_000))).toBe('x\n'.repeat(200_000));
    // One line of 100,000 strings of 12 units: those that start more than 4,096 units before
    // the text's end (99,659 of them) lose their escape; the others run to the end.
    expect(dropTerminalControls(`\x1b]${'a'.repeat(10)}`.repeat(100_000))).toBe(`]${'a'.repeat(10)}`.repeat(99_659));
  });

  it('a clean result shows none of them; the reference keeps them', () => {
    const out = 'Cloning into \x1b[1mrepo\x1b[0m...\ndone.';
    expect(compactResult(out, 100, 'clean')).toBe('> Cloning into repo... ¶ done.');
    expect(compactResult(out, 100)).toBe('> Cloning into \x1b[1mrepo\x1b[0m... ¶ done.');
  });
});
