#!/usr/bin/env node
// kram-compact FILE.json: prints the message count and token estimate of a
// stored session (a JSON array of messages). Read from stdin without FILE.
import { readFileSync } from "node:fs";
import { estimateTokens, VERSION } from "kram-compaction";

const [file] = process.argv.slice(2);
if (file === "--version") {
  console.log(VERSION);
} else {
  const messages = JSON.parse(readFileSync(file ?? 0, "utf8"));
  console.log(`kram-compaction ${VERSION}: ${messages.length} messages, ${estimateTokens(messages)} estimated tokens`);
}
