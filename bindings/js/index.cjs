'use strict';
// CommonJS entry: the API is asynchronous anyway, so it loads the ES module on first use.
// const { createPosEnc } = require('posenc'); const pe = await createPosEnc();
exports.createPosEnc = function createPosEnc(options) {
  return import('./node.js').then((m) => m.createPosEnc(options));
};
