/**
 * `/mcp`: the panel, or a change for this session without a restart — `enable`/`disable` a server or one
 * of its tools, `add` a server (a command, or `--url` for an HTTP one; `--save` also writes it to the
 * user's settings), `remove` one (docs/mcp.md#the-mcp-panel). Parsing is pure and table-tested.
 */
import type { McpAddedServer } from '../../store/domain.js'
import type { CommandContext } from './command-context.js'
import type { SlashCommand } from './command-table.js'

export type McpArgs =
  | { kind: 'panel' }
  | { kind: 'toggle'; server: string; tool?: string; enabled: boolean }
  | { kind: 'add'; name: string; server: McpAddedServer; save: boolean }
  | { kind: 'remove'; name: string }
  | { kind: 'usage'; message: string }

export const MCP_USAGE =
  'usage: /mcp · /mcp enable|disable <server> [tool] · /mcp add [--save] <name> <command> [args…] · /mcp add [--save] <name> --url <url> · /mcp remove <server>'

/** Words as a shell would split them, quotes ('…', "…") kept together and taken off. */
export function splitWords(text: string): string[] {
  const words: string[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"']+)/g
  let current = ''
  let last = -1
  for (const m of text.matchAll(re)) {
    const part = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3] ?? '')
    // Pieces that touch (`--x="a b"`) are one word.
    if (last === m.index && words.length) current = `${words.pop()}${part}`
    else current = part
    words.push(current)
    last = m.index + m[0].length
  }
  return words
}

export function parseMcpArgs(args: string): McpArgs {
  const words = splitWords(args.trim())
  const [verb, ...rest] = words
  if (verb === undefined) return { kind: 'panel' }
  if (verb === 'enable' || verb === 'disable') {
    const [server, tool, ...extra] = rest
    if (server === undefined || extra.length) return { kind: 'usage', message: MCP_USAGE }
    return { kind: 'toggle', server, ...(tool !== undefined ? { tool } : {}), enabled: verb === 'enable' }
  }
  if (verb === 'remove' || verb === 'rm') {
    const [name, ...extra] = rest
    if (name === undefined || extra.length) return { kind: 'usage', message: MCP_USAGE }
    return { kind: 'remove', name }
  }
  if (verb === 'add') return parseAdd(rest)
  return { kind: 'usage', message: MCP_USAGE }
}

/** `[--save] <name> (--url <url> | <command> [args…])`: options before the command; what follows is its own. */
function parseAdd(words: readonly string[]): McpArgs {
  let save = false
  let url: string | undefined
  let name: string | undefined
  let i = 0
  for (; i < words.length; i++) {
    const word = words[i] ?? ''
    if (word === '--save') save = true
    else if (word === '--url') {
      url = words[++i]
      if (url === undefined) return { kind: 'usage', message: "/mcp add: --url needs the server's URL" }
    } else if (word.startsWith('--url=')) url = word.slice('--url='.length)
    else if (name === undefined && !word.startsWith('--')) name = word
    else break
  }
  const command = words.slice(i)
  if (name === undefined) return { kind: 'usage', message: MCP_USAGE }
  if (url !== undefined) {
    if (command.length) return { kind: 'usage', message: '/mcp add: give a command or --url, not both' }
    if (!/^https?:\/\/\S+$/.test(url))
      return { kind: 'usage', message: `/mcp add: "${url}" is not an http(s) URL` }
    return { kind: 'add', name, server: { type: 'http', url }, save }
  }
  const [program, ...programArgs] = command
  if (program === undefined) return { kind: 'usage', message: MCP_USAGE }
  return { kind: 'add', name, server: { command: program, args: programArgs }, save }
}

export async function mcpCommand(ctx: CommandContext, args: string): Promise<void> {
  const parsed = parseMcpArgs(args)
  const { commands } = ctx
  if (parsed.kind === 'panel') return ctx.showMcp()
  if (parsed.kind === 'usage') return ctx.flash(parsed.message, 'warn')
  const done =
    parsed.kind === 'toggle'
      ? await commands.setMcpEnabled(parsed.server, parsed.enabled, parsed.tool)
      : parsed.kind === 'add'
        ? await commands.addMcpServer(parsed.name, parsed.server, parsed.save)
        : await commands.removeMcpServer(parsed.name)
  ctx.flash(done)
}

const VERBS = [
  { value: 'enable', detail: 'turn a server or a tool on again' },
  { value: 'disable', detail: 'turn a server or one of its tools off for this session' },
  { value: 'add', detail: 'a server for this session: <name> <command> [args…] or --url <url>' },
  { value: 'remove', detail: 'a server out of this session' },
]

export const MCP_COMMAND: SlashCommand = {
  name: 'mcp',
  argumentHint: '[enable|disable|add|remove …]',
  description: 'MCP servers: status, tools, restart, sign in; turn on/off, add, remove for this session',
  completeArguments(partial, state) {
    const words = partial.split(/\s+/)
    if (words.length <= 1) return VERBS.filter((v) => v.value.startsWith(partial))
    const [verb, server = ''] = words
    if (words.length !== 2 || !['enable', 'disable', 'remove'].includes(verb ?? '')) return []
    return state.mcp.servers
      .filter((s) => s.name.startsWith(server))
      .map((s) => ({ value: `${verb} ${s.name}`, detail: s.status }))
  },
  run: mcpCommand,
}
