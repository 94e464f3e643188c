/** What the client keeps of a server's tools and prompts, and error texts. Pure. */

export interface McpToolInfo {
  /** The server's own name for the tool. */
  name: string
  description: string
  inputSchema: Record<string, unknown>
  /** The server says the tool only reads (`readOnlyHint`). */
  readOnly: boolean
}

export interface McpPromptInfo {
  name: string
  description?: string
  arguments: Array<{ name: string; description?: string; required: boolean }>
}

export function toToolInfo(tool: {
  name: string
  title?: string
  description?: string
  inputSchema: Record<string, unknown>
  annotations?: { readOnlyHint?: boolean; title?: string }
}): McpToolInfo {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    inputSchema: tool.inputSchema,
    readOnly: tool.annotations?.readOnlyHint === true,
  }
}

export function toPromptInfo(prompt: {
  name: string
  description?: string
  arguments?: Array<{ name: string; description?: string; required?: boolean }>
}): McpPromptInfo {
  return {
    name: prompt.name,
    ...(prompt.description ? { description: prompt.description } : {}),
    arguments: (prompt.arguments ?? []).map((a) => ({
      name: a.name,
      ...(a.description ? { description: a.description } : {}),
      required: a.required === true,
    })),
  }
}

export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  // `fetch failed` says nothing by itself: its cause says what (connect ECONNREFUSED 127.0.0.1:4000).
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  if (cause?.message) return `${text}: ${cause.message}`
  return cause?.code ? `${text} (${cause.code})` : text
}

export function lastLines(text: string, n: number): string {
  return text.split('\n').filter(Boolean).slice(-n).join(' | ').slice(-400)
}
