// Entry point. Kept tiny: --version/--help never load the runtime, the provider or the UI (they are
// imported lazily, and esbuild splits them into separate chunks).
import { parseArgs } from './config/flags.js'
import { helpText } from './config/help-text.js'
import { UsageError } from './config/errors.js'

declare const AGENT_TUI_VERSION: string

async function main(argv: string[]): Promise<number> {
  // `agent-tui plugin …` manages installed plugins (docs/plugins.md); it loads nothing of a session.
  if (argv[0] === 'plugin') {
    const { runPluginCommand } = await import('./plugins/cli.js')
    return runPluginCommand(argv.slice(1))
  }
  // `agent-tui mcp serve …`: agent-tui as a stdio MCP server (docs/mcp.md#agent-tui-as-an-mcp-server).
  if (argv[0] === 'mcp' && argv[1] === 'serve') {
    const { runMcpServe } = await import('./app/mcp-serve/serve.js')
    return runMcpServe(argv.slice(2))
  }
  let args: ReturnType<typeof parseArgs>
  // `agent-tui doctor [--json] [options]`: the setup checks (docs/troubleshooting.md#doctor).
  const doctor = argv[0] === 'doctor'
  const json = doctor && argv.includes('--json')
  try {
    args = parseArgs(doctor ? argv.slice(1).filter((a) => a !== '--json') : argv)
    if (doctor && (args.prompt !== undefined || args.print))
      throw new UsageError(
        'doctor takes no prompt and no -p: agent-tui doctor [--json] [--base-url URL] [--model NAME]',
      )
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`agent-tui: ${err.message}\n`)
      return 2
    }
    throw err
  }
  if (args.version) {
    process.stdout.write(`${typeof AGENT_TUI_VERSION === 'string' ? AGENT_TUI_VERSION : 'dev'}\n`)
    return 0
  }
  if (args.help) {
    process.stdout.write(`${helpText()}\n`)
    return 0
  }
  if (args.cwd !== undefined) {
    const problem = enterDirectory(args.cwd)
    if (problem) {
      process.stderr.write(`agent-tui: --cwd ${args.cwd}: ${problem}\n`)
      return 2
    }
  }
  if (doctor) {
    const { runDoctor } = await import('./app/doctor/run-doctor.js')
    return runDoctor(args, json)
  }
  const { start } = await import('./app/start.js')
  return start(args)
}

/** Makes `dir` the process's working directory (the workspace); why not, or null. */
function enterDirectory(dir: string): string | null {
  try {
    process.chdir(dir)
    return null
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return 'no such directory'
    if (code === 'ENOTDIR') return 'not a directory'
    if (code === 'EACCES') return 'permission denied'
    return err instanceof Error ? err.message : String(err)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`agent-tui: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
