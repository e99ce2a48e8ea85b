// The chart: the effective history's estimated tokens after each user turn,
// stacked by role, the tokens actually sent after the tier as a line, and the
// budget. Plain SVG, drawn at the container's pixel width so text stays crisp.
// Turns are grouped once per history; a budget change redraws this chart
// alone, in a few elements however many turns (one path per role).
import { svg, formatNumber } from "./dom.js";
import { labelledTurns } from "./axis.js";

export const KINDS = ["system", "user", "assistant", "tool"];
const HEIGHT = 240;
const PAD = { top: 16, right: 12, bottom: 28, left: 48 };

/**
 * The turns of the effective history, read once per history: each turn's
 * label and number (0 and "start" for the messages before the first user
 * turn), its tokens by role and the running totals, and `turnOf[i]`, the
 * turn of message i (-1 when it is not in the effective history).
 */
export function groupTurns(infos, positions) {
  const turns = [];
  const turnOf = new Int32Array(infos.length).fill(-1);
  let current;
  let users = 0;
  for (let i = 0; i < infos.length; i++) {
    if (positions[i] < 0) continue;
    const info = infos[i];
    if (!current || info.startsUserTurn) {
      const number = info.startsUserTurn ? ++users : 0;
      current = { number, label: number ? String(number) : "start", byKind: Object.fromEntries(KINDS.map((k) => [k, 0])) };
      turns.push(current);
    }
    // "other" roles are system-like, as the package reads them.
    const kind = KINDS.includes(info.kind) ? info.kind : "system";
    current.byKind[kind] += info.tokens;
    turnOf[i] = turns.length - 1;
  }
  let total = 0;
  const running = Object.fromEntries(KINDS.map((k) => [k, 0]));
  for (const turn of turns) {
    turn.own = 0;
    for (const k of KINDS) {
      running[k] += turn.byKind[k];
      turn.own += turn.byKind[k];
    }
    total += turn.own;
    turn.running = { ...running };
    turn.total = total;
  }
  return { turns, turnOf };
}

/** The running total of what is sent, after each turn, from each message's tokens as sent. */
export function sentByTurn({ turns, turnOf }, sentTokens) {
  const sent = new Float64Array(turns.length);
  for (let i = 0; i < turnOf.length; i++) if (turnOf[i] >= 0) sent[turnOf[i]] += sentTokens[i];
  for (let t = 1; t < sent.length; t++) sent[t] += sent[t - 1];
  return sent;
}

/** Draws the chart into `box`: the turns of `groupTurns`, what is sent after each, the budget. */
export function drawChart(box, { turns }, sent, budget) {
  const width = Math.max(280, box.clientWidth);
  const last = turns.at(-1);
  const top = niceCeiling(Math.max(budget, last?.total ?? 0, 1) * 1.05);
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const y = (v) => PAD.top + plotH - (v / top) * plotH;
  const band = plotW / Math.max(turns.length, 1);
  const barW = Math.max(1, Math.min(48, band * 0.68));
  const x = (i) => PAD.left + band * i + band / 2;
  const round = (v) => Math.round(v * 10) / 10;

  const grid = ticks(top).map((t) =>
    svg(
      "g",
      { class: "tick" },
      svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(t), y2: y(t) }),
      svg("text", { x: PAD.left - 6, y: y(t) + 4, "text-anchor": "end" }, document.createTextNode(shortNumber(t))),
    ),
  );
  // The running total, stacked by role: every earlier turn's tokens of that role included.
  const bars = KINDS.map((kind, k) => {
    let d = "";
    turns.forEach((turn, i) => {
      let below = 0;
      for (let j = 0; j < k; j++) below += turn.running[KINDS[j]];
      const height = y(below) - y(below + turn.running[kind]);
      if (height > 0) d += `M${round(x(i) - barW / 2)} ${round(y(below))}h${round(barW)}v${-round(height)}h${-round(barW)}z`;
    });
    return svg("path", { class: `bar ${kind}`, d });
  });
  const sentLine = svg("polyline", {
    class: "sent-line",
    points: turns.map((_, i) => `${round(x(i))},${round(y(sent[i]))}`).join(" "),
    // A dot at each turn while turns are far enough apart to tell the dots apart.
    ...(band >= 6 ? { "marker-start": "url(#sent-dot)", "marker-mid": "url(#sent-dot)", "marker-end": "url(#sent-dot)" } : {}),
  });
  const dot = svg(
    "marker",
    { id: "sent-dot", viewBox: "0 0 6 6", refX: 3, refY: 3, markerWidth: 5, markerHeight: 5, markerUnits: "userSpaceOnUse" },
    svg("circle", { class: "sent-dot", cx: 3, cy: 3, r: 3 }),
  );
  const budgetLine = svg(
    "g",
    { class: "budget-line" },
    svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(budget), y2: y(budget) }),
    svg("text", { x: PAD.left + 6, y: y(budget) - 6, "text-anchor": "start" }, document.createTextNode(`budget ${formatNumber(budget)}`)),
  );
  const numbers = turns.map((turn) => turn.number);
  const labels = labelledTurns(numbers, turns.map((turn) => turn.label), band, x, width).map((i) =>
    svg("text", { class: "x-label", x: round(x(i)), y: HEIGHT - 8, "text-anchor": "middle" }, document.createTextNode(turns[i].label)),
  );
  const hover = svg("g", { class: "hover", visibility: "hidden" }, svg("rect", { y: PAD.top, height: plotH }), svg("text", { y: PAD.top - 4 }));
  const chart = svg(
    "svg",
    { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: "img", "aria-labelledby": "chart-title chart-desc" },
    svg("title", { id: "chart-title" }, document.createTextNode("Estimated tokens of the effective history after each user turn")),
    svg(
      "desc",
      { id: "chart-desc" },
      document.createTextNode(
        `${turns.length} turns reach ${formatNumber(last?.total ?? 0)} tokens against a budget of ${formatNumber(budget)}; ${formatNumber(sent.at(-1) ?? 0)} are sent.`,
      ),
    ),
    svg("defs", {}, dot),
    ...grid,
    ...bars,
    budgetLine,
    sentLine,
    ...labels,
    hover,
  );
  chart.addEventListener("pointermove", (event) => {
    // clientX, not offsetX: over a bar, offsetX is measured from the bar's own box.
    const i = Math.floor((event.clientX - chart.getBoundingClientRect().left - PAD.left) / band);
    const turn = turns[i];
    hover.setAttribute("visibility", turn ? "visible" : "hidden");
    if (!turn) return;
    hover.firstChild.setAttribute("x", String(PAD.left + band * i));
    hover.firstChild.setAttribute("width", String(Math.max(band, 1)));
    const text = hover.lastChild;
    text.textContent = `Turn ${turn.label}: ${formatNumber(turn.own)} tokens (${KINDS.map((k) => `${k} ${formatNumber(turn.byKind[k])}`).join(", ")}); ${formatNumber(turn.total)} in all, ${formatNumber(sent[i])} sent`;
    const left = PAD.left + band * i < width / 2;
    text.setAttribute("x", String(left ? PAD.left : width - PAD.right));
    text.setAttribute("text-anchor", left ? "start" : "end");
  });
  chart.addEventListener("pointerleave", () => hover.setAttribute("visibility", "hidden"));
  box.replaceChildren(chart);
}

function niceCeiling(value) {
  const step = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10]) if (m * step >= value) return m * step;
  return 10 * step;
}

function ticks(top) {
  const step = top / 4;
  return [0, 1, 2, 3, 4].map((i) => i * step);
}

function shortNumber(n) {
  if (n >= 1000) return `${Number((n / 1000).toFixed(n % 1000 === 0 ? 0 : 1))}k`;
  return String(Math.round(n));
}
