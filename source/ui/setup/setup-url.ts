/** The base URL typed into the setup form: read generously, checked strictly. Pure. */

const LOCAL_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(:\d+)?(\/|$)/i

/**
 * `127.0.0.1:8080/v1` → `http://127.0.0.1:8080/v1`, `api.example.com/v1` → `https://api.example.com/v1`
 * (a missing scheme is http for this machine, https elsewhere); no trailing slash.
 */
export function normalizeBaseUrl(typed: string): { url: string } | { error: string } {
  const text = typed.trim()
  if (text === '')
    return { error: 'Type the base URL of an OpenAI-compatible endpoint, such as https://api.openai.com/v1' }
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
    ? text
    : `${LOCAL_HOST.test(text) ? 'http' : 'https'}://${text}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return { error: `"${text}" is not a URL` }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { error: `${url.protocol.slice(0, -1)}: is not http or https` }
  if (url.search || url.hash) return { error: 'The base URL takes no ?query or #fragment' }
  if (url.username || url.password) return { error: 'Put the key in the next step, not in the URL' }
  return { url: url.href.replace(/\/+$/, '') }
}

/** Whether the URL is this machine's (no key is needed by default there). */
export function isLoopbackUrl(url: string): boolean {
  try {
    return LOCAL_HOST.test(new URL(url).host)
  } catch {
    return false
  }
}
