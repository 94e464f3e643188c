/**
 * Scripted servers that behave like the endpoints `agent-tui doctor` tells apart: one that does tool
 * calls, one that ignores `tools` and answers text (llama.cpp without --jinja), one that does not
 * stream, one without usage. Each is a reply function for every request (`fallback`). Only `node:`
 * imports and types, so serve-scenario.ts can use them (`{"endpoint": "ignores-tools"}`).
 */
import type { RecordedRequest, ScriptedCompletion } from './scripted-types.ts'

export type EndpointKind = 'tools' | 'ignores-tools' | 'writes-tool-calls' | 'no-stream' | 'no-usage'

export const ENDPOINT_KINDS: readonly EndpointKind[] = [
  'tools',
  'ignores-tools',
  'writes-tool-calls',
  'no-stream',
  'no-usage',
]

/**
 * What a server that does tool calls answers: a call of the request's first tool when the call is
 * required or the user's last message names it (as doctor's probe does), else text — so a session on
 * it does not loop on calls.
 */
function callFirstTool(request: RecordedRequest): ScriptedCompletion | null {
  const tools = Array.isArray(request.body.tools) ? request.body.tools : []
  const first = tools[0] as { function?: { name?: string; parameters?: { required?: string[] } } } | undefined
  const name = first?.function?.name
  if (!name) return null
  const messages = Array.isArray(request.body.messages) ? request.body.messages : []
  const last = messages.at(-1) as { role?: string; content?: unknown } | undefined
  const asked = last?.role === 'user' && typeof last.content === 'string' && last.content.includes(name)
  const forced = typeof request.body.tool_choice === 'object' && request.body.tool_choice !== null
  if (!asked && !forced) return null
  const args = Object.fromEntries((first.function?.parameters?.required ?? []).map((k) => [k, 'ok']))
  return { toolCalls: [{ name, arguments: args }] }
}

export function endpointReply(kind: EndpointKind): (request: RecordedRequest) => ScriptedCompletion {
  return (request) => {
    const hasTools = Array.isArray(request.body.tools) && request.body.tools.length > 0
    switch (kind) {
      case 'ignores-tools':
        return { text: hasTools ? 'The answer is ok.' : 'OK' }
      case 'writes-tool-calls': {
        const tools = (request.body.tools ?? []) as Array<{ function?: { name?: string } }>
        const name = tools[0]?.function?.name ?? 'record_answer'
        return {
          text: hasTools
            ? `<tool_call>\n{"name": "${name}", "arguments": {"answer": "ok"}}\n</tool_call>`
            : 'OK',
        }
      }
      case 'no-stream':
        return { ...(callFirstTool(request) ?? { text: 'OK' }), ignoreStream: true }
      case 'no-usage':
        return { ...(callFirstTool(request) ?? { text: 'OK' }), omitUsage: true }
      default:
        return callFirstTool(request) ?? { text: 'OK' }
    }
  }
}
