/**
 * Ctrl+V at the prompt, through the real key path and the real clipboard reader: a fake `wl-paste` on a
 * fresh folder prints a real PNG (test/fixtures/clipboard/pixels.png), which becomes an `[Image #1]` chip
 * sent with the message; text on the clipboard leaves the prompt as it was; no program says what to install.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createClipboard } from '../../../source/ui/clipboard/clipboard.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderSized, waitFor } from '../shell/helpers.js'

const PNG = join(process.cwd(), 'test/fixtures/clipboard/pixels.png')
const theme = createTheme({ level: 0 })

let bin: string | undefined
afterEach(async () => {
  if (bin) await rm(bin, { recursive: true, force: true })
  bin = undefined
})

async function session(wlPaste: string | null) {
  bin = await mkdtemp(join(tmpdir(), 'agent-tui-paste-'))
  const dir = bin
  if (wlPaste !== null) {
    await writeFile(join(dir, 'wl-paste'), `#!/bin/sh\n${wlPaste}\n`)
    await chmod(join(dir, 'wl-paste'), 0o755)
  }
  const clipboard = createClipboard({
    env: { WAYLAND_DISPLAY: 'wayland-0', PATH: process.env.PATH },
    platform: 'linux',
    tty: false,
    write: () => {},
    find: (name) => (existsSync(join(dir, name)) ? join(dir, name) : undefined),
  })
  const store = makeStore()
  const commands = fakeCommands({ store })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={100_000}
      theme={theme}
      branch="main"
      doublePressMs={60_000}
      onExit={() => {}}
      clipboard={clipboard}
    />,
    100,
    30,
  )
  return { ...r, commands }
}

const submitted = (commands: ReturnType<typeof fakeCommands>) =>
  commands
    .named('submit')
    .map(([input]) => input as { text: string; images?: Array<{ path: string; url: string }> })

describe('Ctrl+V pastes an image from the clipboard', () => {
  it('an image on the clipboard becomes an [Image #1] chip sent with the message', async () => {
    const r = await session(
      `if [ "$1" = "--list-types" ]; then printf 'text/plain\\nimage/png\\n'; else exec cat "${PNG}"; fi`,
    )
    r.stdin.write(KEYS.ctrl('v'))
    await waitFor(() => r.frame().includes('[Image #1]'), r.frame)
    r.stdin.write(' what is this?')
    await waitFor(() => r.frame().includes('what is this?'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    const bytes = await readFile(PNG)
    expect(submitted(r.commands)[0]).toEqual({
      text: '[Image #1] what is this?',
      images: [
        { path: 'clipboard (image/png, 1 kB)', url: `data:image/png;base64,${bytes.toString('base64')}` },
      ],
    })
    r.instance.unmount()
  })

  it('text on the clipboard: nothing is inserted, a hint says images only', async () => {
    const r = await session(`if [ "$1" = "--list-types" ]; then printf 'text/plain\\n'; else echo words; fi`)
    r.stdin.write('draft')
    await waitFor(() => r.frame().includes('draft'), r.frame)
    r.stdin.write(KEYS.ctrl('v'))
    await waitFor(() => r.frame().includes('No image on the clipboard'), r.frame)
    expect(r.frame()).not.toContain('[Image #1]')
    expect(r.frame()).not.toContain('words')
    r.instance.unmount()
  })

  it('no wl-paste: the notice says what to install', async () => {
    const r = await session(null)
    r.stdin.write(KEYS.ctrl('v'))
    await waitFor(() => r.frame().includes('install wl-clipboard'), r.frame)
    expect(r.frame()).toContain('Image not pasted: Ctrl+V reads images with wl-paste')
    r.instance.unmount()
  })
})
