// The chart's numbers as a table, made only while its <details> is open:
// built once per history, and on a budget change only the Sent column is
// written again.
import { h, formatNumber } from "./dom.js";
import { KINDS } from "./chart.js";

export class ChartTable {
  #details;
  #table;
  #groups;
  #sent;
  #cells = [];

  /** Follows `details` (the disclosure) and fills `table` when it opens. */
  constructor(details, table) {
    this.#details = details;
    this.#table = table;
    details.addEventListener("toggle", () => this.#fill());
  }

  /** A new history's turns: the rows are made again when next shown. */
  setTurns(groups) {
    this.#groups = groups;
    this.#cells = [];
    this.#table.replaceChildren();
  }

  /** What is sent after each turn, at the budget now. */
  setSent(sent) {
    this.#sent = sent;
    this.#fill();
  }

  #fill() {
    if (!this.#details.open || !this.#groups || !this.#sent) return;
    if (this.#cells.length === 0) this.#build();
    this.#cells.forEach((cell, i) => {
      const words = formatNumber(this.#sent[i]);
      if (cell.textContent !== words) cell.textContent = words;
    });
  }

  #build() {
    const head = h("tr", {}, ...["Turn", ...KINDS, "Running total", "Sent"].map((t) => h("th", { scope: "col" }, t)));
    const rows = this.#groups.turns.map((turn) => {
      const sent = h("td", {});
      this.#cells.push(sent);
      return h(
        "tr",
        {},
        h("th", { scope: "row" }, turn.label),
        ...KINDS.map((k) => h("td", {}, formatNumber(turn.byKind[k]))),
        h("td", {}, formatNumber(turn.total)),
        sent,
      );
    });
    this.#table.replaceChildren(h("thead", {}, head), h("tbody", {}, ...rows));
  }
}
