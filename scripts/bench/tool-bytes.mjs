// `npm run bench context`, tools on demand (docs/context.md#tools-on-demand): the bytes of tool definitions
// in a session's first request with no MCP server, one big one (~80 kB of schemas, as Notion's) and six of
// realistic sizes (test/support/mcp-big-server.ts), at a 32k and an 8k window, against every definition
// sent (`deferTools: never`). Measured on the request the scripted endpoint received.
import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startScriptedServer } from '../../test/support/scripted-server.ts'
import { makeSandbox } from './sandbox.mjs'

const BIG_SERVER = join(import.meta.dirname, '../../test/support/mcp-big-server.ts')

/** Name, tool count and kB of schemas: one Notion-sized server, then five of the sizes common on npm. */
const SERVERS = [
  ['notion', 24, 80],
  ['github', 26, 18],
  ['playwright', 21, 14],
  ['filesystem', 11, 9],
  ['memory', 9, 6],
  ['fetch', 1, 1],
]

const CONFIGS = [
  ['no MCP server', 0],
  ['1 big MCP server (80 kB)', 1],
  ['6 MCP servers (128 kB)', 6],
]

function run(cli, box, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: box.work, env: box.env, stdio: 'ignore' })
    child.on('error', reject)
    child.on('close', (code) => resolve(code))
  })
}

async function firstRequestToolBytes(ctx, servers, window, deferTools) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const server = await startScriptedServer()
  ctx.defer(() => server.close())
  const mcpServers = Object.fromEntries(
    SERVERS.slice(0, servers).map(([name, tools, kb], i) => [
      name,
      {
        command: process.execPath,
        args: [BIG_SERVER, '--tools', String(tools), '--kb', String(kb), '--seed', String(i + 1)],
      },
    ]),
  )
  const dir = join(box.env.XDG_CONFIG_HOME, 'agent-tui')
  await mkdir(dir, { recursive: true })
  await writeFile(
    join(dir, 'settings.json'),
    JSON.stringify({ mcpServers, models: { m: { contextLimit: window } }, deferTools }),
  )
  server.enqueue({ text: 'done' })
  const code = await run(ctx.cli, box, ['-p', 'hi', '--base-url', server.baseUrl, '--model', 'm'])
  if (code !== 0) throw new Error(`tool-bytes run failed (${code})`)
  const tools = server.requests[0]?.body.tools ?? []
  const bytes = Buffer.byteLength(JSON.stringify(tools))
  await server.close()
  await box.cleanup()
  return { bytes, count: tools.length }
}

export async function toolBytes(ctx) {
  for (const [label, servers] of CONFIGS) {
    for (const window of [32_768, 8192]) {
      const sent = await firstRequestToolBytes(ctx, servers, window, 'auto')
      const budget = servers === 1 && window === 32_768 ? { max: 40, budget: '≤ 40 kB' } : {}
      ctx.report(`context: first-request tool bytes, ${label}, ${window / 1024}k window`, sent.bytes / 1024, {
        unit: 'kB',
        digits: 1,
        ...budget,
        ...(budget.max ? {} : { note: `info: ${sent.count} definitions` }),
      })
    }
    // A 256k window: with every definition sent, six servers' 113 tools (~36k tokens) do not fit a 32k
    // window, and the session refuses to send such a request.
    const all = await firstRequestToolBytes(ctx, servers, 262_144, 'never')
    ctx.report(`  the same with every definition sent (deferTools: never)`, all.bytes / 1024, {
      unit: 'kB',
      digits: 1,
      note: `info: ${all.count} definitions, 256k window`,
    })
  }
}
