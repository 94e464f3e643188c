import { MODES, type Mode } from '../store/domain.js'
import { UsageError } from './errors.js'
import { type OptionSpec, type ParsedArgs, parseArgs } from './flags.js'

/**
 * `agent-tui mcp serve [options]` (docs/mcp.md#agent-tui-as-an-mcp-server): its own options, and the
 * session options every task shares (--model, --base-url, --allowed-tools, --cwd…), parsed by `parseArgs`.
 */
export const MCP_SERVE_OPTIONS: readonly OptionSpec[] = [
  {
    long: 'max-mode',
    kind: 'value',
    arg: 'MODE',
    help: 'the loosest mode a client may ask a task for (default ci): ci, plan, safe, auto, dangerous',
  },
  {
    long: 'expose-tools',
    kind: 'boolean',
    help: "also offer agent-tui's built-in tools (Read, Edit, Bash…), judged in the --max-mode",
  },
]

export interface McpServeArgs {
  /** The session options every task starts from (each task sets its own mode and model). */
  base: ParsedArgs
  maxMode: Mode
  /** `--expose-tools`: the built-in tools are offered too, each call judged in `maxMode`. */
  exposeTools: boolean
  help: boolean
}

/** Options of a run that make no sense for a server, and what to say instead. */
const NOT_FOR_SERVE: Array<[keyof ParsedArgs, string]> = [
  ['print', '-p: every task runs headless'],
  ['continue', '--continue: every task is a new session'],
  ['resume', '--resume: every task is a new session'],
  ['rewindTo', '--rewind-to'],
  ['printOnExit', '--print-on-exit'],
  ['version', '--version (use agent-tui --version)'],
]

/** Parses the words after `mcp serve`. Throws UsageError naming the option and what it needs. */
export function parseMcpServeArgs(argv: readonly string[]): McpServeArgs {
  let maxMode: Mode = 'ci'
  let exposeTools = false
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === '--max-mode' || arg.startsWith('--max-mode=')) {
      const value = arg === '--max-mode' ? argv[++i] : arg.slice('--max-mode='.length)
      if (value === undefined || value === '' || value.startsWith('-'))
        throw new UsageError('--max-mode needs a value')
      if (!MODES.includes(value as Mode))
        throw new UsageError(`--max-mode must be one of ${MODES.join(', ')} (got "${value}")`)
      maxMode = value as Mode
    } else if (arg === '--expose-tools') exposeTools = true
    else rest.push(arg)
  }
  const base = parseArgs(rest)
  if (base.help) return { base, maxMode, exposeTools, help: true }
  if (base.prompt !== undefined)
    throw new UsageError(
      `mcp serve takes no prompt (got "${base.prompt}"): the client sends one per task; see agent-tui mcp serve --help`,
    )
  if (base.mode !== undefined)
    throw new UsageError(
      '--mode does not apply to mcp serve: a task runs in ci unless the client asks for another mode, up to --max-mode',
    )
  if (base.trustProject)
    throw new UsageError(
      "--trust-project does not apply to mcp serve: a client names each task's folder, which is trusted as you decided in the full-screen session",
    )
  for (const [key, what] of NOT_FOR_SERVE) {
    const value = base[key]
    if (value !== undefined && value !== false) throw new UsageError(`mcp serve does not take ${what}`)
  }
  return { base, maxMode, exposeTools, help: false }
}

/** `agent-tui mcp serve --help`. */
export function mcpServeHelp(): string {
  return [
    'agent-tui mcp serve — agent-tui as an MCP server over stdio (docs/mcp.md#agent-tui-as-an-mcp-server)',
    '',
    'Usage:',
    '  agent-tui mcp serve [--max-mode MODE] [--expose-tools] [session options]',
    '',
    'Tools: run_task {prompt, cwd?, mode?, model?} runs an agent task headless, as agent-tui -p does, and',
    '  returns the final answer and the session id. A task runs in ci mode unless the client asks for',
    '  another one no looser than --max-mode; cwd must be inside the folder the server was started in.',
    'With --expose-tools, also Bash, Read, Write, Edit, MultiEdit, Glob, Grep, … (their own schemas): each',
    "  call runs as the model's would in agent-tui -p --mode MAX-MODE in the server's folder, and a call",
    '  that would ask is refused (in the default ci, reads and searches run; the rest needs an allow rule).',
    '',
    'Options:',
    ...MCP_SERVE_OPTIONS.map((o) => `  --${`${o.long}${o.arg ? ` ${o.arg}` : ''}`.padEnd(16)}${o.help}`),
    '',
    'Session options (for every task): --model, --base-url, --api-key, --header, --allowed-tools,',
    '  --disallowed-tools, --tools, --sandbox, --no-sandbox, --add-dir, --cwd, --max-steps, --agent,',
    '  --no-claude-dirs, --debug, --verbose (see agent-tui --help).',
    'stdout carries only the protocol; logs go to stderr. The server exits when the client closes stdin.',
  ].join('\n')
}
