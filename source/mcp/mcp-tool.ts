import { z } from 'zod'
import { boundOutput } from '../tools/spill.js'
import { type AnyTool, defineTool, type ToolContext, ToolError } from '../tools/types.js'
import type { ArgumentCheck } from './argument-check.js'
import type { McpCallError, McpToolInfo } from './connection.js'
import { type ContentBlock, toolResultText } from './content.js'
import { trimSchema } from './schema-trim.js'

/**
 * An MCP server's tool as one of the session's tools: the server's JSON schema as its parameters,
 * `readOnlyHint` as the read class (no prompt in safe mode), anything else asks (class exec, so plan
 * mode and ci deny it too); output bounded and spilled like every other tool's.
 */

export const MAX_DESCRIPTION = 2048
const INLINE_LIMIT = 30_000

export interface McpToolRoute {
  /** `mcp__server__tool`. */
  exposed: string
  server: string
  info: McpToolInfo
  call(
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; onProgress?: (text: string) => void },
  ): Promise<{ content?: ContentBlock[]; structuredContent?: unknown; isError?: boolean }>
}

/**
 * The server's input schema as tool parameters: trimmed of what a call does not need (schema-trim.ts),
 * always an object with properties.
 */
export function toolParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const rest = trimSchema(schema)
  return { ...rest, type: 'object', properties: isObject(rest.properties) ? rest.properties : {} }
}

export function toolDescription(server: string, info: McpToolInfo): string {
  const text = info.description.trim() || `Tool ${info.name} of the MCP server ${server}.`
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text
}

/** Compact arguments for a card or prompt line: `path: "a.txt", tail: 5`. */
export function summarizeArguments(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const text = JSON.stringify(value) ?? 'undefined'
    return `${key}: ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`
  })
  const line = parts.join(', ')
  return line.length > 160 ? `${line.slice(0, 159)}…` : line
}

export function createMcpTool(route: McpToolRoute, check?: ArgumentCheck): AnyTool {
  const { info, server } = route
  return defineTool<Record<string, unknown>>({
    name: route.exposed,
    description: toolDescription(server, info),
    // Checked against the server's own (untrimmed) schema; the server checks again.
    schema: z.record(z.string(), z.unknown()).superRefine((args, ctx) => {
      const problem = check?.(args)
      if (problem) ctx.addIssue({ code: 'custom', message: `${server} › ${info.name}'s schema: ${problem}` })
    }),
    parameters: toolParameters(info.inputSchema),
    risk: info.readOnly ? 'read' : 'exec',
    isReadOnly: () => info.readOnly,
    permissionTarget: () => ({ kind: 'none' }),
    async preview(args) {
      return {
        kind: 'json',
        text: `MCP server ${server}, tool ${info.name}\n${JSON.stringify(args, null, 2)}`,
      }
    },
    summarize: (args) => summarizeArguments(args),
    async execute(args, ctx: ToolContext) {
      let result: Awaited<ReturnType<McpToolRoute['call']>>
      try {
        result = await route.call(args, { signal: ctx.signal, onProgress: (text) => ctx.onProgress(text) })
      } catch (error) {
        const failure = error as McpCallError
        throw new ToolError(failure.category ?? 'execution', failure.message ?? String(error), {
          ...(failure.hint ? { hint: failure.hint } : {}),
          ...(failure.category === 'timeout' ? { retryable: true } : {}),
        })
      }
      const converted = toolResultText(result, ctx.supportsVision)
      const bounded = await boundOutput(converted.text || '(no output)', {
        spiller: ctx.spill,
        hint: `mcp-${server}-${info.name}`,
        limit: INLINE_LIMIT,
      })
      if (result.isError) {
        throw new ToolError('execution', `${server} › ${info.name} reported an error: ${bounded.text}`)
      }
      return {
        forModel: bounded.text,
        ...(converted.images.length ? { images: converted.images } : {}),
        display: { kind: 'text', text: bounded.text },
      }
    },
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
