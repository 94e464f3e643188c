import { parametersOf } from '../../agent/prompt/tool-definitions.js'
import type { CallOutcome } from '../../agent/tool-call/pipeline.js'
import type { Mode } from '../../store/domain.js'
import type { AnyTool } from '../../tools/types.js'

/**
 * What a client sees of an exposed built-in tool (tool-session.ts) and of each call: the tool's own JSON
 * schema and description, as the model gets them, and the call's outcome as an MCP tool result. Pure.
 */

type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }

export interface ToolResult {
  [key: string]: unknown
  content: Content[]
  isError?: boolean
}

/** The tool's MCP annotations, from its risk class. */
export function annotationsOf(tool: AnyTool): {
  readOnlyHint: boolean
  destructiveHint: boolean
  openWorldHint: boolean
} {
  return {
    readOnlyHint: tool.risk === 'read',
    destructiveHint: tool.risk === 'edit' || tool.risk === 'exec' || tool.risk === 'spawn',
    openWorldHint: tool.risk === 'network' || tool.risk === 'exec',
  }
}

/**
 * A schema the server SDK lists as the tool's own JSON schema and lets every argument through: the
 * pipeline's validate phase checks them against the tool's zod schema, so a bad argument comes back as a
 * tool error naming the field (as the model gets it), never as a protocol error.
 */
export function passThroughSchema(tool: AnyTool) {
  const json = parametersOf(tool)
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'agent-tui',
      validate: (value: unknown) => ({ value }),
      jsonSchema: {
        input: (_options: { target: string }) => json,
        output: (_options: { target: string }) => json,
      },
    },
  }
}

/**
 * A call's outcome as the client gets it: the tool's text (and images), or `isError` with why and what to
 * do. `mode` is the one the server judges calls in (`--max-mode`).
 */
export function toolResultOf(outcome: CallOutcome, mode: Mode): ToolResult {
  if (outcome.ok) {
    const images = outcome.images.flatMap((part): Content[] => {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url)
      return match ? [{ type: 'image', mimeType: match[1] as string, data: match[2] as string }] : []
    })
    const content: Content[] = [{ type: 'text', text: outcome.content }, ...images]
    // A tool that ran and failed (a command's exit status, say) says so in its own text.
    return outcome.status === 'done' ? { content } : { content, isError: true }
  }
  const lines = [outcome.errorMessage ?? outcome.content]
  const hint = refusalHint(outcome, mode)
  if (hint) lines.push(hint)
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true }
}

/**
 * What to do about a failed call. For a refusal an allow rule would lift, that rule and the ceiling, for the
 * person who starts the server (there is nobody to ask); otherwise the pipeline's own hint.
 */
export function refusalHint(outcome: CallOutcome, mode: Mode): string | undefined {
  if (outcome.status === 'denied' && outcome.allowRule)
    return `this server judges calls in ${mode} mode (--max-mode ${mode}); to allow this one, start agent-tui mcp serve with --allowed-tools "${outcome.allowRule}", or a looser --max-mode`
  return outcome.errorHint?.replace(
    /only a user at the consent prompt can allow this one$/,
    '$& (agent-tui mcp serve has none)',
  )
}
