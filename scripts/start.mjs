// `npm start`: the main job on an embedded sample agent session. For now it
// prints the session's message count and token estimate.
import { estimateTokens, needsCompaction, VERSION } from "kram-compaction";

const session = [
  { role: "system", content: "You are a coding agent. Use the tools to fix the repository." },
  { role: "user", content: "The test suite fails on main; find out why and fix it." },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "run", arguments: '{"cmd":"npm test"}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: "FAIL tests/date.test.js\n  expected 2024-02-29, got 2024-03-01\n".repeat(20) },
  { role: "assistant", content: "The leap-year check in src/date.js is off by one; I fixed it and the suite passes." },
];

console.log(`kram-compaction ${VERSION}`);
console.log(`sample session: ${session.length} messages, ${estimateTokens(session)} estimated tokens`);
console.log(`needs compaction at the default budget: ${needsCompaction(session)}`);
