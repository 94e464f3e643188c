import { type CommandTable, parseSlash, promptOfLine } from '../ui/commands/command-table.js'
import type { Session } from './session/create-session.js'

/** A prompt given on the command line; `agent-tui "/review src"` runs the command once commands are loaded. */
export function sendFirstPrompt(
  prompt: string,
  session: Session,
  table: CommandTable,
  loaded: Promise<unknown>,
): void {
  const parsed = parseSlash(prompt)
  if (!parsed) {
    session.runtime.submit({ text: prompt })
    return
  }
  const warn = (text: string) =>
    session.store.dispatch({ type: 'notice/added', id: 'first-prompt', level: 'warn', text })
  void loaded
    .catch(() => undefined)
    .then(async () => {
      // An MCP prompt's server is most likely still starting: the runtime waits for it.
      if (parsed.name.startsWith('mcp__') && !table.find(parsed.name)) {
        await session.commands.runMcpPrompt(parsed.name, parsed.args).catch((error: unknown) => {
          warn(`/${parsed.name} failed: ${error instanceof Error ? error.message : String(error)}`)
        })
        return
      }
      const resolved = await promptOfLine(table, prompt, session.store.getState())
      if (resolved === null) session.commands.submit({ text: prompt })
      else if (resolved.ok) session.commands.submit(resolved.input)
      else warn(resolved.message)
    })
}
