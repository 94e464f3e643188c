/**
 * The full-screen session in a pseudo-terminal, against the scripted server, for the runtime side of the
 * daily-driver issue (#21): consent notes and denials, the folder rule and .gitignore, @path attachments,
 * finished background jobs. Every wait is on a screen, file or request condition.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'
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

async function launch(
  replies: ReplySource[],
  size: { cols: number; rows: number },
  prepare?: (dir: string) => Promise<void>,
) {
  box = await makeSandbox()
  await prepare?.(box.workspace)
  server = await startScriptedServer({ replies })
  tui = startTui({
    args: ['--base-url', server.baseUrl, '--model', 'test-model'],
    cwd: box.workspace,
    env: box.env,
    ...size,
  })
  await tui.waitFor((s) => s.includes('test-model') && s.includes('❯  Message'))
  return { box, server, tui }
}

const idle = (screen: string) =>
  !/thinking|responding|running tools|waiting for you/.test(screen.split('\n')[0] ?? '') &&
  !screen.includes('Esc interrupts') &&
  screen.includes('❯  Message')

type Msg = { role: string; content: unknown }
const messages = (s: ScriptedServer, i: number) => (s.requests[i]?.body.messages ?? []) as Msg[]
const flat = (screen: string) => screen.replace(/\s+/g, ' ')

describe('consent answers in the TUI (80×24)', () => {
  it('a note added with Tab goes to the model with an allowed result; a plain deny stops and waits', async () => {
    const { server, tui, box } = await launch(
      [
        { toolCalls: [{ name: 'Bash', arguments: { command: 'touch a.txt' } }] },
        { text: 'Made a.' },
        {
          toolCalls: [
            { name: 'Bash', arguments: { command: 'touch b.txt' } },
            { name: 'Bash', arguments: { command: 'touch c.txt' } },
          ],
        },
        { text: 'never sent' },
      ],
      { cols: 80, rows: 24 },
    )
    await tui.submit('make a')
    await tui.waitFor('$ touch a.txt')
    tui.write(keys.tab)
    await tui.waitFor('Note:')
    tui.write('and stop there')
    await tui.waitFor('and stop there')
    tui.write(keys.enter)
    await tui.waitFor((s) => s.includes('Made a.') && idle(s))
    const result = messages(server, 1).find((m) => m.role === 'tool')
    expect(String(result?.content)).toContain('and stop there')
    expect(flat(tui.screen())).toContain('Your note goes to the model')

    await tui.submit('make b and c')
    await tui.waitFor('$ touch b.txt')
    tui.write(keys.esc)
    await tui.waitFor((s) => flat(s).includes('waits for you') && idle(s))
    expect(server.requests).toHaveLength(3)
    await expect(readFile(join(box.workspace, 'b.txt'))).rejects.toThrow(/ENOENT/)
    await expect(readFile(join(box.workspace, 'c.txt'))).rejects.toThrow(/ENOENT/)
  })
})

describe('@path and "always allow the folder" (120×40)', () => {
  it('attaches a mentioned file, offers its folder for an edit, saves that rule and git-ignores the file', async () => {
    const { server, tui, box } = await launch(
      [
        {
          toolCalls: [
            { name: 'Edit', arguments: { file_path: 'src/a.ts', old_string: 'one', new_string: 'two' } },
          ],
        },
        { text: 'Changed it.' },
      ],
      { cols: 120, rows: 40 },
      async (dir) => {
        execFileSync('git', ['init', '-q'], { cwd: dir })
        await mkdir(join(dir, 'src'))
        await writeFile(join(dir, 'src', 'a.ts'), 'export const n = "one"\n')
      },
    )
    // Typed on past the mention: an Enter right after it would accept the path completion instead.
    await tui.submit('change @src/a.ts please')
    await tui.waitFor('⎿ @src/a.ts · 1 line')
    await tui.waitFor('d Always allow the folder: Edit(src/**)')
    const sent = String(messages(server, 0).find((m) => m.role === 'user')?.content)
    expect(sent).toContain('export const n = "one"')
    expect(tui.screen()).toContain('3 Always allow Edit(src/a.ts)')
    tui.write('d')
    await tui.waitFor((s) => s.includes('Changed it.') && idle(s))
    expect(await readFile(join(box.workspace, 'src', 'a.ts'), 'utf8')).toBe('export const n = "two"\n')
    const local = join(box.workspace, '.agent-tui', 'settings.local.json')
    await pollUntil(
      async () => (await readFile(join(box.workspace, '.gitignore'), 'utf8').catch(() => '')).length > 0,
      () => `no .gitignore written:\n${tui.screen()}`,
    )
    expect(JSON.parse(await readFile(local, 'utf8')).permissions.allow).toEqual(['Edit(src/**)'])
    expect(await readFile(join(box.workspace, '.gitignore'), 'utf8')).toBe('.agent-tui/settings.local.json\n')
    await tui.waitFor('Added .agent-tui/settings.local.json to .gitignore')
  })
})

describe('a background job that finishes while the agent is idle (80×24)', () => {
  it('shows a notice at once and tells the model with the next message', async () => {
    const { server, tui, box } = await launch(
      [
        {
          toolCalls: [
            {
              name: 'Bash',
              arguments: {
                command: 'while [ ! -f go ]; do sleep 0.05; done; echo job done',
                run_in_background: true,
              },
            },
          ],
        },
        { text: 'Started it.' },
        { text: 'It finished.' },
      ],
      { cols: 80, rows: 24 },
    )
    await tui.submit('start the job')
    await tui.waitFor('while [ ! -f go ]')
    tui.write('y')
    await tui.waitFor((s) => s.includes('Started it.') && idle(s))
    await writeFile(join(box.workspace, 'go'), '')
    await tui.waitFor((s) => flat(s).includes('Background task b1 finished (completed, exit code 0)'))
    expect(flat(tui.screen())).toContain('told with your next message')
    expect(server.requests).toHaveLength(2)
    await tui.submit('and now?')
    await tui.waitFor((s) => s.includes('It finished.') && idle(s))
    const users = messages(server, 2)
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
    expect(users.at(-2)).toMatch(
      /^\[Background task b1 finished: .*completed, exit code 0\. Last output line: "job done"/,
    )
    expect(users.at(-1)).toBe('and now?')
  })
})
