// RoPE, part 5: "paste a model's config.json". pe.rope.fromConfig reads the text; the derived spec
// (head size, rotary width, base, pairing, scaling) is shown and handed to the section's settings.
// A config posenc cannot use shows its INVALID_CONFIG message, which names the field, in the same
// readout, and the settings keep the last good config.
import { button, textarea } from '../../ui/control-specs.js';
import { int, plain } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { EXAMPLE_CONFIGS, configContext, formatConfig } from './examples.js';
import { scalingText } from './scaling.js';

/** @typedef {import('../../ui/section.js').Section} Section */

const EXAMPLES = {
  llama31: button({ label: 'Llama 3.1 8B' }),
  phi35: button({ label: 'Phi-3.5-mini style' }),
  yarn: button({ label: 'Qwen2.5 + YaRN' }),
  neox: button({ label: 'GPT-NeoX-20B' }),
};
const CONFIG = {
  config: textarea({ label: 'config.json', rows: 9, value: '', placeholder: '{ "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000, … }' }),
};
const USE = { use: button({ label: 'Use this config', primary: true }) };

/** @param {Section} section @param {(spec: import('posenc').RopeModelSpec, contextLength: number | null) => void} use  sets the section's settings */
export function configPart(section, use) {
  const examples = section.panel('examples', EXAMPLES);
  const text = section.panel('config', CONFIG);
  const action = section.panel('use-config', USE);
  const figure = section.figure('config');
  const readout = figure.readout();

  /** @param {string} message */
  function fail(message) {
    readout.dataset.state = 'error';
    setReadout(readout, valueSpan('error', message));
  }

  function read() {
    const source = text.get('config');
    let spec;
    try {
      spec = section.pe.rope.fromConfig(source);
    } catch (error) {
      const e = /** @type {{ code?: string, message?: string }} */ (error);
      fail(e.code ? `${e.code}: ${e.message}` : String(e.message ?? error));
      return;
    }
    readout.dataset.state = 'ok';
    const context = configContext(JSON.parse(source));
    setReadout(readout,
      [field('headDim', int(spec.headDim)), '   ', field('rotaryDim', int(spec.rotaryDim)), '   ', field('base', plain(spec.base)), '   ', field('pairing', spec.pairing)],
      [context ? `context = ${int(context)} tokens` : 'no context length in the config'],
      ['scaling = ', valueSpan('scaling', scalingText(spec.scaling)),
        spec.mropeSection ? `   mropeSection [${spec.mropeSection.join(', ')}] (pe.rope.applyMultimodal; drawn here as plain RoPE)` : '']);
    use(spec, context);
  }

  for (const name of /** @type {Array<keyof typeof EXAMPLES>} */ (Object.keys(EXAMPLES))) {
    examples.on(name, () => {
      text.set('config', formatConfig(EXAMPLE_CONFIGS[name]));
      read();
    });
  }
  action.on('use', read);
  text.element('config').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      read();
    }
  });
}
