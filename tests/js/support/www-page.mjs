// The demo page in Chromium, for the page's suites: opening it with every
// console problem recorded, what the package computes for a budget in Node,
// what the page shows for it, and its transcript scrolled through.
import assert from "node:assert/strict";
import { ContextManager, effectiveHistory, emergencyPrune, estimateTokens, pruneForModel } from "kram-compaction";

/**
 * The page at `url`, ready (the sample shown), with every console problem
 * recorded; closed when test `t` ends.
 */
export async function openPage(t, browser, url, viewport = { width: 1280, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on("console", (m) => ["error", "warning"].includes(m.type()) && problems.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`status ${r.status()}: ${r.url()}`));
  await page.goto(url);
  await page.waitForSelector("body[data-ready]", { timeout: 15_000 });
  t.after(() => page.close());
  return { page, problems };
}

/** What the tiers do to `all` at `budget`, asked of the package directly: the tier is ContextManager's. */
export async function expected(all, budget) {
  const effective = effectiveHistory(all);
  const positions = new Map(effective.map((m, j) => [m, j]));
  const { tier } = await new ContextManager({ maxTokens: budget }).prepare(all);
  const pruned = pruneForModel(effective, { maxTokens: budget });
  const cutList = emergencyPrune(pruned, budget);
  const cut = new Set(cutList);
  const status = all.map((m) => {
    const j = positions.get(m) ?? -1;
    if (j < 0) return "summarised";
    if (tier === "emergency" && !cut.has(pruned[j])) return "dropped";
    if (tier !== "none" && pruned[j] !== m) return "cleared";
    return "kept";
  });
  const count = (s) => status.filter((x) => x === s).length;
  const sent = { none: effective, pruned, emergency: cutList }[tier];
  return {
    tier,
    status,
    counts: { kept: count("kept"), cleared: count("cleared"), dropped: count("dropped") },
    tokens: { effective: estimateTokens(effective), pruned: estimateTokens(pruned), cut: estimateTokens(cutList) },
    sent: estimateTokens(sent),
  };
}

/** What the page shows for the tiers; `drawn` is the status of each row on screen, by message index. */
export function shown(page) {
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent;
    const number = (id) => Number(text(id).replace(/,/g, ""));
    const cell = (id) => Number(document.querySelector(`#${id} td:last-child`).textContent.replace(/,/g, ""));
    const meter = document.getElementById("meter");
    return {
      tier: document.getElementById("tier").dataset.tier,
      drawn: [...document.querySelectorAll("#transcript > li")].map((li) => [Number(li.getAttribute("aria-posinset")) - 1, li.dataset.status]),
      counts: { kept: number("count-kept"), cleared: number("count-cleared"), dropped: number("count-dropped") },
      tokens: { effective: cell("row-effective"), pruned: cell("row-pruned"), cut: cell("row-cut") },
      meter: { now: Number(meter.getAttribute("aria-valuenow")), max: Number(meter.getAttribute("aria-valuemax")), shown: number("meter-tokens") },
      sentWords: text("tier"),
    };
  });
}

export async function checkBudget(page, all, budget) {
  const want = await expected(all, budget);
  // The page redraws on the next frame after a budget change.
  await page.waitForFunction((b) => document.getElementById("meter").getAttribute("aria-valuemax") === String(b), budget);
  const got = await shown(page);
  assert.equal(got.tier, want.tier, `tier at ${budget}`);
  assert.deepEqual(got.counts, want.counts, `counts at ${budget}`);
  assert.ok(got.drawn.length > 0, "some rows are drawn");
  assert.deepEqual(got.drawn, got.drawn.map(([i]) => [i, want.status[i]]), `statuses of the rows on screen at ${budget}`);
  assert.deepEqual(got.tokens, want.tokens, `tier tokens at ${budget}`);
  assert.deepEqual(got.meter, { now: want.tokens.effective, max: budget, shown: want.tokens.effective });
  assert.ok(got.sentWords.includes(want.sent.toLocaleString("en")), `${got.sentWords} names ${want.sent}`);
  return want;
}

/**
 * Every row of the transcript, scrolled through a screen at a time (only
 * the rows near the screen are in the page): each message's kind, status,
 * estimate, text and folded blocks, in order.
 */
export function allRows(page) {
  return page.evaluate(async () => {
    const list = document.getElementById("transcript");
    const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const rows = new Map();
    window.scrollTo(0, list.getBoundingClientRect().top + scrollY);
    for (let guard = 0; guard < 1000; guard++) {
      await frames();
      for (const li of list.children) {
        rows.set(Number(li.getAttribute("aria-posinset")) - 1, {
          size: Number(li.getAttribute("aria-setsize")),
          kind: li.dataset.kind,
          status: li.dataset.status,
          tokens: Number(li.querySelector(".tokens").firstChild.textContent.replace(/[^0-9]/g, "")),
          text: li.textContent,
          toolCalls: li.querySelectorAll(".tool-call").length,
          toolResults: li.querySelectorAll(".tool-result").length,
        });
      }
      const bottom = list.getBoundingClientRect().bottom;
      if (bottom <= innerHeight) break;
      window.scrollBy(0, innerHeight * 0.9);
    }
    window.scrollTo(0, 0);
    await frames();
    const size = rows.values().next().value?.size ?? 0;
    return Array.from({ length: size }, (_, i) => rows.get(i));
  });
}

/** How many messages the transcript holds (drawn or not). */
export async function messageCount(page) {
  const all = await allRows(page);
  assert.ok(all.every(Boolean), "every message has a row");
  return all.length;
}

export async function paste(page, text) {
  await page.fill("#paste", text);
  await page.click("#use-paste");
}

/**
 * Milliseconds from a click on "Show pasted" with `text` in the box to the
 * first frame painted with it shown. The text is put in the box first, not
 * timed: a user pastes it before clicking.
 */
export async function timedShow(page, text, count) {
  await page.evaluate((value) => {
    document.getElementById("paste").value = value;
  }, text);
  return page.evaluate(async (words) => {
    const start = performance.now();
    document.getElementById("use-paste").click();
    while (!document.getElementById("source").textContent.startsWith(words)) await new Promise((r) => requestAnimationFrame(r));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - start;
  }, `Pasted history: ${count.toLocaleString("en")} messages`);
}

/**
 * Milliseconds from typing `budget` into the budget field to the first frame
 * painted with the page at that budget (the meter names it once the tiers,
 * the marks and the chart are drawn).
 */
export function timedBudget(page, budget) {
  return page.evaluate(async (value) => {
    const input = document.getElementById("budget-number");
    const meter = document.getElementById("meter");
    const start = performance.now();
    input.value = String(value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    while (meter.getAttribute("aria-valuemax") !== String(value)) await new Promise((r) => requestAnimationFrame(r));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - start;
  }, budget);
}
