// kram-compaction/init: initSync takes the compiled module or the file's
// bytes and returns the package's API, typed as the main entry's.
import { initSync } from "kram-compaction/init";
import type * as Kram from "kram-compaction";

declare const bytes: Uint8Array;
const kram: typeof Kram = initSync({ module: bytes });
const tokens: number = kram.estimateTokens([{ role: "user", content: "hi" }]);
// @ts-expect-error the module is passed in an object, as wasm-bindgen's initSync takes it
initSync(bytes);
// @ts-expect-error a URL is not a module: fetch and compile it first
initSync({ module: "kram_compaction_bg.wasm" });
