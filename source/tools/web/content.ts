import { SNIFF_BYTES, sniffBytes } from '../sniff.js'

/** What WebFetch does with a body of a given Content-Type. */
export type ContentKind = 'html' | 'text' | 'binary' | 'unknown'

const TEXT_APPLICATION =
  /^application\/(json|ld\+json|x-ndjson|xml|javascript|ecmascript|x-javascript|typescript|x-typescript|yaml|x-yaml|toml|x-toml|x-sh|x-shellscript|sql|graphql|x-httpd-php|rtf|csv|markdown|x-markdown|x-www-form-urlencoded|atom\+xml|rss\+xml)$/

export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

export function contentKind(contentType: string | undefined): ContentKind {
  const mime = mimeOf(contentType)
  if (mime === '' || mime === 'application/octet-stream' || mime === 'binary/octet-stream') return 'unknown'
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html'
  if (mime.startsWith('text/')) return 'text'
  if (TEXT_APPLICATION.test(mime) || mime.endsWith('+json') || mime.endsWith('+xml')) return 'text'
  return 'binary'
}

/** For bodies sent without a usable type: binary (with a name for it), HTML, or other text. */
export function sniffContent(body: Buffer): { kind: 'binary'; type: string } | { kind: 'html' | 'text' } {
  const sniffed = sniffBytes(body.subarray(0, SNIFF_BYTES), body.length > SNIFF_BYTES)
  if (sniffed.kind === 'image') return { kind: 'binary', type: sniffed.label }
  if (sniffed.kind === 'binary') return { kind: 'binary', type: sniffed.type }
  const head = body.subarray(0, 1024).toString('latin1').trimStart().toLowerCase()
  return head.startsWith('<!doctype html') || head.startsWith('<html') ? { kind: 'html' } : { kind: 'text' }
}

/**
 * Decodes a body by the charset of its Content-Type, else (HTML) of its `<meta charset>`, else UTF-8.
 * An unknown charset name falls back to UTF-8 rather than failing the fetch.
 */
export function decodeBody(body: Buffer, contentType: string | undefined, html: boolean): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1]
  const meta = html
    ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1]
    : undefined
  const label = declared ?? meta ?? 'utf-8'
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder(label)
  } catch {
    decoder = new TextDecoder('utf-8')
  }
  return decoder.decode(body)
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`
  return `${(n / (1024 * 1024)).toFixed(1)} MB`
}
