// Similarity matrices off the main thread: for a [rows, dim] table, S[p][q] = row p · row q
// ('dot') or their cosine ('cosine'). Presentation maths only (no encoding is computed here).
// Message in: { id, data: Float32Array, rows, dim, measure }; out: { id, matrix: Float32Array }.

/** @param {Float32Array} data @param {number} rows @param {number} dim @param {'dot' | 'cosine'} measure */
function gram(data, rows, dim, measure) {
  let rowsData = data;
  if (measure === 'cosine') {
    rowsData = new Float32Array(data.length);
    for (let p = 0; p < rows; p++) {
      let norm = 0;
      for (let j = 0; j < dim; j++) norm += data[p * dim + j] ** 2;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let j = 0; j < dim; j++) rowsData[p * dim + j] = data[p * dim + j] * scale;
    }
  }
  const out = new Float32Array(rows * rows);
  for (let p = 0; p < rows; p++) {
    const a = p * dim;
    for (let q = p; q < rows; q++) {
      const b = q * dim;
      let s = 0;
      for (let j = 0; j < dim; j++) s += rowsData[a + j] * rowsData[b + j];
      out[p * rows + q] = s;
      out[q * rows + p] = s;
    }
  }
  return out;
}

self.onmessage = (event) => {
  const { id, data, rows, dim, measure } = event.data;
  const matrix = gram(data, rows, dim, measure);
  self.postMessage({ id, matrix }, { transfer: [matrix.buffer] });
};
