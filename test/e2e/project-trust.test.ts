/**
 * Project trust end to end (docs/permissions.md#project-trust): a cloned repository's own `.agent-tui/settings.json` may only lower
 * permissions until the folder is trusted — headless with `--trust-project` or a remembered answer, in the
 * TUI through the trust prompt. The real CLI against the scripted server; the repository is a real git
 * checkout whose settings are committed.
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { recordLocalSettings } from '../../source/config/local-settings-ledger.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()
const ledgerFile = () => join(env.box.env.XDG_STATE_HOME ?? '', 'agent-tui', 'local-settings.json')

type Trace = { tool_calls: Array<{ name: string; status: string }> }

/** Commits `files` (path → JSON) to a fresh git repository in the workspace. */
async function commitRepo(files: Record<string, unknown>) {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: env.box.workspace,
      stdio: 'pipe',
    })
  git('init', '-q')
  for (const [path, content] of Object.entries(files)) {
    const file = join(env.box.workspace, path)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, JSON.stringify(content))
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'project settings')
}

const HOSTILE = {
  '.agent-tui/settings.json': { mode: 'dangerous', permissions: { allow: ['Bash'] } },
}

const exists = (name: string) =>
  access(join(env.box.workspace, name)).then(
    () => true,
    () => false,
  )

function scriptTouch(name = 'made.txt') {
  env.server.enqueue(
    { toolCalls: [{ name: 'Bash', arguments: { command: `touch ${name}` } }] },
    { text: 'done' },
  )
}

async function runTouch(extra: string[] = []) {
  scriptTouch()
  const r = await env.cli(['-p', 'make the file', '--output-format', 'json', ...extra])
  expect(r.code).toBe(0)
  return { ...r, statuses: (JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status) }
}

describe('headless: a repository cannot raise its own permissions', () => {
  it('untrusted: its allow rule and mode are ignored, the Bash call is denied, stderr names them', async () => {
    await commitRepo(HOSTILE)
    const r = await runTouch()
    expect(r.statuses).toEqual(['denied'])
    expect(await exists('made.txt')).toBe(false)
    expect(r.stderr).toContain('is not a trusted folder, so what its repository brings is ignored:')
    expect(r.stderr).toContain('  allow rule Bash (.agent-tui/settings.json)')
    expect(r.stderr).toContain('  setting "mode": "dangerous" (.agent-tui/settings.json)')
    expect(r.stderr).toContain('--trust-project')
  })

  it('--trust-project: the allow rule applies and nothing is reported', async () => {
    await commitRepo(HOSTILE)
    const r = await runTouch(['--trust-project'])
    expect(r.statuses).toEqual(['done'])
    expect(await exists('made.txt')).toBe(true)
    expect(r.stderr).toBe('')
  })

  it("the project's deny rules apply whether or not the folder is trusted", async () => {
    await commitRepo({
      '.agent-tui/settings.json': { permissions: { allow: ['Bash'], deny: ['Bash(touch *)'] } },
    })
    expect((await runTouch(['--allowed-tools', 'Bash'])).statuses).toEqual(['denied'])
    expect((await runTouch(['--trust-project'])).statuses).toEqual(['denied'])
    expect(await exists('made.txt')).toBe(false)
  })

  it('a folder trusted earlier (remembered in the state dir, by real path) needs no flag', async () => {
    await commitRepo(HOSTILE)
    const store = join(env.box.env.XDG_STATE_HOME ?? '', 'agent-tui', 'trusted-folders.json')
    await mkdir(dirname(store), { recursive: true })
    await writeFile(
      store,
      JSON.stringify({ version: 1, folders: { [env.box.workspace]: { trusted: true } } }),
    )
    const r = await runTouch()
    expect(r.statuses).toEqual(['done'])
    expect(r.stderr).toBe('')
  })

  it("a settings.local.json committed to the repository counts as the repository's; the user's own applies", async () => {
    await commitRepo({ '.agent-tui/settings.local.json': { permissions: { allow: ['Bash(touch *)'] } } })
    const committed = await runTouch()
    expect(committed.statuses).toEqual(['denied'])
    expect(committed.stderr).toContain('allow rule Bash(touch *) (.agent-tui/settings.local.json)')
    // Untracked and as agent-tui wrote it ("always allow"): the user's.
    execFileSync('git', ['rm', '-q', '--cached', '.agent-tui/settings.local.json'], {
      cwd: env.box.workspace,
    })
    await recordLocalSettings(ledgerFile(), join(env.box.workspace, '.agent-tui', 'settings.local.json'))
    const own = await runTouch()
    expect(own.statuses).toEqual(['done'])
    expect(own.stderr).toBe('')
  })

  it('a settings.local.json that came without git (a downloaded archive) waits for trust: its hook does not run', async () => {
    const marker = join(env.box.root, 'hook-ran')
    await mkdir(join(env.box.workspace, '.agent-tui'))
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.local.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(touch *)'] },
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] },
      }),
    )
    const r = await runTouch()
    expect(r.statuses).toEqual(['denied'])
    expect(await exists('made.txt')).toBe(false)
    expect(
      await access(marker).then(
        () => true,
        () => false,
      ),
    ).toBe(false)
    expect(r.stderr).toContain('.agent-tui/settings.local.json was not written by agent-tui here')
    expect(r.stderr).toContain('allow rule Bash(touch *) (.agent-tui/settings.local.json)')
    // Trusted, it applies: the hook runs and the rule allows.
    const trusted = await runTouch(['--trust-project'])
    expect(trusted.statuses).toEqual(['done'])
    expect(
      await access(marker).then(
        () => true,
        () => false,
      ),
    ).toBe(true)
  })

  it('a committed settings.local.json reached through a committed `.agent-tui` symlink is the repository’s', async () => {
    // git answers "not tracked" for a path beyond a symlink, so the link itself must be asked about.
    await mkdir(join(env.box.workspace, 'cfg'))
    await symlink('cfg', join(env.box.workspace, '.agent-tui'))
    await commitRepo({ 'cfg/settings.local.json': { permissions: { allow: ['Bash(touch *)'] } } })
    const r = await runTouch()
    expect(r.statuses).toEqual(['denied'])
    expect(await exists('made.txt')).toBe(false)
    expect(r.stderr).toContain('allow rule Bash(touch *) (.agent-tui/settings.local.json)')
  })
})

describe('TUI: the trust prompt', () => {
  let tui: TuiSession | undefined
  afterEach(async () => {
    await tui?.kill()
    tui = undefined
  })

  it('appears once, lists what the folder asks for; trusting makes its allow rule apply at once', async () => {
    await commitRepo({ '.agent-tui/settings.json': { permissions: { allow: ['Bash(touch *)'] } } })
    scriptTouch('trusted.txt')
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 30,
    })
    const prompt = await tui.waitFor('Do you trust')
    expect(prompt).toContain('Allow rules (.agent-tui/settings.json):')
    expect(prompt).toContain('Bash(touch *)')
    expect(prompt).toContain('Ignored because')
    tui.write('1')
    await tui.waitFor(/Trusted .* \(remembered\)\. Allow rules now in force: Bash\(touch \*\)/)
    await tui.waitFor((screen) => !screen.includes('Do you trust') && screen.includes(`${PROMPT} Message`))
    await tui.submit('make the file')
    await tui.waitFor('done')
    // No permission prompt: the project's rule covered the command.
    expect(tui.output()).not.toContain('Allow once')
    expect(await exists('trusted.txt')).toBe(true)
    const store = join(env.box.env.XDG_STATE_HOME ?? '', 'agent-tui', 'trusted-folders.json')
    expect(JSON.parse(await readFile(store, 'utf8')).folders[env.box.workspace]).toMatchObject({
      trusted: true,
    })

    // Remembered: the next session does not ask.
    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    await tui.exited
    await tui.kill()
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 30,
    })
    await tui.waitFor(`${PROMPT} Message`)
    await tui.submit('/trust')
    const review = await tui.waitFor('Do you trust')
    expect(review).toContain('Trusted. What its repository brings, all in force:')
  })

  it('"always allow" saves a rule the next start takes as the user’s, in a folder never trusted', async () => {
    scriptTouch('saved.txt')
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 30,
    })
    await tui.waitFor(`${PROMPT} Message`)
    await tui.submit('make the file')
    await tui.waitFor('Bash(touch *)')
    tui.write('3')
    await tui.waitFor('done')
    expect(await exists('saved.txt')).toBe(true)
    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    await tui.exited
    // Recorded as written: the rule applies headless, with nothing to trust and nothing said.
    const again = await runTouch()
    expect(again.statuses).toEqual(['done'])
    expect(again.stderr).toBe('')
  })
})
