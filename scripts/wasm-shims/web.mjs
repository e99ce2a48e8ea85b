// What `./wasm.js` means in the web entry (browsers, Deno, bundlers): the
// wasm-bindgen web glue, initialised once with top-level await, so importing
// the package is the whole set-up and no call can come before it.
import init from "../../target/bindgen/web/kram_compaction.js";

export * from "../../target/bindgen/web/kram_compaction.js";

// The .wasm sits beside the bundled entry; bundlers (Vite) see this pattern
// and emit the file as an asset.
await init({ module_or_path: new URL("./kram_compaction_bg.wasm", import.meta.url) });
