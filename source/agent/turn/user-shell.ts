import type { Store } from '../../store/create-store.js'
import type { SessionTools } from '../runtime/session-tools.js'
import type { ToolHost } from '../tool-call/tool-host.js'

/**
 * The user's own command (`!` at the prompt): run by Bash and put into the conversation as their message.
 * It runs outside the OS sandbox: it is how they run what the sandbox keeps the model from doing.
 */
export async function runUserShell(
  deps: { tools: SessionTools; host: ToolHost; store: Store; newId: () => string },
  command: string,
): Promise<void> {
  const bash = deps.tools.own('Bash')
  if (!bash) throw new Error('Bash is not available')
  const controller = new AbortController()
  const { sandbox: _modelsOnly, ...ctx } = deps.host.context(controller.signal, () => undefined)
  const result = await bash.execute({ command }, ctx)
  const content = `I ran \`${command}\` in the shell myself. Output:\n${result.forModel}`
  deps.store.dispatch({
    type: 'user/submitted',
    id: deps.newId(),
    content,
    text: `! ${command}\n${result.forModel}`,
  })
}
