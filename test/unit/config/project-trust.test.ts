import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../source/agent/turn/circuit-breaker.js'
import { loadSettings } from '../../../source/config/load.js'
import { recordLocalSettings } from '../../../source/config/local-settings-ledger.js'
import { openProjectTrust } from '../../../source/config/project-trust.js'

let root: string
let home: string
let repo: string
let storeFile: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-trust-')))
  home = join(root, 'home')
  repo = join(home, 'code', 'app')
  storeFile = join(home, '.local', 'state', 'agent-tui', 'trusted-folders.json')
  await mkdir(join(repo, '.agent-tui'), { recursive: true })
})
afterEach(() => rm(root, { recursive: true, force: true }))

const ledgerFile = () => join(home, '.local', 'state', 'agent-tui', 'local-settings.json')

async function write(rel: string, content: unknown) {
  const file = join(repo, rel)
  await mkdir(join(file, '..'), { recursive: true })
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
}

async function open(
  workspace = repo,
  extra: { trustFlag?: boolean; tracked?: boolean | 'unknown'; recorded?: boolean } = {},
) {
  const env = { HOME: home }
  if (extra.recorded)
    await recordLocalSettings(ledgerFile(), join(workspace, '.agent-tui/settings.local.json'))
  const loaded = await loadSettings({ cwd: workspace, env, home })
  return openProjectTrust({
    workspace,
    home,
    storeFile,
    ledgerFile: ledgerFile(),
    loaded,
    trustFlag: extra.trustFlag ?? false,
    baseline: { maxSteps: 50, breaker: DEFAULT_BREAKER },
    ...(extra.tracked === undefined ? {} : { isTracked: async () => extra.tracked ?? false }),
  })
}

const allowTexts = (trust: Awaited<ReturnType<typeof open>>, trusted?: boolean) =>
  trust.settings(trusted).loaded.rules.allow.map((r) => r.text)

describe('openProjectTrust', () => {
  beforeEach(() => write('.agent-tui/settings.json', { permissions: { allow: ['Bash'] } }))

  it('a folder never answered for is untrusted, and its allow rules wait', async () => {
    const trust = await open()
    expect(trust.status()).toEqual({ trusted: false, source: 'none' })
    expect(allowTexts(trust)).toEqual([])
    expect(allowTexts(trust, true)).toEqual(['Bash'])
    expect(trust.mayLoad('mcp-server')).toBe(false)
  })

  it('--trust-project trusts it for the run without writing anything', async () => {
    const trust = await open(repo, { trustFlag: true })
    expect(trust.status()).toEqual({ trusted: true, source: 'flag' })
    expect(allowTexts(trust)).toEqual(['Bash'])
    await expect(readFile(storeFile)).rejects.toThrow(/ENOENT/)
  })

  it('remembers "trust" by real path: the same folder through a symlink is trusted, the answer is live', async () => {
    const trust = await open()
    const seen: boolean[] = []
    trust.subscribe((status) => seen.push(status.trusted))
    const { status } = await trust.decide('trust-folder')
    expect(status).toMatchObject({ trusted: true, source: 'store', entry: { path: repo, trusted: true } })
    expect(seen).toEqual([true])
    expect(allowTexts(trust)).toEqual(['Bash'])

    const link = join(root, 'link-to-app')
    await symlink(repo, link)
    const again = await open(link)
    expect(again.folder).toBe(repo)
    expect(again.status()).toMatchObject({ trusted: true, source: 'store' })
    const stored = JSON.parse(await readFile(storeFile, 'utf8'))
    expect(Object.keys(stored.folders)).toEqual([repo])
  })

  it('a symlink in the trusted path does not carry trust to where it points', async () => {
    await (await open()).decide('trust-folder')
    const elsewhere = join(root, 'elsewhere')
    await mkdir(elsewhere)
    await symlink(elsewhere, join(repo, 'inner'))
    expect((await open(join(repo, 'inner'))).status()).toEqual({ trusted: false, source: 'none' })
  })

  it('"trust the parent" trusts siblings too, and beats the folder\'s own earlier "do not trust"', async () => {
    const trust = await open()
    await trust.decide('distrust')
    expect((await open()).status()).toMatchObject({ trusted: false, source: 'store' })
    expect(trust.parentToOffer()).toBe(join(home, 'code'))
    const { status } = await trust.decide('trust-parent')
    expect(status).toMatchObject({ trusted: true, entry: { path: join(home, 'code') } })
    const sibling = join(home, 'code', 'other')
    await mkdir(sibling)
    expect((await open(sibling)).isTrusted()).toBe(true)
  })

  it('never offers to trust the home folder as a whole', async () => {
    const top = join(home, 'project')
    await mkdir(top)
    const trust = await open(top)
    expect(trust.parentToOffer()).toBeNull()
    expect(trust.isBroad()).toBe(false)
    const inHome = await open(home)
    expect(inHome.isBroad()).toBe(true)
    await inHome.decide('trust-folder')
    // Trusting home itself trusts home, not every project below it.
    expect((await open(home)).isTrusted()).toBe(true)
    expect((await open(repo)).isTrusted()).toBe(false)
  })

  it('an explicit "do not trust" is remembered', async () => {
    await (await open()).decide('distrust')
    const trust = await open()
    expect(trust.status()).toMatchObject({ trusted: false, source: 'store', entry: { trusted: false } })
  })

  it('a corrupt store: untrusted with a warning; answering keeps the old file aside', async () => {
    await mkdir(join(storeFile, '..'), { recursive: true })
    await writeFile(storeFile, `{"folders": {"${repo}": {"trusted": true}}`)
    const trust = await open()
    expect(trust.isTrusted()).toBe(false)
    expect(trust.warnings().join('\n')).toMatch(/trusted-folders\.json is not valid JSON/)
    const { status, warning } = await trust.decide('trust-folder')
    expect(status.trusted).toBe(true)
    expect(warning).toMatch(
      /was unreadable; it was kept as .*trusted-folders\.json\.corrupt-\d+ and replaced/,
    )
  })

  it('when the store cannot be written the answer holds for the session, and says so', async () => {
    // A file where the state directory should be.
    await mkdir(join(home, '.local'), { recursive: true })
    await writeFile(join(home, '.local', 'state'), 'not a dir')
    const trust = await open()
    const { status, warning } = await trust.decide('trust-folder')
    expect(status).toEqual({ trusted: true, source: 'session' })
    expect(warning).toMatch(/could not remember this answer .* holds for this session only/)
    expect(allowTexts(trust)).toEqual(['Bash'])
  })
})

describe('settings.local.json', () => {
  beforeEach(() => write('.agent-tui/settings.local.json', { permissions: { allow: ['Bash(npm test *)'] } }))

  it("is the user's when agent-tui wrote it and git does not track it", async () => {
    const trust = await open(repo, { tracked: false, recorded: true })
    expect(await trust.settled()).toBe(false)
    expect(allowTexts(trust)).toEqual(['Bash(npm test *)'])
    expect(trust.localIsYours()).toBe(true)
  })

  it("one agent-tui did not write (an archive, a hand edit) is the repository's until the folder is trusted", async () => {
    // A "Download ZIP" has no git to say the file was committed.
    const trust = await open(repo, { tracked: false })
    expect(allowTexts(trust)).toEqual([])
    expect(allowTexts(trust, true)).toEqual(['Bash(npm test *)'])
    expect(trust.localIsYours()).toBe(false)
    expect(await trust.contributions()).toEqual([
      {
        kind: 'allow-rule',
        label: 'Bash(npm test *)',
        file: '.agent-tui/settings.local.json',
        key: 'permissions',
      },
    ])
    expect(trust.warnings().join('\n')).toMatch(
      /\.agent-tui\/settings\.local\.json was not written by agent-tui here \(or was changed since\)/,
    )
  })

  it("changed since agent-tui wrote it, it is the repository's again", async () => {
    await recordLocalSettings(ledgerFile(), join(repo, '.agent-tui/settings.local.json'))
    await write('.agent-tui/settings.local.json', { permissions: { allow: ['Bash'] } })
    const trust = await open(repo, { tracked: false })
    expect(allowTexts(trust)).toEqual([])
  })

  it('a trusted folder takes it whoever wrote it, and says nothing', async () => {
    const trust = await open(repo, { tracked: false, trustFlag: true })
    expect(allowTexts(trust)).toEqual(['Bash(npm test *)'])
    expect(trust.warnings()).toEqual([])
  })

  it("is the repository's when git tracks it (known after settled())", async () => {
    const trust = await open(repo, { tracked: true, recorded: true })
    expect(await trust.settled()).toBe(true)
    expect(allowTexts(trust)).toEqual([])
    const contributions = await trust.contributions()
    expect(contributions).toEqual([
      {
        kind: 'allow-rule',
        label: 'Bash(npm test *)',
        file: '.agent-tui/settings.local.json',
        key: 'permissions',
      },
    ])
  })

  it('is checked before start-up goes on when it sets more than rules', async () => {
    await write('.agent-tui/settings.local.json', { mode: 'auto', permissions: { allow: ['Bash'] } })
    const trust = await open(repo, { tracked: true })
    // Already known: no settled() needed for the mode the first frame shows.
    expect(trust.settings().loaded.merged.mode).toBeUndefined()
  })

  it("when git cannot tell, it counts as the repository's, with a warning", async () => {
    const trust = await open(repo, { tracked: 'unknown', recorded: true })
    await trust.settled()
    expect(allowTexts(trust)).toEqual([])
    expect(trust.warnings().join('\n')).toMatch(
      /could not ask git whether .agent-tui\/settings.local.json is committed/,
    )
  })

  it('asks the real git', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: repo,
        stdio: 'pipe',
      })
    git('init', '-q')
    expect(allowTexts(await open(repo, { recorded: true }))).toEqual(['Bash(npm test *)'])
    git('add', '.agent-tui/settings.local.json')
    git('commit', '-q', '-m', 'oops')
    const trust = await open()
    await trust.settled()
    expect(allowTexts(trust)).toEqual([])
  })
})

describe('contributions: what trusting the folder would enable', () => {
  it('lists settings items, .mcp.json servers, agents, commands and skills, grouped by kind', async () => {
    await write('.agent-tui/settings.json', {
      permissions: { allow: ['Bash'], deny: ['Bash(rm *)'] },
      mode: 'auto',
    })
    await write('.mcp.json', { mcpServers: { db: { command: 'npx', args: ['db-mcp'] } } })
    await write('.agent-tui/agents/reviewer.md', '# reviewer')
    await write('.agent-tui/commands/deploy.md', 'deploy')
    await write('.agent-tui/commands/frontend/build.md', 'build')
    await write('.agent-tui/commands/notes.txt', 'not a command')
    await write('.agent-tui/skills/pdf/SKILL.md', '# pdf')
    await write('.agent-tui/skills/empty/README.md', 'no SKILL.md')
    const trust = await open(repo, { trustFlag: true })
    const labels = (await trust.contributions()).map((c) => `${c.kind}: ${c.label} @ ${c.file}`)
    expect(labels).toEqual([
      'allow-rule: Bash @ .agent-tui/settings.json',
      'setting: "mode": "auto" @ .agent-tui/settings.json',
      'mcp-server: db (npx db-mcp) @ .mcp.json',
      'agent: reviewer @ .agent-tui/agents/reviewer.md',
      'command: /deploy @ .agent-tui/commands/deploy.md',
      'command: /build @ .agent-tui/commands/frontend/build.md',
      'skill: pdf @ .agent-tui/skills/pdf/SKILL.md',
    ])
  })

  it('a folder that brings nothing has no contributions', async () => {
    expect(await (await open()).contributions()).toEqual([])
  })
})
