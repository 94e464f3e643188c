/**
 * Runs the scripted server from a JSON scenario until killed, to drive the real TUI by hand and in
 * benchmarks:
 *
 *   node test/support/serve-scenario.ts scenario.json [--port N]
 *
 * The scenario is either an array of replies or `{"replies": [...], "fallback": {...}, "models": [...]}`;
 * `"endpoint": "tools" | "ignores-tools" | "writes-tool-calls" | "no-stream" | "no-usage"` answers every
 * request past the replies like such a server (scripted-endpoints.ts).
 * The first line on stdout is the base URL (e.g. http://127.0.0.1:4321/v1).
 */
import { readFileSync } from 'node:fs'
import { ENDPOINT_KINDS, type EndpointKind, endpointReply } from './scripted-endpoints.ts'
import { startScriptedServer } from './scripted-server.ts'
import type { ScriptedModel, ScriptedReply, ScriptedServerOptions } from './scripted-types.ts'

function fail(message: string): never {
  process.stderr.write(`serve-scenario: ${message}\n`)
  process.exit(2)
}

function parseArgs(argv: string[]): { file: string; port: number | undefined } {
  let file: string | undefined
  let port: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--port') {
      const value = Number(argv[++i])
      if (!Number.isInteger(value) || value < 0 || value > 65535)
        fail(`--port needs a port number, got ${argv[i]}`)
      port = value
    } else if (arg !== undefined && !arg.startsWith('--') && file === undefined) {
      file = arg
    } else {
      fail(`unexpected argument ${arg}; usage: serve-scenario.ts scenario.json [--port N]`)
    }
  }
  if (file === undefined) fail('usage: serve-scenario.ts scenario.json [--port N]')
  return { file, port }
}

function loadScenario(file: string): ScriptedServerOptions {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    fail(`cannot read scenario ${file}: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (Array.isArray(parsed)) return { replies: parsed as ScriptedReply[] }
  if (typeof parsed !== 'object' || parsed === null) {
    fail(`scenario ${file} must be an array of replies or an object with "replies"`)
  }
  const scenario = parsed as { replies?: unknown; fallback?: unknown; models?: unknown; endpoint?: unknown }
  if (scenario.replies !== undefined && !Array.isArray(scenario.replies))
    fail(`"replies" in ${file} must be an array`)
  if (scenario.models !== undefined && !Array.isArray(scenario.models))
    fail(`"models" in ${file} must be an array`)
  const opts: ScriptedServerOptions = { replies: (scenario.replies ?? []) as ScriptedReply[] }
  if (scenario.fallback !== undefined) opts.fallback = scenario.fallback as ScriptedReply
  if (scenario.models !== undefined) opts.models = scenario.models as ScriptedModel[]
  if (scenario.endpoint !== undefined) {
    if (!ENDPOINT_KINDS.includes(scenario.endpoint as EndpointKind))
      fail(`"endpoint" in ${file} must be one of ${ENDPOINT_KINDS.join(', ')}`)
    opts.fallback = endpointReply(scenario.endpoint as EndpointKind)
  }
  return opts
}

const { file, port } = parseArgs(process.argv.slice(2))
const server = await startScriptedServer({ ...loadScenario(file), port })
process.stdout.write(`${server.baseUrl}\n`)

const stop = () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
