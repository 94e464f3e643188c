import type { McpServer } from '@modelcontextprotocol/server'
import type { Mode } from '../../store/domain.js'
import type { TextWriter } from '../../util/display-text.js'
import { annotationsOf, passThroughSchema, toolResultOf } from './tool-results.js'
import type { ToolSession } from './tool-session.js'

/**
 * Lists each exposed built-in tool on the MCP server under its own name, schema and description; a call
 * goes to the tool session (tool-session.ts). A refusal or a failure is an `isError` result, and one line
 * on stderr for whoever started the server.
 */
export function registerBuiltinTools(
  mcp: McpServer,
  tools: ToolSession,
  io: { mode: Mode; closing: AbortSignal; log: TextWriter },
): void {
  const { mode, closing, log } = io
  for (const tool of tools.tools) {
    mcp.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: passThroughSchema(tool),
        annotations: annotationsOf(tool),
      },
      async (args, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken
        let progress = 0
        const onProgress = (message: string) => {
          if (progressToken === undefined) return
          progress++
          void ctx.mcpReq
            .notify({ method: 'notifications/progress', params: { progressToken, progress, message } })
            .catch(() => undefined)
        }
        const signal = AbortSignal.any([ctx.mcpReq.signal, closing])
        const outcome = await tools.call(tool.name, args, signal, onProgress).catch((error: unknown) => {
          // The pipeline never throws; should anything around it, the server stays up and says so.
          const message = error instanceof Error ? error.message : String(error)
          log.write(`agent-tui mcp serve: ${tool.name} failed: ${message}\n`)
          return null
        })
        if (!outcome)
          return {
            isError: true,
            content: [{ type: 'text' as const, text: `${tool.name} failed: see the server's stderr` }],
          }
        if (!outcome.ok)
          log.write(`agent-tui mcp serve: ${outcome.summary}: ${outcome.errorMessage ?? 'failed'}\n`)
        return toolResultOf(outcome, mode)
      },
    )
  }
}
