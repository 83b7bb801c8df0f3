// Readouts: monospace text blocks whose values sit in spans tagged data-field=<name>, so a
// screen reader hears "p = 37" and the end-to-end tests can read each number.

/** A value span tagged data-field=<name>. */
export function valueSpan(name, text) {
  const v = document.createElement('span');
  v.dataset.field = name;
  v.textContent = text;
  return v;
}

/** "key = value", the value in a tagged span (tag defaults to the key). */
export function field(key, value, tag = key) {
  const span = document.createElement('span');
  const k = document.createElement('span');
  k.className = 'k';
  k.textContent = `${key} = `;
  span.append(k, valueSpan(tag, value));
  return span;
}

/** Replaces a readout's content with `parts` (strings and elements; '\n' breaks lines). */
export function setReadout(element, ...parts) {
  element.replaceChildren(...parts);
}

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';
/** i written in subscript digits: 12 -> '₁₂'. */
export function sub(i) {
  return String(i).replace(/\d/g, (d) => SUBSCRIPTS[Number(d)]);
}

/** Writes the "what this section calls" block: lines of code, with // comments dimmed. */
export function showCall(element, lines) {
  element.replaceChildren(...lines.flatMap((line, i) => {
    const at = line.indexOf('//');
    const parts = at < 0 ? [line] : [line.slice(0, at), Object.assign(document.createElement('span'), { className: 'c', textContent: line.slice(at) })];
    return i < lines.length - 1 ? [...parts, '\n'] : parts;
  }));
}
