// The chart: the effective history's estimated tokens after each user turn,
// stacked by role, the tokens actually sent after the tier as a line, and the
// budget. Plain SVG, drawn at the container's pixel width so text stays crisp.
import { h, svg, formatNumber } from "./dom.js";

const KINDS = ["system", "user", "assistant", "tool"];
const HEIGHT = 240;
const PAD = { top: 16, right: 12, bottom: 28, left: 48 };

/**
 * Per-turn totals of the effective history. `sentTokens[i]` is what message
 * i costs as sent (0 when dropped); `positions[i]` is -1 for a message that is
 * not in the effective history. Messages before the first user turn form
 * the "start" group.
 */
export function turnsOf(infos, positions, sentTokens) {
  const turns = [];
  let current;
  for (let i = 0; i < infos.length; i++) {
    if (positions[i] < 0) continue;
    const info = infos[i];
    if (!current || info.startsUserTurn) {
      current = { label: info.startsUserTurn ? String(turns.filter((t) => t.label !== "start").length + 1) : "start" };
      current.byKind = Object.fromEntries(KINDS.map((k) => [k, 0]));
      current.sent = 0;
      turns.push(current);
    }
    // "other" roles are system-like, as the package reads them.
    const kind = KINDS.includes(info.kind) ? info.kind : "system";
    current.byKind[kind] += info.tokens;
    current.sent += sentTokens[i];
  }
  return turns;
}

/** Draws the chart into `box` and fills the data table. */
export function drawChart(box, table, { turns, budget }) {
  const width = Math.max(280, box.clientWidth);
  const cumulative = Object.fromEntries(KINDS.map((k) => [k, 0]));
  let runningSent = 0;
  const points = turns.map((turn) => {
    for (const k of KINDS) cumulative[k] += turn.byKind[k];
    runningSent += turn.sent;
    const own = KINDS.reduce((sum, k) => sum + turn.byKind[k], 0);
    const total = KINDS.reduce((sum, k) => sum + cumulative[k], 0);
    return { turn, own, total, byKind: { ...cumulative }, sent: runningSent };
  });
  const running = points.at(-1)?.total ?? 0;
  const top = niceCeiling(Math.max(budget, running, 1) * 1.05);
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const y = (v) => PAD.top + plotH - (v / top) * plotH;
  const band = plotW / Math.max(points.length, 1);
  const barW = Math.max(2, Math.min(48, band * 0.68));
  const x = (i) => PAD.left + band * i + band / 2;

  const grid = ticks(top).map((t) =>
    svg(
      "g",
      { class: "tick" },
      svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(t), y2: y(t) }),
      svg("text", { x: PAD.left - 6, y: y(t) + 4, "text-anchor": "end" }, document.createTextNode(shortNumber(t))),
    ),
  );
  const bars = points.map((p, i) => {
    let level = 0;
    const title = `Turn ${p.turn.label}: ${formatNumber(p.own)} tokens (${KINDS.map((k) => `${k} ${formatNumber(p.turn.byKind[k])}`).join(", ")}); ${formatNumber(p.total)} in all, ${formatNumber(p.sent)} sent`;
    // The running total, stacked by role: every earlier turn's tokens of that role included.
    const parts = KINDS.map((kind) => {
      const height = p.byKind[kind];
      const rect = svg("rect", {
        class: `bar ${kind}`,
        x: x(i) - barW / 2,
        width: barW,
        y: y(level + height),
        height: Math.max(0, y(level) - y(level + height)),
      });
      level += height;
      return rect;
    });
    return svg("g", { class: "turn" }, svg("title", {}, document.createTextNode(title)), ...parts);
  });
  const sentLine = svg("polyline", {
    class: "sent-line",
    points: points.map((p, i) => `${x(i)},${y(p.sent)}`).join(" "),
  });
  const sentDots = points.map((p, i) => svg("circle", { class: "sent-dot", cx: x(i), cy: y(p.sent), r: 2.5 }));
  const budgetLine = svg(
    "g",
    { class: "budget-line" },
    svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(budget), y2: y(budget) }),
    svg("text", { x: PAD.left + 6, y: y(budget) - 6, "text-anchor": "start" }, document.createTextNode(`budget ${formatNumber(budget)}`)),
  );
  const every = Math.ceil(points.length / Math.max(1, Math.floor(plotW / 28)));
  const labels = points.map((p, i) =>
    i % every === 0 || i === points.length - 1
      ? svg("text", { class: "x-label", x: x(i), y: HEIGHT - 8, "text-anchor": "middle" }, document.createTextNode(p.turn.label))
      : null,
  );
  const last = points.at(-1) ?? { total: 0, sent: 0 };
  const chart = svg(
    "svg",
    { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: "img", "aria-labelledby": "chart-title chart-desc" },
    svg("title", { id: "chart-title" }, document.createTextNode("Estimated tokens of the effective history after each user turn")),
    svg(
      "desc",
      { id: "chart-desc" },
      document.createTextNode(
        `${points.length} turns reach ${formatNumber(last.total)} tokens against a budget of ${formatNumber(budget)}; ${formatNumber(last.sent)} are sent.`,
      ),
    ),
    ...grid,
    ...bars,
    budgetLine,
    sentLine,
    ...sentDots,
    ...labels.filter(Boolean),
  );
  box.replaceChildren(chart);
  fillTable(table, points);
}

function fillTable(table, points) {
  const head = h("tr", {}, ...["Turn", ...KINDS, "Running total", "Sent"].map((t) => h("th", { scope: "col" }, t)));
  const rows = points.map((p) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, p.turn.label),
      ...KINDS.map((k) => h("td", {}, formatNumber(p.turn.byKind[k]))),
      h("td", {}, formatNumber(p.total)),
      h("td", {}, formatNumber(p.sent)),
    ),
  );
  table.replaceChildren(h("thead", {}, head), h("tbody", {}, ...rows));
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
