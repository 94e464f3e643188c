/**
 * What "allow for the session" / "always allow" offer for a call (issue #21 item 13): the narrowest rule
 * that lets this very call through, a folder rule beside an edit's file rule, and nothing when no rule can.
 * Judged through the real gate and policy; saving through the real broker and files.
 */
import { execFileSync } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GateCheck } from '../../../source/permissions/gate.js'
import { createConsentBroker } from '../../../source/permissions/broker.js'
import { ignoreLocalSettings, saveAlwaysRule } from '../../../source/config/ignore-local-settings.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import { createStore } from '../../../source/store/create-store.js'
import type { ConsentDecision } from '../../../source/store/domain.js'
import { initialState } from '../../../source/store/state.js'
import { createPermissionGate } from '../../../source/permissions/gate.js'
import { waitFor } from '../tasks/helpers.ts'

const workspace = '/work/proj'
const home = '/home/u'

function makeGate() {
  const store = createStore(
    initialState({ id: 's', cwd: workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
  const broker = createConsentBroker({ dispatch: store.dispatch, policy: 'interactive', workspace, home })
  const gate = createPermissionGate({
    store,
    rules: { allow: [], ask: [], deny: [] },
    broker,
    workspace,
    home,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: true,
    savedTo: '.agent-tui/settings.local.json',
  })
  return { gate, broker, store }
}

const bash = (command: string): GateCheck => ({
  tool: 'Bash',
  risk: 'exec',
  target: { kind: 'command', command, cwd: workspace },
  readOnly: false,
})
const edit = (path: string, tool = 'Edit'): GateCheck => ({
  tool,
  risk: 'edit',
  target: { kind: 'path', path: `${workspace}/${path}`, access: 'write' },
  readOnly: false,
})

describe('the rules a consent prompt offers', () => {
  it.each<[string, GateCheck, { rule: string; directoryRule?: string; noRule?: RegExp; caution?: RegExp }]>([
    ['a command: its program and subcommand', bash('npm test -- --watch'), { rule: 'Bash(npm test *)' }],
    [
      'a for-loop: the program in its body, not `for`',
      bash('for i in 1 2; do npm test; done'),
      { rule: 'Bash(npm test *)' },
    ],
    [
      'two programs: a rule for each, both needed',
      bash('npm install && npm test'),
      { rule: 'Bash(npm install *), Bash(npm test *)' },
    ],
    [
      'a loop writing a path only known when it runs: no rule can allow it',
      bash('for f in a b; do touch "$f"; done'),
      { rule: 'Bash(touch *)', noRule: /only known when it runs/ },
    ],
    [
      'five different programs: too many to offer',
      bash('cp a b && mv b c && touch d && mkdir e && ln -s f g'),
      {
        rule: 'Bash(cp *), Bash(mv *), Bash(touch *), Bash(mkdir *), Bash(ln *)',
        noRule: /runs 5 different commands/,
      },
    ],
    [
      'an edit: the file, and its folder beside it',
      edit('source/ui/app.tsx'),
      { rule: 'Edit(source/ui/app.tsx)', directoryRule: 'Edit(source/ui/**)' },
    ],
    [
      'an edit at the root: the file, or the whole workspace',
      edit('README.md', 'Write'),
      { rule: 'Edit(README.md)', directoryRule: 'Edit(**)' },
    ],
    [
      'a protected write: nothing to remember',
      edit('.git/config'),
      { rule: 'Edit(.git/config)', noRule: /\.git/ },
    ],
    ['a secrets file: nothing to remember', edit('.env'), { rule: 'Edit(.env)', noRule: /secret|\.env/ }],
    [
      'a deletion: the exact command, with why not `rm *`',
      bash('rm -rf build'),
      {
        rule: 'Bash(rm -rf build)',
        caution: /^rm deletes any file: "always" allows only this exact command$/,
      },
    ],
    [
      'an interpreter: the exact code, not `node *`',
      bash('node -e "console.log(1)"'),
      { rule: 'Bash(node -e "console.log(1)")', caution: /^node runs any code/ },
    ],
    [
      'a git subcommand that deletes',
      bash('git clean -fd && npm test'),
      { rule: 'Bash(git clean -fd), Bash(npm test *)', caution: /^git clean deletes untracked files:/ },
    ],
    [
      'a deletion with a glob: an exact rule would be a wildcard, so only once',
      bash('rm -f *.o'),
      { rule: 'Bash(rm -f *.o)', noRule: /a \* in the command would match any other/ },
    ],
  ])('%s', (_name, call, expected) => {
    const { gate } = makeGate()
    const verdict = gate.check(call)
    expect(verdict.decision).toBe('ask')
    const offer = gate.offerRules?.(call, verdict)
    expect(offer?.rule).toBe(expected.rule)
    expect(offer?.directoryRule).toBe(expected.directoryRule)
    if (expected.noRule) expect(offer?.noRule).toMatch(expected.noRule)
    else expect(offer?.noRule).toBeUndefined()
    if (expected.caution) expect(offer?.caution).toMatch(expected.caution)
    else expect(offer?.caution).toBeUndefined()
  })

  it('a read outside the workspace offers its folder, and that opens it', () => {
    const { gate } = makeGate()
    const call: GateCheck = {
      tool: 'Read',
      risk: 'read',
      target: { kind: 'path', path: '/srv/data/x.csv', access: 'read' },
      readOnly: true,
    }
    expect(gate.offerRules?.(call, gate.check(call))).toEqual({ rule: 'Read(//srv/data/**)' })
  })
})

describe('granting an offer', () => {
  async function grant(call: GateCheck, decision: ConsentDecision) {
    const { gate, broker, store } = makeGate()
    const verdict = gate.check(call)
    const offer = gate.offerRules?.(call, verdict)
    const pending = broker.request(
      {
        callId: 'c1',
        tool: call.tool,
        risk: call.risk,
        summary: call.tool,
        reason: verdict.reason,
        preview: { kind: 'none' },
        suggestedRule: offer?.rule ?? '',
        ...(offer?.directoryRule ? { directoryRule: offer.directoryRule } : {}),
        ...(offer?.noRule ? { noRule: offer.noRule } : {}),
        target: call.target as PermissionTarget,
        readOnly: call.readOnly,
      },
      new AbortController().signal,
    )
    broker.resolve(store.getState().consent.queue[0] as string, decision)
    await pending
    return { gate, broker }
  }

  it('the session grant of a compound command allows it next time, and only it', async () => {
    const { gate, broker } = await grant(bash('npm install && npm test'), { kind: 'session' })
    expect(broker.sessionRules().map((r) => r.text)).toEqual(['Bash(npm install *)', 'Bash(npm test *)'])
    expect(gate.check(bash('npm install && npm test')).decision).toBe('allow')
    expect(gate.check(bash('npm test && npm publish')).decision).toBe('ask')
  })

  it('"always" for the folder saves the folder rule: other files there are allowed', async () => {
    const { gate, broker } = await grant(edit('source/a.ts'), { kind: 'always', scope: 'directory' })
    expect(broker.sessionRules().map((r) => r.text)).toEqual(['Edit(source/**)'])
    expect(gate.check(edit('source/b/c.ts')).decision).toBe('allow')
    expect(gate.check(edit('test/x.ts')).decision).toBe('ask')
  })

  it('"always" for the file saves only the file', async () => {
    const { gate } = await grant(edit('source/a.ts'), { kind: 'always' })
    expect(gate.check(edit('source/a.ts')).decision).toBe('allow')
    expect(gate.check(edit('source/b.ts')).decision).toBe('ask')
  })

  it('nothing is remembered for a call no rule can allow', async () => {
    const { broker } = await grant(bash('for f in a b; do touch "$f"; done'), { kind: 'always' })
    expect(broker.sessionRules()).toEqual([])
  })
})

describe('saving "always allow" keeps the local settings out of git', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-ignore-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
  const local = () => join(dir, '.agent-tui', 'settings.local.json')

  it('never saves through a local settings file or folder that is a link out of the workspace', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'agent-tui-outside-'))
    try {
      const docker = join(outside, 'config.json')
      await writeFile(docker, '{"auths":{"registry":{"auth":"c2VjcmV0"}}}\n')
      await mkdir(join(dir, '.agent-tui'))
      await symlink(docker, local())
      await expect(saveAlwaysRule(local(), dir, 'Bash(npm test *)')).rejects.toThrow(
        /settings\.local\.json is a link \(it leads to .*config\.json\)/,
      )
      expect(await readFile(docker, 'utf8')).toBe('{"auths":{"registry":{"auth":"c2VjcmV0"}}}\n')
      expect((await lstat(local())).isSymbolicLink()).toBe(true)
      await rm(join(dir, '.agent-tui'), { recursive: true })
      await symlink(outside, join(dir, '.agent-tui'))
      await expect(saveAlwaysRule(local(), dir, 'Bash(npm test *)')).rejects.toThrow(/is a link/)
      expect(await readdir(outside)).toEqual(['config.json'])
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('never reads or rewrites a .gitignore that is a link (to a key, to the environment)', async () => {
    git('init', '-q')
    await writeFile(join(dir, 'id_rsa'), 'PRIVATE KEY\n')
    await symlink(join(dir, 'id_rsa'), join(dir, '.gitignore'))
    const notice = await saveAlwaysRule(local(), dir, 'Bash(npm test *)')
    expect(notice).toMatchObject({ level: 'warn', text: expect.stringContaining('.gitignore is a link') })
    expect((await lstat(join(dir, '.gitignore'))).isSymbolicLink()).toBe(true)
    expect(await readFile(join(dir, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n')
  })

  it('adds the entry to .gitignore once, keeping what is there, and says so', async () => {
    git('init', '-q')
    await writeFile(join(dir, '.gitignore'), 'node_modules/')
    const notice = await saveAlwaysRule(local(), dir, 'Bash(npm test *)')
    expect(notice).toMatchObject({ level: 'info', text: expect.stringContaining('.gitignore') })
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.agent-tui/settings.local.json\n',
    )
    expect(await saveAlwaysRule(local(), dir, 'Bash(make *)')).toBeUndefined()
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.agent-tui/settings.local.json\n',
    )
    expect(JSON.parse(await readFile(local(), 'utf8')).permissions.allow).toEqual([
      'Bash(npm test *)',
      'Bash(make *)',
    ])
    // git agrees.
    expect(() => git('check-ignore', '-q', '.agent-tui/settings.local.json')).not.toThrow()
  })

  it('leaves a folder that is not a git repository alone', async () => {
    expect(await ignoreLocalSettings(dir)).toEqual({ kind: 'not-a-repository' })
    await saveAlwaysRule(local(), dir, 'Read')
    await expect(readFile(join(dir, '.gitignore'), 'utf8')).rejects.toThrow(/ENOENT/)
  })

  it('adds nothing when a pattern git already applies covers the file', async () => {
    git('init', '-q')
    await writeFile(join(dir, '.gitignore'), '.agent-tui/\n')
    expect(await ignoreLocalSettings(dir)).toEqual({ kind: 'already-ignored' })
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('.agent-tui/\n')
  })

  it('saves several rules of one answer in order, none lost', async () => {
    const { broker, store } = makeGate()
    const saved: string[] = []
    const saving = createConsentBroker({
      dispatch: store.dispatch,
      policy: 'interactive',
      onAlways: async (rule) => {
        await saveAlwaysRule(local(), dir, rule)
        saved.push(rule)
        return undefined
      },
    })
    void broker
    const pending = saving.request(
      {
        callId: 'c',
        tool: 'Bash',
        risk: 'exec',
        summary: 'x',
        reason: 'r',
        preview: { kind: 'none' },
        suggestedRule: 'Bash(npm install *), Bash(npm test *), Bash(make *)',
      },
      new AbortController().signal,
    )
    saving.resolve(store.getState().consent.queue[0] as string, { kind: 'always' })
    await pending
    await waitFor(() => saved.length === 3, 'the three rules to be saved')
    expect(JSON.parse(await readFile(local(), 'utf8')).permissions.allow).toEqual([
      'Bash(npm install *)',
      'Bash(npm test *)',
      'Bash(make *)',
    ])
  })
})
