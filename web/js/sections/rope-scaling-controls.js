// The RoPE scaling control: a type (none, linear, NTK, dynamic, YaRN, Llama 3, LongRoPE) and the
// parameter fields that type takes, each type remembering its own values. `scaling(pairs)` builds
// the `scaling` option of a posenc RoPE spec; posenc checks it and says what is wrong.

/** Sensible starting values per type (Llama 3.1's for llama3, Phi-3.5's lengths for LongRoPE). */
export const SCALING_DEFAULTS = {
  default: {},
  linear: { factor: 4 },
  ntk: { factor: 8 },
  dynamic: { factor: 2, maxPositionEmbeddings: 2048 },
  yarn: { factor: 4, originalMaxPositionEmbeddings: 4096, betaFast: 32, betaSlow: 1 },
  llama3: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
  longrope: { originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 131072 },
};

/** The field of each scaling parameter. */
const FIELDS = {
  factor: 'rope-factor', maxPositionEmbeddings: 'rope-maxpos', originalMaxPositionEmbeddings: 'rope-orig',
  betaFast: 'rope-beta-fast', betaSlow: 'rope-beta-slow', lowFreqFactor: 'rope-low-freq', highFreqFactor: 'rope-high-freq',
  shortFactor: 'rope-short', longFactor: 'rope-long',
};
const LISTS = ['shortFactor', 'longFactor'];

/** Illustrative LongRoPE lists for `pairs` pairs: short ones near 1, long ones rising to `top`. */
export function sampleLists(pairs, top = 32) {
  const at = (i) => (pairs > 1 ? i / (pairs - 1) : 0);
  const round = (v) => Math.round(v * 1000) / 1000;
  return {
    shortFactor: Array.from({ length: pairs }, (_, i) => round(1 + 0.4 * at(i) ** 3)),
    longFactor: Array.from({ length: pairs }, (_, i) => round(1 + (top - 1) * at(i) ** 2)),
  };
}

/** The scaling as code for the calls block: `{ type: 'yarn', factor: 4, ... }` (long lists shortened). */
export function scalingText(scaling) {
  if (!scaling) return 'none';
  const parts = Object.entries(scaling).map(([k, v]) => {
    if (k === 'type') return `type: '${v}'`;
    if (Array.isArray(v)) return `${k}: [${v.slice(0, 3).join(', ')}, … ${v.length} values]`;
    return `${k}: ${v}`;
  });
  return `{ ${parts.join(', ')} }`;
}

/** A list field's text as numbers (anything that is not a number stays NaN, which posenc rejects). */
function parseList(text) {
  return text.split(/[\s,;[\]]+/).filter(Boolean).map(Number);
}

export function scalingControls(root, onChange) {
  const $ = (id) => document.getElementById(id);
  const select = $('rope-scaling');
  const extrasNote = $('rope-scaling-extras');
  const memory = structuredClone(SCALING_DEFAULTS); // per type: the values last shown
  let extras = {}; // parameters from a config.json that have no field here (mscale, attentionFactor ...)
  let autoLists = true; // LongRoPE lists follow the number of pairs until someone edits them
  let listPairs = 0;

  for (const [key, id] of Object.entries(FIELDS)) {
    $(id).addEventListener('input', () => {
      if (LISTS.includes(key)) autoLists = false;
      onChange();
    });
  }
  select.addEventListener('change', () => {
    extras = {};
    show(select.value);
    onChange();
  });

  function remember() {
    const type = select.dataset.shown;
    if (!type) return;
    for (const key of Object.keys(memory[type] ?? {})) memory[type][key] = $(FIELDS[key]).value;
  }

  function showFields(type) {
    for (const el of root.querySelectorAll('[data-for]')) el.hidden = !el.dataset.for.split(' ').includes(type);
  }

  /**
   * Reserves the height of the type with the most fields at the current width, so that switching
   * types moves nothing below (measured: the fields wrap differently on each screen).
   */
  const row = root.querySelector('.scaling-row');
  let reservedWidth = -1;
  function reserve() {
    const width = row.clientWidth;
    if (width === reservedWidth) return;
    reservedWidth = width;
    row.style.minHeight = '';
    let tallest = 0;
    for (const type of Object.keys(SCALING_DEFAULTS)) {
      showFields(type);
      tallest = Math.max(tallest, row.getBoundingClientRect().height);
    }
    showFields(select.value);
    row.style.minHeight = `${Math.ceil(tallest)}px`;
  }
  new ResizeObserver(() => reserve()).observe(row);

  /** Shows the fields of `type`, filled from its memory. */
  function show(type) {
    remember();
    select.value = type;
    select.dataset.shown = type;
    showFields(type);
    for (const [key, value] of Object.entries(memory[type])) {
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      $(FIELDS[key]).value = text;
    }
    extrasNote.textContent = Object.keys(extras).length
      ? `also from the config: ${Object.entries(extras).map(([k, v]) => `${k} ${v}`).join(', ')}`
      : '';
  }

  return {
    type: () => select.value,

    /** The `scaling` option for a RoPE with `pairs` pairs (null for none). */
    scaling(pairs) {
      const type = select.value;
      if (type === 'default') return null;
      if (type === 'longrope' && autoLists && listPairs !== pairs) {
        const orig = Number($('rope-orig').value);
        const max = Number($('rope-maxpos').value);
        const lists = sampleLists(pairs, orig > 0 && max > orig ? max / orig : 32);
        $('rope-short').value = lists.shortFactor.join(', ');
        $('rope-long').value = lists.longFactor.join(', ');
        listPairs = pairs;
      }
      const s = { type };
      // an empty field leaves the option out (posenc then uses its default or fallback)
      for (const key of Object.keys(SCALING_DEFAULTS[type])) if ($(FIELDS[key]).value.trim() !== '') s[key] = $(FIELDS[key]).valueAsNumber;
      if (type === 'longrope') for (const key of LISTS) s[key] = parseList($(FIELDS[key]).value);
      return { ...s, ...extras };
    },

    /** Shows a spec's scaling (from pe.rope.fromConfig): its type, its values, and what has no field. */
    set(scaling) {
      extras = {};
      const type = scaling?.type ?? 'default';
      remember();
      select.dataset.shown = '';
      if (scaling) {
        for (const key of Object.keys(SCALING_DEFAULTS[type])) memory[type][key] = ''; // not in the config: not given
        for (const [key, value] of Object.entries(scaling)) {
          if (key === 'type') continue;
          if (key in FIELDS && (key in SCALING_DEFAULTS[type] || LISTS.includes(key))) memory[type][key] = value;
          else extras[key] = value;
        }
        if (type === 'longrope') autoLists = false;
      }
      show(type);
    },

    /** Shows the fields of the current type (after the page loads). */
    init() {
      show(select.value);
      reserve();
    },
  };
}
