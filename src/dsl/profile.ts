/**
 * The DSL policy (SPEC §0): per-class token budgets and the profile, the set of rendering
 * rules. `'reference'` reproduces the Python reference byte for byte; `'clean'`, the default,
 * mends its flaws (docs/differences.md). Primitive renderers with explicit budgets
 * (`compactText`, `compactResult`, `fencedCode`, …) take the profile as an optional last
 * argument that defaults to `'reference'`; everything that takes a policy passes the policy's
 * profile on, so a policy's default reaches the clean rules.
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Check a token budget: a non-negative safe integer.
 * @throws InvalidArgumentError for anything else (negative, fractional, NaN, ±Infinity, non-numbers).
 */
export function checkBudget(v: unknown, fn: string, what = 'maxToks'): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new InvalidArgumentError(`${fn}: ${what} must be a non-negative integer token budget, got ${typeof v === 'number' ? String(v) : typeof v}`);
  }
  return v;
}

/**
 * Which rendering rules apply: `'clean'` (the default) mends the reference's flaws — grapheme-safe
 * cuts, thinking-indicator lines dropped, code fences that a cut never leaves open, sized markers
 * for binary outputs, HTML shown as text (docs/differences.md); `'reference'` reproduces the
 * Python reference byte for byte (`conformance/`).
 */
export type Profile = 'clean' | 'reference';

/** The profiles {@link resolvePolicy} accepts. */
export const PROFILES: readonly Profile[] = Object.freeze(['clean', 'reference'] as const);

/** Per-class token budgets (o200k_base tokens) used to render a conversation (SPEC §0), and the profile. */
export interface Policy {
  /** Budget for each user text part (`§ … §`). */
  userToks: number;
  /** Budget for each assistant text part (`» … »`). */
  asstToks: number;
  /** Budget for each rendered tool call. */
  callToks: number;
  /** Budget for each rendered tool result (results wrapped in `𝍁…𝍁` are never cut). */
  resultToks: number;
  /** Rendering rules: `'clean'` (default) or `'reference'` (byte for byte the Python reference). */
  profile: Profile;
}

/** The default policy, 2000 / 150 / 60 / 35 tokens (SPEC §0), clean profile. Frozen. */
export const compactPolicy: Readonly<Policy> = Object.freeze({ userToks: 2000, asstToks: 150, callToks: 60, resultToks: 35, profile: 'clean' });

const BUDGET_KEYS = ['userToks', 'asstToks', 'callToks', 'resultToks'] as const;
const POLICY_KEYS = [...BUDGET_KEYS, 'profile'] as const;

/**
 * Check a profile name.
 * @throws InvalidArgumentError for anything but `'clean'` or `'reference'`.
 */
export function checkProfile(v: unknown, fn: string): Profile {
  if (v !== 'clean' && v !== 'reference') {
    const got = typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : typeof v;
    throw new InvalidArgumentError(`${fn}: profile must be "clean" or "reference", got ${got}`);
  }
  return v;
}

/**
 * Complete a partial policy: each missing (or `undefined`) field takes {@link compactPolicy}'s value.
 * @param p a partial policy, or nothing for the default.
 * @returns a new, complete {@link Policy}.
 * @throws InvalidArgumentError if `p` is not an object, has a key that is not a policy field
 *   (e.g. the reference's snake_case `user_toks`), a budget that is not a non-negative
 *   integer, or a profile other than `'clean'` / `'reference'`.
 */
export function resolvePolicy(p?: Partial<Policy> | null): Policy {
  if (p === undefined || p === null) return { ...compactPolicy };
  if (typeof p !== 'object' || Array.isArray(p)) throw new InvalidArgumentError('resolvePolicy: policy must be an object');
  for (const k of Object.keys(p)) {
    if (!(POLICY_KEYS as readonly string[]).includes(k)) {
      throw new InvalidArgumentError(`resolvePolicy: unknown policy field "${k}" (expected ${POLICY_KEYS.join(', ')})`);
    }
  }
  const out = { ...compactPolicy };
  for (const k of BUDGET_KEYS) {
    const v = p[k];
    if (v !== undefined) out[k] = checkBudget(v, 'resolvePolicy', k);
  }
  if (p.profile !== undefined) out.profile = checkProfile(p.profile, 'resolvePolicy');
  return out;
}
