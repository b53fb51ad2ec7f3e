/**
 * Helpers shared by the strategy tests (summary, micro, evidence).
 */

/** Recursively freeze a JSON-like value so any mutation by the code under test throws. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v as object)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** Deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * Normalise a parsed-JSON value for the summary corpus comparison rule ("key order free,
 * absent and empty lists equal"): object keys whose value is an empty array are dropped,
 * keys with `undefined` values too; everything else is kept.
 */
export function dropEmptyLists(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropEmptyLists);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      if (Array.isArray(x) && x.length === 0) continue;
      out[k] = dropEmptyLists(x);
    }
    return out;
  }
  return v;
}
