import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { createTrustController } from '../../../../source/agent/runtime/trust-controller.js'
import { parseArgs } from '../../../../source/config/flags.js'
import type { SourcedRules } from '../../../../source/config/load.js'
import { loadSettings } from '../../../../source/config/load.js'
import { openProjectTrust } from '../../../../source/config/project-trust.js'
import { resolveConfig } from '../../../../source/config/resolve-config.js'
import { createStore } from '../../../../source/store/create-store.js'
import type { Mode } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'

let root: string
let home: string
let repo: string
let storeFile: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-trustctl-')))
  home = join(root, 'home')
  repo = join(home, 'code', 'app')
  storeFile = join(root, 'state', 'trusted-folders.json')
  await mkdir(join(repo, '.agent-tui'), { recursive: true })
  await writeFile(
    join(repo, '.agent-tui', 'settings.json'),
    JSON.stringify({ mode: 'auto', permissions: { allow: ['Bash(make *)'], deny: ['Bash(rm *)'] } }),
  )
  await writeFile(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { db: { command: 'db-mcp' } } }))
})
afterEach(() => rm(root, { recursive: true, force: true }))

async function setup(trustFlag = false) {
  const loaded = await loadSettings({ cwd: repo, env: { HOME: home }, home })
  const trust = await openProjectTrust({
    workspace: repo,
    home,
    storeFile,
    ledgerFile: join(storeFile, '..', 'local-settings.json'),
    loaded,
    trustFlag,
    baseline: { maxSteps: 50, breaker: DEFAULT_BREAKER },
  })
  const configFor = (trusted: boolean) => resolveConfig(parseArgs([]), trust.settings(trusted).loaded, {})
  const start = configFor(trust.isTrusted())
  const store = createStore(
    initialState({ id: 's', cwd: repo, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, start.mode),
  )
  const rules: SourcedRules[] = []
  let n = 0
  const controller = createTrustController({
    trust,
    store,
    setRules: (r) => rules.push(r),
    configFor,
    setMode: (mode: Mode) => store.dispatch({ type: 'mode/changed', mode }),
    home,
    newId: (prefix) => `${prefix}-${++n}`,
  })
  const notices = () =>
    Object.values(store.getState().transcript.items).flatMap((i) => (i.kind === 'notice' ? [i.text] : []))
  return { trust, store, controller, rules, notices }
}

describe('the trust controller', () => {
  it('at start: one notice naming everything ignored, and the prompt listing it', async () => {
    const { store, controller, notices } = await setup()
    expect(store.getState().mode).toBe('safe')
    await controller.start()
    expect(notices()).toHaveLength(1)
    expect(notices()[0]).toBe(
      'Ignored because ~/code/app is not a trusted folder: allow rule Bash(make *) (.agent-tui/settings.json); ' +
        'setting "mode": "auto" (.agent-tui/settings.json); MCP server db (db-mcp) (.mcp.json). ' +
        'Deny and ask rules from it still apply. Answer the trust prompt (or use /trust later).',
    )
    expect(store.getState().trust).toMatchObject({
      folder: '~/code/app',
      parent: '~/code',
      broad: false,
      current: 'undecided',
      groups: [
        { title: 'Allow rules', items: ['Bash(make *)'], files: ['.agent-tui/settings.json'] },
        { title: 'Settings', items: ['"mode": "auto"'], files: ['.agent-tui/settings.json'] },
        { title: 'MCP servers', items: ['db (db-mcp)'], files: ['.mcp.json'] },
      ],
    })
  })

  it('trusting applies the rules and the mode at once', async () => {
    const { store, controller, rules, notices, trust } = await setup()
    await controller.start()
    const id = store.getState().trust?.id ?? ''
    await controller.resolve(id, 'trust-folder')
    expect(store.getState().trust).toBeNull()
    expect(rules.at(-1)?.allow.map((r) => r.text)).toEqual(['Bash(make *)'])
    expect(rules.at(-1)?.deny.map((r) => r.text)).toEqual(['Bash(rm *)'])
    expect(store.getState().mode).toBe('auto')
    expect(notices().at(-1)).toBe(
      // The MCP server starts at once (the MCP client listens to the answer) and says so itself.
      'Trusted ~/code/app (remembered). Allow rules now in force: Bash(make *). Mode: AUTO.',
    )
    expect(trust.isTrusted()).toBe(true)
    const stored = JSON.parse(await readFile(storeFile, 'utf8'))
    expect(stored.folders[repo].trusted).toBe(true)
  })

  it('commands and skills come (and go) at once with the answer; the notice says which', async () => {
    await mkdir(join(repo, '.agent-tui', 'commands'), { recursive: true })
    await writeFile(join(repo, '.agent-tui', 'commands', 'deploy.md'), 'Deploy it')
    await mkdir(join(repo, '.agent-tui', 'skills', 'release'), { recursive: true })
    await writeFile(join(repo, '.agent-tui', 'skills', 'release', 'SKILL.md'), '---\nname: release\n---\n')
    const { store, controller, notices } = await setup()
    await controller.start()
    await controller.resolve(store.getState().trust?.id ?? '', 'trust-folder')
    expect(notices().at(-1)).toBe(
      'Trusted ~/code/app (remembered). Allow rules now in force: Bash(make *). Mode: AUTO. ' +
        'Now available: command /deploy (.agent-tui/commands/deploy.md); skill release (.agent-tui/skills/release/SKILL.md).',
    )
    await controller.review()
    await controller.resolve(store.getState().trust?.id ?? '', 'distrust')
    expect(notices().at(-1)).toContain('No longer available: command /deploy')
  })

  it('"trust the parent" says which folder was remembered', async () => {
    const { store, controller, notices } = await setup()
    await controller.start()
    await controller.resolve(store.getState().trust?.id ?? '', 'trust-parent')
    expect(notices().at(-1)).toMatch(/^Trusted ~\/code\/app \(remembered for ~\/code\)\./)
  })

  it('leaves a mode the user changed meanwhile alone', async () => {
    const { store, controller } = await setup()
    await controller.start()
    store.dispatch({ type: 'mode/changed', mode: 'plan' })
    await controller.resolve(store.getState().trust?.id ?? '', 'trust-folder')
    expect(store.getState().mode).toBe('plan')
  })

  it('"decide later" writes nothing and keeps the folder untrusted', async () => {
    const { store, controller, rules, notices } = await setup()
    await controller.start()
    await controller.resolve(store.getState().trust?.id ?? '', 'later')
    expect(rules).toEqual([])
    await expect(readFile(storeFile)).rejects.toThrow(/ENOENT/)
    expect(notices().at(-1)).toMatch(/stays untrusted for now; you will be asked at the next start/)
  })

  it('a remembered "do not trust": the notice says so, and no prompt opens', async () => {
    const first = await setup()
    await first.trust.decide('distrust')
    const { store, controller, notices } = await setup()
    await controller.start()
    expect(store.getState().trust).toBeNull()
    expect(notices()).toHaveLength(1)
    expect(notices()[0]).toMatch(
      /^Ignored because you chose not to trust ~\/code\/app \(.*trusted-folders\.json\): allow rule Bash\(make \*\)/,
    )
    expect(notices()[0]).toMatch(/Use \/trust to change that\.$/)
  })

  it('/trust on a trusted folder can withdraw trust: the rules and the mode go back', async () => {
    const { store, controller, rules, notices } = await setup(true)
    expect(store.getState().mode).toBe('auto')
    await controller.start()
    expect(notices()).toEqual([])
    expect(store.getState().trust).toBeNull()
    await controller.review()
    expect(store.getState().trust?.current).toBe('trusted')
    await controller.resolve(store.getState().trust?.id ?? '', 'distrust')
    expect(rules.at(-1)?.allow).toEqual([])
    expect(store.getState().mode).toBe('safe')
    expect(notices().at(-1)).toMatch(
      /^Not trusting ~\/code\/app \(remembered\)\. Allow rules withdrawn: Bash\(make \*\)\./,
    )
  })

  it('the same answer again only remembers it', async () => {
    const { store, controller, rules, notices } = await setup(true)
    await controller.review()
    await controller.resolve(store.getState().trust?.id ?? '', 'trust-folder')
    expect(rules.at(-1)?.allow.map((r) => r.text)).toEqual(['Bash(make *)'])
    expect(notices().at(-1)).toBe('Trusted ~/code/app (remembered). Nothing changes for this session.')
  })

  it('an answer for a prompt that is no longer open does nothing', async () => {
    const { store, controller, rules } = await setup()
    await controller.start()
    await controller.resolve('stale', 'trust-folder')
    expect(rules).toEqual([])
    expect(store.getState().trust).not.toBeNull()
  })
})
