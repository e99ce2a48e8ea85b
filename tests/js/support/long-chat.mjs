// A long OpenAI Chat session for the demo page's scale tests: turns of four
// messages (a request, a tool call, its result, an answer), about 600 bytes a
// message, the same for a seed. 10,000 messages are 2,500 turns and about
// 6 MB, the history of issue #18's measurements.
import { rng } from "../../support/random.mjs";

const WORDS = "the parser cache session router config worker queue schema client test build reads writes each line once and then".split(" ");

/** `count` words of seeded prose. */
function prose(r, count) {
  const words = [];
  for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(r() * WORDS.length)]);
  return words.join(" ");
}

/** A history of `count` messages (a system prompt, then whole turns). */
export function longChat(count, seed = 18) {
  const r = rng(seed);
  const messages = [{ role: "system", content: `You are a coding agent. ${prose(r, 40)}` }];
  for (let turn = 0; messages.length < count; turn++) {
    const id = `call_${turn}`;
    messages.push(
      { role: "user", content: `Turn ${turn + 1}: ${prose(r, 12 + Math.floor(r() * 20))}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/${prose(r, 1)}.rs` }) } }],
      },
      { role: "tool", tool_call_id: id, content: `${prose(r, 250 + Math.floor(r() * 150))}\n` },
      { role: "assistant", content: prose(r, 20 + Math.floor(r() * 40)) },
    );
  }
  return messages.slice(0, count);
}
