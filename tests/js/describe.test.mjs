// describeMessages through the JS boundary: plain objects with the documented
// field names, the same estimates as estimateTokens, errors naming the index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeMessages, estimateTokens, COMPACTION_MARKER_NAME } from "kram-compaction";

const history = [
  { role: "system", name: COMPACTION_MARKER_NAME, content: "Earlier: the parser was read." },
  { role: "user", content: "Run the tests." },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "run", arguments: '{"cmd":"npm test"}' } }],
  },
  { role: "tool", tool_call_id: "c1", content: "1 failing" },
  { role: "developer", content: [{ type: "text", text: "Be brief." }] },
];

test("describeMessages gives one plain description per message", () => {
  const snapshot = structuredClone(history);
  const { format, messages } = describeMessages(history);
  assert.equal(format, "openai-chat");
  assert.deepEqual(history, snapshot, "the input is not changed");
  assert.deepEqual(
    messages.map((m) => [m.role, m.kind, m.startsUserTurn, m.isMarker]),
    [
      ["system", "system", false, true],
      ["user", "user", true, false],
      ["assistant", "assistant", false, false],
      ["tool", "tool", false, false],
      ["developer", "other", false, false],
    ],
  );
  assert.deepEqual(messages[2].blocks, [{ type: "tool-call", id: "c1", name: "run", arguments: '{"cmd":"npm test"}' }]);
  assert.deepEqual(messages[3].blocks, [{ type: "tool-result", id: "c1", output: "1 failing", isError: false }]);
  assert.deepEqual(messages[4].blocks, [{ type: "text", text: "Be brief." }]);
  assert.equal(Object.getPrototypeOf(messages[0]), Object.prototype);
});

test("each description's tokens are estimateTokens of that message alone", () => {
  const { messages } = describeMessages(history);
  messages.forEach((info, i) => assert.equal(info.tokens, estimateTokens([history[i]])));
});

test("bad input is a TypeError naming the message index and field", () => {
  const bad = [{ role: "user", content: "hi" }, { role: "tool", content: "no id" }];
  assert.throws(() => describeMessages(bad), (e) => e instanceof TypeError && /messages\[1\]\.tool_call_id/.test(e.message));
  assert.throws(() => describeMessages("nope"), (e) => e instanceof TypeError && /messages must be an array/.test(e.message));
  assert.throws(() => describeMessages([], { format: "yaml" }), (e) => e instanceof TypeError && /options\.format/.test(e.message));
});
