/**
 * End-to-end tests of the full-screen TUI for the daily-driver rough edges: keys arriving several to a
 * read, queued messages, the message printed on exit. The built CLI in a pseudo-terminal against the
 * scripted server; every wait is on a screen, request or process condition.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ReplySource, type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = undefined
  server = undefined
  box = undefined
})

async function launch(replies: ReplySource[], size = { cols: 100, rows: 30 }, flags: string[] = []) {
  box = await makeSandbox()
  server = await startScriptedServer({ replies })
  tui = startTui({
    args: ['--base-url', server.baseUrl, '--model', 'test-model', ...flags],
    cwd: box.workspace,
    env: box.env,
    ...size,
  })
  await tui.waitFor((screen) => screen.includes('❯  Message'))
  return { box, server, tui }
}

/** The messages of the `n`th chat request (1-based), as JSON text. */
const requestText = (s: ScriptedServer, n: number) => JSON.stringify(s.requests[n - 1]?.body.messages ?? [])

describe('keys that arrive several to a read', () => {
  it('answers "Other" with text and Enter sent in one write, and Tab completes right after a letter', async () => {
    const { server, tui } = await launch([
      {
        toolCalls: [
          {
            name: 'AskUserQuestion',
            arguments: {
              questions: [
                {
                  question: 'Which colour?',
                  header: 'Colour',
                  multiSelect: false,
                  options: [
                    { label: 'Blue', description: 'the brand colour' },
                    { label: 'Red', description: 'loud' },
                  ],
                },
              ],
            },
          },
        ],
      },
      { text: 'Green it is.' },
    ])
    await tui.submit('pick a colour')
    await tui.waitFor('3. Other')
    tui.write('3')
    await tui.waitFor('❯ 3. Other')
    // What `tmux send-keys "Green" Enter` or a paste-and-Enter delivers: one read.
    tui.write('Green\r')
    await server.waitForRequests(2)
    expect(requestText(server, 2)).toContain('Green')
    await tui.waitFor('Green it is.')

    tui.write('/he\t')
    await tui.waitFor(`${PROMPT}/help`)
  })
})
