// Which turns of the chart's axis get a label: every `step` turns, the step
// the smallest of 1, 2, 5, 10, 20, 50, ... that leaves room for the widest
// label, so labels never run together however many turns there are.

/** Pixels per character of an axis label (11 px digits are about 6.2 px wide), and between labels. */
const CHAR_WIDTH = 7;
const SPACE = 8;

/** The labelled turns' label width and step, for labels `labels` spread `band` pixels apart. */
function labelStep(labels, band) {
  const widest = labels.reduce((most, label) => Math.max(most, label.length), 1) * CHAR_WIDTH;
  for (let power = 1; ; power *= 10) {
    for (const m of [1, 2, 5]) {
      if (m * power * band >= widest + SPACE) return { step: m * power, width: widest };
    }
  }
}

/**
 * The indices of `numbers` (each turn's number, 0 for the messages before
 * the first user turn) to label: multiples of the step, and none whose
 * label would cross `right` (x(i) gives an index's centre).
 */
export function labelledTurns(numbers, labels, band, x, right) {
  const { step, width } = labelStep(labels, band);
  const picked = [];
  numbers.forEach((n, i) => {
    if (n % step === 0 && x(i) + width / 2 <= right) picked.push(i);
  });
  return picked;
}
