// One format's sessions timed in a Node process of their own (bench.mjs
// starts one for each format): its fixture session (tests/fixtures/) and
// every real session in tests/sessions/ of that format, each repeated to
// 10,000 messages, against that history's own byte-touch limit, with the
// floors. Prints the rows as JSON.
//
// A process of their own, as an agent loop that speaks one SDK runs: in a
// process whose JS reads of messages have seen all nine formats' shapes, the
// full collection the bench makes before every run makes the next call up
// to twice as long, where in a process of one format it costs nothing.
// Pruning Anthropic's session so took 5.7 ms where it took 2.3 ms in a
// process of its own (bench/HISTORY.md).
//
// usage: node --expose-gc bench/sessions.mjs FORMAT [--quick]

import { readFileSync } from "node:fs";

import * as kram from "kram-compaction";

import * as floors from "./floors.mjs";
import { byteTouch, peersOf, reserve, timeInRounds } from "./measure.mjs";
import { stringBytes } from "./generate.mjs";
import { loadRealSessions } from "../tests/support/real-sessions.mjs";

const format = process.argv[2];
if (!kram.MESSAGE_FORMATS.includes(format)) throw new Error(`no format ${format}`);
const quick = process.argv.includes("--quick");

/** `session` repeated to 10,000 messages. */
const repeated = (session) => Array.from({ length: Math.ceil(10_000 / session.length) }, () => structuredClone(session)).flat();

const rows = { format: null, realSessions: {} };

// The fixture session: the functions that read newest first and the
// estimate, with the floors of each answer.
{
  const session = JSON.parse(readFileSync(new URL(`../tests/fixtures/${format}.json`, import.meta.url), "utf8"));
  const history = repeated(session);
  reserve(stringBytes(history).bytes);
  // The answers the floors are checked against (bench/floors.mjs).
  const pruned = kram.pruneForModel(history);
  const kept = kram.emergencyPrune(history, kram.DEFAULT_MAX_TOKENS);
  const pruningFloor = floors.pruningFloor(history, pruned, kram.describeMessages, byteTouch);
  const cutFloor = floors.cutFloor(history, kept, byteTouch);
  floors.sameAnswer(pruningFloor(), pruned, `${format}: the pruning floor`);
  floors.sameAnswer(cutFloor(), kept, `${format}: the cut's floor`);
  const times = await timeInRounds(
    {
      "byte-touch": () => byteTouch(history),
      effectiveHistory: () => kram.effectiveHistory(history),
      "emergencyPrune at 60,000": () => kram.emergencyPrune(history, kram.DEFAULT_MAX_TOKENS),
      pruneForModel: () => kram.pruneForModel(history),
      estimateTokens: () => kram.estimateTokens(history),
      // The least any implementation could pay for each answer.
      "floor: a look at each message": () => floors.lookAtEach(history),
      "floor: pruneForModel": pruningFloor,
      "floor: emergencyPrune at 60,000": cutFloor,
      ...peersOf(format, history),
    },
    quick ? 3 : 15,
  );
  for (const [name, time] of Object.entries(times)) process.stderr.write(`bench: ${format} ${name} ${time.median.toFixed(2)} ms\n`);
  rows.format = { messages: history.length, times };
}

// Every real session in this format (agents' own stored sessions, not
// ours), with the pruning floor.
for (const session of loadRealSessions().filter((session) => session.format === format)) {
  const history = repeated(session.messages);
  reserve(stringBytes(history).bytes);
  const pruned = kram.pruneForModel(history);
  const pruningFloor = floors.pruningFloor(history, pruned, kram.describeMessages, byteTouch);
  floors.sameAnswer(pruningFloor(), pruned, `${session.name}: the pruning floor`);
  const times = await timeInRounds(
    {
      "byte-touch": () => byteTouch(history),
      effectiveHistory: () => kram.effectiveHistory(history),
      "emergencyPrune at 60,000": () => kram.emergencyPrune(history, kram.DEFAULT_MAX_TOKENS),
      pruneForModel: () => kram.pruneForModel(history),
      "floor: pruneForModel": pruningFloor,
      ...peersOf(session.format, history),
    },
    quick ? 3 : 11,
  );
  const row = { format: session.format, messages: session.messages.length, bytes: stringBytes(session.messages).bytes, times };
  process.stderr.write(`bench: real session ${session.name} ${row.times.pruneForModel.median.toFixed(2)} ms\n`);
  rows.realSessions[session.name] = row;
}

process.stdout.write(JSON.stringify(rows));
