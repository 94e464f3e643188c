/**
 * The status line command in the full-screen session: the user's command gets the session JSON and its
 * first line shows under the status bar, following the session; a repository's command does not run
 * while its folder is untrusted (the trust prompt shows it).
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()

async function userStatusLine(script: string): Promise<string> {
  const path = join(env.box.home, 'status.sh')
  await writeFile(path, `#!/bin/bash\n${script}\n`, { mode: 0o755 })
  const config = join(env.box.home, '.config', 'agent-tui')
  await mkdir(config, { recursive: true })
  await writeFile(
    join(config, 'settings.json'),
    JSON.stringify({ statusLine: { type: 'command', command: path } }),
  )
  return path
}

describe('TUI: status line command', () => {
  let tui: TuiSession | undefined
  afterEach(async () => {
    await tui?.kill()
    tui = undefined
  })

  it("shows the first line of the user's command, fed the session's JSON, and follows the session", async () => {
    const seen = join(env.box.root, 'input.json')
    await userStatusLine(
      `input=$(cat); echo "$input" > ${seen}; printf '\\033]0;pwned\\007\\033[35mSL\\033[0m %s %s\\n' "$(echo "$input" | jq -r .model.display_name)" "$(echo "$input" | jq -r .session_title)"; echo never`,
    )
    env.server.enqueue({ text: 'hello back' })
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 80,
      rows: 24,
    })
    const first = await tui.waitFor(/^ {1,2}SL test-model *$/m)
    expect(first.split('\n')[1]).toMatch(/^ {1,2}SL test-model/)
    expect(first).not.toContain('never')
    await tui.submit('say hello')
    await tui.waitFor(/SL test-model say hello/)
    const input = JSON.parse(await readFile(seen, 'utf8'))
    expect(input).toMatchObject({
      hook_event_name: 'Status',
      model: { id: 'test-model', display_name: 'test-model' },
      workspace: { project_dir: env.box.workspace },
      session_title: 'say hello',
    })
    expect(input.context_window.total_output_tokens).toBeGreaterThan(0)
  })

  it("does not run an untrusted repository's statusLine (the trust prompt shows it); the user's runs", async () => {
    const marker = join(env.box.root, 'repo-ran')
    await userStatusLine('cat > /dev/null; echo USERLINE')
    execFileSync('git', ['init', '-q'], { cwd: env.box.workspace })
    await mkdir(join(env.box.workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ statusLine: { type: 'command', command: `touch ${marker}; echo REPOLINE` } }),
    )
    env.server.enqueue({ text: 'ok' })
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 100,
      rows: 30,
    })
    const prompt = await tui.waitFor('Do you trust')
    expect(prompt).toContain(`statusLine: touch ${marker}; echo REPOLINE`)
    tui.write('3')
    await tui.waitFor((screen) => !screen.includes('Do you trust') && screen.includes(`${PROMPT} Message`))
    await tui.submit('hi')
    await tui.waitFor('USERLINE')
    await tui.waitFor('ok')
    // The status row is the user's line (the notice above the prompt names the repository's command).
    expect(tui.lines()[1]).toBe(' USERLINE')
    await expect(access(marker)).rejects.toThrow()
  })
})
