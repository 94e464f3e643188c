/** The doctor's machine and configuration checks, on real files, processes and bubblewrap. */
import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { configChecks } from '../../../../source/app/doctor/config-checks.js'
import { nodeCheck, ripgrepCheck, sandboxChecks } from '../../../../source/app/doctor/host-checks.js'
import { resolvePaths } from '../../../../source/config/app-paths.js'
import { storeKey } from '../../../../source/config/credentials.js'
import { parseArgs } from '../../../../source/config/flags.js'
import { loadSettings } from '../../../../source/config/load.js'
import { resolveConfig } from '../../../../source/config/resolve-config.js'
import { osSandbox } from '../../../support/os-sandbox.ts'
import { makeTempDir } from '../../tasks/helpers.js'

let root: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  const temp = await makeTempDir()
  root = await realpath(temp.dir)
  cleanup = temp.cleanup
})
afterEach(async () => cleanup())

describe('nodeCheck', () => {
  it.each([
    ['24.21.0', '/opt/agent-tui/node_modules/node/bin/node', 'ok', /24\.21\.0 .*, the pinned runtime$/],
    ['22.3.0', '/usr/bin/node', 'ok', /^22\.3\.0 \(\/usr\/bin\/node\)$/],
    ['20.20.2', '/usr/bin/node', 'fail', /needs Node 22 or later/],
  ])('Node %s at %s: %s', (version, execPath, status, detail) => {
    const check = nodeCheck({ version, execPath, packageRoot: '/opt/agent-tui' })
    expect(check.status).toBe(status)
    expect(check.detail).toMatch(detail)
    expect(check.essential).toBe(true)
  })
})

describe('ripgrepCheck', () => {
  it('runs the bundled rg', async () => {
    expect(await ripgrepCheck()).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^ripgrep \d+/),
    })
  })
})

describe('sandboxChecks', () => {
  it('without bubblewrap: the notice and the fix (a failure only when the settings ask for the sandbox)', async () => {
    const env = { ...process.env, AGENT_TUI_BWRAP: join(root, 'no-bwrap') }
    const base = { projectRoots: [root], scratchRoots: [], env, network: false }
    const [off] = await sandboxChecks({ ...base, enabled: false })
    expect(off).toMatchObject({ id: 'sandbox', status: 'warn', fix: expect.stringMatching(/bubblewrap/) })
    const [on] = await sandboxChecks({ ...base, enabled: true })
    expect(on?.status).toBe('fail')
  })

  it.runIf(osSandbox?.kind === 'bwrap')(
    'with bubblewrap: the fence refuses a Unix socket and the network',
    async () => {
      const checks = await sandboxChecks({
        projectRoots: [root],
        scratchRoots: [],
        network: false,
        enabled: true,
      })
      expect(checks.map((c) => [c.id, c.status])).toEqual([
        ['sandbox', 'ok'],
        ['fence', 'ok'],
      ])
      expect(checks[1]?.detail).toMatch(
        /a Unix socket: refused \(E\w+\); this machine's TCP port: unreachable/,
      )
    },
  )
})

describe('configChecks', () => {
  it('counts the settings files, commands and skills found, with the problems the loaders reported', async () => {
    const home = join(root, 'home')
    const ws = join(root, 'ws')
    const env = { HOME: home }
    const paths = resolvePaths(env, home)
    await mkdir(join(paths.configDir, 'commands'), { recursive: true })
    await mkdir(ws, { recursive: true })
    await writeFile(paths.userSettingsFile, JSON.stringify({ model: 'm' }))
    await writeFile(
      join(paths.configDir, 'commands', 'review.md'),
      '---\ndescription: Review\n---\nReview $ARGUMENTS\n',
    )
    await writeFile(join(paths.configDir, 'commands', 'bad name!.md'), 'x\n')
    storeKey(paths, 'https://api.example.com/v1', 'sk-never-shown')
    const loaded = await loadSettings({ cwd: ws, env, home })
    const config = resolveConfig(parseArgs([]), loaded, env)
    const [settings, extensions] = await configChecks({
      paths,
      workspace: ws,
      home,
      loaded,
      config,
      trusted: false,
    })
    expect(settings).toMatchObject({ status: 'ok', detail: '1 of 6 settings files found' })
    expect(settings?.lines).toContain('found   ~/.config/agent-tui/settings.json (user)')
    expect(settings?.lines?.[0]).toBe('absent  ~/.claude/settings.json (user)')
    expect(settings?.lines).toContain(
      'found   ~/.config/agent-tui/credentials.json (keys for https://api.example.com/v1)',
    )
    expect(JSON.stringify(settings)).not.toContain('sk-never-shown')
    expect(extensions?.detail).toMatch(/^1 command, 0 skills, 0 MCP servers, 0 hooks/)
    expect(extensions?.status).toBe('warn')
    expect(extensions?.lines?.join('\n')).toMatch(/bad name!\.md/)
  })
})
