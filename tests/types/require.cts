// The CommonJS view of the types (`require` condition, .d.cts files).
import kram = require("kram-compaction");

const messages: kram.Message[] = [{ role: "user", content: "hi" }];
const tokens: number = kram.estimateTokens(messages);
const version: string = kram.VERSION;
// @ts-expect-error a message list, not a number
kram.emergencyPrune(5);
export { tokens, version };
