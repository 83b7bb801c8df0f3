// A panel of declared controls (control-specs.js): built into a host element of the page, it
// reports each change, checks the page's own limits (min/max of a number) and hands back typed
// values. Sections never look controls up by id; they hold the panel.
import { build } from './control-dom.js';
import { int, num } from './format.js';

/**
 * @typedef {import('./control-specs.js').Specs} Specs
 * @typedef {import('./control-dom.js').Built} Built
 */

/** 'maxPositions' -> 'max-positions'. @param {string} key */
const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A number as the page writes it in a message. @param {number} v */
const shown = (v) => (Number.isInteger(v) ? int(v) : num(v, 6));

/** @template {Specs} S */
export class Panel {
  /**
   * @param {HTMLElement} host  where the controls go (a form or a figure's tool row)
   * @param {S} specs
   * @param {string} idPrefix  element ids are `${idPrefix}-${key}` (unique in the page)
   */
  constructor(host, specs, idPrefix) {
    this.host = host;
    this.specs = specs;
    /** @type {Map<string, Built>} */
    this.built = new Map();
    for (const [key, spec] of Object.entries(specs)) {
      const id = `${idPrefix}-${kebab(key)}`;
      if (document.getElementById(id)) throw new Error(`a control with id ${id} exists already`);
      const b = build(spec, id);
      this.built.set(key, b);
      host.append(b.wrapper);
    }
    host.closest('form')?.addEventListener('submit', (e) => e.preventDefault());
  }

  /** @param {string} key */
  #control(key) {
    const b = this.built.get(key);
    if (!b) throw new Error(`no control ${key}`);
    return b;
  }

  /** Calls `listener(key)` whenever the reader changes a value (not for buttons and files). @param {(key: keyof S & string) => void} listener */
  onChange(listener) {
    for (const [key, b] of this.built) {
      const kind = this.specs[key]?.kind;
      if (kind !== 'button' && kind !== 'file') b.listen(() => listener(/** @type {keyof S & string} */ (key)));
    }
  }

  /** Calls `action` when the button `key` is pressed or a file is chosen. @param {keyof S & string} key @param {() => void} action */
  on(key, action) {
    this.#control(key).listen(action);
  }

  /**
   * @template {keyof S & string} K
   * @param {K} key
   * @returns {import('./control-specs.js').ValueOf<S[K]>}
   */
  get(key) {
    return /** @type {import('./control-specs.js').ValueOf<S[K]>} */ (this.#control(key).read());
  }

  /** Every value. @returns {import('./control-specs.js').Values<S>} */
  values() {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [key, b] of this.built) out[key] = b.read();
    return /** @type {import('./control-specs.js').Values<S>} */ (out);
  }

  /**
   * Sets a value without reporting a change (the section that sets it redraws itself).
   * @template {keyof S & string} K
   * @param {K} key @param {import('./control-specs.js').ValueOf<S[K]>} value
   */
  set(key, value) {
    this.#control(key).write(value);
  }

  /**
   * The file a file control holds (the one just chosen, in its `on` callback); the control is then
   * emptied, so that choosing the same file again is a change too.
   * @param {keyof S & string} key
   */
  takeFile(key) {
    const input = this.#control(key).fileInput;
    if (!input) throw new Error(`${key} is not a file control`);
    const file = input.files?.[0];
    input.value = '';
    return file;
  }

  /** The element a control is read from (its field, select, first radio or button). @param {keyof S & string} key */
  element(key) {
    return this.#control(key).input;
  }

  /**
   * Replaces a select's options (a choice whose values come from data, e.g. a file's tensors).
   * @param {keyof S & string} key @param {ReadonlyArray<readonly [string, string]>} options @param {string} value
   */
  setOptions(key, options, value) {
    const select = this.#control(key).input;
    if (!(select instanceof HTMLSelectElement)) throw new Error(`${key} is not a select`);
    select.replaceChildren(...options.map(([v, text]) => new Option(text, v)));
    select.value = value;
  }

  /** Enables or disables a control. @param {keyof S & string} key @param {boolean} enabled */
  enable(key, enabled) {
    this.#control(key).input.toggleAttribute('disabled', !enabled);
  }

  /** Shows or hides a control. @param {keyof S & string} key @param {boolean} visible */
  show(key, visible) {
    this.#control(key).wrapper.hidden = !visible;
  }

  /**
   * Moves a number control's upper limit, its slider's too (e.g. the last pair of a RoPE); a value
   * above it comes down.
   * @param {keyof S & string} key @param {number} max
   */
  setMax(key, max) {
    const spec = this.specs[key];
    if (spec?.kind !== 'number') throw new Error(`${key} is not a number control`);
    spec.max = max;
    const b = this.#control(key);
    /** @type {HTMLInputElement} */ (b.input).max = String(max);
    const slider = b.wrapper.querySelector('input[type=range]');
    if (slider instanceof HTMLInputElement) slider.max = String(max);
    const v = Number(b.read());
    if (v > max) b.write(max);
  }

  /** Widens a slider's range to reach `value` (the field may go past the slider). @param {keyof S & string} key @param {number} top */
  extendSlider(key, top) {
    const slider = this.#control(key).wrapper.querySelector('input[type=range]');
    if (slider instanceof HTMLInputElement && top > Number(slider.max)) slider.max = String(top);
  }

  /**
   * The first visible number outside the page's limits (or not a number), as a message naming
   * the control; marks the fields that are wrong (aria-invalid). Null when all are fine.
   */
  problem() {
    /** @type {string | null} */
    let first = null;
    for (const [key, b] of this.built) {
      const spec = this.specs[key];
      if (spec?.kind !== 'number') continue;
      const v = Number(b.read());
      let message = null;
      if (!b.wrapper.hidden) {
        const { min, max, label } = spec;
        if (Number.isNaN(v)) message = `${label}: type a number`;
        else if ((min !== undefined && v < min) || (max !== undefined && v > max)) {
          const range = min === undefined ? `at most ${shown(/** @type {number} */ (max))}`
            : max === undefined ? `at least ${shown(min)}` : `from ${shown(min)} to ${shown(max)}`;
          message = `${label} must be ${range} on this page, got ${shown(v)}`;
        }
      }
      b.input.setAttribute('aria-invalid', String(message !== null));
      first ??= message;
    }
    return first;
  }

  /** Marks a control as holding a value posenc refused (or clears the mark). @param {keyof S & string} key @param {boolean} invalid */
  invalid(key, invalid) {
    this.#control(key).input.setAttribute('aria-invalid', String(invalid));
  }
}
