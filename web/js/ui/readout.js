// Readouts: text blocks whose values sit in spans tagged data-field=<name>, so a screen reader
// hears "p = 37" and the end-to-end tests read each number; and the block of posenc calls.

/** A value span tagged data-field=<name>. @param {string} name @param {string} text */
export function valueSpan(name, text) {
  const v = document.createElement('span');
  v.dataset.field = name;
  v.textContent = text;
  return v;
}

/** "key = value", the value in a tagged span (the tag defaults to the key). @param {string} key @param {string} value @param {string} [tag] */
export function field(key, value, tag = key) {
  const span = document.createElement('span');
  span.className = 'field'; // kept on one line: lines wrap between fields
  const k = document.createElement('span');
  k.className = 'k';
  k.textContent = `${key} = `;
  span.append(k, valueSpan(tag, value));
  return span;
}

/** One line of a readout: its parts (strings and elements) in a block that wraps as a unit. @param {...(string | Node)} parts */
export function line(...parts) {
  const span = document.createElement('span');
  span.className = 'line';
  span.append(...parts);
  return span;
}

/**
 * Replaces a readout's content. Each argument is a line: an array of parts, or one string/element.
 * @param {Element} element @param {...(Array<string | Node> | string | Node)} lines
 */
export function setReadout(element, ...lines) {
  element.replaceChildren(...lines.map((l) => (Array.isArray(l) ? line(...l) : line(l))));
}

/** Writes the block of calls a section makes: lines of code, with // comments dimmed. @param {Element} element @param {string[]} lines */
export function showCall(element, lines) {
  element.replaceChildren(...lines.flatMap((text, i) => {
    const at = text.indexOf('//');
    /** @type {Array<string | Node>} */
    const parts = at < 0 ? [text] : [text.slice(0, at), Object.assign(document.createElement('span'), { className: 'c', textContent: text.slice(at) })];
    return i < lines.length - 1 ? [...parts, '\n'] : parts;
  }));
}
