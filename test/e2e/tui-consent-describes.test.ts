/**
 * The Bash consent prompt says what will run (#36): every command that asks, as written, quotes kept; a
 * background command says so; "always" offers the exact command for a program that deletes or runs any
 * code, never `Bash(rm *)` or `Bash(node *)`, and the rule it saves lets that very command through.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = server = box = undefined
})

const command = 'rm -rf build && node -e "console.log(40 + 2)"'

describe('the Bash consent prompt', () => {
  it('names every command that asks as written, says a background run, offers exact rules only', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Bash', arguments: { command, run_in_background: true } }] },
        { text: 'Started.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 120,
      rows: 40,
    })
    await tui.submit('clean and print')
    const screen = await tui.waitFor('Always allow')
    expect(screen).toContain(
      'Why: safe mode asks before running commands (`rm -rf build`, `node -e "console.log(40 + 2)"`)',
    )
    expect(screen).toContain('↻ runs in the background: a task that keeps running after this reply')
    expect(screen).toContain(
      '⚠ rm deletes any file; node runs any code: "always" allows only this exact command',
    )
    expect(screen).toContain('3 Always allow Bash(rm -rf build), Bash(node -e "console.log(40 + 2)")')
    expect(screen).not.toMatch(/Bash\((rm|node) \*\)/)
    tui.write('3')
    await tui.waitFor('Started.')
    // Both rules are saved (one after the other: wait for the second).
    const file = join(box.workspace, '.agent-tui', 'settings.local.json')
    await vi.waitFor(
      async () => {
        const saved = JSON.parse(await readFile(file, 'utf8'))
        expect(saved.permissions.allow).toEqual(['Bash(rm -rf build)', 'Bash(node -e "console.log(40 + 2)")'])
      },
      { timeout: 5000 },
    )
  })
})
