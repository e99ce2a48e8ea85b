// A Vite app's own code, importing the package by its name.
import { estimateTokens, pruneForModel, VERSION } from "kram-compaction";

const messages = [{ role: "user", content: "Fix the failing test" }];
window.result = {
  version: VERSION,
  tokens: estimateTokens(messages),
  pruned: pruneForModel(messages).length,
};
