/**
 * Focus never eats typing (#36 defect 1): Esc from a job's view returns to the prompt, not the tasks list;
 * letters typed while the tasks pane has the focus go to the prompt unless they are the pane's own keys.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
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

const promptLine = (text: string) => (s: string) =>
  s.split('\n').some((l) => l.startsWith(`${PROMPT}${text}`))

describe('focus and typing', () => {
  it('Esc from a job view goes back to the prompt, and typing in the tasks pane reaches the prompt', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Bash', arguments: { command: 'echo serving; sleep 60', run_in_background: true } },
          ],
        },
        { text: 'Started it.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model', '--allowed-tools', 'Bash'],
      cwd: box.workspace,
      env: box.env,
      cols: 120,
      rows: 40,
    })
    await tui.submit('start the server')
    await tui.waitFor('Started it.')
    // Into the tasks pane, open the job, Esc: the prompt has the focus again, and takes what is typed.
    tui.write(keys.tab)
    await tui.waitFor('Esc back')
    tui.write(keys.enter)
    await tui.waitFor('Esc back · k stop')
    tui.write(keys.esc)
    await tui.waitFor((s) => !s.includes('Esc back · k stop'))
    tui.write('/cle')
    await tui.waitFor(promptLine('/cle'))

    // Clear the draft; in the tasks list, letters that are not its keys go to the prompt, in order.
    for (let i = 0; i < 4; i++) tui.write(keys.backspace)
    await tui.waitFor(promptLine(' Message'))
    tui.write(keys.tab)
    await tui.waitFor('Esc back')
    tui.write('hello')
    await tui.waitFor(promptLine('hello'))
    expect(tui.screen()).not.toContain('Stop b')
  })
})
