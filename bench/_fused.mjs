import { readFileSync } from "node:fs";
import * as K from "kram-compaction";
import { byteTouch, reserve, collect } from "./measure.mjs";
const format = process.argv[2];
const s = JSON.parse(readFileSync(`tests/fixtures/${format}.json`, "utf8"));
const h = Array.from({ length: Math.ceil(10000 / s.length) }, () => structuredClone(s)).flat();
reserve(JSON.stringify(h).length * 3);
const pruned = K.pruneForModel(h);
let last = -1; pruned.forEach((m, i) => { if (m !== h[i]) last = i; });
const tail = h.slice(last + 1 - 64); // the walk's region, and a little more
const PH = "[Old tool result content cleared]";
const ph = pruned[last].content;
function fused(history, end) {
  const out = new Array(history.length);
  for (let i = 0; i < end; i++) {
    const m = history[i];
    if (m.role === "tool") { const c = m.content; if (typeof c === "string" && c !== ph) { const copy = { ...m }; copy.content = ph; out[i] = copy; continue; } }
    out[i] = m;
  }
  for (let i = end; i < history.length; i++) out[i] = history[i];
  return out;
}
const works = { touch: () => byteTouch(h), prune: () => K.pruneForModel(h), tailPrune: () => K.pruneForModel(tail), fused: () => fused(h, last + 1) };
for (const w of Object.values(works)) for (let i = 0; i < 10; i++) w();
const t = Object.fromEntries(Object.keys(works).map((k) => [k, []]));
for (let r = 0; r < 21; r++) for (const [k, w] of Object.entries(works)) { await collect(); const a = process.hrtime.bigint(); w(); t[k].push(Number(process.hrtime.bigint() - a) / 1e6); }
const med = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];
console.log(format.padEnd(12), "tail msgs", tail.length, Object.keys(works).map((k) => `${k} ${med(t[k]).toFixed(3)} (${(med(t[k]) / med(t.touch)).toFixed(3)}x)`).join("  "));
