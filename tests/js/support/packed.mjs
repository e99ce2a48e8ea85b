// The package as users get it: `npm pack` of pkg/, installed from the tarball
// into a fresh project in the system's temp folder, outside this repository.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = fileURLToPath(new URL("../../../pkg/", import.meta.url));

/** Resolves to { dir, tarball, remove() }: a project with kram-compaction installed. */
export function installPacked(prefix = "kram-packed-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const npm = (...args) => execFileSync("npm", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  npm("pack", pkgDir, "--pack-destination", dir, "--silent");
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "kram-user", private: true }, null, 2));
  npm("install", `./${tarball}`, "--no-audit", "--no-fund", "--silent");
  return { dir, tarball: join(dir, tarball), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
