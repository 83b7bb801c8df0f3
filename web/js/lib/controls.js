// Binding the page's form controls (written in index.html) to section code: a number field with an
// optional slider twin (id + '-range'), selects and radio groups, each reporting changes once per frame.

/** Calls `fn` at most once per animation frame, with the latest arguments. */
export function perFrame(fn) {
  let pending = null;
  return (...args) => {
    const first = pending === null;
    pending = args;
    if (first) {
      requestAnimationFrame(() => {
        const latest = pending;
        pending = null;
        fn(...latest);
      });
    }
  };
}

/**
 * A number control: the field `#id` and, if present, the slider `#id-range` kept in step.
 * `get()` returns the field's number (NaN when empty or not a number).
 */
export function numberControl(id, onChange) {
  const field = document.getElementById(id);
  const slider = document.getElementById(`${id}-range`);
  if (!field) throw new Error(`no control #${id}`);
  field.addEventListener('input', () => {
    if (slider && Number.isFinite(field.valueAsNumber)) slider.value = String(field.valueAsNumber);
    onChange();
  });
  slider?.addEventListener('input', () => {
    field.value = slider.value;
    onChange();
  });
  return {
    field,
    get: () => field.valueAsNumber,
    set(value, notify = false) {
      field.value = String(value);
      if (slider) slider.value = String(value);
      if (notify) onChange();
    },
    /** Updates the allowed range (e.g. a pair index up to dim/2 - 1). */
    setMax(max) {
      field.max = String(max);
      if (slider) slider.max = String(max);
      if (field.valueAsNumber > max) this.set(max);
    },
  };
}

/** A <select> or a group of radio buttons named `name` (inside `root`). */
export function choiceControl(idOrName, onChange, root = document) {
  const select = document.getElementById(idOrName);
  if (select) {
    select.addEventListener('change', onChange);
    return { get: () => select.value, set: (v) => { select.value = v; }, element: select };
  }
  const radios = [...root.querySelectorAll(`input[type=radio][name="${idOrName}"]`)];
  if (radios.length === 0) throw new Error(`no control ${idOrName}`);
  for (const r of radios) r.addEventListener('change', onChange);
  return {
    get: () => radios.find((r) => r.checked)?.value,
    set: (v) => { for (const r of radios) r.checked = r.value === v; },
  };
}

/** Shows an error (or clears it with null) in a section's status line. */
export function showStatus(element, message) {
  element.textContent = message ?? '';
  element.hidden = !message;
}
