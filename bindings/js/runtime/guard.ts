// The last line of defence of every public function: whatever escapes it is a PosEncError. Specific
// checks come first (args.ts, typed.ts, scope.ts give each case its own code and message); an
// engine error that still escapes (a TypeError from a detached buffer, a RangeError from a failed
// allocation, a bug) becomes a PosEncError with the original as `cause` (errors.ts `hostError`).
import { hostError } from './errors.js';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** `f`, named `fn` in errors, turning anything it throws (or a promise it returns rejects with) into a PosEncError. */
function guardFunction(fn: string, f: AnyFunction): AnyFunction {
  const guardedCall = function (this: unknown, ...args: unknown[]): unknown {
    let result: unknown;
    try {
      result = f.apply(this, args);
    } catch (error) {
      throw hostError(fn, error);
    }
    if (result instanceof Promise) return result.catch((error: unknown) => { throw hostError(fn, error); });
    return result;
  };
  Object.defineProperty(guardedCall, 'name', { value: f.name });
  return guardedCall;
}

/** A frozen copy of the API object `api` (`pe.<family>`) whose functions are guarded; getters are kept as they are. */
export function guarded<T extends object>(family: string, api: T): Readonly<T> {
  const out = {} as T;
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(api))) {
    if (typeof descriptor.value === 'function') descriptor.value = guardFunction(`${family}.${key}`, descriptor.value as AnyFunction);
    Object.defineProperty(out, key, descriptor);
  }
  return Object.freeze(out);
}

const guardedPrototypes = new WeakSet<object>();

/** Guards the methods of a class that the API hands out (`RopeCache.apply`...), once per class. */
export function guardMethods(name: string, prototype: object): void {
  if (guardedPrototypes.has(prototype)) return;
  guardedPrototypes.add(prototype);
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(prototype))) {
    if (key === 'constructor' || typeof descriptor.value !== 'function') continue;
    Object.defineProperty(prototype, key, { ...descriptor, value: guardFunction(`${name}.${key}`, descriptor.value as AnyFunction) });
  }
}
