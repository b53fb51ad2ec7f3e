/**
 * Write-back state of the dialog model (SPEC §7, §10.2): what a reader records about how a cell
 * or notebook was spelled so that an unchanged dialog is written back byte for byte, kept out
 * of the public `Message` / `Dialog` fields. Internal to the library: `dialog/` and `notebook/`
 * use it, no entry point exports it.
 *
 * A message's record lives in a private field of the message (reached through the slot
 * `Message` registers); other records live in WeakMaps keyed by the object. Either way they
 * follow the object's lifetime and stay invisible to `Object.keys`, spreading and
 * `JSON.stringify`. `Message` and `Dialog` create theirs in their constructors and copy them in
 * `clone()`.
 */
import { cloneJson, type JsonObject } from './cells.js';

/** Values of the metadata flags as read (a cell's `skipped`, `pinned`, `solveit_ai`). */
export interface FlagValues {
  skipped?: unknown;
  pinned?: unknown;
  solveit_ai?: unknown;
}

/** Write-back state of one cell. */
export interface CellWireState {
  /**
   * Prompts: write metadata `solveit_ai: true`. True for prompts read from cells that had it
   * and for prompts made in code; false for prompts recognised only by their separator
   * (SPEC §10.2: such cells are written back without `solveit_ai`).
   */
  solveitAi: boolean;
  /**
   * Whether the cell was read from a file as a prompt. A cell that was not (made in code, or
   * read as a note and turned into a prompt) always gets `solveit_ai: true` when written as a
   * prompt, so the change of type survives a round trip even with an empty reply.
   */
  readAsPrompt: boolean;
  /**
   * Prompts: the source held the separator. When the reply is empty the separator is written
   * only if this is true, so an unanswered prompt (no separator) and a prompt whose reply is
   * empty (separator at the end) both round-trip.
   */
  hadSeparator: boolean;
  /**
   * The metadata flags as read, so that a non-boolean spelling (`"skipped": 1`,
   * `"solveit_ai": false`) is written back unchanged while the flag keeps its Python truth value.
   */
  flagValues: FlagValues;
  /** Other top-level cell fields, verbatim (not allowed by the nbformat schema: validation rejects them). */
  extra: JsonObject;
}

/** Write-back state of one notebook. */
export interface DialogWireState {
  /** Other top-level notebook fields, verbatim (not allowed by the schema: validation rejects them). */
  extra: JsonObject;
}

const cells = new WeakMap<object, CellWireState>();
const dialogs = new WeakMap<object, DialogWireState>();

/**
 * A place in the object itself where a class keeps its instances' state (`Message` keeps it in
 * a private field, which is cheaper to reach than a WeakMap entry and just as invisible):
 * `get` gives the state of one of its instances (`undefined` for other objects), `set` stores
 * it and tells whether the object is one of its instances.
 */
export interface CellWireSlot {
  get(m: object): CellWireState | undefined;
  set(m: object, s: CellWireState): boolean;
}

let slot: CellWireSlot | undefined;

/** (For `Message` only.) Keep the state of the slot's objects in the slot instead of the WeakMap. */
export function registerCellWireSlot(s: CellWireSlot): void {
  slot = s;
}

/** Store `s` as the state of `m`: in the slot when `m` has one, else in the WeakMap. */
function setCellWire(m: object, s: CellWireState): void {
  if (slot === undefined || !slot.set(m, s)) cells.set(m, s);
}

/** Give a new message its initial write-back state (`solveitAi` is true for a prompt). */
export function initCellWire(m: object, prompt: boolean): CellWireState {
  const s: CellWireState = { solveitAi: prompt, readAsPrompt: false, hadSeparator: false, flagValues: {}, extra: {} };
  setCellWire(m, s);
  return s;
}

/**
 * The write-back state of a message (live: changes to it are what the writer sees). An object
 * that was not made by the `Message` constructor gets the state of a fresh non-prompt cell.
 */
export function cellWire(m: object): CellWireState {
  return slot?.get(m) ?? cells.get(m) ?? initCellWire(m, false);
}

/** Copy `from`'s write-back state to `to` (JSON values deep-copied). */
export function copyCellWire(from: object, to: object): void {
  const s = cellWire(from);
  setCellWire(to, {
    solveitAi: s.solveitAi,
    readAsPrompt: s.readAsPrompt,
    hadSeparator: s.hadSeparator,
    flagValues: cloneJson(s.flagValues),
    extra: cloneJson(s.extra),
  });
}

/** The write-back state of a dialog (live). */
export function dialogWire(d: object): DialogWireState {
  let s = dialogs.get(d);
  if (s === undefined) dialogs.set(d, (s = { extra: {} }));
  return s;
}
