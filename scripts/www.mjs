// `npm run www`: serves www/ and the built package on 127.0.0.1 until Ctrl-C.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic, wwwMounts } from "./static-server.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const port = Number(process.env.PORT ?? 8080);
const { server, url } = await serveStatic(wwwMounts(root), port);
console.log(`www: serving the demo at ${url} (Ctrl-C stops it)`);
process.on("SIGINT", () => server.close(() => process.exit(0)));
