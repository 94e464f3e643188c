import type { McpServerStatus } from '../store/domain.js'
import { ToolError } from '../tools/types.js'
import { McpCallError, type McpConnection } from './connection.js'
import { resourceEntries } from './content.js'
import { promptArguments, promptCommand, promptText } from './prompts.js'

/** What the manager asks of several servers at once: their resources, the prompt behind a command. */

export async function listServerResources(
  servers: ReadonlyArray<{ name: string; conn: McpConnection | undefined; status: McpServerStatus }>,
  server: string | undefined,
  signal: AbortSignal,
) {
  const targets = servers
    .filter((e) => (server ? e.name === server : e.conn?.status === 'connected' && e.status !== 'disabled'))
    .sort((a, b) => a.name.localeCompare(b.name))
  return Promise.all(
    targets.map(async (e) => {
      try {
        if (!e.conn || e.status === 'disabled')
          throw new McpCallError(
            'execution',
            e.status === 'disabled' ? 'disabled by the user in this session' : `not started (${e.status})`,
          )
        return { server: e.name, ...resourceEntries(await e.conn.listResources(signal)) }
      } catch (error) {
        return { server: e.name, resources: [], templates: [], error: (error as Error).message }
      }
    }),
  )
}

/**
 * Runs the prompt behind `/mcp__server__prompt args`: the user message it expands to, or throws an
 * Error saying what is wrong (unknown prompt, missing argument, server down).
 */
export async function expandServerPrompt(
  servers: ReadonlyArray<{ conn: McpConnection | undefined; key: string }>,
  command: string,
  argText: string,
  vision: boolean,
  signal: AbortSignal,
) {
  for (const { conn, key } of servers) {
    const prompt = conn?.prompts.find((p) => promptCommand(key, p.name) === command)
    if (!conn || !prompt) continue
    const args = promptArguments(command, prompt, argText)
    try {
      const result = await conn.getPrompt(prompt.name, args, signal)
      return promptText(result.messages as Parameters<typeof promptText>[0], vision)
    } catch (error) {
      throw new Error((error as Error).message)
    }
  }
  throw new Error(`no MCP prompt /${command} — /mcp lists the servers and their prompts`)
}

export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error
  if (error instanceof McpCallError)
    return new ToolError(error.category, error.message, error.hint ? { hint: error.hint } : {})
  return new ToolError('execution', (error as Error).message ?? String(error))
}
