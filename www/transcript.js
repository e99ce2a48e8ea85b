// The conversation as a chat transcript, drawn from describeMessages. Only
// the rows near the screen are in the page (virtual-list.js); a budget
// change sets the marks of the drawn rows, and a row drawn later is made
// with the marks of the budget then.
import { h, formatNumber } from "./dom.js";
import { VirtualList } from "./virtual-list.js";

const ROLE_LABELS = { system: "System", user: "User", assistant: "Assistant", tool: "Tool" };
const STATUS_LABELS = {
  kept: "kept",
  cleared: "cleared by pruning",
  dropped: "dropped by the cut",
  summarised: "before the summary",
};
/** Text longer than this starts folded, so one long message does not bury the rest. */
const FOLD_CHARS = 900;

/** The transcript of one history: its rows, drawn as they come on screen, and their marks. */
export class Transcript {
  #infos;
  #toolNames = new Map();
  #marks = { status: [], sentTokens: [] };
  /** The folded blocks the reader opened, as "message:block", so a row drawn again shows them open. */
  #opened = new Set();
  #list;

  /** Shows `infos` (describeMessages' messages) in `list`, replacing what it showed. */
  constructor(list, infos) {
    this.#infos = infos;
    for (const info of infos) {
      for (const block of info.blocks) if (block.type === "tool-call") this.#toolNames.set(block.id, block.name);
    }
    this.#list = new VirtualList(list, {
      count: infos.length,
      estimate: (i) => estimateHeight(infos[i]),
      render: (i) => this.#row(i),
    });
  }

  /**
   * Marks each message kept / cleared / dropped / summarised, with what a
   * cleared one costs as sent: only the drawn rows are touched.
   */
  mark(status, sentTokens) {
    this.#marks = { status, sentTokens };
    for (const [i, row] of this.#list.drawn()) setMark(row, status[i], sentTokens[i]);
  }

  /** Brings message i onto the screen. */
  scrollTo(i) {
    this.#list.scrollTo(i);
  }

  /** Stops following the page's scroll (a new history replaces this one). */
  destroy() {
    this.#list.destroy();
  }

  #remember = (event) => {
    const row = event.target.closest(".msg");
    if (!row) return;
    const index = Number(row.getAttribute("aria-posinset")) - 1;
    const key = `${index}:${[...row.querySelectorAll("details")].indexOf(event.target)}`;
    if (event.target.open) this.#opened.add(key);
    else this.#opened.delete(key);
  };

  #row(i) {
    const row = messageRow(this.#infos[i], i, this.#infos.length, this.#toolNames);
    setMark(row, this.#marks.status[i] ?? "kept", this.#marks.sentTokens[i]);
    row.querySelectorAll("details").forEach((block, b) => {
      if (this.#opened.has(`${i}:${b}`)) block.open = true;
      // On the block itself: `toggle` comes a task later, when a row scrolled
      // away may be out of the list already.
      block.addEventListener("toggle", this.#remember);
    });
    return row;
  }
}

function setMark(row, status, sentTokens) {
  if (status === "cleared") row.querySelector(".after-clearing").textContent = ` → ${formatNumber(sentTokens)}`;
  if (row.dataset.status === status) return;
  row.dataset.status = status;
  row.querySelector(".badge").textContent = STATUS_LABELS[status];
}

/**
 * A row's height before it is drawn, in pixels: the head, a line of text
 * per 90 characters up to the fold, a line per folded block. Only the
 * scrollbar's length depends on it; a drawn row is measured.
 */
function estimateHeight(info) {
  let lines = 0;
  for (const block of info.blocks) {
    lines += block.type === "text" ? Math.ceil(Math.min(block.text.length, FOLD_CHARS) / 90) + (block.text.length > FOLD_CHARS ? 1 : 0) : 1.6;
  }
  return 52 + 21 * lines;
}

function messageRow(info, index, count, toolNames) {
  const label = info.isMarker
    ? "Compaction summary"
    : (ROLE_LABELS[info.kind] ?? info.role.charAt(0).toUpperCase() + info.role.slice(1));
  const tokens = h("span", { class: "tokens" }, `${formatNumber(info.tokens)} tokens`, h("span", { class: "after-clearing" }));
  return h(
    "li",
    {
      class: "msg",
      id: `message-${index}`,
      // The list holds only the rows on screen: say where this one is in the whole.
      "aria-posinset": index + 1,
      "aria-setsize": count,
      "data-kind": info.isMarker ? "marker" : info.kind,
      "data-status": "kept",
    },
    h(
      "div",
      { class: "msg-head" },
      h("span", { class: "role" }, label),
      h("span", { class: "index" }, `#${index}`),
      tokens,
      h("span", { class: "badge" }, STATUS_LABELS.kept),
    ),
    h("div", { class: "msg-body" }, ...info.blocks.map((block) => blockView(block, toolNames))),
  );
}

function blockView(block, toolNames) {
  switch (block.type) {
    case "text":
      return textView(block.text);
    case "reasoning":
      return folded("reasoning", h("span", {}, "Reasoning"), preview(block.text), h("div", { class: "text" }, block.text));
    case "tool-call":
      return folded(
        "tool-call",
        h("span", {}, "Calls ", h("code", {}, block.name || "a tool")),
        preview(block.arguments),
        h("pre", {}, prettyJson(block.arguments)),
      );
    case "tool-result": {
      const name = toolNames.get(block.id);
      const title = h("span", {}, block.isError ? "Error from " : "Result of ", h("code", {}, name ?? block.id));
      const note = h("span", { class: "cleared-note" }, "cleared for the model");
      return folded("tool-result", h("span", {}, title, " ", note), preview(block.output), h("pre", {}, block.output));
    }
    case "attachment":
      return h("span", { class: "attachment" }, `[${block.kind}]`);
    default:
      return h("span", { class: "attachment" }, `[${block.type}]`);
  }
}

function textView(text) {
  if (text.length <= FOLD_CHARS) return h("div", { class: "text" }, text);
  return h(
    "details",
    { class: "block long-text" },
    h("summary", {}, h("span", { class: "text" }, `${text.slice(0, FOLD_CHARS).trimEnd()}…`), h("span", { class: "more" }, "Show all")),
    h("div", { class: "text" }, text),
  );
}

function folded(kind, title, previewText, body) {
  return h(
    "details",
    { class: `block ${kind}` },
    h("summary", {}, title, h("span", { class: "preview" }, previewText)),
    body,
  );
}

function preview(text) {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}

function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
