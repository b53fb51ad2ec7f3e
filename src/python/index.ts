/**
 * Python semantics the port reproduces (SPEC §1, §7): code-point string operations, `repr`,
 * `str`, `json.dumps` text, a lossless `json.loads`, truthiness and `ast.literal_eval`.
 * This is the public surface of the folder; its other modules are internal.
 */
export { cpCompare, cpLen, cpSlice, cpToUnitIndex, isPyWhitespace, pyLstrip, pyRstrip, pySplitlines, pyStrip, unitToCpIndex } from './strings.js';
export { pyFloatRepr, pyJsonNumber, pyNumberRepr } from './numbers.js';
export { isPyPrintable, pyRepr, pyStr, pyStrRepr } from './repr.js';
export { pyDumps, pyJsonString, type PyDumpsOptions } from './dumps.js';
export { KEY_ORDER, LosslessNumber, MAX_JSON_DEPTH, isJsonObject, isLosslessNumber, jsonKeys, parseJson, pyNumberKind } from './json.js';
export { pyTruthy } from './truthy.js';
export {
  ELLIPSIS,
  NotALiteralError,
  PyBytes,
  PyComplex,
  PyDict,
  PyEllipsis,
  PyList,
  PySet,
  PyStr,
  PyTuple,
  type PyValue,
} from './literal-values.js';
export { literalEval } from './literal-eval.js';
export { pyReprValue, pyStrValue } from './literal-repr.js';
