// Loads the package and captures its WebAssembly instance, to read the size
// of the module's memory and of its table of JS references. The Node entry
// instantiates the module with `new WebAssembly.Instance` on its first call
// into the wasm, which this makes, so it must run before anything else in the
// process calls the package.
import assert from "node:assert/strict";

export async function loadWithInstance() {
  const Instance = WebAssembly.Instance;
  let instance;
  WebAssembly.Instance = new Proxy(Instance, {
    construct(target, args) {
      instance = Reflect.construct(target, args);
      return instance;
    },
  });
  let kram;
  try {
    kram = await import("kram-compaction");
    kram.estimateTokens([]);
  } finally {
    WebAssembly.Instance = Instance;
  }
  assert.ok(instance, "the package was called before its instance could be captured");
  const { memory, __wbindgen_externrefs: refs } = instance.exports;
  assert.ok(memory instanceof WebAssembly.Memory);
  return {
    kram,
    /** Bytes of linear memory: it only grows, so growth is what a leak shows as. */
    memoryBytes: () => memory.buffer.byteLength,
    /** Slots of the table that holds the JS values Rust refers to (0 if the build has none). */
    refSlots: () => (refs instanceof WebAssembly.Table ? refs.length : 0),
  };
}
