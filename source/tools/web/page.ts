import { ToolError } from '../types.js'
import { contentKind, decodeBody, formatBytes, mimeOf, sniffContent } from './content.js'
import type { CachedPage } from './fetch-cache.js'
import { MAX_BODY_BYTES } from './fetch-page.js'
import type { HttpResponse } from './http-request.js'

/** HTML past this many characters is cut before conversion: turndown blocks the event loop ~0.3 s per MB. */
export const MAX_HTML_CHARS = 2_000_000

/**
 * Turns a final (non-redirect) response into the page WebFetch keeps: HTTP errors and binary bodies
 * become ToolErrors with the status, type and size; HTML goes through the lazily loaded converter; text,
 * Markdown and JSON pass through as served.
 */
export async function toPage(
  response: HttpResponse,
  url: URL,
  redirects: string[],
  now: number,
): Promise<CachedPage> {
  const contentType = firstHeader(response.headers['content-type'])
  const mime = mimeOf(contentType)
  if (response.status < 200 || response.status > 299) throw httpError(response, url, contentType)
  if (response.skipped) throw binaryError(url, mime, sizeOf(response))
  let kind = contentKind(contentType)
  if (kind === 'unknown') {
    const sniffed = sniffContent(response.body)
    if (sniffed.kind === 'binary')
      throw binaryError(url, mime ? `${mime}, ${sniffed.type}` : sniffed.type, sizeOf(response))
    kind = sniffed.kind
  }
  const decoded = decodeBody(response.body, contentType, kind === 'html')
  const cuts: string[] = []
  if (response.truncated) cuts.push(`the download was cut at ${formatBytes(MAX_BODY_BYTES)}`)
  const base = {
    finalUrl: url.href,
    redirects,
    status: response.status,
    mime: mime || (kind === 'html' ? 'text/html' : 'text/plain'),
    sourceBytes: response.body.length,
    fetchedAt: now,
  }
  if (kind !== 'html') {
    return { ...base, title: '', format: 'text', text: decoded, cut: cuts.join('; ') || undefined }
  }
  let html = decoded
  if (html.length > MAX_HTML_CHARS) {
    html = html.slice(0, MAX_HTML_CHARS)
    cuts.push(`only the first ${formatBytes(MAX_HTML_CHARS)} of HTML were converted`)
  }
  const { htmlToMarkdown } = await import('./html-to-markdown.js')
  const { markdown, title } = htmlToMarkdown(html, url.href)
  return { ...base, title, format: 'markdown', text: markdown, cut: cuts.join('; ') || undefined }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function sizeOf(response: HttpResponse): string {
  const declared = Number(firstHeader(response.headers['content-length']))
  if (Number.isFinite(declared) && declared > 0) return formatBytes(declared)
  return response.skipped ? 'size not given' : formatBytes(response.body.length)
}

function binaryError(url: URL, type: string, size: string): ToolError {
  return new ToolError(
    'validation',
    `${url.href} is binary content (${type}, ${size}); WebFetch reads HTML, text, Markdown and JSON only`,
    { hint: 'to get the file itself, download it with Bash (e.g. curl -L -o <file> <url>)' },
  )
}

function httpError(response: HttpResponse, url: URL, contentType: string | undefined): ToolError {
  const retryable = [408, 425, 429].includes(response.status) || response.status >= 500
  const excerpt = errorExcerpt(response, contentType)
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
  const hint =
    response.status === 404 || response.status === 410
      ? 'the page does not exist; check the URL or search for the current one'
      : response.status === 401 || response.status === 403
        ? 'the site refuses access without login or blocks automated clients; try another source'
        : retryable
          ? 'the server may recover; try again later or use another source'
          : undefined
  return new ToolError('network', `${status} from ${url.href}${excerpt ? `: ${excerpt}` : ''}`, {
    retryable,
    ...(hint ? { hint } : {}),
  })
}

function errorExcerpt(response: HttpResponse, contentType: string | undefined): string {
  if (response.skipped || response.body.length === 0) return ''
  if (contentKind(contentType) === 'binary') return ''
  const text = decodeBody(response.body.subarray(0, 64 * 1024), contentType, true)
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}
