// `npm run www:build`: the demo page as a static folder, www/dist, with the
// package bundled from node_modules (the import map is only for the
// unbundled page that `npm run www` serves).
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

export default {
  root: here,
  base: "./",
  logLevel: "warn",
  // The dev server must not pre-bundle the package, or its entry moves away from its .wasm.
  optimizeDeps: { exclude: ["kram-compaction"] },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  plugins: [
    {
      name: "drop-import-map",
      transformIndexHtml: (html) => html.replace(/\s*<script type="importmap">[\s\S]*?<\/script>/, ""),
    },
  ],
};
