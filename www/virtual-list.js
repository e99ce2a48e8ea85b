// A list that puts in the page only the rows near the screen, so a history
// of 10,000 messages shows as fast as one of 30. Each row's height is
// estimated until it is drawn, then measured (and measured again when it
// changes: a block opened, the width changed); the rows that are not drawn
// are stood for by the list's top and bottom padding. The page itself
// scrolls: the window is where the list meets the viewport.

/** Pixels drawn above and below the screen, so a short scroll shows rows already made. */
const MARGIN = 800;

export class VirtualList {
  #list;
  #render;
  #heights;
  #offsets;
  #dirty = true;
  #rows = new Map();
  #first = 0;
  #last = -1;
  #pending = 0;
  #gap = 0;
  #resize;

  /**
   * `list` is the element the rows go in; `count` rows, `estimate(i)` a
   * row's height in pixels before it is drawn, `render(i)` makes row i.
   */
  constructor(list, { count, estimate, render }) {
    this.#list = list;
    this.#render = render;
    this.#heights = Float64Array.from({ length: count }, (_, i) => estimate(i));
    this.#offsets = new Float64Array(count + 1);
    this.#resize = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) changed = this.#measure(Number(entry.target.dataset.index)) || changed;
      if (!changed) return;
      this.#pad();
      this.schedule();
    });
    this.#gap = parseFloat(getComputedStyle(list).rowGap) || 0;
    list.replaceChildren();
    addEventListener("scroll", this.#follow, { passive: true });
    addEventListener("resize", this.#follow);
    this.update();
  }

  #follow = () => this.schedule();

  /** Every drawn row, with its index. */
  drawn() {
    return this.#rows.entries();
  }

  /** Redraws the window on the next frame (after a scroll, a resize, a change of height). */
  schedule() {
    if (this.#pending) return;
    this.#pending = requestAnimationFrame(() => {
      this.#pending = 0;
      this.update();
    });
  }

  /** Brings row i onto the screen, drawing it first. */
  scrollTo(i, block = "nearest") {
    const top = this.#list.getBoundingClientRect().top + window.scrollY + this.#offset(i);
    if (top < window.scrollY || top + this.#heights[i] > window.scrollY + innerHeight) window.scrollTo({ top: top - 8 });
    this.update();
    this.#rows.get(i)?.scrollIntoView({ block });
  }

  /** Stops following the page: the rows stay as they are. */
  destroy() {
    cancelAnimationFrame(this.#pending);
    this.#resize.disconnect();
    removeEventListener("scroll", this.#follow);
    removeEventListener("resize", this.#follow);
  }

  /** Draws the rows that meet the screen and the margin, and measures them. */
  update() {
    // Measured rows can be shorter than estimated and leave the screen's end
    // bare: a second pass (rarely a third) draws what then shows.
    for (let pass = 0; pass < 4; pass++) {
      const [first, last] = this.#window();
      if (first === this.#first && last === this.#last) break;
      this.#draw(first, last);
      let changed = false;
      for (let i = first; i <= last; i++) changed = this.#measure(i) || changed;
      this.#pad();
      if (!changed) break;
    }
  }

  #window() {
    const count = this.#heights.length;
    if (count === 0) return [0, -1];
    const top = -this.#list.getBoundingClientRect().top;
    const from = Math.max(0, top - MARGIN);
    const to = top + innerHeight + MARGIN;
    return [this.#indexAt(from), Math.min(count - 1, this.#indexAt(to))];
  }

  /** The row at `y` pixels from the list's top: the last whose offset is at most y. */
  #indexAt(y) {
    this.#prefix();
    let low = 0;
    let high = this.#heights.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#offsets[mid] <= y) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  #offset(i) {
    this.#prefix();
    return this.#offsets[i];
  }

  #prefix() {
    if (!this.#dirty) return;
    for (let i = 0; i < this.#heights.length; i++) this.#offsets[i + 1] = this.#offsets[i] + this.#heights[i];
    this.#dirty = false;
  }

  /** Takes out the rows outside [first, last] and puts in the missing ones, in order. */
  #draw(first, last) {
    for (const [i, row] of this.#rows) {
      if (i >= first && i <= last) continue;
      this.#resize.unobserve(row);
      row.remove();
      this.#rows.delete(i);
    }
    const make = (from, to) => {
      const rows = [];
      for (let i = from; i <= to; i++) {
        const row = this.#render(i);
        row.dataset.index = String(i);
        this.#rows.set(i, row);
        this.#resize.observe(row);
        rows.push(row);
      }
      return rows;
    };
    const keptFirst = Math.max(first, this.#first);
    const keptLast = Math.min(last, this.#last);
    if (keptFirst > keptLast) {
      this.#list.replaceChildren(...make(first, last));
    } else {
      this.#list.prepend(...make(first, keptFirst - 1));
      this.#list.append(...make(keptLast + 1, last));
    }
    this.#first = first;
    this.#last = last;
  }

  /** Row i's height as drawn, with the gap after it; true when it changed. */
  #measure(i) {
    const row = this.#rows.get(i);
    if (!row || !row.isConnected) return false;
    const height = row.offsetHeight + this.#gap;
    if (height === this.#heights[i]) return false;
    this.#heights[i] = height;
    this.#dirty = true;
    return true;
  }

  /** The padding that stands for the rows above and below the drawn ones. */
  #pad() {
    const count = this.#heights.length;
    this.#list.style.paddingTop = `${this.#offset(this.#first)}px`;
    this.#list.style.paddingBottom = `${this.#offset(count) - this.#offset(this.#last + 1)}px`;
  }
}
