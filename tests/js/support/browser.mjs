// Debian's Chromium driven by playwright-core (no downloaded browser), and a
// page loader that records every console message and page error.
import { execFileSync } from "node:child_process";
import { after, before } from "node:test";
import { chromium } from "playwright-core";
import { serveStatic } from "../../../scripts/static-server.mjs";

export async function launchChromium() {
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Opens `url` and waits until `ready` (run in the page) is true, by default
 * until the page sets `window.result`; returns that with the page and the
 * console messages, failed loads and uncaught errors seen on the way.
 */
export async function loadResult(browser, url, ready = () => "result" in window) {
  const page = await browser.newPage();
  const messages = [];
  page.on("console", (m) => messages.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => messages.push(`requestfailed: ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && messages.push(`status ${r.status()}: ${r.url()}`));
  const failed = new Promise((_, reject) => page.once("pageerror", reject));
  await page.goto(url);
  // An uncaught error ends the wait at once; so does a page that never answers.
  await Promise.race([page.waitForFunction(ready, null, { timeout: 15_000 }), failed]).catch((e) => {
    throw new Error(`${url} never got ready; the page said: ${JSON.stringify(messages)}`, { cause: e });
  });
  return { result: await page.evaluate(() => window.result), messages, page };
}

/**
 * One Chromium for a whole test file, and static servers (and anything else
 * handed to `defer`) closed after the file's last test.
 */
export function browserSession() {
  const cleanups = [];
  const session = {
    browser: undefined,
    defer: (cleanup) => cleanups.push(cleanup),
    async serve(mounts) {
      const { server, url } = await serveStatic(mounts);
      session.defer(() => new Promise((resolve) => server.close(resolve)));
      return url;
    },
  };
  before(async () => {
    session.browser = await launchChromium();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await session.browser?.close();
  });
  return session;
}
