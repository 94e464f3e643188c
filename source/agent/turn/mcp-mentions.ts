import type { ContentPart } from '../../store/messages.js'
import { boundOutput } from '../../tools/spill.js'
import type { OutputSpiller } from '../../tools/types.js'
import type { UserInput } from './user-input.js'
import type { McpRuntime } from '../runtime/session-tools.js'

/**
 * MCP in the user's message. `@server:uri` in a prompt attaches that MCP resource (Claude Code's form): the user sees the prompt as
 * typed, the model gets the resource's text after it. Only names of configured servers count, so an
 * e-mail address or `@path:line` stays plain text.
 */

export interface Mention {
  server: string
  uri: string
}

/** Whether `text` has anything shaped like `@server:uri` (before the server names are known). */
export function mayMention(text: string): boolean {
  return /(?:^|\s)@[^\s:@]+:\S/.test(text)
}

/** Mentions in `text` whose server is one of `servers`, in order, without repeats. */
export function findMentions(text: string, servers: readonly string[]): Mention[] {
  if (servers.length === 0 || !text.includes('@')) return []
  const known = new Set(servers)
  const found: Mention[] = []
  for (const m of text.matchAll(/(?:^|\s)@([^\s:@]+):(\S+)/g)) {
    const server = m[1] ?? ''
    const uri = (m[2] ?? '').replace(/[.,;!?)]+$/, '')
    if (!known.has(server) || uri === '') continue
    if (!found.some((f) => f.server === server && f.uri === uri)) found.push({ server, uri })
  }
  return found
}

/** Appends each mentioned resource to the message content; a resource that cannot be read is reported. */
export async function attachMentions(
  content: string | ContentPart[],
  mentions: readonly Mention[],
  read: (mention: Mention) => Promise<string>,
  spill: OutputSpiller,
  onError: (mention: Mention, message: string) => void,
): Promise<string | ContentPart[]> {
  const blocks: string[] = []
  for (const mention of mentions) {
    try {
      const text = await read(mention)
      const bounded = await boundOutput(text, {
        spiller: spill,
        hint: `mcp-${mention.server}-mention`,
        limit: 30_000,
      })
      blocks.push(
        `<mcp-resource server="${mention.server}" uri="${mention.uri}">\n${bounded.text}\n</mcp-resource>`,
      )
    } catch (error) {
      onError(mention, error instanceof Error ? error.message : String(error))
    }
  }
  if (blocks.length === 0) return content
  const attached = `\n\n${blocks.join('\n\n')}`
  if (typeof content === 'string') return content + attached
  return [...content, { type: 'text', text: attached.trimStart() }]
}

/** A message with the MCP resources it mentions attached (the configuration is read first if need be). */
export async function withMentions(
  input: UserInput,
  mcp: McpRuntime,
  spill: OutputSpiller,
  signal: AbortSignal,
  warn: (text: string) => void,
): Promise<UserInput> {
  if (!mayMention(input.text)) return input
  // The servers' names are known once the configuration was read (at once headless).
  await mcp.start()
  const mentions = findMentions(input.text, mcp.serverNames())
  if (mentions.length === 0) return input
  const content = await attachMentions(
    input.content,
    mentions,
    (m) => mcp.readMention(m.server, m.uri, signal),
    spill,
    (m, message) => warn(`@${m.server}:${m.uri} not attached: ${message}`),
  )
  return { ...input, content }
}

/**
 * `/mcp__server__prompt args` as the user's message: the prompt's text, shown as the command typed. A prompt
 * sent before its server is up (`-p "/mcp__server__prompt"`, or given on the command line) waits for the
 * servers still starting, as the first request does.
 */
export async function mcpPromptInput(
  mcp: { runtime: McpRuntime; startupWaitMs: number } | undefined,
  command: string,
  args: string,
  vision: boolean,
): Promise<UserInput> {
  if (!mcp) throw new Error('no MCP servers in this session')
  const expand = () => mcp.runtime.expandPrompt(command, args, vision, new AbortController().signal)
  await mcp.runtime.start()
  const prompt = await expand().catch(async (error: unknown) => {
    if (mcp.runtime.connecting().length === 0) throw error
    await mcp.runtime.settle(mcp.startupWaitMs)
    return expand()
  })
  const text = `/${command}${args ? ` ${args}` : ''}`
  const content: UserInput['content'] = prompt.images.length
    ? [{ type: 'text', text: prompt.text }, ...prompt.images]
    : prompt.text
  return { content, text }
}
