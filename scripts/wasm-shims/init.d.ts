// Types of kram-compaction/init (scripts/wasm-shims/init.mjs).
import type * as Kram from "./index.js";

/**
 * Instantiates the package's .wasm from `module` and returns the package's
 * API; a later call returns the same API and instance.
 */
export declare function initSync(input: {
  /**
   * A `WebAssembly.Module`, or the .wasm file's bytes (an ArrayBuffer or a
   * view of one). Typed `object`: lib dom's `WebAssembly.Module` is an empty
   * interface, and a plain `es20xx` lib has no WebAssembly at all.
   */
  module: object;
}): typeof Kram;
