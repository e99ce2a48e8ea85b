// The demo page: a history in, the tiers for a budget out, all through the
// package in this tab. This file wires the controls; ladder.js asks the
// package what each tier does, transcript.js and chart.js draw it.
import { DEFAULT_MAX_TOKENS, VERSION, describeMessages } from "kram-compaction";
import { formatNumber } from "./dom.js";
import { drawChart, groupTurns, sentByTurn } from "./chart.js";
import { ChartTable } from "./chart-table.js";
import { parseHistory, InputProblem } from "./history-input.js";
import { atBudget, prepare } from "./ladder.js";
import { Transcript } from "./transcript.js";
import { setUpCompaction } from "./compaction.js";

const $ = (id) => document.getElementById(id);
const SAMPLE_URL = new URL("../pkg/data/sample-session.json", import.meta.url);
/**
 * A history longer than this is not kept in the paste box once it is shown:
 * a box of megabytes is painted again at every change of the controls.
 */
const KEEP_IN_BOX = 200_000;

const state = { budget: DEFAULT_MAX_TOKENS, shown: undefined, view: undefined, chart: undefined };
const chartTable = new ChartTable($("chart-data"), $("chart-table"));

/**
 * Everything that depends on the history alone, computed once per history;
 * `described` is describeMessages(messages), read when the input was checked.
 */
function show(messages, described, source) {
  const prepared = prepare(messages, described);
  state.shown?.transcript.destroy();
  const transcript = new Transcript($("transcript"), described.messages);
  const turns = groupTurns(described.messages, prepared.positions);
  state.shown = { messages, source, format: described.format, infos: described.messages, prepared, transcript, turns };
  chartTable.setTurns(turns);
  $("source").textContent = `${source}: ${formatNumber(messages.length)} messages, ${described.format}`;
  $("transcript-summary").textContent = `${formatNumber(messages.length)} messages · ${formatNumber(prepared.tokens.all)} tokens`;
  fitSlider(prepared.tokens.effective);
  return update();
}

/**
 * Everything that depends on the budget: the package's tiers at this budget,
 * the marks of the rows on screen, the meter, the tiers table and the chart.
 */
async function update() {
  const shown = state.shown;
  if (!shown) return;
  const budget = state.budget;
  const view = await atBudget(shown.prepared, budget);
  // A newer history or budget came while this one was computed: it draws instead.
  if (shown !== state.shown || budget !== state.budget) return;
  state.view = view;
  shown.transcript.mark(view.status, view.sentTokens);

  for (const [status, n] of Object.entries(view.counts)) $(`count-${status}`).textContent = formatNumber(n);
  const t = view.tokens;
  const { prepared } = shown;
  setRow("row-all", prepared.all.length, t.all);
  setRow("row-effective", prepared.effective.length, t.effective);
  setRow("row-pruned", view.prunedLength, t.pruned);
  setRow("row-cut", view.cutLength, t.cut);
  const applied = { none: "row-effective", pruned: "row-pruned", emergency: "row-cut" }[view.tier];
  for (const id of ["row-effective", "row-pruned", "row-cut"]) $(id).classList.toggle("applied", id === applied);
  $("tier").dataset.tier = view.tier;
  $("tier").replaceChildren(...tierWords(view));

  const meter = $("meter");
  meter.setAttribute("aria-valuemax", String(budget));
  meter.setAttribute("aria-valuenow", String(t.effective));
  meter.setAttribute("aria-valuetext", `${formatNumber(t.effective)} of ${formatNumber(budget)} tokens; ${formatNumber(t.sent)} sent`);
  meter.classList.toggle("over", t.effective > budget);
  const scale = Math.max(budget, t.effective);
  $("meter-fill").style.width = `${(100 * t.effective) / scale}%`;
  $("meter-sent").style.width = `${(100 * t.sent) / scale}%`;
  meter.style.setProperty("--budget-at", `${(100 * budget) / scale}%`);
  $("meter-tokens").textContent = formatNumber(t.effective);
  $("meter-budget").textContent = formatNumber(budget);
  $("meter-percent").textContent = `(${Math.round((100 * t.effective) / budget)}%)`;

  // The chart follows the budget it was computed for, even when the box is resized.
  state.chart = { sent: sentByTurn(shown.turns, view.sentTokens), budget };
  chartTable.setSent(state.chart.sent);
  redrawChart();
}

function tierWords(view) {
  const sent = `${formatNumber(view.tokens.sent)} tokens are sent.`;
  const strong = (text) => Object.assign(document.createElement("strong"), { textContent: text });
  switch (view.tier) {
    case "none":
      return [strong("Within budget."), ` Nothing is changed: ${sent}`];
    case "pruned":
      return [strong("Pruning is enough."), ` Old tool results are cleared: ${sent}`];
    default:
      return [
        strong("Over budget even after pruning."),
        ` It needs a summary (Compaction, below). Without one the emergency cut keeps the newest turns: ${sent}`,
      ];
  }
}

function setRow(id, messages, tokens) {
  const [m, t] = $(id).querySelectorAll("td");
  m.textContent = formatNumber(messages);
  t.textContent = formatNumber(tokens);
}

function redrawChart() {
  if (state.shown && state.chart) drawChart($("chart"), state.shown.turns, state.chart.sent, state.chart.budget);
}

/** The slider reaches a little past the larger of the default budget and the history. */
function fitSlider(tokens) {
  const range = $("budget-range");
  const max = Math.ceil((Math.max(DEFAULT_MAX_TOKENS * 1.5, tokens * 1.2) + 1) / 5000) * 5000;
  range.max = String(max);
  range.value = String(Math.min(state.budget, max));
}

let pending = 0;

/** Takes a new budget; the page follows once a frame, however fast the slider moves. */
function setBudget(value, from) {
  state.budget = value;
  if (from !== "range") $("budget-range").value = String(Math.min(value, Number($("budget-range").max)));
  if (from !== "number") $("budget-number").value = String(value);
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(update);
}

$("budget-range").addEventListener("input", (e) => setBudget(Number(e.target.value), "range"));
$("budget-number").addEventListener("input", (e) => {
  const value = Number(e.target.value);
  const ok = e.target.value !== "" && Number.isFinite(value) && value > 0;
  e.target.setAttribute("aria-invalid", String(!ok));
  $("budget-hint").classList.toggle("invalid", !ok);
  if (ok) setBudget(value, "number");
});

/** Reads text as a history and shows it, or says in the page what is wrong with it. */
async function load(text, source) {
  const problem = $("input-error");
  try {
    const parsed = parseHistory(text);
    let described;
    try {
      described = describeMessages(parsed.messages); // checks every message before anything is drawn
    } catch (error) {
      throw new InputProblem(validationWords(error, parsed));
    }
    await show(parsed.messages, described, source);
    problem.hidden = true;
    problem.textContent = "";
    return true;
  } catch (error) {
    problem.textContent = error instanceof InputProblem ? error.message : `Could not read this history: ${error.message}`;
    problem.hidden = false;
    return false;
  }
}

/** The package's error, with the line the message starts on added. */
function validationWords(error, { lineOf, shape }) {
  const index = /messages\[(\d+)\]/.exec(error.message)?.[1];
  const line = index !== undefined ? lineOf(Number(index)) : undefined;
  const where = line ? ` (the message on line ${line} of the ${shape})` : "";
  return `Not a history the package can read: ${error.message}${where}.`;
}

/** Shows the history in the paste box; a long one leaves the box once shown. */
async function loadBox(source) {
  const text = $("paste").value;
  if ((await load(text, source)) && text.length > KEEP_IN_BOX) $("paste").value = "";
}

$("use-paste").addEventListener("click", () => loadBox("Pasted history"));
$("file").addEventListener("change", async (e) => {
  const file = e.target.files?.[0];
  if (file) await loadFile(file);
  e.target.value = "";
});
$("use-sample").addEventListener("click", loadSample);

const drop = $("drop");
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("dragging");
});
drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
drop.addEventListener("drop", async (e) => {
  e.preventDefault();
  drop.classList.remove("dragging");
  const file = e.dataTransfer?.files?.[0];
  if (file) await loadFile(file);
  else if (e.dataTransfer?.getData("text")) {
    $("paste").value = e.dataTransfer.getData("text");
    await loadBox("Dropped text");
  }
});

async function loadFile(file) {
  const text = await file.text();
  $("paste").value = text.length > KEEP_IN_BOX ? "" : text;
  await load(text, file.name);
}

async function loadSample() {
  try {
    const response = await fetch(SAMPLE_URL);
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    await load(await response.text(), "Sample session");
  } catch (error) {
    $("source").textContent = `The sample session could not be loaded (${error.message}). Paste a history instead.`;
  }
}

new ResizeObserver(redrawChart).observe($("chart"));
$("version").textContent = VERSION;
$("default-budget").textContent = formatNumber(DEFAULT_MAX_TOKENS);
setBudget(DEFAULT_MAX_TOKENS, "init");
setUpCompaction({
  current: () => state.shown,
  apply: (messages) => show(messages, describeMessages(messages), `${state.shown.source} + summary`),
});
await loadSample();
document.body.dataset.ready = "true";
