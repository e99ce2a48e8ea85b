import { createRequire } from "node:module";
import { loadRealSessions } from "../tests/support/real-sessions.mjs";
import { byteTouch, reserve } from "./measure.mjs";
const K = createRequire(import.meta.url)(process.env.PKG || "/work/main/pkg/dist/node.cjs");
const name = process.argv[2]; const fn = process.argv[3] || "prune";
const s = loadRealSessions().find((x) => x.name === name);
const h = Array.from({ length: Math.ceil(10_000 / s.messages.length) }, () => structuredClone(s.messages)).flat();
reserve(JSON.stringify(h).length * 3);
const call = { prune: () => K.pruneForModel(h), cut: () => K.emergencyPrune(h, 60000), eff: () => K.effectiveHistory(h), touch: () => byteTouch(h) };
for (let i = 0; i < 30; i++) call[fn]();
const xs = [], ts = [];
for (let i = 0; i < Number(process.env.N || 200); i++) { if (process.env.GC) gc(); let a = process.hrtime.bigint(); call[fn](); xs.push(Number(process.hrtime.bigint() - a) / 1e6); if (process.env.NOTOUCH) { ts.push(1); continue; } if (process.env.GC) gc(); a = process.hrtime.bigint(); byteTouch(h); ts.push(Number(process.hrtime.bigint() - a) / 1e6); }
const med = (x) => x.sort((p, q) => p - q)[x.length >> 1];
console.log(name, fn, h.length, "median", med(xs).toFixed(3), "touch", med(ts).toFixed(3), "ratio", (med(xs) / med(ts)).toFixed(3));
