// Float64 transcriptions of Hugging Face transformers' RoPE application code, one head row at a
// time, written from the upstream functions named on each (independently of posenc): what a
// model's layer does to q and k. The model-apply suites compare pe.model.apply with these.

/** torch.cat((freqs, freqs), -1): the cos/sin rows HF's rotary embeddings return for rotate_half. */
export function catTwice(v) {
  return Float64Array.from([...v, ...v]);
}

/** modeling_llama.py rotate_half + apply_rotary_pos_emb on one row: x * cos + rotate_half(x) * sin. */
export function applyRotateHalf(x, cos, sin) {
  const d = cos.length;
  const half = d / 2;
  const out = Float64Array.from(x);
  for (let j = 0; j < d; j++) {
    const rotated = j < half ? -x[j + half] : x[j - half]; // cat((-x2, x1))
    out[j] = x[j] * cos[j] + rotated * sin[j];
  }
  return out;
}

/**
 * The rotary part of a row with partial rotary (GPT-NeoX / Phi / StableLM): q_rot = x[:r] rotated
 * with rotate_half, x[r:] passed through (modeling_gpt_neox.py apply_rotary_pos_emb).
 */
export function applyPartialHalf(x, freqs, attention = 1) {
  const r = 2 * freqs.length;
  const cos = catTwice(freqs.map((f) => Math.cos(f) * attention));
  const sin = catTwice(freqs.map((f) => Math.sin(f) * attention));
  const out = Float64Array.from(x);
  out.set(applyRotateHalf(x.subarray(0, r), cos, sin));
  return out;
}

/**
 * modeling_glm.py / modeling_cohere.py: cos/sin repeat_interleave(2) and rotate_half on adjacent
 * pairs (stack((-x2, x1), -1).flatten), on the first 2 * freqs.length lanes.
 */
export function applyAdjacentPairs(x, freqs, attention = 1) {
  const out = Float64Array.from(x);
  for (let i = 0; i < freqs.length; i++) {
    const c = Math.cos(freqs[i]) * attention;
    const s = Math.sin(freqs[i]) * attention;
    out[2 * i] = x[2 * i] * c + -x[2 * i + 1] * s;
    out[2 * i + 1] = x[2 * i + 1] * c + x[2 * i] * s;
  }
  return out;
}

/**
 * modeling_llama4.py apply_rotary_emb (and DeepseekV2 apply_rotary_emb): view_as_complex over
 * adjacent lanes times freqs_cis = polar(attention, freqs).
 */
export function applyComplex(x, freqs, attention = 1) {
  const out = Float64Array.from(x);
  for (let i = 0; i < freqs.length; i++) {
    const re = Math.cos(freqs[i]) * attention;
    const im = Math.sin(freqs[i]) * attention;
    out[2 * i] = x[2 * i] * re - x[2 * i + 1] * im;
    out[2 * i + 1] = x[2 * i] * im + x[2 * i + 1] * re;
  }
  return out;
}

/**
 * modeling_deepseek_v3.py apply_rotary_pos_emb_interleave on the rotary block: view(d/2, 2)
 * .transpose(-1, -2).reshape(d) (de-interleave), then apply_rotary_pos_emb.
 */
export function applyDeepseekInterleave(block, freqs, attention = 1) {
  const d = block.length;
  const moved = new Float64Array(d);
  for (let i = 0; i < d / 2; i++) {
    moved[i] = block[2 * i];
    moved[d / 2 + i] = block[2 * i + 1];
  }
  return applyRotateHalf(moved, catTwice(freqs.map((f) => Math.cos(f) * attention)), catTwice(freqs.map((f) => Math.sin(f) * attention)));
}

/**
 * modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb: cos/sin of each axis (cat twice), split by
 * mrope_section * 2, chunk i taken from axis i % 3. `axisFreqs[a]` = position_a * inv_freq.
 */
export function qwen2vlRows(axisFreqs, section, attention = 1) {
  const emb = axisFreqs.map((f) => catTwice(f));
  const chunks = [...section, ...section];
  const cos = [];
  const sin = [];
  let at = 0;
  chunks.forEach((n, i) => {
    for (let j = at; j < at + n; j++) {
      cos.push(Math.cos(emb[i % 3][j]) * attention);
      sin.push(Math.sin(emb[i % 3][j]) * attention);
    }
    at += n;
  });
  return { cos: Float64Array.from(cos), sin: Float64Array.from(sin) };
}

/**
 * modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope: freqs_t = freqs[0], then
 * freqs_t[1:3*s_h:3] = freqs[1][...], freqs_t[2:3*s_w:3] = freqs[2][...]; cat twice.
 */
export function qwen3vlFreqs(axisFreqs, section) {
  const t = Float64Array.from(axisFreqs[0]);
  for (const [dim, offset] of [[1, 1], [2, 2]]) {
    const length = section[dim] * 3;
    for (let j = offset; j < Math.min(length, t.length); j += 3) t[j] = axisFreqs[dim][j];
  }
  return t;
}

/**
 * modeling_pixtral.py PixtralRotaryEmbedding: freqs = base^(-arange(0, dim, 2)/dim); the row of
 * patch (h, w) is cat(h * freqs[::2], w * freqs[1::2]) (then cat twice, rotate_half).
 */
export function pixtralFreqs(headDim, base, h, w) {
  const freqs = Array.from({ length: headDim / 2 }, (_, j) => 1 / base ** ((2 * j) / headDim));
  return Float64Array.from([...freqs.filter((_, j) => j % 2 === 0).map((f) => h * f), ...freqs.filter((_, j) => j % 2 === 1).map((f) => w * f)]);
}

/** The element offset of head row (b, s, h) in a 4-D tensor of `layout`. */
export function rowAt(layout, [batch, seq, heads, d], b, s, h) {
  return layout === 'bshd' ? ((b * seq + s) * heads + h) * d : ((b * heads + h) * seq + s) * d;
}

/** Worst |got - want| over a row, relative to the row's largest input value. */
export function rowError(got, want, x) {
  let scale = 1e-30;
  for (const v of x) scale = Math.max(scale, Math.abs(v));
  let worst = 0;
  for (let j = 0; j < want.length; j++) worst = Math.max(worst, Math.abs(got[j] - want[j]) / scale);
  return worst;
}
