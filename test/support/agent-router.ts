/**
 * Scripts for sessions with subagents. The main session's and the subagents' requests interleave in
 * any order, so each reply is routed by who asks: the main session (its system prompt is agent-tui's
 * own) takes the next main reply; a subagent takes the next reply of the script whose key its task
 * prompt contains.
 */
import type { RecordedRequest, ReplySource, ScriptedReply } from './scripted-types.ts'

type Msg = { role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }

export const MAIN_PROMPT_START = 'You are agent-tui'

export const messagesOf = (req: RecordedRequest | undefined): Msg[] => (req?.body.messages ?? []) as Msg[]
export const systemOf = (req: RecordedRequest | undefined): string =>
  String(messagesOf(req)[0]?.content ?? '')
export const toolNamesOf = (req: RecordedRequest | undefined): string[] =>
  ((req?.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name)
/** The task prompt a subagent was given (its first user message). */
export const taskOf = (req: RecordedRequest | undefined): string =>
  String(messagesOf(req).find((m) => m.role === 'user')?.content ?? '')
export const isMain = (req: RecordedRequest | undefined): boolean =>
  systemOf(req).startsWith(MAIN_PROMPT_START)
export const lastToolResult = (req: RecordedRequest | undefined): string =>
  String(
    messagesOf(req)
      .filter((m) => m.role === 'tool')
      .at(-1)?.content ?? '',
  )

export interface AgentRouter {
  /** Replies for the main session, in order. */
  main(...replies: ReplySource[]): AgentRouter
  /** Replies for the subagent whose task prompt contains `key`, in order. */
  agent(key: string, ...replies: ReplySource[]): AgentRouter
  /** Enough copies of the routing reply for `n` requests (enqueue them on the server). */
  sources(n?: number): ReplySource[]
}

export function agentRouter(): AgentRouter {
  const mainQueue: ReplySource[] = []
  const agents = new Map<string, ReplySource[]>()
  const take = (queue: ReplySource[] | undefined, req: RecordedRequest, who: string): ScriptedReply => {
    const next = queue?.shift()
    if (next === undefined) return { text: `(no more script for ${who})` }
    return typeof next === 'function' ? next(req) : next
  }
  const route = (req: RecordedRequest): ScriptedReply => {
    if (isMain(req)) return take(mainQueue, req, 'the main session')
    const task = taskOf(req)
    for (const [key, queue] of agents) if (task.includes(key)) return take(queue, req, `subagent "${key}"`)
    return { text: `(no script for a subagent asked: ${task.slice(0, 60)})` }
  }
  const router: AgentRouter = {
    main(...replies) {
      mainQueue.push(...replies)
      return router
    },
    agent(key, ...replies) {
      agents.set(key, [...(agents.get(key) ?? []), ...replies])
      return router
    },
    sources: (n = 60) => Array.from({ length: n }, () => route),
  }
  return router
}

export const agentCall = (args: Record<string, unknown>) => ({ name: 'Agent', arguments: args })
