// A small static file server on 127.0.0.1 (port 0: the system picks a free one),
// used by `npm run www` and the browser tests. Serves .wasm as application/wasm.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
};

/**
 * Serves `mounts` ({ "/url/prefix/": "/dir/on/disk" }, longest prefix wins);
 * resolves to { server, url } once listening.
 */
export function serveStatic(mounts, port = 0) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const prefix = prefixes.find((p) => path.startsWith(p));
    let file = prefix && normalize(join(mounts[prefix], path.slice(prefix.length)));
    if (file && !file.startsWith(normalize(mounts[prefix]))) file = undefined;
    try {
      if (file && statSync(file).isDirectory()) file = join(file, "index.html");
      const size = file && statSync(file).size;
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream", "content-length": size });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

/** What the demo page needs: www/ itself, the built package and its sample session. */
export function wwwMounts(root) {
  return {
    "/": join(root, "www"),
    "/pkg/dist/": join(root, "pkg", "dist"),
    "/pkg/data/": join(root, "pkg", "data"),
  };
}
