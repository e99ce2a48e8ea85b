// What the README tells Vite 7 users: the dev server must not pre-bundle the
// package, or its entry is moved away from the .wasm beside it.
export default {
  optimizeDeps: { exclude: ["kram-compaction"] },
  logLevel: "warn",
};
