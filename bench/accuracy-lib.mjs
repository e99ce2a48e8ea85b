// The accuracy corpus and the real tokenizers, shared by `npm run accuracy`
// and the test that keeps the estimate in its band.

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { getTokenizer } from "@anthropic-ai/tokenizer";
import { estimateTokenCount as tokenx } from "tokenx";

export const CORPUS_DIR = fileURLToPath(new URL("../tests/corpus/", import.meta.url));
export const COUNTS_FILE = join(CORPUS_DIR, "exact-counts.json");

/** The band `estimateTokens` must stay in against o200k_base, per category. */
export const BAND = { low: 0.97, high: 1.1 };

/** Tokens a chat message costs beyond its content and role (OpenAI's recipe). */
const FRAMING = 3;

// `countTokens` of @anthropic-ai/tokenizer builds its tokenizer anew on every
// call (about 0.2 s); this is the same count with one tokenizer kept.
let claudeTokenizer;
function claude(text) {
  claudeTokenizer ??= getTokenizer();
  return claudeTokenizer.encode(text.normalize("NFKC"), "all").length;
}

export const TOKENIZERS = {
  o200k_base: o200k,
  cl100k_base: cl100k,
  claude,
};

/**
 * Every piece of the corpus as the messages it is measured as: a `.txt` piece
 * is one user message, a `.json` piece (mixed chat) is its own messages. The
 * compact JSON pieces, one value a line, are also measured as values (the
 * way tool inputs are counted): category `json-value`, each line a message
 * whose one content part carries the value.
 */
export function readCorpus() {
  const pieces = [];
  for (const category of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!category.isDirectory()) continue;
    for (const file of readdirSync(join(CORPUS_DIR, category.name)).sort()) {
      const text = readFileSync(join(CORPUS_DIR, category.name, file), "utf8");
      const messages = file.endsWith(".json")
        ? JSON.parse(text)
        : [{ role: "user", content: text }];
      pieces.push({ category: category.name, path: `${category.name}/${file}`, messages });
      if (category.name === "json-compact") {
        const values = text.split("\n").filter((line) => line !== "");
        pieces.push({
          category: "json-value",
          path: `${category.name}/${file}#value`,
          messages: values.map((line) => ({
            role: "user",
            content: [{ type: "data", data: JSON.parse(line) }],
          })),
        });
      }
    }
  }
  return pieces.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * A message-level count: each message's content (a content part as its
 * JSON) and role, plus the framing.
 */
function countMessages(messages, count) {
  let total = 0;
  for (const message of messages) {
    const parts = typeof message.content === "string" ? [message.content] : message.content;
    for (const part of parts) total += count(typeof part === "string" ? part : JSON.stringify(part));
    total += count(message.role) + FRAMING;
  }
  return total;
}

/** The exact counts of every piece under every tokenizer. */
export function exactCounts(pieces) {
  return pieces.map((piece) => {
    const counts = { path: piece.path, category: piece.category };
    for (const [name, count] of Object.entries(TOKENIZERS)) {
      counts[name] = countMessages(piece.messages, count);
    }
    return counts;
  });
}

/** The estimators compared: the package's and the two a user would reach for. */
export function estimators(estimateTokens) {
  return {
    estimateTokens: (messages) => estimateTokens(messages),
    "chars/4": (messages) =>
      countMessages(messages, (text) => Math.ceil(text.length / 4)),
    tokenx: (messages) => countMessages(messages, (text) => tokenx(text)),
  };
}

/**
 * Per category, the ratio of each estimator's summed estimate to each
 * tokenizer's summed exact count.
 */
export function ratios(pieces, counts, estimateTokens) {
  const byPath = new Map(counts.map((count) => [count.path, count]));
  const sums = new Map();
  const named = estimators(estimateTokens);
  for (const piece of pieces) {
    const exact = byPath.get(piece.path);
    if (!exact) throw new Error(`no exact count for ${piece.path}`);
    const sum = sums.get(piece.category) ?? { bytes: 0, exact: {}, estimate: {} };
    for (const { content } of piece.messages) {
      sum.bytes += Buffer.byteLength(typeof content === "string" ? content : JSON.stringify(content));
    }
    for (const name of Object.keys(TOKENIZERS)) sum.exact[name] = (sum.exact[name] ?? 0) + exact[name];
    for (const [name, estimate] of Object.entries(named)) {
      sum.estimate[name] = (sum.estimate[name] ?? 0) + estimate(piece.messages);
    }
    sums.set(piece.category, sum);
  }
  const rows = [];
  for (const [category, sum] of [...sums].sort()) {
    const row = { category, bytes: sum.bytes, exact: sum.exact, estimate: sum.estimate, ratio: {} };
    for (const estimator of Object.keys(named)) {
      row.ratio[estimator] = {};
      for (const tokenizer of Object.keys(TOKENIZERS)) {
        row.ratio[estimator][tokenizer] = sum.estimate[estimator] / sum.exact[tokenizer];
      }
    }
    rows.push(row);
  }
  return rows;
}

/** The committed exact counts (what the native Rust test reads). */
export function committedCounts() {
  return JSON.parse(readFileSync(COUNTS_FILE, "utf8")).pieces;
}

/** The counts file as it is written: stable order, one piece a line. */
export function countsFileText(counts) {
  const lines = counts.map((count) => "    " + JSON.stringify(count));
  return `{\n  "framing": ${FRAMING},\n  "pieces": [\n${lines.join(",\n")}\n  ]\n}\n`;
}
