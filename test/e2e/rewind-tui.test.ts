/**
 * /rewind in the real TUI (pseudo-terminal, headless xterm) against the scripted server: Esc Esc on the
 * empty prompt opens the dialog, code and conversation go back to the start of the turn, /rewind's undo
 * row puts everything back.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  expect(server?.pairingViolations).toEqual([])
  await server?.close()
  await box?.cleanup()
  tui = box = server = undefined
})

const read = (name: string) => readFile(join(box?.workspace ?? '', name), 'utf8').catch(() => null)

describe('/rewind in the TUI', () => {
  it('Esc Esc → turn → code and conversation → rewind; /rewind → undo puts it all back', async () => {
    box = await makeSandbox()
    await writeFile(join(box.workspace, 'a.txt'), 'alpha\n')
    await writeFile(join(box.workspace, 'c.txt'), 'charlie\n')
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Read', arguments: { file_path: 'a.txt' } }] },
        {
          toolCalls: [
            { name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } },
          ],
        },
        {
          toolCalls: [
            { name: 'Bash', arguments: { command: 'sed -i s/charlie/CHARLIE/ c.txt && rm a.txt' } },
          ],
        },
        { text: 'Rewrote the files.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model', '--mode', 'dangerous'],
      cwd: box.workspace,
      env: box.env,
      cols: 100,
      rows: 30,
    })
    await tui.waitFor('❯  Message')
    await tui.submit('rewrite the files')
    await tui.waitFor('Rewrote the files.')
    expect([await read('a.txt'), await read('c.txt')]).toEqual([null, 'CHARLIE\n'])

    tui.write(keys.esc)
    await tui.waitFor('Press Esc again to rewind')
    tui.write(keys.esc)
    await tui.waitFor(/❯ 1\. “rewrite the files”[\s\S]*· 2 files: a\.txt, c\.txt/)
    tui.write(keys.enter)
    await tui.waitFor('❯ 1. Restore code and conversation')
    tui.write(keys.enter)
    await tui.waitFor('Restore (2): a.txt, c.txt')
    tui.write(keys.enter)
    const rewound = await tui.waitFor('Rewound to turn 1 “rewrite the files”: 2 files restored')
    expect(rewound).not.toContain('Rewrote the files.')
    expect([await read('a.txt'), await read('c.txt')]).toEqual(['alpha\n', 'charlie\n'])

    await tui.submit('/rewind')
    await tui.waitFor('❯ ↶ Undo the last rewind')
    tui.write(keys.enter)
    await tui.waitFor('Undo the last rewind: what will change')
    tui.write(keys.enter)
    const undone = await tui.waitFor('Undid the last rewind')
    expect(undone).toContain('Rewrote the files.')
    expect([await read('a.txt'), await read('c.txt')]).toEqual([null, 'CHARLIE\n'])
  })
})
