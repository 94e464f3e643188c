/**
 * The fetch standard's `Headers`, in plain code: the global one lives in undici, and its first use loads
 * undici with `http2`, `tls` and web streams (~5 MB of idle RSS and ~45 ms of CPU here) for a
 * case-insensitive map. The provider's fetch (`node-fetch.ts`) answers with these, and the build hands
 * them to the openai SDK in place of the global (`scripts/build.mjs`, `sdkWithoutUndici`), so a session
 * that only talks to its endpoint never loads undici (README, Benchmarks: Memory).
 *
 * Behaves as the standard says for what a client does with headers: names are compared without case and
 * listed in lower case, sorted; values are trimmed of HTTP whitespace, and several values of one name
 * read joined by ", " (`set-cookie` apart: `getSetCookie`); an invalid name or value throws a TypeError.
 * There is no guard (request and response headers are all writable), as in Node's own fetch.
 */
export class PlainHeaders implements Headers {
  /** Lower-case name → values in the order appended. */
  readonly #values = new Map<string, string[]>()

  constructor(init?: HeadersInit | PlainHeaders) {
    if (init === undefined || init === null) return
    if (typeof init !== 'object') throw new TypeError('Headers: the init is not an object')
    if (isPairs(init)) {
      for (const pair of init) {
        const row = [...pair]
        if (row.length !== 2) throw new TypeError('Headers: each header needs a name and a value')
        this.append(String(row[0]), String(row[1]))
      }
      return
    }
    for (const [name, value] of Object.entries(init)) this.append(name, String(value))
  }

  append(name: string, value: string): void {
    const key = checkedName(name)
    const normal = checkedValue(value, name)
    const list = this.#values.get(key)
    if (list) list.push(normal)
    else this.#values.set(key, [normal])
  }

  set(name: string, value: string): void {
    this.#values.set(checkedName(name), [checkedValue(value, name)])
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name))
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name))?.join(', ') ?? null
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])]
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name))
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this)
  }

  *entries(): HeadersIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const values = this.#values.get(name) ?? []
      if (name === 'set-cookie') for (const value of values) yield [name, value]
      else yield [name, values.join(', ')]
    }
  }

  *keys(): HeadersIterator<string> {
    for (const [name] of this.entries()) yield name
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries()
  }

  get [Symbol.toStringTag](): string {
    return 'Headers'
  }
}

/** Any iterable init (a Headers of either kind, an array of pairs) is read as pairs, as the standard does. */
function isPairs(init: object): init is Iterable<Iterable<unknown>> {
  return typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// HTTP whitespace: tab, line feed, carriage return, space (the standard's "normalize").
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g
// NUL, CR and LF, as the standard says; beyond U+00FF a value is no byte string (WebIDL refuses it).
const FORBIDDEN_IN_VALUE = /[\0\r\n]|[^\0-\xff]/

function checkedName(name: string): string {
  const text = String(name)
  if (!TOKEN.test(text)) throw new TypeError(`Headers: "${text}" is an invalid header name.`)
  return text.toLowerCase()
}

function checkedValue(value: string, name: string): string {
  const normal = String(value).replace(EDGE_WHITESPACE, '')
  if (FORBIDDEN_IN_VALUE.test(normal)) {
    throw new TypeError(`Headers: the value of "${name}" is an invalid header value.`)
  }
  return normal
}
