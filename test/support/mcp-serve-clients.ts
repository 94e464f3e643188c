import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach } from 'vitest'
import type { E2eEnv } from './e2e-env.ts'
import { cliPath } from './run-cli.ts'

/**
 * Clients of `agent-tui mcp serve` for end-to-end tests (the MCP SDK's v1 client, as most clients in the
 * wild), each server started with `flags` before a test's own: each test's clients closed and the pids it
 * learnt of killed afterwards.
 */
export function serveClients(env: E2eEnv, flags: readonly string[] = []) {
  const clients: Client[] = []
  /** Every pid a test learnt of; killed afterwards whatever happened. */
  const seen: number[] = []
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined)
    for (const pid of seen.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })

  /** The server's command line after node: `flags`, the scripted endpoint, then `extra`. */
  const serveArgs = (extra: readonly string[] = []): string[] => [
    cliPath,
    'mcp',
    'serve',
    ...flags,
    '--base-url',
    env.server.baseUrl,
    '--model',
    'm',
    ...extra,
  ]

  /** A connected client, its server started in the sandbox's workspace; stderr kept for messages. */
  async function connect(extra: string[] = []): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serveArgs(extra),
      cwd: env.box.workspace,
      env: env.box.env as Record<string, string>,
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (d) => {
      stderr += d
    })
    const client = new Client({ name: 'e2e', version: '1.0.0' })
    clients.push(client)
    await client.connect(transport)
    return { client, stderr: () => stderr }
  }

  return { connect, seen, serveArgs }
}

/** Clients of `agent-tui mcp serve --expose-tools`: its built-in tools too. */
export const toolsClients = (env: E2eEnv) => serveClients(env, ['--expose-tools'])

/** Calls a tool; whether it is an error result, and its text, whatever it says. */
export async function use(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as Array<{ type: string; text?: string }>
  return { isError: result.isError === true, text: content.map((part) => part.text ?? '').join('') }
}
