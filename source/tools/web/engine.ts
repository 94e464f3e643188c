/**
 * WebFetch's network side (dns, http, https, zlib), loaded by the first fetch so none of it is on the
 * start-up path.
 */
export { fetchJudged } from './fetch-page.js'
export { toPage } from './page.js'
export { resolveHost, systemResolver } from './resolve.js'
