// The RoPE scaling settings: the context length, a type (none, linear, NTK, dynamic, YaRN,
// Llama 3, LongRoPE) and the parameters that type takes, each type remembering its own values.
// `scaling(pairs)` builds the `scaling` option of a posenc RoPE spec; posenc checks it and says
// what is wrong. An empty field leaves its option out (posenc's default or fallback applies).
import { choice, number, text } from '../../ui/control-specs.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {'default' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3' | 'longrope'} ScalingType */
/** @typedef {Record<string, number | number[] | string>} ScalingValues */

/**
 * Sensible starting values per type (Llama 3.1's for llama3, Phi-3.5's lengths for LongRoPE); ''
 * is a field left empty (LongRoPE's factor: posenc derives it from the two lengths).
 * @type {Record<ScalingType, ScalingValues>}
 */
export const SCALING_DEFAULTS = {
  default: {},
  linear: { factor: 4 },
  ntk: { factor: 8 },
  dynamic: { factor: 2, maxPositionEmbeddings: 2048 },
  yarn: { factor: 4, originalMaxPositionEmbeddings: 4096, betaFast: 32, betaSlow: 1 },
  llama3: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
  longrope: { originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 131072, factor: '' },
};
const LISTS = ['shortFactor', 'longFactor'];

export const SCALING = {
  context: number({ label: 'context', unit: 'seqLen, tokens', value: 4096, step: 1 }),
  scalingType: choice({
    label: 'scaling type', value: 'default',
    options: [['default', 'none'], ['linear', 'linear interpolation'], ['ntk', 'NTK-aware'], ['dynamic', 'dynamic NTK'], ['yarn', 'YaRN'], ['llama3', 'Llama 3.1'], ['longrope', 'LongRoPE (Phi-3)']],
  }),
  factor: number({ label: 'factor', value: 4, step: 'any' }),
  maxPositionEmbeddings: number({ label: 'max length', title: 'maxPositionEmbeddings', value: 2048, step: 1 }),
  originalMaxPositionEmbeddings: number({ label: 'trained length', title: 'originalMaxPositionEmbeddings', value: 4096, step: 1 }),
  betaFast: number({ label: 'betaFast', value: 32, step: 'any' }),
  betaSlow: number({ label: 'betaSlow', value: 1, step: 'any' }),
  lowFreqFactor: number({ label: 'lowFreqFactor', value: 1, step: 'any' }),
  highFreqFactor: number({ label: 'highFreqFactor', value: 4, step: 'any' }),
  shortFactor: text({ label: 'shortFactor', unit: 'one per pair', value: '', mono: true, grow: true }),
  longFactor: text({ label: 'longFactor', unit: 'one per pair', value: '', mono: true, grow: true }),
};
/** @typedef {Exclude<keyof typeof SCALING, 'context' | 'scalingType'>} ParamKey */
const PARAMS = /** @type {ParamKey[]} */ (Object.keys(SCALING).filter((k) => k !== 'context' && k !== 'scalingType'));

/** Illustrative LongRoPE lists for `pairs` pairs: short ones near 1, long ones rising to `top`. @param {number} pairs */
export function sampleLists(pairs, top = 32) {
  const at = (/** @type {number} */ i) => (pairs > 1 ? i / (pairs - 1) : 0);
  const round = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;
  return {
    shortFactor: Array.from({ length: pairs }, (_, i) => round(1 + 0.4 * at(i) ** 3)),
    longFactor: Array.from({ length: pairs }, (_, i) => round(1 + (top - 1) * at(i) ** 2)),
  };
}

/** The scaling as code for the calls block: `{ type: 'yarn', factor: 4, ... }` (long lists shortened). @param {object | null | undefined} scaling */
export function scalingText(scaling) {
  if (!scaling) return 'none';
  const parts = Object.entries(scaling).map(([k, v]) => {
    if (k === 'type') return `type: '${v}'`;
    if (Array.isArray(v)) return `${k}: [${v.slice(0, 3).join(', ')}, … ${v.length} values]`;
    return `${k}: ${v}`;
  });
  return `{ ${parts.join(', ')} }`;
}

/** A list field's text as numbers (anything that is not a number stays NaN, which posenc rejects). @param {string} value */
const parseList = (value) => value.split(/[\s,;[\]]+/).filter(Boolean).map(Number);

/** @param {Section} section @param {() => void} onChange */
export function scalingControls(section, onChange) {
  const panel = section.panel('scaling', SCALING);
  const note = section.part('scaling-note');
  const memory = structuredClone(SCALING_DEFAULTS); // per type: the values last shown
  /** @type {Record<string, unknown>} */
  let extras = {}; // parameters from a config.json that have no field here (mscale, attentionFactor ...)
  let autoLists = true; // LongRoPE lists follow the number of pairs until someone edits them
  let listPairs = 0;
  /** @type {ScalingType} */
  let shownType = 'default';
  /** @param {ParamKey} key */
  const fieldText = (key) => /** @type {HTMLInputElement} */ (panel.element(key)).value;

  function remember() {
    for (const key of Object.keys(memory[shownType])) memory[shownType][key] = fieldText(/** @type {ParamKey} */ (key));
  }

  /** @param {ScalingType} type */
  function showFields(type) {
    for (const key of PARAMS) panel.show(key, key in SCALING_DEFAULTS[type] || (type === 'longrope' && LISTS.includes(key)));
  }

  /** Shows the fields of `type`, filled from its memory (after remembering the fields shown). @param {ScalingType} type */
  function show(type, rememberShown = true) {
    if (rememberShown) remember();
    panel.set('scalingType', type);
    shownType = type;
    showFields(type);
    for (const [key, value] of Object.entries(memory[type])) {
      /** @type {HTMLInputElement} */ (panel.element(/** @type {ParamKey} */ (key))).value = Array.isArray(value) ? value.join(', ') : String(value);
    }
    const more = Object.entries(extras).map(([k, v]) => `${k} ${v}`).join(', ');
    note.textContent = type === 'default' ? 'θᵢ = base^(−2i/d), unchanged.' : more ? `also from the config: ${more}` : '';
  }

  panel.onChange((key) => {
    if (key === 'scalingType') {
      extras = {};
      show(/** @type {ScalingType} */ (panel.get('scalingType')));
    } else if (LISTS.includes(key)) autoLists = false;
    onChange();
  });
  show('default');

  return {
    panel,
    /** The context length (the seqLen of pe.rope.frequencies). */
    context: () => panel.get('context'),

    /** The `scaling` option for a RoPE with `pairs` pairs (null for none). @param {number} pairs */
    scaling(pairs) {
      const type = shownType;
      if (type === 'default') return null;
      if (type === 'longrope' && autoLists && listPairs !== pairs) {
        const orig = Number(fieldText('originalMaxPositionEmbeddings'));
        const max = Number(fieldText('maxPositionEmbeddings'));
        const lists = sampleLists(pairs, orig > 0 && max > orig ? max / orig : 32);
        panel.set('shortFactor', lists.shortFactor.join(', '));
        panel.set('longFactor', lists.longFactor.join(', '));
        listPairs = pairs;
      }
      /** @type {Record<string, unknown>} */
      const s = { type };
      for (const key of /** @type {ParamKey[]} */ (Object.keys(SCALING_DEFAULTS[type]))) if (fieldText(key).trim() !== '') s[key] = Number(fieldText(key));
      if (type === 'longrope') for (const key of /** @type {ParamKey[]} */ (LISTS)) s[key] = parseList(fieldText(key));
      return /** @type {import('posenc').RopeScaling} */ (/** @type {unknown} */ ({ ...s, ...extras }));
    },

    /** Shows a spec's scaling (from pe.rope.fromConfig): its type, its values, and what has no field. @param {import('posenc').RopeScaling | null} scaling */
    set(scaling) {
      remember();
      extras = {};
      const type = /** @type {ScalingType} */ (scaling?.type ?? 'default');
      if (scaling) {
        for (const key of Object.keys(SCALING_DEFAULTS[type])) memory[type][key] = ''; // not in the config: not given
        for (const [key, value] of Object.entries(scaling)) {
          if (key === 'type') continue;
          if (key in SCALING && (key in SCALING_DEFAULTS[type] || LISTS.includes(key))) memory[type][key] = value;
          else extras[key] = value;
        }
        if (type === 'longrope') autoLists = false;
      }
      show(type, false); // the memory of `type` now holds the config's values: keep them
    },

    /** Sets the context length. @param {number} n */
    setContext(n) {
      panel.set('context', n);
    },
  };
}
