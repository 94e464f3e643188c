import { mkdir, mkdtemp, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../source/agent/turn/circuit-breaker.js'
import { loadSettings } from '../../../source/config/load.js'
import { openProjectTrust } from '../../../source/config/project-trust.js'
import { judgeConfig, ownConfig } from '../../../source/config/trust-fingerprint.js'
import { untrustedNotice } from '../../../source/config/trust-messages.js'
import { createWindowLedger } from '../../../source/provenance/windows.js'

let root: string
let home: string
let repo: string
let storeFile: string
let windowsDir: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-fingerprint-')))
  home = join(root, 'home')
  repo = join(home, 'code', 'app')
  storeFile = join(home, '.local', 'state', 'agent-tui', 'trusted-folders.json')
  windowsDir = join(home, '.local', 'state', 'agent-tui', 'provenance', 'windows')
  await mkdir(repo, { recursive: true })
  await write('.agent-tui/settings.json', { permissions: { allow: ['Bash(npm test)'] } })
})
afterEach(() => rm(root, { recursive: true, force: true }))

async function write(rel: string, content: unknown) {
  const file = join(repo, rel)
  await mkdir(join(file, '..'), { recursive: true })
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
}

async function open(workspace = repo, extra: { trustFlag?: boolean } = {}) {
  const loaded = await loadSettings({ cwd: workspace, env: { HOME: home }, home })
  return openProjectTrust({
    workspace,
    home,
    storeFile,
    ledgerFile: join(home, '.local', 'state', 'agent-tui', 'local-settings.json'),
    loaded,
    trustFlag: extra.trustFlag ?? false,
    baseline: { maxSteps: 50, breaker: DEFAULT_BREAKER },
    windowsDir,
    isTracked: async () => false,
  })
}

const stored = async () => JSON.parse(await readFile(storeFile, 'utf8')).folders
const SERVER = { mcpServers: { evil: { command: 'node', args: ['evil.js'] } } }
const HOOK = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'touch pwned' }] }] } }

/** A session that ran commands unasked, open from now on (this process: alive). */
function unaskedFromNow() {
  createWindowLedger({ dir: windowsDir, session: 's1', roots: [repo], now: () => Date.now() - 50 }).open()
}

describe('configuration at any depth: trust given to a folder covers what it held', () => {
  it('trusting records the configuration of the folder and its subfolders', async () => {
    await write('sub/.mcp.json', SERVER)
    await write('sub/.agent-tui/memory.md', '- notes are not configuration\n')
    await (await open()).decide('trust-folder')
    const entry = (await stored())[repo]
    expect(Object.keys(entry.config).sort()).toEqual(['.agent-tui/settings.json', 'sub/.mcp.json'])
    expect(entry.id).toMatch(/^\d+:\d+$/)
    // A subfolder whose configuration was there when its parent was trusted is trusted through it.
    expect((await open(join(repo, 'sub'))).status()).toMatchObject({ trusted: true, source: 'store' })
  })

  it('a subfolder whose own configuration appeared after its parent was trusted is asked about again', async () => {
    await (await open()).decide('trust-folder')
    await write('sub/.mcp.json', SERVER)
    await write('sub2/.agent-tui/settings.json', HOOK)
    const sub = await open(join(repo, 'sub'))
    expect(sub.status()).toMatchObject({
      trusted: false,
      source: 'changed',
      changes: ['.mcp.json appeared after the folder above was trusted'],
    })
    expect(sub.mayLoad('mcp-server')).toBe(false)
    const sub2 = await open(join(repo, 'sub2'))
    expect(sub2.status()).toMatchObject({ trusted: false, source: 'changed' })
    expect(sub2.settings().loaded.merged.hooks).toBeUndefined()
    expect(sub2.settings(true).loaded.merged.hooks).toBeDefined()
    // Headless says why, and how to go on.
    const text = untrustedNotice({
      contributions: await sub2.contributions(),
      status: sub2.status(),
      folder: '~/code/app/sub2',
      realFolder: sub2.folder,
      display: (p) => p.replace(home, '~'),
      storeLabel: '~/.local/state/agent-tui/trusted-folders.json',
      headless: true,
    })
    expect(text).toContain(
      "agent-tui: ~/code/app/sub2 holds configuration that was not there, or not so, when ~/code/app was trusted (this folder's trust comes from it): .agent-tui/settings.json appeared after the folder above was trusted, so what its repository brings is ignored:",
    )
    expect(text).toContain('hook SessionStart: touch pwned')
    expect(text).toContain('--trust-project (this run), or start')
    expect(text).toContain('trust the folder again (remembered)')
    // --trust-project still trusts it for the run.
    expect((await open(join(repo, 'sub2'), { trustFlag: true })).status()).toMatchObject({ trusted: true })
  })

  it('a subfolder’s recorded configuration that changed asks too; trusting the subfolder then records it', async () => {
    await write('sub/.mcp.json', { mcpServers: {} })
    await (await open()).decide('trust-folder')
    await write('sub/.mcp.json', SERVER)
    const sub = await open(join(repo, 'sub'))
    expect(sub.status()).toMatchObject({
      source: 'changed',
      changes: ['.mcp.json changed after the folder above was trusted'],
    })
    await sub.decide('trust-folder')
    expect((await open(join(repo, 'sub'))).status()).toMatchObject({ trusted: true, source: 'store' })
  })

  it('"trust the parent" from a subfolder records what that subfolder showed', async () => {
    await (await open()).decide('trust-folder')
    await write('sub/.mcp.json', SERVER)
    await (await open(join(repo, 'sub'))).decide('trust-parent')
    expect(Object.keys((await stored())[repo].config)).toContain('sub/.mcp.json')
    expect((await open(join(repo, 'sub'))).status()).toMatchObject({ trusted: true })
  })

  it('your own edits of the trusted folder’s configuration do not ask', async () => {
    await (await open()).decide('trust-folder')
    await write('.agent-tui/settings.json', { permissions: { allow: ['Bash(npm run lint)'] } })
    await write('.mcp.json', SERVER)
    expect((await open()).status()).toMatchObject({ trusted: true, source: 'store' })
  })

  it('an edit of it while commands or edits ran unasked asks again', async () => {
    await (await open()).decide('trust-folder')
    unaskedFromNow()
    await write('.agent-tui/settings.json', HOOK)
    const trust = await open()
    expect(trust.status()).toMatchObject({ trusted: false, source: 'changed' })
    expect(trust.status().changes?.[0]).toMatch(
      /^\.agent-tui\/settings\.json changed at \d\d:\d\d:\d\d while commands or edits ran unasked$/,
    )
  })

  it('another directory renamed into the trusted folder’s place is not the trusted folder', async () => {
    await (await open()).decide('trust-folder')
    // An old checkout elsewhere (its files keep their old ctimes), moved into place.
    const other = join(home, 'code', 'other')
    await mkdir(join(other, '.agent-tui'), { recursive: true })
    await writeFile(join(other, '.agent-tui', 'settings.json'), JSON.stringify(HOOK))
    await rename(repo, join(home, 'code', 'app-old'))
    await rename(other, repo)
    expect((await open()).status()).toMatchObject({
      trusted: false,
      source: 'changed',
      changes: [
        '.agent-tui/settings.json changed, and the folder is not the directory that was trusted (it was replaced)',
      ],
    })
  })

  it('an entry from before records were kept: the folder itself stays trusted, a subfolder with configuration asks', async () => {
    await mkdir(join(storeFile, '..'), { recursive: true })
    await writeFile(storeFile, JSON.stringify({ version: 1, folders: { [repo]: { trusted: true } } }))
    await write('sub/.mcp.json', SERVER)
    expect((await open()).status()).toMatchObject({ trusted: true })
    expect((await open(join(repo, 'sub'))).status()).toMatchObject({ trusted: false, source: 'changed' })
    // A subfolder without configuration of its own has nothing to ask about.
    await mkdir(join(repo, 'plain'))
    expect((await open(join(repo, 'plain'))).status()).toMatchObject({ trusted: true })
  })

  it('a record leaves out what changed while commands ran unasked, so it still counts as new there', async () => {
    unaskedFromNow()
    await write('planted/.mcp.json', SERVER)
    await (await open()).decide('trust-folder')
    expect(Object.keys((await stored())[repo].config)).not.toContain('planted/.mcp.json')
    expect((await open(join(repo, 'planted'))).status()).toMatchObject({ source: 'changed' })
  })

  it('judgeConfig: the changes it accepts come back as the new record', () => {
    const own = ownConfig(repo)
    expect(judgeConfig({ folder: repo, own, record: {}, prefix: '', windows: [], sameFolder: true })).toEqual(
      {
        ok: true,
        record: { '.agent-tui/settings.json': own[0]?.hash },
      },
    )
    const record = { '.agent-tui/settings.json': own[0]?.hash ?? '' }
    expect(judgeConfig({ folder: repo, own, record, prefix: '', windows: [], sameFolder: true })).toEqual({
      ok: true,
    })
  })
})
