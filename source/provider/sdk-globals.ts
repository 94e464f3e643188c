import { PlainHeaders } from './plain-headers.js'

/**
 * What the bundled openai SDK gets in place of the globals that live in undici (`scripts/build.mjs`,
 * `sdkWithoutUndici`): touching any of them loads undici, with `http2`, `tls` and web streams (~5 MB of
 * idle RSS, ~45 ms of CPU), although every request goes over the provider's own `node:http`
 * fetch. Only the bundle uses this module; tests run the SDK as published.
 */

/** The SDK builds each request's headers in one, and reads them back. */
export const Headers = PlainHeaders

/**
 * The SDK asks whether a request body is a `FormData`; only a body made with the global one is, and
 * that one says so in its tag. Asked without touching the global, so a JSON body does not load undici.
 */
export const FormData = {
  [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === '[object FormData]'
  },
}
