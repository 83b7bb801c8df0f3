// What transformers' own config classes say about a model family (generated data in
// ./transformers/families.ts), looked up safely: the caller's model_type is a key of a Map, never of
// an object with a prototype. Also the two readings built on it: whether the class defines a key,
// and the class's default of a key (sub-configs and attribute_map aliases included).
import type { FamilyFacts } from './family-facts.js';
import { BASE_FIELDS, FAMILIES } from './transformers/families.js';

export type { FamilyFacts } from './family-facts.js';

const BY_TYPE: ReadonlyMap<string, FamilyFacts> = new Map(FAMILIES);
const BASE: ReadonlySet<string> = new Set(BASE_FIELDS);

/** The facts of `modelType`'s config class, or undefined when the snapshot has no such model_type. */
export function familyFacts(modelType: string): FamilyFacts | undefined {
  return BY_TYPE.get(modelType);
}

/** Every model_type of the snapshot, in the data's order. */
export function familyTypes(): string[] {
  return FAMILIES.map(([type]) => type);
}

function own(table: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The attribute a key names on the class: `attribute_map` maps a public alias to the stored field. */
export function storedName(f: FamilyFacts, key: string): string {
  const target = own(f.attributeMap, key);
  return typeof target === 'string' ? target : key;
}

/** The public names that map to stored field `key` (attribute_map entries whose target is `key`). */
export function aliasesOf(f: FamilyFacts, key: string): string[] {
  return Object.keys(f.attributeMap).filter((alias) => f.attributeMap[alias] === key);
}

/** Whether the config class defines `key`: one of its fields, a PreTrainedConfig field, a sub-config or an alias. */
export function classDefines(f: FamilyFacts, key: string): boolean {
  return BASE.has(key) || f.fields.includes(key) || f.fields.includes(storedName(f, key)) || Object.hasOwn(f.subConfigs, key) ||
    Object.hasOwn(f.attributeMap, key);
}

/** The class's value of `key` on a default instance (after __post_init__), by its name or an alias; undefined if not recorded. */
export function classDefault(f: FamilyFacts, key: string): unknown {
  for (const name of [key, storedName(f, key), ...aliasesOf(f, key)]) {
    const v = own(f.defaults, name);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The model_type of sub-config `key` (e.g. `text_config`), if the class has one. */
export function subConfigType(f: FamilyFacts, key: string): string | undefined {
  const v = own(f.subConfigs, key);
  return typeof v === 'string' ? v : undefined;
}
