/**
 * End-to-end tests of the full-screen TUI for the daily-driver rough edges: keys arriving several to a
 * read, queued messages, the message printed on exit. The built CLI in a pseudo-terminal against the
 * scripted server; every wait is on a screen, request or process condition.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ReplySource, type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'
import type { ScriptedModel } from '../support/scripted-types.ts'

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

async function launch(
  replies: ReplySource[],
  size = { cols: 100, rows: 30 },
  flags: string[] = [],
  models?: ScriptedModel[],
) {
  box = await makeSandbox()
  server = await startScriptedServer({ replies, ...(models ? { models } : {}) })
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

describe('queued messages', () => {
  it('shows a message queued while the agent works; Esc interrupts and puts it back in the prompt, unsent', async () => {
    const { server, tui } = await launch([
      { text: 'Working on it', chunkSize: 4, hangAfterChunks: 3 },
      { text: 'Done now.' },
    ])
    await tui.submit('start')
    await tui.waitFor('Working')
    await tui.submit('also update the docs')
    const queued = await tui.waitFor('⧗ also update the docs')
    expect(queued).toContain('1 queued for the next step')
    tui.write('\x1b')
    await tui.waitFor(`${PROMPT}also update the docs`)
    await tui.waitFor('back in the prompt')
    expect(tui.screen()).not.toContain('⧗')
    expect(server.requests).toHaveLength(1)
    tui.write('\r')
    await tui.waitFor('Done now.')
    expect(requestText(server, 2)).toContain('also update the docs')
  })
})

describe('leaving', () => {
  it('prints the session id and how to resume it once the terminal is restored; nothing for an empty session', async () => {
    const { tui } = await launch([{ text: 'Hello there.' }])
    await tui.submit('say hello')
    await tui.waitFor('Hello there.')
    tui.write('\x04')
    await tui.waitFor(/again to exit/)
    tui.write('\x04')
    expect((await tui.exited).exitCode).toBe(0)
    await tui.settle()
    expect(tui.term.buffer.active.type).toBe('normal')
    const screen = tui.screen()
    const id = /Session (\S+) "say hello" is saved\./.exec(screen)?.[1]
    expect(id, screen).toBeDefined()
    expect(screen).toContain(`Resume it: agent-tui --continue, or agent-tui --resume ${id}`)
    // Printed after the alternate screen was left, so it stays in the normal scrollback.
    const raw = tui.output()
    expect(raw.lastIndexOf('Resume it:')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1049l'))

    await tui.kill()
    await server?.close()
    await box?.cleanup()
    const empty = await launch([])
    empty.tui.write('\x04')
    await empty.tui.waitFor(/again to exit/)
    empty.tui.write('\x04')
    expect((await empty.tui.exited).exitCode).toBe(0)
    await empty.tui.settle()
    expect(empty.tui.output()).not.toContain('Resume it:')
  })
})

describe('/model and /export', () => {
  it("/model picks from the endpoint's models; /export writes to the state directory, not the project", async () => {
    const { server, tui, box } = await launch(
      [{ text: 'Switched.' }],
      { cols: 80, rows: 24 },
      [],
      [{ id: 'test-model' }, { id: 'other-model' }],
    )
    await tui.submit('/model')
    await tui.waitFor('Switch model')
    await tui.waitFor('other-model')
    tui.write('other')
    await tui.waitFor('1 of 2 models')
    tui.write('\r')
    await tui.waitFor('Model set to other-model')
    await tui.submit('hello')
    await tui.waitFor('Switched.')
    expect(server.requests[0]?.body.model).toBe('other-model')

    await tui.submit('/export')
    const exported = await tui.waitFor(/Transcript exported to\s+\S+\.md/)
    const exportsDir = join(box.env.XDG_STATE_HOME ?? '', 'agent-tui', 'exports')
    // The state directory ($XDG_STATE_HOME is under HOME here, so it reads ~/…), the whole path shown.
    expect(exported.replace(/\n/g, ' ')).toMatch(
      /Transcript exported to ~\/\.local\/state\/agent-tui\/exports\/agent-tui-\S+\.md/,
    )
    const [file] = await readdir(exportsDir)
    expect(await readFile(join(exportsDir, file ?? ''), 'utf8')).toContain('Switched.')
    expect((await readdir(box.workspace)).filter((f) => f.endsWith('.md'))).toEqual([])
  })
})
