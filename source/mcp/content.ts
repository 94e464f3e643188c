import type { ImagePart } from '../store/messages.js'

/**
 * MCP content (tool results, resources, prompt messages) as text for the model, with images as image
 * parts for vision models. Structural types, so this module does not load the SDK. Pure.
 */

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: 'resource'; resource: ResourceContents }
  | { type: string; [key: string]: unknown }

export interface ResourceContents {
  uri: string
  mimeType?: string
  text?: string
  blob?: string
}

export interface Converted {
  text: string
  images: ImagePart[]
}

/** Bytes encoded by a base64 string. */
export function base64Size(data: string): number {
  const clean = data.replace(/\s/g, '')
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding)
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** One resource's contents: its text, or a note with the size and type of a binary blob. */
export function resourceText(contents: ResourceContents): string {
  if (typeof contents.text === 'string') return contents.text
  const size = typeof contents.blob === 'string' ? formatBytes(base64Size(contents.blob)) : 'unknown size'
  return `[binary resource ${contents.uri}: ${contents.mimeType ?? 'unknown type'}, ${size}; not shown as text]`
}

/** Content blocks (a tool result's or a prompt message's) as text plus images. */
export function convertContent(blocks: readonly ContentBlock[], vision: boolean): Converted {
  const parts: string[] = []
  const images: ImagePart[] = []
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(String(block.text ?? ''))
        break
      case 'image': {
        const { data, mimeType } = block as { data: string; mimeType: string }
        const size = formatBytes(base64Size(data))
        if (vision) {
          images.push({ type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } })
          parts.push(`[image ${images.length}: ${mimeType}, ${size}; it follows]`)
        } else parts.push(`[image: ${mimeType}, ${size}; the current model cannot see images]`)
        break
      }
      case 'audio': {
        const { data, mimeType } = block as { data: string; mimeType: string }
        parts.push(`[audio: ${mimeType}, ${formatBytes(base64Size(data))}; not available as text]`)
        break
      }
      case 'resource_link': {
        const link = block as Extract<ContentBlock, { type: 'resource_link' }>
        const about = [link.name, link.mimeType, link.description].filter(Boolean).join(', ')
        parts.push(`[resource ${link.uri}${about ? ` (${about})` : ''}; read it with ReadMcpResource]`)
        break
      }
      case 'resource': {
        const contents = (block as { resource: ResourceContents }).resource
        parts.push(
          typeof contents.text === 'string'
            ? `<resource uri="${contents.uri}">\n${contents.text}\n</resource>`
            : resourceText(contents),
        )
        break
      }
      default:
        parts.push(`[${block.type} content not shown]`)
    }
  }
  return { text: parts.join('\n'), images }
}

/** A tool result's text: its content, or its structured content as JSON when that is all it has. */
export function toolResultText(
  result: { content?: readonly ContentBlock[]; structuredContent?: unknown },
  vision: boolean,
): Converted {
  const converted = convertContent(result.content ?? [], vision)
  if (converted.text.trim() === '' && result.structuredContent !== undefined)
    return { text: JSON.stringify(result.structuredContent, null, 2), images: converted.images }
  return converted
}

/** resources/list and resources/templates/list answers as ListMcpResources entries. */
export function resourceEntries(found: {
  resources: ReadonlyArray<{ uri: string; name?: string; mimeType?: string; description?: string }>
  templates: ReadonlyArray<{ uriTemplate: string; name?: string; mimeType?: string; description?: string }>
}) {
  const entry = (uri: string, r: { name?: string; mimeType?: string; description?: string }) => ({
    uri,
    ...(r.name ? { name: r.name } : {}),
    ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    ...(r.description ? { description: r.description } : {}),
  })
  return {
    resources: found.resources.map((r) => entry(r.uri, r)),
    templates: found.templates.map((t) => entry(t.uriTemplate, t)),
  }
}

/** A resources/read answer as text: one part as it is, several each under its URI. */
export function formatResource(uri: string, result: { contents: readonly ResourceContents[] }): string {
  const parts = result.contents.map((c) => {
    const body = resourceText(c)
    return result.contents.length > 1 || c.uri !== uri
      ? `--- ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}\n${body}`
      : body
  })
  return parts.join('\n\n') || '(empty resource)'
}
