// RoPE, part 5: "paste a model's config.json". pe.rope.fromConfig reads the text; the derived spec
// (head size, rotary width, base, pairing, scaling) is shown and handed to the section's settings.
// A config posenc cannot use shows its INVALID_CONFIG message, which names the field, in the same
// fixed-size box (so nothing moves), and the settings keep the last good config.
import { int } from '../lib/format.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';
import { EXAMPLE_CONFIGS, configContext, formatConfig } from './rope-examples.js';
import { scalingText } from './rope-scaling-controls.js';

const EXAMPLES = { llama31: 'rope-config-llama31', phi35: 'rope-config-phi35', yarn: 'rope-config-yarn', neox: 'rope-config-neox' };

/** `use(spec, contextLength)` sets the section's controls from a model's spec. */
export function mountConfig(pe, use) {
  const $ = (id) => document.getElementById(id);
  const text = $('rope-config');
  const readout = $('rope-config-readout');

  function fail(message) {
    readout.dataset.state = 'error';
    setReadout(readout, valueSpan('error', message));
  }

  function read() {
    let spec;
    try {
      spec = pe.rope.fromConfig(text.value);
    } catch (error) {
      fail(error.code ? `${error.code}: ${error.message}` : error.message);
      return;
    }
    readout.dataset.state = 'ok';
    const context = configContext(JSON.parse(text.value));
    setReadout(readout,
      field('headDim', String(spec.headDim)), '   ', field('rotaryDim', String(spec.rotaryDim)), '   ',
      field('base', String(spec.base)), '   ', field('pairing', spec.pairing), '\n',
      context ? `context = ${int(context)} tokens` : 'no context length in the config', '\n',
      'scaling = ', valueSpan('scaling', scalingText(spec.scaling)),
      spec.mropeSection ? `   mropeSection [${spec.mropeSection.join(', ')}] (pe.rope.applyMultimodal; drawn here as plain RoPE)` : '',
    );
    use(spec, context);
  }

  for (const [name, id] of Object.entries(EXAMPLES)) {
    $(id).addEventListener('click', () => {
      text.value = formatConfig(EXAMPLE_CONFIGS[name]);
      read();
    });
  }
  $('rope-config-use').addEventListener('click', read);
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      read();
    }
  });
}
