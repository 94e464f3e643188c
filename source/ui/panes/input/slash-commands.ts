import type { ImageAttachment, RuntimeCommands, SessionSummary } from '../../../agent/commands.js'
import { MODES, type Mode } from '../../../store/domain.js'
import type { State } from '../../../store/state.js'
import type { Prices } from '../status/format.js'
import { contextLines, costLines, memoryLines, permissionLines } from './slash-info.js'

export interface SlashCommand {
  name: string
  aliases: readonly string[]
  args: string
  description: string
  /** Set when the runtime cannot do this yet; shown instead of pretending to run. */
  unavailable?: string
}

/** SPEC §10 slash commands, in the order the completion popup lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'help', aliases: [], args: '', description: 'Show keys and commands' },
  { name: 'plan', aliases: [], args: '[on|off]', description: 'Toggle plan mode (read-only planning)' },
  { name: 'mode', aliases: [], args: '<safe|auto|plan>', description: 'Set the permission mode' },
  { name: 'model', aliases: [], args: '[id]', description: 'Show or switch the model' },
  {
    name: 'image',
    aliases: [],
    args: '<path> [question]',
    description: 'Attach an image (and ask about it)',
  },
  {
    name: 'compact',
    aliases: [],
    args: '[focus]',
    description: 'Summarise older history now',
    unavailable: 'compaction (manual and automatic) is not built yet; /clear starts afresh',
  },
  { name: 'clear', aliases: [], args: '', description: 'Start a fresh conversation' },
  { name: 'context', aliases: [], args: '', description: 'Show context window usage' },
  { name: 'cost', aliases: [], args: '', description: 'Show token usage and cost' },
  { name: 'tasks', aliases: ['bashes'], args: '', description: 'Focus the background tasks pane' },
  { name: 'todos', aliases: [], args: '', description: 'Show or hide the todo pane' },
  {
    name: 'permissions',
    aliases: [],
    args: '',
    description: 'Show the permission rules in force',
  },
  {
    name: 'trust',
    aliases: [],
    args: '',
    description: "Trust this folder (or not): its repository's rules and settings",
  },
  {
    name: 'mcp',
    aliases: [],
    args: '',
    description: 'Show MCP servers',
    unavailable: 'MCP server status is coming (servers come from settings and .mcp.json)',
  },
  {
    name: 'agents',
    aliases: [],
    args: '',
    description: 'List agent profiles',
    unavailable: 'listing agent profiles (.agent-tui/agents/*.md) is coming',
  },
  {
    name: 'resume',
    aliases: [],
    args: '[id]',
    description: 'Switch to an earlier session of this directory',
  },
  {
    name: 'init',
    aliases: [],
    args: '',
    description: 'Have the agent write (or improve) AGENTS.md',
  },
  {
    name: 'memory',
    aliases: [],
    args: '[add <text>]',
    description: 'Show memory files, or add a line to .agent-tui/memory.md',
  },
  {
    name: 'rewind',
    aliases: [],
    args: '',
    description: 'Go back to the start of a turn: files, conversation or both (Esc Esc)',
  },
  { name: 'export', aliases: [], args: '[path]', description: 'Write the transcript to a Markdown file' },
  { name: 'quit', aliases: ['exit'], args: '', description: 'Exit agent-tui' },
]

export function findSlashCommand(name: string): SlashCommand | undefined {
  const lower = name.toLowerCase()
  return SLASH_COMMANDS.find((c) => c.name === lower || c.aliases.includes(lower))
}

/** "/mode auto" → {name: 'mode', args: 'auto'}; null for text that is not a command (or "//escape"). */
export function parseSlash(text: string): { name: string; args: string } | null {
  const m = /^\/([a-zA-Z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim())
  if (!m) return null
  return { name: m[1] ?? '', args: (m[2] ?? '').trim() }
}

/** Completion candidates while the user types the command name (before any space). */
export function completeSlash(text: string): SlashCommand[] {
  const m = /^\/([\w-]*)$/.exec(text)
  if (!m) return []
  const prefix = (m[1] ?? '').toLowerCase()
  return SLASH_COMMANDS.filter(
    (c) => c.name.startsWith(prefix) || c.aliases.some((a) => a.startsWith(prefix)),
  )
}

export type FlashLevel = 'info' | 'warn' | 'error'

/** What a slash command may do to the shell around it; implemented by the app, faked in tests. */
export interface SlashContext {
  commands: RuntimeCommands
  getState(): State
  contextLimit: number
  prices?: Prices
  flash(text: string, level?: FlashLevel): void
  showHelp(): void
  showInfo(title: string, lines: string[]): void
  /** Opens the session picker. */
  showSessions(sessions: SessionSummary[]): void
  /** Leaves this session for another one. */
  resumeSession(id: string): void
  toggleTodos(): void
  focusTasks(): void
  /** Opens the /rewind dialog. */
  openRewind(): void
  /** Adds an `[Image #N]` chip for an already loaded image to the input. */
  attachImage(image: ImageAttachment): void
  exit(code: number): void
}

/** What `/init` asks of the agent; sent as the user's message, so what was asked stays visible. */
export const INIT_PROMPT = [
  'Write AGENTS.md at the root of this repository: the instructions a coding agent needs to work here.',
  'Look at the project first (README, manifests, build and CI files, the source layout, the tests).',
  'Keep it short and specific: what the project is; the exact commands to install, build, test and lint;',
  'where things live; the conventions the code follows; anything surprising.',
  'If AGENTS.md already exists, improve it and keep what is still right.',
].join(' ')

/** Modes a user may pick in-app; dangerous and ci come only from launch flags (SPEC §7). */
const USER_MODES: readonly Mode[] = ['safe', 'auto', 'plan']

/** Runs one slash command line; never throws (failures become an error flash). */
export async function runSlashCommand(line: string, ctx: SlashContext): Promise<void> {
  const parsed = parseSlash(line)
  const command = parsed ? findSlashCommand(parsed.name) : undefined
  if (!parsed || !command) {
    ctx.flash(`Unknown command ${line.trim().split(/\s/)[0]} — type / to list commands`, 'warn')
    return
  }
  if (command.unavailable) {
    ctx.flash(`not available yet: /${command.name} — ${command.unavailable}`, 'warn')
    return
  }
  try {
    await run(command.name, parsed.args, ctx)
  } catch (error) {
    ctx.flash(`/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'error')
  }
}

async function run(name: string, args: string, ctx: SlashContext): Promise<void> {
  const { commands } = ctx
  switch (name) {
    case 'help':
      ctx.showHelp()
      return
    case 'plan': {
      const current = ctx.getState().mode
      const arg = args.toLowerCase()
      if (arg && arg !== 'on' && arg !== 'off') {
        ctx.flash('Usage: /plan [on|off]', 'warn')
        return
      }
      const on = arg === 'on' || (arg === '' && current !== 'plan')
      const next: Mode = on ? 'plan' : 'safe'
      if (next !== current) commands.setMode(next)
      ctx.flash(on ? 'Plan mode on: read-only until you approve a plan' : 'Plan mode off: SAFE mode')
      return
    }
    case 'mode': {
      const arg = args.toLowerCase()
      if (!arg) {
        ctx.flash(`Mode is ${ctx.getState().mode.toUpperCase()} — /mode ${USER_MODES.join('|')}`)
        return
      }
      if (!(MODES as readonly string[]).includes(arg)) {
        ctx.flash(`Unknown mode "${args}" — use one of ${USER_MODES.join(', ')}`, 'warn')
        return
      }
      if (!(USER_MODES as readonly string[]).includes(arg)) {
        ctx.flash(
          `${arg} mode can only be chosen when starting agent-tui (${arg === 'ci' ? '-p or --mode ci' : '--dangerously-skip-permissions'})`,
          'warn',
        )
        return
      }
      commands.setMode(arg as Mode)
      ctx.flash(`Mode set to ${arg.toUpperCase()}`)
      return
    }
    case 'model':
      if (!args) {
        ctx.flash(`Model: ${ctx.getState().session.model} — /model <id> to switch`)
        return
      }
      commands.setModel(args)
      ctx.flash(`Model set to ${args}`)
      return
    case 'image': {
      const m = /^("[^"]+"|'[^']+'|(?:\\ |\S)+)\s*([\s\S]*)$/.exec(args)
      if (!m?.[1]) {
        ctx.flash('Usage: /image <path> [question]', 'warn')
        return
      }
      const path = m[1].replace(/^["']|["']$/g, '').replace(/\\ /g, ' ')
      const image = await commands.loadImage(path)
      const question = (m[2] ?? '').trim()
      if (question) commands.submit({ text: question, images: [image] })
      else {
        ctx.attachImage(image)
        ctx.flash('Image attached — type your question and press Enter')
      }
      return
    }
    case 'clear':
      commands.clear()
      ctx.flash('Started a fresh conversation')
      return
    case 'context':
      ctx.showInfo('Context', contextLines(ctx))
      return
    case 'cost':
      ctx.showInfo('Cost', costLines(ctx))
      return
    case 'tasks':
      if (ctx.getState().tasks.order.length === 0) ctx.flash('No background tasks')
      else ctx.focusTasks()
      return
    case 'todos':
      ctx.toggleTodos()
      return
    case 'permissions':
      ctx.showInfo('Permissions', permissionLines(ctx.getState().mode, commands.permissionRules()))
      return
    case 'trust':
      commands.reviewTrust()
      return
    case 'memory': {
      const m = /^add(?:\s+([\s\S]*))?$/i.exec(args)
      if (!args) {
        ctx.showInfo('Memory', memoryLines(await commands.memoryFiles()))
        return
      }
      if (!m?.[1]?.trim()) {
        ctx.flash('Usage: /memory (list files) or /memory add <text>', 'warn')
        return
      }
      const path = await commands.addMemory(m[1])
      ctx.flash(`Remembered in ${path} — sessions started from now on read it`)
      return
    }
    case 'resume': {
      const state = ctx.getState()
      if (state.run.phase !== 'idle') {
        ctx.flash('The agent is working: press Esc to interrupt it, then /resume', 'warn')
        return
      }
      // Leaving a session stops its background jobs: that has to be the user's explicit choice.
      const running = state.tasks.order.filter((id) => state.tasks.byId[id]?.status === 'running')
      if (running.length > 0) {
        ctx.flash(
          `Background jobs still run (${running.join(', ')}): stop them in /tasks, then /resume`,
          'warn',
        )
        return
      }
      const sessions = await commands.listSessions()
      if (args) {
        const exact = sessions.find((s) => s.id === args)
        const byPrefix = sessions.filter((s) => s.id.startsWith(args))
        const match = exact ?? (byPrefix.length === 1 ? byPrefix[0] : undefined)
        if (match) ctx.resumeSession(match.id)
        else
          ctx.flash(
            byPrefix.length > 1
              ? `"${args}" matches ${byPrefix.length} sessions — type more of the id, or /resume to pick`
              : `No other session "${args}" in this directory — /resume lists them`,
            'warn',
          )
        return
      }
      if (sessions.length === 0) ctx.flash('No other sessions in this directory')
      else ctx.showSessions(sessions)
      return
    }
    case 'init':
      commands.submit({ text: INIT_PROMPT })
      return
    case 'rewind':
      if (ctx.getState().run.phase !== 'idle') {
        ctx.flash('The agent is working: press Esc to interrupt it, then /rewind', 'warn')
        return
      }
      ctx.openRewind()
      return
    case 'export': {
      const path = await commands.exportTranscript(args || undefined)
      ctx.flash(`Transcript exported to ${path}`)
      return
    }
    case 'quit':
      ctx.exit(0)
      return
  }
}
