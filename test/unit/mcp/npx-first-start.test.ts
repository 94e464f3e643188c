import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { McpServerSettings } from '../../../source/config/schema.js'
import { McpConnection } from '../../../source/mcp/connection.js'
import {
  npmCacheOf,
  npxInstalled,
  npxPackageOf,
  startAllowance,
  startTimeoutMessage,
} from '../../../source/mcp/npx-first-start.js'
import { createOAuthStore } from '../../../source/mcp/oauth-store.js'
import { serverView } from '../../../source/mcp/views.js'
import { serverDetails, serverRow } from '../../../source/ui/panes/mcp/mcp-lines.js'

const TEST_SERVER = join(import.meta.dirname, '..', '..', 'support', 'mcp-stdio-server.ts')

describe('npxPackageOf', () => {
  const cases: Array<[string, McpServerSettings, string | undefined]> = [
    [
      'npx -y pkg',
      { command: 'npx', args: ['-y', '@scope/server@1.2.0', '--root', '.'] },
      '@scope/server@1.2.0',
    ],
    ['npx --yes, absolute', { command: '/usr/bin/npx', args: ['--yes', 'pkg'] }, 'pkg'],
    ['npx.cmd', { command: 'C:/node/npx.cmd', args: ['-y', 'pkg'] }, 'pkg'],
    ['npx without -y (asks on a TTY; never installs unasked)', { command: 'npx', args: ['pkg'] }, undefined],
    ['another command', { command: 'node', args: ['-y', 'server.js'] }, undefined],
    ['an HTTP server', { type: 'http', url: 'http://127.0.0.1:1/mcp' } as McpServerSettings, undefined],
  ]
  for (const [name, settings, want] of cases) it(name, () => expect(npxPackageOf(settings)).toBe(want))
})

describe('npxInstalled and the allowance', () => {
  let cache: string
  beforeEach(async () => {
    cache = await mkdtemp(join(tmpdir(), 'agent-tui-npm-cache-'))
  })
  afterEach(() => rm(cache, { recursive: true, force: true }))

  it("finds the package where npm 11's npx puts it (hash measured with a real cold `npx -y cowsay@1.6.0`)", async () => {
    expect(npxInstalled('cowsay@1.6.0', cache)).toBe(false)
    // The folder appears before the install is done: only the package's own package.json counts.
    await mkdir(join(cache, '_npx', 'e3e1d528ee105f80', 'node_modules', 'cowsay'), { recursive: true })
    expect(npxInstalled('cowsay@1.6.0', cache)).toBe(false)
    await writeFile(join(cache, '_npx', 'e3e1d528ee105f80', 'node_modules', 'cowsay', 'package.json'), '{}')
    expect(npxInstalled('cowsay@1.6.0', cache)).toBe(true)
  })

  it('gives a cold first start the longer allowance, and says why when it runs out', async () => {
    const settings: McpServerSettings = {
      command: 'npx',
      args: ['-y', 'cowsay@1.6.0'],
      env: { npm_config_cache: cache },
    }
    const cold = startAllowance({ spec: { settings }, startupTimeoutMs: 30_000, env: {} })
    expect(cold).toEqual({ ms: 300_000, installing: 'cowsay@1.6.0' })
    expect(startTimeoutMessage(cold)).toMatch(
      /npm was still installing cowsay@1\.6\.0 .*npx -y cowsay@1\.6\.0/,
    )
    const dir = join(cache, '_npx', 'e3e1d528ee105f80', 'node_modules', 'cowsay')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'package.json'), '{}')
    const warm = startAllowance({ spec: { settings }, startupTimeoutMs: 30_000, env: {} })
    expect(warm).toEqual({ ms: 30_000 })
    expect(startTimeoutMessage(warm)).toBe('did not start within 30 s (startupTimeoutSeconds)')
  })

  it("uses the server's own npm_config_cache, then the user's, then ~/.npm", () => {
    expect(npmCacheOf({ command: 'npx', env: { npm_config_cache: '/a' } }, { npm_config_cache: '/b' })).toBe(
      '/a',
    )
    expect(npmCacheOf({ command: 'npx' }, { npm_config_cache: '/b', HOME: '/h' })).toBe('/b')
    expect(npmCacheOf({ command: 'npx' }, { HOME: '/h' })).toBe('/h/.npm')
  })
})

/**
 * A slow fake installer: an `npx` outside any workspace that, on a cold cache, says what npm says, takes
 * its time "downloading", puts the package where npx does, then runs the real stdio MCP test server.
 */
const FAKE_NPX = `#!/bin/sh
pkg="$2"
hash=$(printf '%s' "$pkg" | sha512sum | cut -c1-16)
dir="$npm_config_cache/_npx/$hash/node_modules/\${pkg%@*}"
if [ ! -f "$dir/package.json" ]; then
  echo "npm warn exec The following package was not found and will be installed: $pkg" >&2
  sleep "$FAKE_INSTALL_SECONDS"
  mkdir -p "$dir" && echo '{}' > "$dir/package.json"
fi
sleep "\${FAKE_START_SECONDS:-0}"
exec "$FAKE_NODE" "$FAKE_SERVER"
`

describe('an npx server on a cold npm cache', () => {
  let root: string
  let conn: McpConnection | undefined
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-npx-')))
    await mkdir(join(root, 'bin'))
    await mkdir(join(root, 'workspace'))
    await writeFile(join(root, 'bin', 'npx'), FAKE_NPX)
    await chmod(join(root, 'bin', 'npx'), 0o755)
  })
  afterEach(async () => {
    await conn?.close()
    conn = undefined
    await rm(root, { recursive: true, force: true })
  })

  function connection(env: Record<string, string>, firstStartMs: number) {
    const settings: McpServerSettings = {
      command: join(root, 'bin', 'npx'),
      args: ['-y', 'fake-mcp-server@1.0.0'],
      env: {
        npm_config_cache: join(root, 'npm-cache'),
        FAKE_NODE: process.execPath,
        FAKE_SERVER: TEST_SERVER,
        FAKE_INSTALL_SECONDS: '2',
        ...env,
      },
    }
    const spec = { name: 'fake', source: 'test', projectBrought: false, settings }
    const views: string[] = []
    conn = new McpConnection({
      spec,
      workspace: join(root, 'workspace'),
      env: {},
      oauth: createOAuthStore(join(root, 'oauth.json')),
      startupTimeoutMs: 700,
      firstStartMs,
      toolTimeoutMs: 5000,
      version: 'test',
      onChange: () => {
        if (!conn) return
        const view = serverView(spec, conn, 'fake', (t) => t.name)
        views.push(serverRow(view, 4), ...serverDetails(view).map((l) => l.text))
      },
    })
    return { conn, views }
  }

  it('is not killed while npm installs: "installing…", then connected; the next start has the normal allowance', async () => {
    const first = connection({}, 20_000)
    await first.conn.connect()
    expect(first.conn.error).toBeUndefined()
    expect(first.conn.status).toBe('connected')
    expect(first.views.some((v) => /^fake\s+installing…/.test(v))).toBe(true)
    expect(first.views).toContain(
      'npm is installing fake-mcp-server@1.0.0 (its first start downloads it): it gets up to 5 minutes to start',
    )
    expect(first.conn.installing).toBeUndefined()
    await first.conn.close()

    // Warm now: a start slower than the normal allowance fails, and says nothing of npm.
    const second = connection({ FAKE_START_SECONDS: '2' }, 20_000)
    await second.conn.connect()
    expect(second.conn.status).toBe('failed')
    expect(second.conn.error).toContain('did not start within 0.7 s (startupTimeoutSeconds)')
    expect(second.views.some((v) => v.includes('installing'))).toBe(false)
  })

  it('names npm as the cause when even the first start runs out of time', async () => {
    const { conn } = connection({}, 1000)
    await conn.connect()
    expect(conn.status).toBe('failed')
    expect(conn.error).toContain('did not start within 1 s: npm was still installing fake-mcp-server@1.0.0')
  })
})
