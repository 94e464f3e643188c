/**
 * A rewind does not undo agent-tui's own bookkeeping (#36 defect 9): the `.gitignore` line it added when it
 * saved an "always" rule after the turn's checkpoint was taken came back out with the rewind, leaving
 * `.agent-tui/settings.local.json` (which the rewind keeps) ready to be committed.
 */
import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, runCli, type Sandbox } from '../support/run-cli.ts'
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

describe('rewinding past an "always" answer', () => {
  it('keeps .agent-tui/settings.local.json ignored by git', async () => {
    box = await makeSandbox()
    const sandbox = box
    const git = (args: string[]) =>
      execFileSync('git', args, {
        cwd: sandbox.workspace,
        encoding: 'utf8',
        env: { ...sandbox.env, GIT_CONFIG_NOSYSTEM: '1' },
      })
    await writeFile(join(box.workspace, 'a.txt'), 'one\n')
    git(['init', '-q'])
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'])
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start'])
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Write', arguments: { file_path: 'a.txt', content: 'two\n' } }] },
        { toolCalls: [{ name: 'Bash', arguments: { command: 'touch b.txt' } }] },
        { text: 'Done.' },
      ],
    })
    const endpoint = ['--base-url', server.baseUrl, '--model', 'test-model']
    tui = startTui({
      args: [...endpoint, '--allowed-tools', 'Write'],
      cwd: box.workspace,
      env: box.env,
      cols: 120,
      rows: 40,
    })
    await tui.submit('change a, make b')
    await tui.waitFor('Always allow')
    tui.write('3')
    await tui.waitFor('Done.')
    const ignore = join(box.workspace, '.gitignore')
    expect(await readFile(ignore, 'utf8')).toBe('.agent-tui/settings.local.json\n')
    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    await tui.exited

    const rewound = await runCli(['--continue', '--rewind-to', '1', ...endpoint], {
      cwd: box.workspace,
      env: box.env,
    })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(await readFile(join(box.workspace, 'a.txt'), 'utf8')).toBe('one\n')
    expect(rewound.stdout).toContain(
      '.agent-tui/settings.local.json stays out of commits: its line is back in .gitignore',
    )
    expect(await readFile(ignore, 'utf8')).toBe('.agent-tui/settings.local.json\n')
    expect(git(['status', '--porcelain', '--untracked-files=all'])).not.toContain('settings.local.json')
  })
})
