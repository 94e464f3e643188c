/**
 * Validate before asking (#35): in safe mode, an Edit of a file the model has not read fails before any
 * consent prompt, with the read-first envelope; once it has read the file, the same Edit asks as before.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
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

const toolResults = (server: ScriptedServer, n: number): string[] =>
  ((server.requests[n]?.body.messages ?? []) as Array<{ role: string; content?: unknown }>)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))

describe('a call that cannot succeed is refused before asking', () => {
  it('an Edit of an unread file gets the read-first envelope and no prompt; after a Read it asks', async () => {
    box = await makeSandbox()
    const file = join(box.workspace, 'notes.txt')
    await writeFile(file, 'alpha\nbeta\n')
    const edit = { file_path: file, old_string: 'alpha', new_string: 'ALPHA' }
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Edit', arguments: edit }] },
        { toolCalls: [{ name: 'Read', arguments: { file_path: file } }] },
        { toolCalls: [{ name: 'Edit', arguments: edit }] },
        { text: 'Edited after reading.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 120,
      rows: 40,
    })
    await tui.submit('capitalise alpha')
    // The first prompt is for the third reply's Edit: the first Edit was refused without one.
    const screen = await tui.waitFor('Allow once')
    expect(server.requests.length).toBe(3)
    const first = toolResults(server, 1)
    expect(first).toHaveLength(1)
    expect(JSON.parse(first[0] as string).error).toMatchObject({ tool: 'Edit', category: 'validation' })
    expect(first[0]).toContain('has not been read in this session')
    expect(screen).toContain('Edit')
    expect(await readFile(file, 'utf8')).toBe('alpha\nbeta\n')
    tui.write('1')
    await tui.waitFor('Edited after reading.')
    expect(await readFile(file, 'utf8')).toBe('ALPHA\nbeta\n')
  })
})
