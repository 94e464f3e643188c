import {
  describeTextReply,
  detectTextToolCall,
  serverKindOf,
  serverLabel,
  toolCallFix,
} from '../../provider/tool-support.js'

/**
 * The first-turn probe (docs/troubleshooting.md#the-model-writes-tool-calls-as-text): the session's first
 * reply to a tool-bearing request, when it is a tool call written as text, gets one notice saying what is
 * wrong and how to fix the server. Only that first reply is judged (later ones may quote markup the model
 * read), and only when the provider's text tool-call recovery (provider/text-tool-calls.ts, on for local
 * model profiles) did not handle it: a call it recovered arrives here as a real call, and markup it saw but
 * did not run (unknown tool, quoted, unreadable) has its own notice. (Sessions never require a call, so
 * prose is never judged here: `doctor` requires one.)
 */
export interface ToolReplyCheck {
  /** The notice to show, or null. */
  observe(reply: ToolReply): string | null
}

export interface ToolReply {
  text: string
  toolCalls: number
  /** The text tool-call recovery reported on this reply (it says its own notice). */
  recoveryReported?: boolean
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
      const names = reply.toolNames()
      if (names.length === 0) return null
      // The first tool-bearing reply decides, whatever it is.
      armed = false
      if (reply.toolCalls > 0 || reply.recoveryReported) return null
      const call = detectTextToolCall(reply.text, names)
      if (!call) return null
      const kind = serverKindOf(reply.baseUrl)
      return `${serverLabel(kind, reply.baseUrl)}: ${describeTextReply(call, false)}. To fix it, ${toolCallFix(kind, reply.model)}; \`agent-tui doctor\` checks the endpoint.`
    },
  }
}
