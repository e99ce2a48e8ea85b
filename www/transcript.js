// The conversation as a chat transcript, drawn from describeMessages: built
// once per history; a budget change only updates each row's status.
import { h, formatNumber } from "./dom.js";

const ROLE_LABELS = { system: "System", user: "User", assistant: "Assistant", tool: "Tool" };
const STATUS_LABELS = {
  kept: "kept",
  cleared: "cleared by pruning",
  dropped: "dropped by the cut",
  summarised: "before the summary",
};
/** Text longer than this starts folded, so one long message does not bury the rest. */
const FOLD_CHARS = 900;

/**
 * Fills `list` with one row per message. `infos` describes the stored
 * history; `prunedInfos[positions[i]]` the same message after pruning
 * (`positions[i]` is -1 for a message that is not sent).
 */
export function renderTranscript(list, { infos, prunedInfos, positions }) {
  const toolNames = new Map();
  for (const info of infos) {
    for (const block of info.blocks) if (block.type === "tool-call") toolNames.set(block.id, block.name);
  }
  const rows = infos.map((info, i) => messageRow(info, i, prunedInfos[positions[i]], toolNames));
  list.replaceChildren(...rows);
  return rows;
}

/** Marks each row kept / cleared / dropped / summarised. */
export function updateStatuses(rows, status) {
  rows.forEach((row, i) => {
    if (row.dataset.status === status[i]) return;
    row.dataset.status = status[i];
    row.querySelector(".badge").textContent = STATUS_LABELS[status[i]];
  });
}

function messageRow(info, index, pruned, toolNames) {
  const label = info.isMarker
    ? "Compaction summary"
    : (ROLE_LABELS[info.kind] ?? info.role.charAt(0).toUpperCase() + info.role.slice(1));
  const clearedTokens = pruned && pruned.tokens !== info.tokens ? pruned.tokens : undefined;
  const tokens = h("span", { class: "tokens" }, `${formatNumber(info.tokens)} tokens`);
  if (clearedTokens !== undefined) {
    tokens.append(h("span", { class: "after-clearing" }, ` → ${formatNumber(clearedTokens)}`));
  }
  return h(
    "li",
    {
      class: "msg",
      id: `message-${index}`,
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
