// Builds the form elements of one declared control (control-specs.js): a labelled number field
// and its slider, a select or radio group, a text field or box, a check box, a button, a file
// picker. Every field gets a visible label tied to it (for=, aria-labelledby or a legend), so
// screen readers and the tests find it by role and name.

/**
 * @typedef {import('./control-specs.js').ControlSpec} ControlSpec
 * @typedef {import('./control-specs.js').NumberSpec} NumberSpec
 */

/**
 * One built control.
 * @typedef {object} Built
 * @property {HTMLElement} wrapper  the element placed in the form (hidden with the control)
 * @property {HTMLElement} input  the main element (field, select, first radio, button)
 * @property {() => unknown} read
 * @property {(value: unknown) => void} write
 * @property {(listener: () => void) => void} listen  calls back on every user change
 * @property {HTMLInputElement} [fileInput]  a file control's (hidden) input
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, string>} [attrs] @param {...(Node | string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** A label's content: the text and its unit note. @param {string} label @param {string} [unit] */
function labelContent(label, unit) {
  return unit ? [label, ' ', el('span', { class: 'unit' }, `(${unit})`)] : [label];
}

/**
 * Arrow keys step by `step`, Shift + arrows by `fineStep`, Page Up/Down by ten steps: the same on
 * the field and on the slider (a slider's own keys would step by its fine step).
 * @param {HTMLInputElement} input @param {NumberSpec} spec @param {(v: number) => void} set
 */
function stepKeys(input, spec, set) {
  const fine = /** @type {number} */ (spec.fineStep);
  const coarse = typeof spec.step === 'number' ? spec.step : 1;
  input.addEventListener('keydown', (event) => {
    const direction = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[event.key];
    if (direction === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    if (input.type === 'number' && (event.key === 'ArrowLeft' || event.key === 'ArrowRight')) return; // the caret's keys
    event.preventDefault();
    const step = Math.abs(direction) === 10 ? 10 * coarse : event.shiftKey ? fine : coarse;
    const current = Number.isFinite(input.valueAsNumber) ? input.valueAsNumber : spec.value;
    let next = current + Math.sign(direction) * step;
    const decimals = Math.max(0, -Math.floor(Math.log10(fine)));
    next = Number(next.toFixed(decimals));
    if (spec.min !== undefined) next = Math.max(spec.min, next);
    if (spec.max !== undefined) next = Math.min(spec.max, next);
    set(next);
  });
}

/** @param {NumberSpec} spec @param {string} id @returns {Built} */
function numberControl(spec, id) {
  const labelId = `${id}-label`;
  const field = el('input', { type: 'number', id, inputmode: 'decimal', step: String(spec.step), value: String(spec.value) });
  if (spec.min !== undefined) field.min = String(spec.min);
  if (spec.max !== undefined) field.max = String(spec.max);
  if (spec.title) field.title = spec.title;
  const label = el('label', { for: id, id: labelId }, ...labelContent(spec.label, spec.unit));
  const row = el('div', { class: 'control-row' });
  /** @type {HTMLInputElement | null} */
  let slider = null;
  if (spec.slider) {
    slider = el('input', {
      type: 'range', id: `${id}-slider`, 'aria-labelledby': labelId, min: String(spec.slider[0]), max: String(spec.slider[1]),
      step: String(spec.fineStep ?? spec.step), value: String(spec.value),
    });
    row.append(slider);
  }
  row.append(field);
  const wrapper = el('div', { class: 'control' }, label, row);
  const format = spec.format;
  /** @param {number} v */
  const write = (v) => {
    field.value = String(v);
    if (slider) {
      slider.value = String(v);
      if (format) slider.setAttribute('aria-valuetext', format(v));
    }
  };
  write(spec.value);
  /** @type {Array<() => void>} */
  const listeners = [];
  const notify = () => { for (const l of listeners) l(); };
  field.addEventListener('input', () => {
    if (slider && Number.isFinite(field.valueAsNumber)) {
      slider.value = String(field.valueAsNumber);
      if (format) slider.setAttribute('aria-valuetext', format(field.valueAsNumber));
    }
    notify();
  });
  slider?.addEventListener('input', () => {
    const v = /** @type {HTMLInputElement} */ (slider).valueAsNumber;
    write(v);
    notify();
  });
  if (spec.fineStep !== undefined) {
    for (const input of slider ? [field, slider] : [field]) {
      stepKeys(input, spec, (v) => {
        write(v);
        notify();
      });
    }
  }
  return {
    wrapper, input: field, read: () => field.valueAsNumber, write: (v) => write(Number(v)),
    listen: (l) => listeners.push(l),
  };
}

/** @param {import('./control-specs.js').ChoiceSpec<string>} spec @param {string} id @returns {Built} */
function choiceControl(spec, id) {
  if (spec.as === 'radio') {
    const radios = spec.options.map(([value]) => el('input', { type: 'radio', name: id, value }));
    const legend = el('legend', {}, spec.label);
    const row = el('div', { class: `radio-row${spec.options.length > 3 ? ' many' : ''}` },
      ...spec.options.map(([, text], k) => el('label', {}, /** @type {HTMLInputElement} */ (radios[k]), ` ${text}`)));
    const wrapper = el('fieldset', { class: 'control', id }, legend, row);
    /** @param {unknown} v */
    const write = (v) => { for (const r of radios) r.checked = r.value === v; };
    write(spec.value);
    return {
      wrapper, input: /** @type {HTMLInputElement} */ (radios[0]), write,
      read: () => radios.find((r) => r.checked)?.value ?? spec.value,
      listen: (l) => { for (const r of radios) r.addEventListener('change', l); },
    };
  }
  const select = el('select', { id }, ...spec.options.map(([value, text]) => new Option(text, value)));
  select.value = spec.value;
  const wrapper = el('div', { class: 'control' }, el('label', { for: id }, spec.label), select);
  return {
    wrapper, input: select, read: () => select.value, write: (v) => { select.value = String(v); },
    listen: (l) => select.addEventListener('change', l),
  };
}

/** @param {import('./control-specs.js').TextSpec} spec @param {string} id @returns {Built} */
function textControl(spec, id) {
  const field = el('input', { type: 'text', id, value: spec.value, spellcheck: 'false', autocomplete: 'off' });
  if (spec.size) field.size = spec.size;
  if (spec.mono) field.classList.add('mono');
  const wrapper = el('div', { class: `control${spec.grow ? ' grow' : ''}` }, el('label', { for: id }, ...labelContent(spec.label, spec.unit)), field);
  return {
    wrapper, input: field, read: () => field.value, write: (v) => { field.value = String(v); },
    listen: (l) => field.addEventListener('input', l),
  };
}

/** @param {import('./control-specs.js').TextareaSpec} spec @param {string} id @returns {Built} */
function textareaControl(spec, id) {
  const box = el('textarea', { id, rows: String(spec.rows), spellcheck: 'false', autocomplete: 'off' });
  if (spec.placeholder) box.placeholder = spec.placeholder;
  box.value = spec.value;
  const wrapper = el('div', { class: 'control wide' }, el('label', { for: id, class: 'sr-only' }, spec.label), box);
  return {
    wrapper, input: box, read: () => box.value, write: (v) => { box.value = String(v); },
    listen: (l) => box.addEventListener('input', l),
  };
}

/** @param {import('./control-specs.js').CheckSpec} spec @param {string} id @returns {Built} */
function checkControl(spec, id) {
  const box = el('input', { type: 'checkbox', id });
  box.checked = spec.value;
  const wrapper = el('div', { class: 'control' });
  if (spec.caption) wrapper.append(el('span', { class: 'control-label', 'aria-hidden': 'true' }, spec.caption));
  wrapper.append(el('label', { class: 'check' }, box, ` ${spec.label}`));
  return {
    wrapper, input: box, read: () => box.checked, write: (v) => { box.checked = Boolean(v); },
    listen: (l) => box.addEventListener('change', l),
  };
}

/** @param {import('./control-specs.js').ButtonSpec} spec @param {string} id @returns {Built} */
function buttonControl(spec, id) {
  const b = el('button', { type: 'button', id }, spec.label);
  if (spec.primary) b.classList.add('primary');
  if (spec.toggle) b.setAttribute('aria-pressed', 'false');
  return {
    wrapper: b, input: b,
    read: () => b.getAttribute('aria-pressed') === 'true',
    write: (v) => { if (spec.toggle) b.setAttribute('aria-pressed', String(Boolean(v))); },
    listen: (l) => b.addEventListener('click', () => {
      if (spec.toggle) b.setAttribute('aria-pressed', String(b.getAttribute('aria-pressed') !== 'true'));
      l();
    }),
  };
}

/** @param {import('./control-specs.js').FileSpec} spec @param {string} id @returns {Built} */
function fileControl(spec, id) {
  const input = el('input', { type: 'file', id, accept: spec.accept, hidden: '', tabindex: '-1' });
  const b = el('button', { type: 'button', class: 'primary' }, spec.label);
  b.addEventListener('click', () => input.click());
  const wrapper = el('span', { class: 'file-control' }, b, input);
  return {
    wrapper, input: b, read: () => undefined, write: () => {}, fileInput: input,
    listen: (l) => input.addEventListener('change', l),
  };
}

/** Builds one declared control with the element id `id`. @param {ControlSpec} spec @param {string} id @returns {Built} */
export function build(spec, id) {
  switch (spec.kind) {
    case 'number': return numberControl(spec, id);
    case 'choice': return choiceControl(spec, id);
    case 'text': return textControl(spec, id);
    case 'textarea': return textareaControl(spec, id);
    case 'check': return checkControl(spec, id);
    case 'button': return buttonControl(spec, id);
    case 'file': return fileControl(spec, id);
    default: throw new Error(`unknown control kind ${/** @type {{kind: string}} */ (spec).kind}`);
  }
}
