import type { EmbeddingsSettings } from './schema.js'

/**
 * Where CodeSearch's embeddings come from (docs/configuration.md#code-search). Pure. The chat endpoint's
 * base URL by default; its API key and custom headers go along only to the chat endpoint's own origin,
 * never to another host (`embeddings.baseUrl` elsewhere needs its own `apiKey` or `apiKeyEnv`).
 */

export interface ResolvedEmbeddings {
  model: string
  baseUrl: string
  apiKey?: string
  headers?: Record<string, string>
  dimensions?: number
  images: boolean
  batchSize: number
  api: 'openai' | 'voyage-multimodal'
}

export const DEFAULT_EMBEDDING_BATCH = 64

export function resolveEmbeddings(opts: {
  model: string | undefined
  settings: EmbeddingsSettings | undefined
  chat: { baseUrl: string; apiKey?: string; headers?: Record<string, string> }
  env: Readonly<Record<string, string | undefined>>
  warnings: string[]
}): ResolvedEmbeddings | undefined {
  const { settings, chat } = opts
  if (opts.model === undefined) return undefined
  const baseUrl = (settings?.baseUrl ?? chat.baseUrl).replace(/\/+$/, '')
  const sameOrigin = originOf(baseUrl) === originOf(chat.baseUrl)
  const named = settings?.apiKeyEnv
  const fromEnv = named && opts.env[named] !== '' ? opts.env[named] : undefined
  if (named && fromEnv === undefined && settings?.apiKey === undefined)
    opts.warnings.push(
      `"embeddings.apiKeyEnv" names ${named}, which is not set: no key is sent for embeddings`,
    )
  const apiKey = settings?.apiKey ?? fromEnv ?? (sameOrigin ? chat.apiKey : undefined)
  const headers =
    sameOrigin && chat.headers && Object.keys(chat.headers).length > 0 ? chat.headers : undefined
  return {
    model: opts.model,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    ...(headers ? { headers } : {}),
    ...(settings?.dimensions !== undefined ? { dimensions: settings.dimensions } : {}),
    images: settings?.images === true,
    batchSize: settings?.batchSize ?? DEFAULT_EMBEDDING_BATCH,
    api: settings?.api ?? 'openai',
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
