/**
 * The built-in slash commands (docs/tui.md#slash-commands), one entry each, in the order completion and `/help` list them.
 * Each runs against the runtime commands and UI actions of its `CommandContext`.
 */
import { homedir } from 'node:os'
import { isMode, modeChangeRefusal, selectableModes } from '../../permissions/modes.js'
import type { Mode } from '../../store/domain.js'
import type { CommandContext } from './command-context.js'
import type { SlashCommand } from './command-table.js'
import {
  compactCommand,
  contextReportLines,
  endpointLines,
  pinCommand,
  unpinCommand,
} from './context-commands.js'
import { COPY_COMMAND } from './copy-command.js'
import { MCP_COMMAND } from './mcp-command.js'
import { THEME_COMMAND } from './theme-command.js'
import { VIM_COMMAND } from './vim-command.js'
import {
  agentLines,
  costLines,
  hookLines,
  memoryLines,
  permissionLines,
  skillLines,
  statusLines,
} from './info-lines.js'

/** What `/init` asks of the agent; sent as the user's message, so what was asked stays visible. */
export const INIT_PROMPT = [
  'Write AGENTS.md at the root of this repository: the instructions a coding agent needs to work here.',
  'Look at the project first (README, manifests, build and CI files, the source layout, the tests).',
  'Keep it short and specific: what the project is; the exact commands to install, build, test and lint;',
  'where things live; the conventions the code follows; anything surprising.',
  'If AGENTS.md already exists, improve it and keep what is still right.',
].join(' ')

export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  { name: 'help', description: 'Show keys and commands', run: (ctx) => ctx.showHelp() },
  {
    name: 'plan',
    argumentHint: '[on|off]',
    description: 'Toggle plan mode (read-only planning)',
    run(ctx, args) {
      const current = ctx.getState().mode
      const arg = args.toLowerCase()
      if (arg && arg !== 'on' && arg !== 'off') {
        ctx.flash('Usage: /plan [on|off]', 'warn')
        return
      }
      const on = arg === 'on' || (arg === '' && current !== 'plan')
      const next = on ? 'plan' : 'safe'
      if (next !== current && !setMode(ctx, next)) return
      ctx.flash(on ? 'Plan mode on: read-only until you approve a plan' : 'Plan mode off: SAFE mode')
    },
  },
  {
    name: 'mode',
    argumentHint: '<safe|auto|plan>',
    description: 'Set the permission mode',
    run(ctx, args) {
      const arg = args.toLowerCase()
      const { mode, launchMode } = ctx.getState()
      const choices = selectableModes(launchMode)
      if (!arg) ctx.flash(`Mode is ${mode.toUpperCase()} — /mode ${choices.join('|')}`)
      else if (!isMode(arg)) ctx.flash(`Unknown mode "${args}" — use one of ${choices.join(', ')}`, 'warn')
      else if (setMode(ctx, arg)) ctx.flash(`Mode set to ${arg.toUpperCase()}`)
    },
  },
  {
    name: 'model',
    argumentHint: '[id]',
    description: "Pick a model from the endpoint's list, or switch to <id>",
    async run(ctx, args) {
      if (args) {
        ctx.commands.setModel(args)
        ctx.flash(`Model set to ${args}`)
        return
      }
      const current = ctx.getState().session.model
      const listed = await ctx.commands.listModels()
      if (listed.models.length > 0) ctx.showModels(listed.models, current)
      else
        ctx.flash(
          `Model: ${current} — the endpoint lists no models${listed.error ? ` (${listed.error})` : ''}; /model <id> switches`,
          'warn',
        )
    },
  },
  {
    name: 'image',
    argumentHint: '<path> [question]',
    description: 'Attach an image (and ask about it)',
    async run(ctx, args) {
      const m = /^("[^"]+"|'[^']+'|(?:\\ |\S)+)\s*([\s\S]*)$/.exec(args)
      if (!m?.[1]) {
        ctx.flash('Usage: /image <path> [question]', 'warn')
        return
      }
      const path = m[1].replace(/^["']|["']$/g, '').replace(/\\ /g, ' ')
      const image = await ctx.commands.loadImage(path)
      const question = (m[2] ?? '').trim()
      if (question) ctx.commands.submit({ text: question, images: [image] })
      else {
        ctx.attachImage(image)
        if (ctx.commands.supportsVision()) ctx.flash('Image attached — type your question and press Enter')
        else ctx.flash(noVision(ctx.getState().session.model), 'warn')
      }
    },
  },
  {
    name: 'compact',
    argumentHint: '[focus]',
    description: 'Summarise older history now (shows what it keeps first)',
    run: (ctx, args) => compactCommand(ctx, args),
  },
  {
    name: 'pin',
    argumentHint: '[last|text]',
    description: 'List pins, or keep an item verbatim through masking and compaction',
    run: (ctx, args) => pinCommand(ctx, args),
  },
  {
    name: 'unpin',
    argumentHint: '<n|all>',
    description: 'Unpin an item (numbered as /pin lists them)',
    run: (ctx, args) => unpinCommand(ctx, args),
  },
  {
    name: 'clear',
    description: 'Start a fresh conversation',
    run(ctx) {
      ctx.commands.clear()
      ctx.flash('Started a fresh conversation')
    },
  },
  {
    name: 'context',
    description: 'Show where the context window goes',
    run: (ctx) =>
      ctx.showInfo('Context', [
        ...contextReportLines(ctx.commands.contextReport()),
        '',
        ...endpointLines(ctx.getState().session.baseUrl, ctx.commands.endpointHeaders()),
      ]),
  },
  {
    name: 'cost',
    description: 'Show token usage and cost',
    run: (ctx) => ctx.showInfo('Cost', costLines(ctx)),
  },
  {
    name: 'tasks',
    aliases: ['bashes'],
    description: 'Focus the background tasks pane',
    run(ctx) {
      if (ctx.getState().tasks.order.length === 0) ctx.flash('No background tasks')
      else ctx.focusTasks()
    },
  },
  { name: 'todos', description: 'Show or hide the todo pane', run: (ctx) => ctx.toggleTodos() },
  {
    name: 'permissions',
    description: 'Show the permission rules in force',
    run: (ctx) =>
      ctx.showInfo('Permissions', permissionLines(ctx.getState().mode, ctx.commands.permissionRules())),
  },
  {
    name: 'hooks',
    description: 'Show the hooks in force and where each comes from',
    run: (ctx) => ctx.showInfo('Hooks', hookLines(ctx.commands.hooks())),
  },
  {
    name: 'plugin',
    aliases: ['plugins'],
    argumentHint: '[enable <name> | disable <name>]',
    description: 'Show the plugins this session loaded; enable or disable one for new sessions',
    run: async (ctx, args) => {
      const [verb, name, ...rest] = args.split(/\s+/).filter(Boolean)
      if (verb === undefined) return ctx.showInfo('Plugins', await ctx.commands.pluginLines())
      if ((verb === 'enable' || verb === 'disable') && name !== undefined && rest.length === 0)
        return ctx.showInfo('Plugins', await ctx.commands.setPluginEnabled(name, verb === 'enable'))
      ctx.flash('usage: /plugin, /plugin enable <name>, /plugin disable <name>', 'warn')
    },
  },
  {
    name: 'trust',
    description: "Trust this folder (or not): its repository's rules and settings",
    run: (ctx) => ctx.commands.reviewTrust(),
  },
  MCP_COMMAND,
  {
    name: 'agents',
    argumentHint: '[name]',
    description: 'List agents, or run the main session as another one',
    async run(ctx, args) {
      if (!args) ctx.showInfo('Agents', agentLines(ctx.commands.listAgents()))
      else ctx.flash(await ctx.commands.switchAgent(args))
    },
  },
  {
    name: 'rename',
    argumentHint: '<title>',
    description: 'Name this session (the /resume list and the export heading show it)',
    async run(ctx, args) {
      if (!args.trim()) {
        const title = ctx.getState().session.title
        ctx.flash(
          title ? `This session is "${title}": /rename <title> names it` : 'Usage: /rename <title>',
          'warn',
        )
        return
      }
      ctx.flash(`Session renamed to "${await ctx.commands.renameSession(args)}"`)
    },
  },
  {
    name: 'fork',
    argumentHint: '[turn]',
    description: 'Continue in a new session with this conversation (through turn N); this one stays as it is',
    async run(ctx, args) {
      if (!mayLeave(ctx, 'fork')) return
      const turn = args.trim() ? Number(args.trim()) : undefined
      const fork = await ctx.commands.forkSession(turn)
      ctx.flash(`Forked into "${fork.title}" (${fork.id})`)
      ctx.resumeSession(fork.id)
    },
  },
  {
    name: 'skills',
    description: 'List the skills of this session (each runs as /<name>)',
    run: (ctx) => ctx.showInfo('Skills', skillLines(ctx.commands.listSkills())),
  },
  {
    name: 'resume',
    argumentHint: '[id]',
    description: 'Switch to an earlier session of this directory',
    run: resume,
  },
  {
    name: 'login',
    aliases: ['endpoint'],
    description: 'Set up the model endpoint, key and model (the setup form)',
    run(ctx) {
      if (ctx.getState().run.phase !== 'idle') {
        ctx.flash('The agent is working: press Esc to interrupt it, then /login', 'warn')
        return
      }
      const state = ctx.getState()
      const running = state.tasks.order.filter((id) => state.tasks.byId[id]?.status === 'running')
      if (running.length > 0) {
        ctx.flash(
          `Background jobs still run (${running.join(', ')}): stop them in /tasks, then /login`,
          'warn',
        )
        return
      }
      ctx.openSetup()
    },
  },
  {
    name: 'doctor',
    description: 'Check the endpoint (tool calls too), the sandbox and the configuration',
    async run(ctx) {
      if (!ctx.doctor) {
        ctx.flash('/doctor is not available here: run agent-tui doctor in a shell', 'warn')
        return
      }
      ctx.flash('Checking… (a few small requests to the endpoint)')
      const lines = await ctx.doctor()
      ctx.showInfo('Doctor', lines)
      // The verdict (the report's last line) replaces "Checking…".
      ctx.flash(lines.at(-1) ?? 'Done')
    },
  },
  {
    name: 'init',
    description: 'Have the agent write (or improve) AGENTS.md',
    prompt: () => ({ text: INIT_PROMPT }),
  },
  {
    name: 'status',
    description:
      'What was loaded from where: endpoint and headers, settings, instructions, commands, agents, skills, MCP servers',
    run(ctx) {
      // The endpoint first, its extra headers redacted (a gateway key is a secret).
      const endpoint = endpointLines(ctx.getState().session.baseUrl, ctx.commands.endpointHeaders())
      ctx.showInfo('Status', [...endpoint, '', ...statusLines(ctx.commands.status())])
    },
  },
  {
    name: 'memory',
    argumentHint: '[add <text>]',
    description: 'Show memory files, or add a line to .agent-tui/memory.md',
    async run(ctx, args) {
      if (!args) {
        ctx.showInfo('Memory', memoryLines(await ctx.commands.memoryFiles()))
        return
      }
      const m = /^add(?:\s+([\s\S]*))?$/i.exec(args)
      if (!m?.[1]?.trim()) {
        ctx.flash('Usage: /memory (list files) or /memory add <text>', 'warn')
        return
      }
      const path = await ctx.commands.addMemory(m[1])
      ctx.flash(`Remembered in ${path} — sessions started from now on read it`)
    },
  },
  {
    name: 'rewind',
    description: 'Go back to the start of a turn: files, conversation or both (Esc Esc)',
    run(ctx) {
      if (ctx.getState().run.phase !== 'idle') {
        ctx.flash('The agent is working: press Esc to interrupt it, then /rewind', 'warn')
        return
      }
      ctx.openRewind()
    },
  },
  {
    name: 'export',
    argumentHint: '[path]',
    description: 'Write the transcript as Markdown (to the state directory, or to [path])',
    async run(ctx, args) {
      const path = await ctx.commands.exportTranscript(args || undefined)
      ctx.flash(`Transcript exported to ${tildePath(path)}`)
    },
  },
  COPY_COMMAND,
  THEME_COMMAND,
  VIM_COMMAND,
  { name: 'quit', aliases: ['exit'], description: 'Exit agent-tui', run: (ctx) => ctx.exit(0) },
]

/**
 * Asks the runtime for a mode; false (and the reason above the prompt) when the mode policy refuses it.
 * The policy is asked first, so a mode it forbids is never requested; the runtime applies the same policy.
 */
function setMode(ctx: CommandContext, mode: Mode): boolean {
  const state = ctx.getState()
  const refusal = modeChangeRefusal(mode, state.launchMode)
  const change = refusal ? { ok: false as const, reason: refusal } : ctx.commands.setMode(mode)
  if (!change.ok) ctx.flash(change.reason, 'warn')
  return change.ok
}

/** Whether the session may be left for another now (`/resume`, `/fork`); says why not. */
function mayLeave(ctx: CommandContext, command: string): boolean {
  const state = ctx.getState()
  if (state.run.phase !== 'idle') {
    ctx.flash(`The agent is working: press Esc to interrupt it, then /${command}`, 'warn')
    return false
  }
  // Leaving a session stops its background jobs: that has to be the user's explicit choice.
  const running = state.tasks.order.filter((id) => state.tasks.byId[id]?.status === 'running')
  if (running.length > 0) {
    ctx.flash(
      `Background jobs still run (${running.join(', ')}): stop them in /tasks, then /${command}`,
      'warn',
    )
    return false
  }
  return true
}

async function resume(ctx: CommandContext, args: string): Promise<void> {
  if (!mayLeave(ctx, 'resume')) return
  const sessions = await ctx.commands.listSessions()
  if (!args) {
    if (sessions.length === 0) ctx.flash('No other sessions in this directory')
    else ctx.showSessions(sessions)
    return
  }
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
}

/** `~/…` for paths under the home directory: shorter to read, and what a user types. */
function tildePath(path: string): string {
  const home = homedir()
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path
}

/** Said when an image is attached for a model that cannot see it (the runtime leaves it out). */
export function noVision(model: string): string {
  return `${model} cannot see images (no vision in its profile): the image will not be sent, only your text. /model picks another model.`
}
