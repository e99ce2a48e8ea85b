// The built package's estimateTokens against the real tokenizers on the
// corpus of real text in tests/corpus/ (`npm run accuracy` prints the table).
import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateTokens } from "kram-compaction";

import {
  BAND,
  committedCounts,
  exactCounts,
  ratios,
  readCorpus,
} from "../../bench/accuracy-lib.mjs";

const pieces = readCorpus();
const counts = exactCounts(pieces);

test("the committed exact counts are what the tokenizers say", () => {
  // The native Rust test (tests/estimate_accuracy.rs) reads these counts.
  assert.deepEqual(committedCounts(), counts, "run `node bench/accuracy.mjs --write-counts`");
});

test("every category's estimate is within the band of o200k_base", () => {
  const rows = ratios(pieces, counts, estimateTokens);
  assert.ok(rows.length >= 20, `the corpus lost categories: ${rows.map((r) => r.category)}`);
  const outside = rows
    .map((row) => [row.category, row.ratio.estimateTokens.o200k_base])
    .filter(([, ratio]) => ratio < BAND.low || ratio > BAND.high);
  assert.deepEqual(outside, [], `outside [${BAND.low}, ${BAND.high}]`);
});

test("the estimate is the sum of the pieces' estimates, message by message", () => {
  const messages = pieces.flatMap((piece) => piece.messages);
  const sum = messages.reduce((total, message) => total + estimateTokens([message]), 0);
  assert.equal(estimateTokens(messages), sum);
});
