// What both emitters derive from the description: names in each language's convention, the byte
// layout of every argument block (wasm32, natural alignment, as a C++ compiler lays out the struct)
// and the layout of every block of doubles.
import { blocks } from './blocks.mjs';
import { enums } from './enums.mjs';
import { functions } from './functions.mjs';

/** camelCase -> snake_case (qHeads -> q_heads, hfV4Factor -> hf_v4_factor). */
export function snake(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** camelCase -> PascalCase. */
export function pascal(name) {
  return name[0].toUpperCase() + name.slice(1);
}

/** Size and C++ type of each field type; every enum is an int-sized enum class. */
const SCALARS = {
  ptr: { bytes: 4, cpp: 'std::uintptr_t', ts: 'Ptr' },
  i32: { bytes: 4, cpp: 'std::int32_t', ts: 'number' },
  f64: { bytes: 8, cpp: 'double', ts: 'number' },
  bool: { bytes: 1, cpp: 'bool', ts: 'boolean' },
};

/** The C++ type of an enum of enums.mjs (the core's own, or one generated in posenc::bindings). */
export function enumCppType(name) {
  return enums[name].cpp ?? `posenc::bindings::${name}`;
}

/** One field of an argument block: its names, kind (a scalar type or 'enum'), C++ type and offset. */
function fieldType(fn, name, type) {
  if (SCALARS[type]) return { kind: type, ...SCALARS[type] };
  if (enums[type]) return { kind: 'enum', enumName: type, bytes: 4, cpp: enumCppType(type), ts: 'number' };
  throw new Error(`boundary: ${fn}.${name} has unknown type '${type}'`);
}

/**
 * Every bound function: { name, cppName, argsType, args: [{ name, cppName, kind, cpp, ts, offset }],
 * bytes, returns }. `argsType` is null for a function without arguments.
 */
export function functionLayouts() {
  return Object.entries(functions).map(([name, spec]) => {
    const args = [];
    let offset = 0;
    let align = 1;
    for (const [argName, type] of Object.entries(spec.args ?? {})) {
      const t = fieldType(name, argName, type);
      offset = Math.ceil(offset / t.bytes) * t.bytes;
      args.push({ name: argName, cppName: snake(argName), offset, ...t });
      offset += t.bytes;
      align = Math.max(align, t.bytes);
    }
    const returns = spec.returns ?? 'status';
    if (!['status', 'f64', 'void', 'string'].includes(returns)) throw new Error(`boundary: ${name} returns '${returns}'`);
    if (returns === 'string' && args.length) throw new Error(`boundary: ${name}: string results take no arguments`);
    return {
      name,
      doc: spec.doc,
      cppName: `${snake(name)}_binding`,
      argsType: args.length ? `${pascal(name)}Args` : null,
      args,
      bytes: Math.ceil(offset / align) * align,
      returns,
    };
  });
}

/** Bytes of the largest argument block: the size of the block each instance keeps. */
export function argBlockBytes() {
  return Math.max(...functionLayouts().map((f) => f.bytes));
}

/**
 * Every block of doubles: { name, doc, header: [{ name, cppName, index }], lists: [{ name, cppName,
 * countField? }], length? }. Counted lists add their count fields at the end of the header.
 */
export function blockLayouts() {
  return Object.entries(blocks).map(([name, spec]) => {
    const counted = spec.length === undefined;
    const headerNames = [...spec.header, ...(counted ? spec.lists.map((l) => `${l}Count`) : [])];
    const header = headerNames.map((h, index) => ({ name: h, cppName: snake(h), index }));
    const lists = spec.lists.map((l, index) => ({
      name: l,
      cppName: snake(l),
      index,
      countField: counted ? header.find((h) => h.name === `${l}Count`) : undefined,
    }));
    return { name, doc: spec.doc, header, values: spec.header, lists, length: spec.length };
  });
}
