// Checking what a WebGPU call of posenc is handed — the device, buffers and their shapes — on the
// CPU, before anything is encoded: a bad argument is a PosEncError naming it, never a GPU
// validation error found later (or never) on the device's error scope.
import { PosEncError, describe } from '../runtime/errors.js';
import * as args from '../runtime/args.js';

/** GPUBufferUsage flags (WebGPU spec values; TypeScript's DOM typings omit the namespace object). */
export const USAGE = { MAP_READ: 0x1, MAP_WRITE: 0x2, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;

/** A tensor in a GPUBuffer: float32 values, row-major `dims`, from byte `offset` (default 0, a multiple of 4). */
export interface GpuTensor {
  /** The buffer (usage must include STORAGE). */
  buffer: GPUBuffer;
  /** The shape. */
  dims: readonly number[];
  /** Where the tensor starts in the buffer, in bytes (a multiple of 4; default 0). */
  offset?: number;
}

/** A checked tensor: its buffer, dims, first element and element count. */
export interface CheckedTensor {
  buffer: GPUBuffer;
  dims: number[];
  first: number;
  size: number;
}

/** The device a posenc GPU object was made for: refuses what is not a GPUDevice. */
export function checkDevice(fn: string, device: unknown): GPUDevice {
  const d = device as GPUDevice | null;
  if (d === null || typeof d !== 'object' || typeof d.createBuffer !== 'function' || typeof d.createComputePipeline !== 'function' ||
    typeof d.queue !== 'object' || d.queue === null || typeof d.limits !== 'object') {
    throw new PosEncError('INVALID_TYPE', `${fn}: device must be a GPUDevice (from adapter.requestDevice()), got ${describe(device)}`);
  }
  return d;
}

/** Whether `value` looks like a GPUBuffer (a Dawn buffer in Node has no GPUBuffer global to test against). */
function isGpuBuffer(value: unknown): value is GPUBuffer {
  const b = value as GPUBuffer | null;
  return b !== null && typeof b === 'object' && typeof b.size === 'number' && typeof b.usage === 'number' &&
    typeof b.mapAsync === 'function' && typeof b.destroy === 'function';
}

const USAGE_NAMES: Record<number, string> = { 0x1: 'MAP_READ', 0x4: 'COPY_SRC', 0x8: 'COPY_DST', 0x40: 'UNIFORM', 0x80: 'STORAGE' };

/** `value` as a GPUBuffer with `usage` and at least `bytes` bytes from `offset`, not mapped, within the binding limit. */
export function buffer(fn: string, name: string, value: unknown, usage: number, device: GPUDevice): GPUBuffer {
  if (!isGpuBuffer(value)) throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be a GPUBuffer, got ${describe(value)}`);
  if ((value.usage & usage) !== usage) {
    const missing = Object.entries(USAGE_NAMES).filter(([bit]) => (usage & Number(bit)) && !(value.usage & Number(bit))).map(([, n]) => n);
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} was created without GPUBufferUsage.${missing.join(' | ')} ` +
      `(its usage is ${value.usage}); create it with usage including ${missing.join(' | ')}`);
  }
  if (value.mapState !== undefined && value.mapState !== 'unmapped') {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} is ${value.mapState === 'mapped' ? 'mapped' : 'being mapped'}: unmap it before the GPU uses it`);
  }
  if ((usage & USAGE.STORAGE) && value.size > device.limits.maxStorageBufferBindingSize) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${name} holds ${value.size} bytes, more than this device binds as storage ` +
      `(limits.maxStorageBufferBindingSize = ${device.limits.maxStorageBufferBindingSize})`);
  }
  return value;
}

/** The dims of `value`: a non-empty list of integers >= 1 whose product fits a 32-bit index. */
export function dims(fn: string, name: string, value: unknown): number[] {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be an array of sizes, got ${describe(value)}`);
  }
  const list = Array.from(value as ArrayLike<unknown>, (v, i) => args.integer(fn, `${name}[${i}]`, v));
  if (list.length === 0) throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must not be empty`);
  if (list.reduce((a, b) => a * b, 1) >= 2 ** 32) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${name} [${list.join(', ')}] holds 2^32 or more elements, more than a GPU index reaches`);
  }
  return list;
}

/** A float32 {@link GpuTensor} argument, checked against its buffer's size and usage. */
export function tensor(fn: string, name: string, value: unknown, device: GPUDevice, rank?: readonly number[]): CheckedTensor {
  const t = args.options(fn, value, ['buffer', 'dims', 'offset']);
  const buf = buffer(fn, `${name}.buffer`, args.required(fn, t, 'buffer'), USAGE.STORAGE, device);
  const shape = dims(fn, `${name}.dims`, args.required(fn, t, 'dims'));
  if (rank && !rank.includes(shape.length)) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name}.dims must have ${rank.join(' or ')} entries, got [${shape.join(', ')}]`);
  }
  const offset = t.offset === undefined ? 0 : args.integer(fn, `${name}.offset`, t.offset, 0);
  if (offset % 4 !== 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name}.offset must be a multiple of 4 bytes (a float32 boundary), got ${offset}`);
  const size = shape.reduce((a, b) => a * b, 1);
  if (offset + size * 4 > buf.size) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} [${shape.join(', ')}] from byte ${offset} needs ${offset + size * 4} bytes, ` +
      `its buffer has ${buf.size}`);
  }
  return { buffer: buf, dims: shape, first: offset / 4, size };
}

/** Workgroup counts (x, y) covering `invocations` in groups of `size`, within the device's per-dimension limit. */
export function workgroups(fn: string, device: GPUDevice, invocations: number, size: number): [number, number] {
  const groups = Math.max(1, Math.ceil(invocations / size));
  const max = device.limits.maxComputeWorkgroupsPerDimension;
  const x = Math.min(groups, max);
  const y = Math.ceil(groups / x);
  if (y > max) throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${invocations} invocations need more workgroups than this device dispatches (${max} x ${max})`);
  return [x, y];
}

/** A new buffer holding `data` (uploaded at creation: no queue write to order). */
export function upload(device: GPUDevice, data: ArrayBufferView, usage: number, label: string): GPUBuffer {
  const size = Math.max(4, Math.ceil(data.byteLength / 4) * 4); // a mapped-at-creation size is a multiple of 4
  const buf = device.createBuffer({ label, size, usage, mappedAtCreation: true });
  new Uint8Array(buf.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  buf.unmap();
  return buf;
}
