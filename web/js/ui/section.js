// A lesson section as every section uses it: its declared controls (built into the page's
// [data-controls] hosts), its figures ([data-figure]), status lines for errors, the block of
// posenc calls it makes, and updates. An update runs once per frame at most and marks the section
// busy while it runs; when it fails, the message shows in its status line and the figures it
// draws are marked "not redrawn", so a picture of other settings never passes for the current one.
import { Panel } from './controls.js';
import { showCall } from './readout.js';
import { nextTask } from './schedule.js';

/** @typedef {import('posenc').PosEnc} PosEnc */
/** @typedef {import('./control-specs.js').Specs} Specs */
/** @typedef {import('../compute/client.js').ComputeClient} ComputeClient */
/** @typedef {import('./bus.js').Bus} Bus */

/** A limit of this page (not of posenc): its message is shown as is. */
export class PageError extends Error {}

/** A figure of the page: its plot areas and readouts, and whether it shows the current settings. */
export class Figure {
  /** @param {HTMLElement} element  a <figure data-figure=name> */
  constructor(element) {
    this.element = element;
  }

  /** @param {string} selector */
  #find(selector) {
    const found = this.element.querySelector(selector);
    if (!(found instanceof HTMLElement)) throw new Error(`figure ${this.element.dataset.figure} has no ${selector}`);
    return found;
  }

  /** A plot area: the first, or the one with data-plot=name. @param {string} [name] */
  plot(name) {
    return this.#find(name ? `.plot-area[data-plot="${name}"]` : '.plot-area');
  }

  /** A readout: the first, or the one with data-readout=name. @param {string} [name] */
  readout(name) {
    return this.#find(name ? `output[data-readout="${name}"]` : 'output');
  }

  /**
   * Marks the figure as not showing the current settings (or clears the mark). Its badge ("not
   * redrawn", after the caption) points to `message`, the element that says why: above or below
   * the caption, in the page's order.
   * @param {boolean} stale @param {Element} [message]
   */
  stale(stale, message) {
    if (!stale) {
      delete this.element.dataset.stale;
      delete this.element.dataset.staleMessage;
      return;
    }
    this.element.dataset.stale = 'true';
    const caption = this.element.querySelector('figcaption') ?? this.element;
    const below = message !== undefined && !caption.contains(message) &&
      (caption.compareDocumentPosition(message) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    this.element.dataset.staleMessage = below ? 'below' : 'above';
  }
}

/** The status line of a part of a section: a role=alert paragraph, hidden when there is nothing to say. */
export class StatusLine {
  /** @param {Element} after  the element the line follows */
  constructor(after) {
    this.element = document.createElement('p');
    this.element.className = 'status';
    this.element.setAttribute('role', 'alert');
    this.element.hidden = true;
    after.after(this.element);
  }

  /** @param {string | null} message */
  show(message) {
    this.element.textContent = message ?? '';
    this.element.hidden = !message;
  }
}

/**
 * The message for an error: posenc's and the page's own as they are; anything else is a bug,
 * logged to the console (the end-to-end tests fail on console errors).
 * @param {unknown} error @param {PosEnc} pe
 */
function messageOf(error, pe) {
  if (error instanceof pe.PosEncError || error instanceof PageError) return error.message;
  console.error(error);
  return `Something went wrong: ${error instanceof Error ? error.message : String(error)}`;
}

export class Section {
  /**
   * @param {HTMLElement} root  the <section>
   * @param {{ pe: PosEnc, bus: Bus, compute: ComputeClient }} services
   */
  constructor(root, { pe, bus, compute }) {
    this.root = root;
    this.pe = pe;
    this.bus = bus;
    this.compute = compute;
    this.busy = 0;
    /** @type {Map<string, string[]>} */
    this.callLines = new Map();
  }

  /** @param {string} selector */
  #find(selector) {
    const found = this.root.querySelector(selector);
    if (!(found instanceof HTMLElement)) throw new Error(`section ${this.root.id} has no ${selector}`);
    return found;
  }

  /**
   * Builds the controls `specs` into the element [data-controls=name] of this section.
   * @template {Specs} S
   * @param {string} name @param {S} specs
   * @returns {Panel<S>}
   */
  panel(name, specs) {
    return new Panel(this.#find(`[data-controls="${name}"]`), specs, this.root.id);
  }

  /** A status line after `what` (a panel, or an element). @param {Panel<any> | Element} what */
  status(what) {
    return new StatusLine(what instanceof Panel ? what.host : what);
  }

  /** The figure [data-figure=name]. @param {string} name */
  figure(name) {
    return new Figure(this.#find(`figure[data-figure="${name}"]`));
  }

  /** The element [data-part=name] (a block of the section that a module fills). @param {string} name */
  part(name) {
    return this.#find(`[data-part="${name}"]`);
  }

  /** Fixes the order in which parts' calls are listed (else: the order they first show them). @param {string[]} parts */
  callOrder(parts) {
    for (const part of parts) if (!this.callLines.has(part)) this.callLines.set(part, []);
  }

  /** Shows the calls one part of the section makes (all parts' lines, in order, in one block). @param {string} part @param {string[]} lines */
  calls(part, lines) {
    this.callLines.set(part, lines);
    showCall(this.#find('pre[data-calls]'), [...this.callLines.values()].flat());
  }

  /** Counts work in progress: the section carries data-busy while any runs (the tests wait for it). @param {number} delta */
  #busy(delta) {
    this.busy += delta;
    if (this.busy > 0) this.root.dataset.busy = 'true';
    else delete this.root.dataset.busy;
  }

  /**
   * An update of some figures: the returned function schedules `work` for the next frame (several
   * calls in one frame run it once, each update in a task of its own, so that several updates do
   * not add up to one long task). `work(current)` may be async; `current()` turns false once a
   * newer run has started, and then it should stop; returning false means it drew nothing (the
   * status and the marks stay as they are). A throw shows its message in `status` and
   * marks `figures` as not redrawn (and disables `actions` on them, e.g. a download); a run that
   * completes clears all of that.
   * @param {{ status: StatusLine, figures: Figure[], actions?: Array<HTMLButtonElement | HTMLElement> }} target
   * @param {(current: () => boolean) => void | boolean | Promise<void | boolean>} work
   * @returns {() => void}
   */
  updater({ status, figures, actions = [] }, work) {
    /** @param {string | null} message */
    const settle = (message) => {
      status.show(message);
      for (const f of figures) f.stale(message !== null, status.element);
      for (const a of actions) a.toggleAttribute('disabled', message !== null);
    };
    let generation = 0;
    let scheduled = false;
    const run = async () => {
      const mine = ++generation;
      const current = () => mine === generation;
      await nextTask();
      if (!current()) return;
      try {
        const drew = await work(current);
        if (current() && drew !== false) settle(null);
      } catch (error) {
        if (current()) settle(messageOf(error, this.pe));
      }
    };
    return () => {
      if (scheduled) return;
      scheduled = true;
      this.#busy(1); // from the request on, so a test that waits for the section waits for this too
      requestAnimationFrame(() => {
        scheduled = false;
        run().finally(() => this.#busy(-1));
      });
    };
  }

  /** Runs `promise` with the section marked busy. @template T @param {Promise<T>} promise @returns {Promise<T>} */
  async whileBusy(promise) {
    this.#busy(1);
    try {
      return await promise;
    } finally {
      this.#busy(-1);
    }
  }
}
