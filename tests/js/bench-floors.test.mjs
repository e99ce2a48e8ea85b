// bench/floors.mjs: the least any implementation could pay for an answer,
// which the bench prints beside each function of every format. A floor must
// make the package's own answer, or it is the floor of something else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as kram from "kram-compaction";
import { cutFloor, lookAtEach, pruningFloor, sameAnswer } from "../../bench/floors.mjs";

const session = (format) => JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));

test("every format's floors make the package's answers, keeping the caller's unchanged messages", () => {
  for (const format of kram.MESSAGE_FORMATS) {
    const fixture = session(format);
    const history = Array.from({ length: Math.ceil(2_000 / fixture.length) }, () => structuredClone(fixture)).flat();
    const options = { protectTokens: 2_000, minimumSavings: 0 };
    const pruned = kram.pruneForModel(history, options);
    const copied = [];
    const floor = pruningFloor(history, pruned, kram.describeMessages, (texts) => copied.push(...texts));
    const answer = floor();
    sameAnswer(answer, pruned, format);
    assert.ok(answer.some((message, i) => message !== history[i]), `${format}: something is cleared`);
    answer.forEach((message, i) => assert.equal(message === history[i], pruned[i] === history[i], `${format} message ${i}`));
    assert.ok(copied.length > 0 && copied.every((text) => typeof text === "string"), `${format}: the tail's results are copied in`);
    const budget = 5_000;
    const kept = kram.emergencyPrune(history, budget);
    assert.ok(kept.length < history.length, format);
    sameAnswer(cutFloor(history, kept, () => {})(), kept, format);
    assert.equal(lookAtEach(history), history.filter((message) => "role" in message).length, format);
  }
});

test("sameAnswer tells a different answer", () => {
  const history = [{ role: "user", content: "a" }];
  assert.throws(() => sameAnswer([{ role: "user", content: "b" }], history, "x"), /x is not the package's answer/);
  assert.throws(() => sameAnswer([], history, "x"), /x is not the package's answer/);
  sameAnswer([{ role: "user", content: "a" }], history, "x");
});
