// A parser for the small subset of Python literals an .npy header uses: dicts, tuples, lists,
// quoted strings, integers (Python 2 'L' suffix allowed), True, False and None. Never evaluates code.

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/** Parses `text` as one Python literal; throws an Error saying where it stopped making sense. */
export function parsePythonLiteral(text: string): Value {
  let at = 0;

  const fail = (what: string): never => {
    const near = text.slice(at, at + 20).replace(/\s+/g, ' ');
    throw new Error(`${what} at character ${at}${near ? ` (near "${near}")` : ' (end of header)'}`);
  };
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const eat = (ch: string): boolean => {
    skipSpace();
    if (text[at] === ch) {
      at++;
      return true;
    }
    return false;
  };

  function string(): string {
    const quote = text[at]!;
    at++;
    let out = '';
    while (at < text.length && text[at] !== quote) {
      if (text[at] === '\\') {
        at++;
        const esc = text[at];
        out += esc === 'n' ? '\n' : esc === 't' ? '\t' : (esc ?? '');
      } else {
        out += text[at];
      }
      at++;
    }
    if (at >= text.length) fail('unterminated string');
    at++;
    return out;
  }

  /** Items up to `close`, comma separated, trailing comma allowed. */
  function sequence(close: string): Value[] {
    const items: Value[] = [];
    while (!eat(close)) {
      items.push(value());
      if (!eat(',')) {
        if (!eat(close)) fail(`expected ',' or '${close}'`);
        break;
      }
    }
    return items;
  }

  function dict(): { [key: string]: Value } {
    const out: { [key: string]: Value } = {};
    while (!eat('}')) {
      const key = value();
      if (typeof key !== 'string') fail('dict keys must be strings');
      if (!eat(':')) fail("expected ':'");
      // defineProperty: a key such as '__proto__' becomes plain data
      Object.defineProperty(out, key as string, { value: value(), enumerable: true, writable: true, configurable: true });
      if (!eat(',')) {
        if (!eat('}')) fail("expected ',' or '}'");
        break;
      }
    }
    return out;
  }

  function value(): Value {
    skipSpace();
    const ch = text[at];
    if (ch === '{') {
      at++;
      return dict();
    }
    if (ch === '(') {
      at++;
      return sequence(')');
    }
    if (ch === '[') {
      at++;
      return sequence(']');
    }
    if (ch === "'" || ch === '"') return string();
    const word = /^(True|False|None|[+-]?\d+L?)/.exec(text.slice(at));
    if (!word) return fail('unexpected text');
    at += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    return Number(word[0].replace('L', ''));
  }

  const result = value();
  skipSpace();
  if (at < text.length) fail('unexpected text after the literal');
  return result;
}
