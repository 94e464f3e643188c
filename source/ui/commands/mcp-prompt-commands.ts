/**
 * MCP prompts as slash commands (`/mcp__server__prompt args`): a loader that keeps the command table in
 * step with the servers' prompts in the store, adding entries when a server connects or changes its
 * prompts and taking them out when it goes. Running one asks the runtime for the prompt and sends it.
 */
import type { Store } from '../../store/create-store.js'
import type { McpServerView } from '../../store/domain.js'
import type { AddedCommands, CommandTable, SlashCommand } from './command-table.js'

/** The entries for the servers' prompts. */
export function mcpPromptCommands(servers: readonly McpServerView[]): SlashCommand[] {
  return servers.flatMap((server) =>
    server.prompts.map((prompt) => {
      const hint = prompt.usage.slice(prompt.command.length + 2)
      return {
        name: prompt.command,
        ...(hint ? { argumentHint: hint } : {}),
        description: `${prompt.description ?? prompt.name} (MCP prompt of ${server.name})`,
        source: `mcp:${server.name}`,
        run: (ctx, args) => ctx.commands.runMcpPrompt(prompt.command, args),
      } satisfies SlashCommand
    }),
  )
}

/** Keeps `table` in step with the store's MCP prompts until the returned function is called. */
export function syncMcpPromptCommands(table: CommandTable, store: Store): () => void {
  let servers: readonly McpServerView[] | undefined
  let shown = ''
  let added: AddedCommands | undefined
  const sync = () => {
    const next = store.getState().mcp.servers
    if (next === servers) return
    servers = next
    const entries = mcpPromptCommands(next)
    const key = JSON.stringify(entries.map((e) => [e.name, e.argumentHint, e.description]))
    if (key === shown) return
    shown = key
    added?.remove()
    added = entries.length ? table.add(entries) : undefined
  }
  const unsubscribe = store.subscribe(sync)
  sync()
  return () => {
    unsubscribe()
    added?.remove()
  }
}
