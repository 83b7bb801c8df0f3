// A RoPE part that redraws from the section's state and makes no call of its own when the state
// changes: it keeps the new state, redraws (its own calls are listed by its update), and is done.

/** @typedef {import('./state.js').RopeState} RopeState */
/** @typedef {ReturnType<import('../../ui/section.js').Section['figure']>} Figure */

/**
 * @param {Figure} figure  the part's figure
 * @param {(state: RopeState) => void} redraw  keeps the state and draws it
 */
export function redrawnPart(figure, redraw) {
  return {
    figures: [figure],
    /** @param {RopeState} state @returns {string[]} */
    update(state) {
      redraw(state);
      return [];
    },
  };
}
