// The vocabulary of declared controls: what a section writes to ask for a field, a slider, a
// choice, a text box, a check box, a button or a file picker. Each helper only tags the kind, so
// a section's list of controls reads as data and its values are typed (number, the choice's
// values, string, boolean).

/**
 * @typedef {object} NumberSpec  a number field, with a slider beside it if `slider` is given
 * @property {'number'} kind
 * @property {string} label  the visible label and accessible name
 * @property {string} [unit]  a note after the label, e.g. 'positions'
 * @property {number} value  the default
 * @property {number | 'any'} step  the arrow-key and stepper step
 * @property {number} [fineStep]  the step with Shift held (finer than `step`)
 * @property {number} [min]  the smallest value the page accepts (absent: posenc decides)
 * @property {number} [max]  the largest value the page accepts (absent: posenc decides)
 * @property {[number, number]} [slider]  a slider over this range beside the field
 * @property {(v: number) => string} [format]  how the value reads aloud (aria-valuetext)
 * @property {string} [title]  a tooltip (e.g. the option's name in the package)
 */

/**
 * @template {string} [V=string]
 * @typedef {object} ChoiceSpec  a select, or a group of radio buttons (`as: 'radio'`)
 * @property {'choice'} kind
 * @property {string} label
 * @property {ReadonlyArray<readonly [V, string]>} options  [value, text] pairs
 * @property {V} value  the default
 * @property {'select' | 'radio'} [as]
 */

/**
 * @typedef {object} TextSpec  a one-line text field
 * @property {'text'} kind
 * @property {string} label
 * @property {string} value
 * @property {number} [size]
 * @property {boolean} [grow]  takes the rest of the row
 * @property {boolean} [mono]
 * @property {string} [unit]
 */

/**
 * @typedef {object} TextareaSpec  a text box of several lines, its label read by screen readers only
 * @property {'textarea'} kind
 * @property {string} label
 * @property {string} value
 * @property {number} rows
 * @property {string} [placeholder]
 */

/**
 * @typedef {object} CheckSpec  a check box, with an optional caption above it
 * @property {'check'} kind
 * @property {string} label
 * @property {boolean} value
 * @property {string} [caption]
 */

/**
 * @typedef {object} ButtonSpec  a button; `toggle` makes it a pressed/not pressed switch
 * @property {'button'} kind
 * @property {string} label
 * @property {boolean} [primary]
 * @property {boolean} [toggle]
 */

/**
 * @typedef {object} FileSpec  a button that opens the file picker
 * @property {'file'} kind
 * @property {string} label
 * @property {string} accept  e.g. '.npy,.safetensors'
 */

/** @typedef {NumberSpec | ChoiceSpec<string> | TextSpec | TextareaSpec | CheckSpec | ButtonSpec | FileSpec} ControlSpec */
/** @typedef {Record<string, ControlSpec>} Specs */

/**
 * The value type of a control.
 * @template {ControlSpec} C
 * @typedef {C extends NumberSpec ? number : C extends ChoiceSpec<infer V> ? V : C extends TextSpec | TextareaSpec ? string
 *   : C extends CheckSpec ? boolean : C extends ButtonSpec ? boolean : undefined} ValueOf
 */

/**
 * The values of a list of controls.
 * @template {Specs} S
 * @typedef {{ [K in keyof S]: ValueOf<S[K]> }} Values
 */

/** @param {Omit<NumberSpec, 'kind'>} o @returns {NumberSpec} */
export const number = (o) => ({ kind: 'number', ...o });
/** @template {string} V @param {Omit<ChoiceSpec<V>, 'kind'>} o @returns {ChoiceSpec<V>} */
export const choice = (o) => ({ kind: 'choice', ...o });
/** @param {Omit<TextSpec, 'kind'>} o @returns {TextSpec} */
export const text = (o) => ({ kind: 'text', ...o });
/** @param {Omit<TextareaSpec, 'kind'>} o @returns {TextareaSpec} */
export const textarea = (o) => ({ kind: 'textarea', ...o });
/** @param {Omit<CheckSpec, 'kind'>} o @returns {CheckSpec} */
export const check = (o) => ({ kind: 'check', ...o });
/** @param {Omit<ButtonSpec, 'kind'>} o @returns {ButtonSpec} */
export const button = (o) => ({ kind: 'button', ...o });
/** @param {Omit<FileSpec, 'kind'>} o @returns {FileSpec} */
export const file = (o) => ({ kind: 'file', ...o });
