// Small DOM helpers shared by the page's modules.

/** An element with attributes and children (strings become text nodes). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== false) element.setAttribute(key, value === true ? "" : value);
  }
  element.append(...children.filter((child) => child !== undefined && child !== null));
  return element;
}

/** An SVG element with attributes. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  element.append(...children);
  return element;
}

const numbers = new Intl.NumberFormat("en");

/** 12345 → "12,345" */
export const formatNumber = (n) => numbers.format(n);
