// `npm run accuracy`: per corpus category, the ratio of each estimate to the
// exact token count of o200k_base, cl100k_base and Anthropic's tokenizer.
// `--write-counts` rewrites the committed exact counts from the tokenizers.

import { mkdirSync, writeFileSync } from "node:fs";

import {
  BAND,
  COUNTS_FILE,
  countsFileText,
  exactCounts,
  ratios,
  readCorpus,
  TOKENIZERS,
} from "./accuracy-lib.mjs";

const pieces = readCorpus();
const counts = exactCounts(pieces);

if (process.argv.includes("--write-counts")) {
  writeFileSync(COUNTS_FILE, countsFileText(counts));
  console.log(`wrote ${counts.length} exact counts to ${COUNTS_FILE}`);
  process.exit(0);
}

const { estimateTokens } = await import(process.env.KRAM_PACKAGE ?? "kram-compaction");
const rows = ratios(pieces, counts, estimateTokens);

const estimatorNames = Object.keys(rows[0].ratio);
const tokenizerNames = Object.keys(TOKENIZERS);
const header = ["category", "KB", "o200k tokens"];
for (const estimator of estimatorNames) {
  for (const tokenizer of tokenizerNames) header.push(`${estimator} / ${tokenizer}`);
}
const table = [header];
for (const row of rows) {
  const cells = [row.category, (row.bytes / 1024).toFixed(1), String(row.exact.o200k_base)];
  for (const estimator of estimatorNames) {
    for (const tokenizer of tokenizerNames) cells.push(row.ratio[estimator][tokenizer].toFixed(3));
  }
  table.push(cells);
}
console.log(table.map((cells) => `| ${cells.join(" | ")} |`).join("\n"));

const outside = rows.filter((row) => {
  const ratio = row.ratio.estimateTokens.o200k_base;
  return ratio < BAND.low || ratio > BAND.high;
});
console.log(
  outside.length === 0
    ? `\nestimateTokens / o200k_base: every category in [${BAND.low}, ${BAND.high}]`
    : `\nestimateTokens / o200k_base outside [${BAND.low}, ${BAND.high}]: ${outside.map((r) => r.category).join(", ")}`,
);

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const out = new URL("./results/accuracy.json", import.meta.url);
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), band: BAND, rows }, null, 2) + "\n");
console.log(`wrote ${out.pathname}`);
process.exitCode = outside.length === 0 ? 0 : 1;
