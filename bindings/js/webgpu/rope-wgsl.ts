// The RoPE rotation as WGSL source: the two table bindings and a few functions, for a table's
// layout. posenc's own kernels (rope-kernel.ts) are built from this same source; engine authors
// paste it into their attention shader to rotate q and k where they load them.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { RopeTableLayout } from './rope-table.js';

/** Options of {@link ropeWgsl}. */
export interface RopeWgslOptions {
  /** The bind group of the cos and sin buffers (default 0). */
  group?: number;
  /** The binding of the cos buffer; sin takes the next one (default 0). */
  binding?: number;
  /** Prefix of every emitted name (default `'posenc_'`), so that two tables can live in one shader. */
  prefix?: string;
}

/** WGSL source for one table, and the names it declares. */
export interface RopeWgsl {
  /** The declarations: constants, the two `var<storage, read>` bindings and the functions. Needs `enable f16;` first for a float16 table. */
  code: string;
  /** Whether the shader must start with `enable f16;` (a float16 table). */
  enableF16: boolean;
  /** Where to bind the table's `cos` and `sin` GPUBuffers. */
  bindings: { cos: { group: number; binding: number }; sin: { group: number; binding: number } };
  /** The emitted functions' names. */
  functions: {
    /** `fn(pair: u32) -> vec2<u32>`: the two lanes of pair `pair`, counted from the rotary block's first lane. */
    lanes: string;
    /** `fn(pair: u32) -> u32`: which position id the pair reads (M-RoPE: 0 temporal, 1 height, 2 width; else 0). */
    axis: string;
    /** `fn(position: u32, pair: u32) -> vec2<f32>`: (cos, sin) of the pair at `position`; `inRange` says whether the table holds it. */
    cosSin: string;
    /** `fn(position: u32) -> bool`: whether `position` is a row of the table. */
    inRange: string;
    /** `fn(xy: vec2<f32>, cs: vec2<f32>) -> vec2<f32>`: the pair (x, y) rotated by (cos, sin): (x c - y s, x s + y c). */
    rotate: string;
  };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The u32 literal of `n`. */
const u = (n: number) => `${n}u`;

/** The WGSL body of the axis function for `layout.axes`. */
function axisBody(layout: RopeTableLayout): string {
  const a = layout.axes;
  if (!a) return '  return 0u;';
  if (a.kind === 'interleaved') {
    const [, h = 0, w = 0] = a.section;
    return [
      `  if (pair % 3u == 1u && pair < ${u(3 * h)}) { return 1u; }`,
      `  if (pair % 3u == 2u && pair < ${u(3 * w)}) { return 2u; }`,
      '  return 0u;',
    ].join('\n');
  }
  const lines: string[] = [];
  let end = 0;
  a.section.forEach((count, axis) => {
    end += count;
    if (axis < a.section.length - 1) lines.push(`  if (pair < ${u(end)}) { return ${u(axis)}; }`);
  });
  lines.push(`  return ${u(a.section.length - 1)};`);
  return lines.join('\n');
}

/**
 * The rotation of a table with `layout` (a {@link GpuRopeTable}'s `layout`) as WGSL: bind the
 * table's `cos` and `sin` buffers where `bindings` says, then, for a head whose rotary block starts
 * at element `at`, rotate pair i at position p with
 * `let l = lanes(i); let r = rotate(vec2(x[at + l.x], x[at + l.y]), cosSin(p, i));`.
 * Each pair reads its (cos, sin) once: call cosSin once per token and pair, and rotate every
 * head of q and k with it.
 */
export function ropeWgsl(layout: RopeTableLayout, options?: RopeWgslOptions): RopeWgsl {
  const fn = 'ropeWgsl';
  const opts = args.options(fn, options, ['group', 'binding', 'prefix'], true);
  const l = args.options(fn, layout, ['rows', 'pairs', 'pairing', 'span', 'axes', 'dtype', 'width', 'nopeHeadDim', 'headDim']) as unknown as RopeTableLayout;
  const group = opts.group === undefined ? 0 : args.integer(fn, 'group', opts.group, 0);
  const binding = opts.binding === undefined ? 0 : args.integer(fn, 'binding', opts.binding, 0);
  const p = opts.prefix === undefined ? 'posenc_' : opts.prefix;
  if (typeof p !== 'string' || (p !== '' && !IDENT.test(p)) || p.startsWith('__')) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: prefix must be a WGSL identifier start (letters, digits, _), got ${args.describe(p)}`);
  }
  const rows = args.integer(fn, 'layout.rows', l.rows);
  const pairs = args.integer(fn, 'layout.pairs', l.pairs);
  const span = args.integer(fn, 'layout.span', l.span);
  args.choice(fn, 'layout.pairing', l.pairing, ['half', 'interleaved']);
  args.choice(fn, 'layout.dtype', l.dtype, ['float32', 'float16']);
  if (l.pairing === 'half' && span < pairs) throw new PosEncError('INVALID_ARGUMENT', `${fn}: layout.span ${span} is less than layout.pairs ${pairs}`);
  if (rows * pairs >= 2 ** 32) throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${rows} x ${pairs} values are more than a u32 index reaches`);
  if (l.axes) {
    args.choice(fn, 'layout.axes.kind', l.axes.kind, ['sections', 'interleaved']);
    const s = args.listOf(fn, 'layout.axes.section', l.axes.section, (v, name) => args.integer(fn, name, v, 0));
    const sum = s.reduce((a, b) => a + b, 0);
    if (l.axes.kind === 'sections' ? sum !== pairs : s.length !== 3 || sum !== pairs) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: layout.axes.section [${s.join(', ')}] must ${l.axes.kind === 'interleaved' ? 'have 3 entries and ' : ''}` +
        `sum to the table's ${pairs} pairs`);
    }
  }
  const type = l.dtype === 'float16' ? 'f16' : 'f32';
  const names = { lanes: `${p}rope_lanes`, axis: `${p}rope_axis`, cosSin: `${p}rope_cos_sin`, inRange: `${p}rope_in_range`, rotate: `${p}rope_rotate` };
  const lanes = l.pairing === 'half' ? `vec2<u32>(pair, pair + ${u(span)})` : 'vec2<u32>(2u * pair, 2u * pair + 1u)';
  const describe = `${pairs} pairs, ${l.pairing === 'half' ? `half pairing (lanes i, i + ${span})` : 'interleaved pairing (lanes 2i, 2i + 1)'}` +
    `${l.axes ? `, M-RoPE ${l.axes.kind} [${l.axes.section.join(', ')}]` : ''}, positions 0..${rows - 1}, ${type} [positions, pairs]`;
  const code = `// posenc RoPE table: ${describe}; cos and sin include the attention factor.
const ${p}rope_pairs: u32 = ${u(pairs)};
const ${p}rope_rows: u32 = ${u(rows)};
@group(${group}) @binding(${binding}) var<storage, read> ${p}rope_cos: array<${type}>;
@group(${group}) @binding(${binding + 1}) var<storage, read> ${p}rope_sin: array<${type}>;

// The two lanes of pair \`pair\`, counted from the rotary block's first lane.
fn ${names.lanes}(pair: u32) -> vec2<u32> {
  return ${lanes};
}

// Which position id pair \`pair\` reads (M-RoPE: 0 temporal, 1 height, 2 width).
fn ${names.axis}(pair: u32) -> u32 {
${axisBody(l)}
}

// Whether the table holds \`position\` (rows 0..${rows - 1}).
fn ${names.inRange}(position: u32) -> bool {
  return position < ${p}rope_rows;
}

// (cos, sin) of pair \`pair\` at \`position\`, which must be in range.
fn ${names.cosSin}(position: u32, pair: u32) -> vec2<f32> {
  let at = min(position, ${p}rope_rows - 1u) * ${p}rope_pairs + pair;
  return vec2<f32>(f32(${p}rope_cos[at]), f32(${p}rope_sin[at]));
}

// The pair (x, y) rotated by (cos, sin).
fn ${names.rotate}(xy: vec2<f32>, cs: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(xy.x * cs.x - xy.y * cs.y, xy.x * cs.y + xy.y * cs.x);
}
`;
  return {
    code, enableF16: type === 'f16', functions: names,
    bindings: { cos: { group, binding }, sin: { group, binding: binding + 1 } },
  };
}
