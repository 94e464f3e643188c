/** A fetched page after conversion, as WebFetch keeps it for 15 minutes. */
export interface CachedPage {
  /** Where the content came from (after same-site redirects). */
  finalUrl: string
  redirects: string[]
  status: number
  mime: string
  title: string
  /** `markdown` when converted from HTML, else the text as served. */
  format: 'markdown' | 'text'
  text: string
  /** Bytes of the body as received (decoded from gzip/br). */
  sourceBytes: number
  /** The body was cut at the download cap, or the HTML at the conversion cap. */
  cut: string | undefined
  fetchedAt: number
}

export interface FetchCache {
  get(url: string): CachedPage | undefined
  set(url: string, page: CachedPage): void
}

export interface FetchCacheOptions {
  ttlMs?: number
  maxEntries?: number
  /** Total characters of page text kept. */
  maxChars?: number
  now?: () => number
}

/**
 * An in-memory cache of converted pages for one session (each session's WebFetch tool owns one): entries
 * live 15 minutes, the least recently used go first when it holds 50 pages or 20 M characters.
 */
export function createFetchCache(opts: FetchCacheOptions = {}): FetchCache {
  const ttl = opts.ttlMs ?? 15 * 60_000
  const maxEntries = opts.maxEntries ?? 50
  const maxChars = opts.maxChars ?? 20_000_000
  const now = opts.now ?? Date.now
  // Map order is recency order: a hit moves its entry to the end.
  const entries = new Map<string, CachedPage>()
  let chars = 0
  const drop = (key: string) => {
    const page = entries.get(key)
    if (!page) return
    entries.delete(key)
    chars -= page.text.length
  }
  return {
    get(url) {
      const page = entries.get(url)
      if (!page) return undefined
      drop(url)
      if (now() - page.fetchedAt >= ttl) return undefined
      entries.set(url, page)
      chars += page.text.length
      return page
    },
    set(url, page) {
      drop(url)
      if (page.text.length > maxChars) return
      entries.set(url, page)
      chars += page.text.length
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries && chars <= maxChars) break
        drop(key)
      }
    },
  }
}
