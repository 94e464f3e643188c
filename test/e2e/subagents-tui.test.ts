/**
 * Subagents in the full-screen TUI (the built CLI in a pseudo-terminal, read through a headless xterm):
 * a background subagent's row follows its work, Enter shows its transcript live, k/y stops it; a
 * subagent's permission request is answered from the main session's prompt.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { agentRouter } from '../support/agent-router.ts'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  expect(server?.pairingViolations ?? []).toEqual([])
  await server?.close()
  await box?.cleanup()
  tui = server = box = undefined
})

const call = (name: string, args: Record<string, unknown>, text?: string) => ({
  ...(text ? { text } : {}),
  toolCalls: [{ name, arguments: args }],
})

async function start(args: string[]) {
  box = await makeSandbox()
  server = await startScriptedServer()
  tui = startTui({
    args: ['--base-url', server.baseUrl, '--model', 'test-model', ...args],
    cwd: box.workspace,
    env: box.env,
    cols: 170,
    rows: 40,
  })
  await tui.waitFor('❯  Message')
  return { box, server, tui }
}

describe('subagents in the TUI', () => {
  it("a background subagent's row follows it, Enter shows its live transcript, k then y stops it", async () => {
    const { box, server, tui } = await start(['--yolo'])
    const router = agentRouter()
      .main(
        call('Agent', {
          description: 'Watch the repo',
          prompt: 'TASK-TUI: watch',
          run_in_background: true,
        }),
        { text: 'It runs in the background.' },
      )
      .agent(
        'TASK-TUI',
        call(
          'Bash',
          { command: 'until [ -f step2 ]; do sleep 0.05; done; echo stepped' },
          'Checking the repo first.',
        ),
        // Then it streams a little and keeps thinking until it is stopped.
        { text: 'Still thinking about the repository layout', chunkSize: 6, hangAfterChunks: 4 },
      )
    server.enqueue(...router.sources())
    await tui.submit('watch it')
    await tui.waitFor('It runs in the background.')
    // The row: description, then its type, step, tokens and current tool.
    await tui.waitFor(/a1 running \d+s Watch the repo/)
    await tui.waitFor(/general-purpose · step 1 · [1-9]\d* tok · Bash/)
    tui.write(keys.tab)
    await tui.waitFor('Enter open')
    tui.write(keys.enter)
    // Painted straight to the terminal once Ink has drawn the viewer's frame.
    const live = await tui.waitFor(
      (screen) => screen.includes('read-only transcript') && screen.includes('Checking the repo first.'),
    )
    expect(live).toMatch(
      /a1 · running · \d+s · Watch the repo · general-purpose · step 1 · \d+ tok · Bash until \[ -f step2 \]/,
    )
    expect(live).toContain('TASK-TUI: watch')
    expect(live).toContain('Checking the repo first.')
    await writeFile(join(box.workspace, 'step2'), '')
    // The same view, live: its next reply streams in, and the row moves to step 2.
    const streamed = await tui.waitFor('Still thinking')
    expect(streamed).toMatch(/general-purpose · step 2 · \d+ tok · thinking/)
    tui.write('k')
    await tui.waitFor('Stop a1 and the jobs it started? (y/n)')
    tui.write('y')
    await tui.waitFor(/a1 · stopped/)
    tui.write(keys.esc)
    const after = await tui.waitFor('Background agent a1 (general-purpose: Watch the repo) was stopped')
    expect(after).toContain('a1 stopped')
  })

  it("answers a subagent's permission request from the main prompt", async () => {
    const { box, server, tui } = await start([])
    const router = agentRouter()
      .main(call('Agent', { description: 'Write the file', prompt: 'TASK-CONSENT: write it' }), {
        text: 'The subagent wrote it.',
      })
      .agent('TASK-CONSENT', call('Write', { file_path: 'made.txt', content: 'by a subagent\n' }), {
        text: 'made.txt is written',
      })
    server.enqueue(...router.sources())
    await tui.submit('delegate the write')
    const prompt = await tui.waitFor('Subagent general-purpose · Write the file asks:')
    expect(prompt).toContain('Write made.txt (edit)')
    tui.write('y')
    const done = await tui.waitFor('The subagent wrote it.')
    expect(done).toMatch(/✓ Agent general-purpose: Write the file/)
    expect(await readFile(join(box.workspace, 'made.txt'), 'utf8')).toBe('by a subagent\n')
  })
})
