// What the lesson server accepts before it looks at a file: GET or HEAD, a Host header naming this
// server (so that a page on another name that resolves to 127.0.0.1, a DNS rebinding, cannot read
// it), and an origin-form target whose path segments decode cleanly to plain names (no `.` or `..`,
// no encoded `/` or `\`, no NUL). Anything else is refused with a status and a short message that
// names no file.

/** The methods the server answers; others get 405 with this as `Allow`. */
export const ALLOWED_METHODS = 'GET, HEAD';

/**
 * The Host values this server answers to when it listens on `host`:`port`: localhost, 127.0.0.1
 * and [::1] with the port, and the bound host unless it is a wildcard address. Lower case.
 */
export function allowedHosts(host, port) {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const bound = host.includes(':') ? `[${host}]` : host;
  if (!['0.0.0.0', '[::]'].includes(bound)) names.add(bound.toLowerCase());
  const hosts = new Set([...names].map((name) => `${name}:${port}`));
  if (port === 80) for (const name of names) hosts.add(name); // the default port may be left out
  return hosts;
}

const refuse = (status, message, headers = {}) => ({ error: { status, message, headers } });

/**
 * Checks `req` against the `hosts` from allowedHosts. Returns `{ error: { status, message,
 * headers } }`, or `{ segments, directory }`: the decoded path segments, and whether the path ended
 * with `/`.
 */
export function checkRequest(req, hosts) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return refuse(405, `method ${req.method} not allowed`, { allow: ALLOWED_METHODS });
  }
  const host = req.headersDistinct?.host;
  if (!host || host.length !== 1) return refuse(400, 'one Host header required');
  if (!hosts.has(host[0].toLowerCase())) return refuse(421, 'this server answers only to localhost');
  return checkTarget(req.url ?? '');
}

/** The decoded segments of an origin-form target (`/a/b?query`), or an error. */
export function checkTarget(target) {
  if (!target.startsWith('/') || target.startsWith('//')) return refuse(400, 'the request target must be a path');
  const path = target.split(/[?#]/, 1)[0];
  const raw = path.slice(1).split('/');
  const directory = raw.length > 0 && raw[raw.length - 1] === '';
  if (directory) raw.pop();
  const segments = [];
  for (const part of raw) {
    let name;
    try {
      name = decodeURIComponent(part);
    } catch {
      return refuse(400, 'malformed percent escape in the path');
    }
    if (name === '' || name === '.' || name === '..') return refuse(400, 'empty, . or .. segment in the path');
    if (/[/\\\0]/.test(name)) return refuse(400, 'encoded slash, backslash or NUL in the path');
    segments.push(name);
  }
  return { segments, directory };
}
