import {
  describeTextReply,
  detectTextToolCall,
  serverKindOf,
  serverLabel,
  toolCallFix,
} from '../../provider/tool-support.js'

/**
 * The first-turn probe (docs/troubleshooting.md#the-model-writes-tool-calls-as-text): until the session
 * has seen one real tool call, a reply to a tool-bearing request that is a call written as text gets one
 * notice saying what is wrong and how to fix the server. Once per session; after a real call the endpoint
 * has shown it does tool calls, and nothing more is checked. A call the provider recovered from text
 * arrives here as a real call. (Sessions never require a call, so prose is never judged here: `doctor`
 * requires one.)
 */
export interface ToolReplyCheck {
  /** The notice to show, or null. */
  observe(reply: ToolReply): string | null
}

export interface ToolReply {
  text: string
  toolCalls: number
  /** The request's tool names (empty: the request had no tools, nothing to judge). */
  toolNames(): readonly string[]
  baseUrl: string
  model: string
}

export function createToolReplyCheck(): ToolReplyCheck {
  let armed = true
  return {
    observe(reply) {
      if (!armed) return null
      if (reply.toolCalls > 0) {
        armed = false
        return null
      }
      if (reply.text.trim() === '') return null
      const names = reply.toolNames()
      if (names.length === 0) return null
      const call = detectTextToolCall(reply.text, names)
      if (!call) return null
      armed = false
      const kind = serverKindOf(reply.baseUrl)
      return `${serverLabel(kind, reply.baseUrl)}: ${describeTextReply(call, false)}. To fix it, ${toolCallFix(kind, reply.model)}; \`agent-tui doctor\` checks the endpoint.`
    },
  }
}
