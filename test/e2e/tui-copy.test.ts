/**
 * `/copy` end to end: the built CLI in a pseudo-terminal read by a real emulator. The OSC 52 agent-tui
 * writes for `/copy` reaches the emulator's parser (it goes beside the painter's frames, whose guard strips
 * OSC), carrying exactly the answer or the chosen code block; a clipboard program found on PATH outside the
 * workspace gets the same text; one planted in the workspace is never run.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()
let tui: TuiSession | undefined
afterEach(async () => {
  await tui?.kill()
  tui = undefined
})

const ANSWER = 'Run this:\n\n```sh\necho copied-ok\n```\n\nThat is all.'

async function clipboardProgram(dir: string, got: string) {
  await mkdir(dir, { recursive: true })
  const path = join(dir, 'wl-copy')
  await writeFile(path, `#!/bin/sh\ncat > "${got}"\n`)
  await chmod(path, 0o755)
}

describe('/copy in a pseudo-terminal', () => {
  it('sends OSC 52 with the answer, then a code block; the clipboard program gets it too', async () => {
    const box = env.box
    const hostBin = join(box.home, 'bin')
    const got = join(box.home, 'clipboard.txt')
    await clipboardProgram(hostBin, got)
    // A planted wl-copy in the workspace, first on PATH: never run.
    const planted = join(box.root, 'planted.txt')
    await mkdir(join(box.workspace, 'bin'), { recursive: true })
    await writeFile(join(box.workspace, 'bin', 'wl-copy'), `#!/bin/sh\ncat > "${planted}"\n`)
    await chmod(join(box.workspace, 'bin', 'wl-copy'), 0o755)
    env.server.enqueue({ text: ANSWER })
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: {
        ...box.env,
        PATH: `${join(box.workspace, 'bin')}:${hostBin}:${box.env.PATH}`,
        WAYLAND_DISPLAY: 'wayland-test',
      },
      cols: 100,
      rows: 30,
    })
    const clipboard: string[] = []
    tui.term.parser.registerOscHandler(52, (data) => {
      clipboard.push(data)
      return true
    })
    await tui.waitFor('❯  Message')
    await tui.submit('how?')
    await tui.waitFor('That is all.')
    await tui.submit('/copy')
    await tui.waitFor('via OSC 52 and wl-copy')
    await tui.settle()
    const b64 = (s: string) => `c;${Buffer.from(s).toString('base64')}`
    expect(clipboard).toEqual([b64(ANSWER)])
    expect(await readFile(got, 'utf8')).toBe(ANSWER)
    expect(tui.screen()).toContain('1 code block: /copy N')

    await tui.submit('/copy 1')
    await tui.waitFor('Copied code block 1 (sh, 1 line) via OSC 52 and wl-copy')
    await tui.settle()
    expect(clipboard).toEqual([b64(ANSWER), b64('echo copied-ok')])
    // The notice comes after the program exited: its file is complete.
    expect(await readFile(got, 'utf8')).toBe('echo copied-ok')
    expect(existsSync(planted)).toBe(false)
  })
})
