/**
 * Hooks in the full-screen session: the trust prompt lists a repository's hooks, trusting the folder puts
 * them in force at once, and what a hook does shows in the transcript as a one-line card.
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()

describe('TUI: hooks', () => {
  let tui: TuiSession | undefined
  afterEach(async () => {
    await tui?.kill()
    tui = undefined
  })

  it("the trust prompt lists the repository's hooks; trusting runs them at once, and their cards show", async () => {
    const marker = join(env.box.root, 'ran')
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: env.box.workspace,
        stdio: 'pipe',
      })
    git('init', '-q')
    await mkdir(join(env.box.workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: `touch ${marker}; echo "no rm" >&2; exit 2` }],
            },
          ],
        },
      }),
    )
    git('add', '-A')
    git('commit', '-q', '-m', 'hooks')
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: 'rm -rf build' } }] },
      { text: 'ok' },
    )
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model', '--mode', 'auto'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 30,
    })
    const prompt = await tui.waitFor('Do you trust')
    expect(prompt).toContain('Hooks (.agent-tui/settings.json):')
    expect(prompt).toContain(`PreToolUse(Bash): touch ${marker}`)
    tui.write('1')
    await tui.waitFor(/Hooks now in force: PreToolUse\(Bash\)/)
    await tui.waitFor((screen) => !screen.includes('Do you trust') && screen.includes(`${PROMPT} Message`))
    await tui.submit('clean up')
    const screen = await tui.waitFor('↪ PreToolUse hook blocked Bash: no rm')
    expect(screen).toMatch(/⊘ Bash rm -rf build · denied/)
    await access(marker)
  })
})
