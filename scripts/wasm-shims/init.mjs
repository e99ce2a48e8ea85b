// The entry `kram-compaction/init`, for runtimes that hand the module in
// themselves. The API's own module is required only once the wasm is
// instantiated (esbuild then evaluates it lazily, on that first require), so
// nothing can call into the glue before it has its instance.
import { initSync as instantiate } from "../../target/bindgen/web/kram_compaction.js";

let api;

/**
 * Instantiates the package's .wasm from `module` (a `WebAssembly.Module`, or
 * the file's bytes) and returns the package's API; a later call returns the
 * same API and instance.
 */
export function initSync({ module }) {
  instantiate({ module: ofThisRealm(module) });
  api ??= require("../../js/index.ts");
  return api;
}

/**
 * `vercel dev` and `next dev` compile an edge function's `.wasm?module` in
 * Node's realm, outside the function's own: a real `WebAssembly.Module` that
 * fails this realm's `instanceof`, so the glue would try to compile it again.
 * Given this realm's prototype, it passes. Anything else is left as it is.
 */
function ofThisRealm(module) {
  if (module instanceof WebAssembly.Module) return module;
  try {
    WebAssembly.Module.exports(module); // throws unless it is a module, of any realm
  } catch {
    return module;
  }
  return Object.setPrototypeOf(module, WebAssembly.Module.prototype);
}
