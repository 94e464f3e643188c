/**
 * Ctrl+V's clipboard image: the reader chosen per platform and display, the parsing of type lists and
 * outputs (table tests), and real processes — fake `wl-paste`, `xclip` and `pngpaste` scripts that print
 * a real PNG (test/fixtures/clipboard/pixels.png), one that hangs (killed at the timeout), one that
 * pours out too much (killed at the size limit).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  clipboardReaders,
  decodeOutput,
  imageTypeOf,
  missingProgramNotice,
  readClipboardImage,
  readerSteps,
  sniffImage,
} from '../../../source/ui/clipboard/clipboard-image.js'
import { isProcessAlive } from '../../../source/tasks/process-group.js'

const PNG = join(process.cwd(), 'test/fixtures/clipboard/pixels.png')

describe('which clipboard reader', () => {
  it.each([
    [{ WAYLAND_DISPLAY: 'wayland-0' }, 'linux', ['wayland']],
    [{ DISPLAY: ':0' }, 'linux', ['x11']],
    [{ WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, 'linux', ['wayland', 'x11']],
    [{ WSL_DISTRO_NAME: 'Ubuntu' }, 'linux', ['wsl']],
    [{ WSL_INTEROP: '/run/WSL/1_interop', DISPLAY: ':0' }, 'linux', ['wsl', 'x11']],
    [{}, 'darwin', ['macos']],
  ] as const)('%j on %s', (env, platform, kinds) => {
    const plan = clipboardReaders(env, platform)
    expect('readers' in plan && plan.readers.map((r) => r.kind)).toEqual(kinds)
  })

  it('over SSH (no display) says so', () => {
    expect(clipboardReaders({}, 'linux')).toEqual({
      none: expect.stringContaining('no WAYLAND_DISPLAY or DISPLAY'),
    })
  })

  it('macOS tries pngpaste before osascript', () => {
    expect(clipboardReaders({}, 'darwin')).toEqual({
      readers: [{ kind: 'macos', programs: ['pngpaste', 'osascript'] }],
    })
  })

  it.each([
    [['wayland', 'x11'], 'install wl-clipboard (or xclip under XWayland)'],
    [['x11'], 'install xclip'],
    [['wsl'], 'powershell.exe, which is not on the PATH'],
  ] as const)('nothing installed for %j: %s', (kinds, text) => {
    expect(missingProgramNotice(kinds.map((kind) => ({ kind, programs: [] })))).toContain(text)
  })
})

describe('parsing', () => {
  it.each([
    ['image/png\ntext/plain', 'image/png'],
    ['TARGETS\nUTF8_STRING\nimage/jpeg\nimage/png', 'image/png'],
    ['text/plain;charset=utf-8\nUTF8_STRING', undefined],
    ['image/webp\r\n', 'image/webp'],
    ['', undefined],
  ])('imageTypeOf %j', (listing, type) => {
    expect(imageTypeOf(listing)).toBe(type)
  })

  it.each([
    [
      'wayland',
      'wl-paste',
      { list: ['--list-types'], read: ['--no-newline', '--type', 'image/png'], decode: 'raw' },
    ],
    [
      'x11',
      'xclip',
      {
        list: ['-selection', 'clipboard', '-t', 'TARGETS', '-o'],
        read: ['-selection', 'clipboard', '-t', 'image/png', '-o'],
        decode: 'raw',
      },
    ],
    ['macos', 'pngpaste', { read: ['-'], decode: 'raw' }],
    ['macos', 'osascript', { read: ['-e', 'the clipboard as \u00abclass PNGf\u00bb'], decode: 'hex' }],
  ] as const)('steps of %s (%s)', (kind, program, steps) => {
    expect(readerSteps(kind, program)).toEqual(steps)
  })

  it('WSL: Windows PowerShell without a profile, the image saved as PNG, base64 out', () => {
    const { read, decode } = readerSteps('wsl', 'powershell.exe')
    expect(read.slice(0, 3)).toEqual(['-NoProfile', '-NonInteractive', '-Command'])
    expect(read[3]).toContain('Get-Clipboard -Format Image')
    expect(read[3]).toContain('[System.Drawing.Imaging.ImageFormat]::Png')
    expect(decode).toBe('base64')
  })

  it.each([
    ['hex', '\u00abdata PNGf89504E470D0A1A0A\u00bb\n', '89504e470d0a1a0a'],
    ['hex', 'execution error: Can\u2019t make some data into the expected type. (-1700)', ''],
    ['base64', 'iVBORw0KGgo=\r\n', '89504e470d0a1a0a'],
    ['base64', 'Get-Clipboard : not recognized', ''],
  ] as const)('decodeOutput %s %j', (decode, text, hex) => {
    expect(decodeOutput(Buffer.from(text, 'latin1'), decode).toString('hex')).toBe(hex)
  })

  it.each([
    ['89504e470d0a1a0a0000', 'image/png'],
    ['ffd8ffe000', 'image/jpeg'],
    ['4749463839', 'image/gif'],
    ['524946460000000057454250', 'image/webp'],
    ['68656c6c6f', undefined],
  ])('sniffImage %s', (hex, mime) => {
    expect(sniffImage(Buffer.from(hex, 'hex'))).toBe(mime)
  })
})

describe('reading with real processes', () => {
  let bin: string | undefined
  afterEach(async () => {
    if (bin) await rm(bin, { recursive: true, force: true })
    bin = undefined
  })

  /** Fake programs in a fresh folder; `find` sees only them. */
  async function programs(scripts: Record<string, string>) {
    bin = await mkdtemp(join(tmpdir(), 'agent-tui-clip-'))
    const dir = bin
    for (const [name, body] of Object.entries(scripts)) {
      await writeFile(join(dir, name), `#!/bin/sh\n${body}\n`)
      await chmod(join(dir, name), 0o755)
    }
    return {
      dir,
      find: (name: string) => (existsSync(join(dir, name)) ? join(dir, name) : undefined),
    }
  }

  const wlPaste = (types: string) =>
    `if [ "$1" = "--list-types" ]; then printf '${types}'; exit 0; fi\n[ "$3" = "image/png" ] && exec cat "${PNG}"\nexit 1`

  it('Wayland: wl-paste lists image/png, then reads it', async () => {
    const p = await programs({ 'wl-paste': wlPaste('text/plain\\nimage/png\\n') })
    const got = await readClipboardImage({
      env: { WAYLAND_DISPLAY: 'w', PATH: process.env.PATH },
      platform: 'linux',
      find: p.find,
    })
    expect(got).toEqual({ kind: 'image', mime: 'image/png', bytes: await readFile(PNG), via: 'wl-paste' })
  })

  it('Wayland with text only on the clipboard: no image, nothing read', async () => {
    const p = await programs({ 'wl-paste': wlPaste('text/plain;charset=utf-8\\nUTF8_STRING\\n') })
    const got = await readClipboardImage({ env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux', find: p.find })
    expect(got).toEqual({ kind: 'none' })
  })

  it('an empty clipboard (wl-paste: "Nothing is copied") is no image', async () => {
    const p = await programs({ 'wl-paste': 'echo "Nothing is copied" >&2; exit 1' })
    expect(
      await readClipboardImage({ env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux', find: p.find }),
    ).toEqual({
      kind: 'none',
    })
  })

  it('a reader that fails otherwise says why', async () => {
    const p = await programs({ 'wl-paste': 'echo "Failed to connect to a Wayland server" >&2; exit 1' })
    expect(
      await readClipboardImage({ env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux', find: p.find }),
    ).toEqual({
      kind: 'failed',
      message: 'wl-paste: Failed to connect to a Wayland server',
    })
  })

  it('X11: xclip TARGETS, then -t image/png', async () => {
    const p = await programs({
      xclip: `case "$*" in *TARGETS*) printf 'TARGETS\\nimage/png\\n';; *image/png*) cat "${PNG}";; *) exit 1;; esac`,
    })
    const got = await readClipboardImage({ env: { DISPLAY: ':0' }, platform: 'linux', find: p.find })
    expect(got).toMatchObject({ kind: 'image', mime: 'image/png', via: 'xclip' })
  })

  it('XWayland without wl-paste falls back to xclip', async () => {
    const p = await programs({
      xclip: `case "$*" in *TARGETS*) printf 'image/png\\n';; *) cat "${PNG}";; esac`,
    })
    const got = await readClipboardImage({
      env: { WAYLAND_DISPLAY: 'w', DISPLAY: ':0' },
      platform: 'linux',
      find: p.find,
    })
    expect(got).toMatchObject({ kind: 'image', via: 'xclip' })
  })

  it('macOS: pngpaste - when it is there', async () => {
    const p = await programs({ pngpaste: `[ "$1" = "-" ] && exec cat "${PNG}"` })
    expect(await readClipboardImage({ env: {}, platform: 'darwin', find: p.find })).toMatchObject({
      kind: 'image',
      via: 'pngpaste',
    })
  })

  it('no program installed: the notice says what to install', async () => {
    const p = await programs({})
    expect(
      await readClipboardImage({ env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux', find: p.find }),
    ).toEqual({
      kind: 'failed',
      message: 'Ctrl+V reads images with wl-paste: install wl-clipboard (or xclip under XWayland)',
    })
  })

  it('data that is not an image is refused', async () => {
    const p = await programs({
      'wl-paste': `if [ "$1" = "--list-types" ]; then echo image/png; else echo hello; fi`,
    })
    expect(
      await readClipboardImage({ env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux', find: p.find }),
    ).toEqual({
      kind: 'failed',
      message: 'wl-paste gave image/png data that is not a PNG, JPEG, GIF or WebP image',
    })
  })

  it('a reader that hangs is killed at the timeout', async () => {
    const p = await programs({})
    const pidFile = join(p.dir, 'pid')
    await writeFile(join(p.dir, 'wl-paste'), `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 30\n`)
    await chmod(join(p.dir, 'wl-paste'), 0o755)
    const got = await readClipboardImage({
      env: { WAYLAND_DISPLAY: 'w' },
      platform: 'linux',
      find: p.find,
      timeoutMs: 300,
    })
    expect(got).toEqual({ kind: 'failed', message: 'wl-paste: timed out after 0.3 s' })
    // On a loaded machine the timeout can come before the shell wrote its pid: then it was killed unstarted.
    const pid = await readFile(pidFile, 'utf8').catch(() => null)
    if (pid !== null) expect(isProcessAlive(Number(pid))).toBe(false)
  })

  it('an image over the size limit is refused, the reader killed', async () => {
    const p = await programs({
      'wl-paste': `if [ "$1" = "--list-types" ]; then echo image/png; else cat "${PNG}"; exec cat /dev/zero; fi`,
    })
    const got = await readClipboardImage({
      env: { WAYLAND_DISPLAY: 'w' },
      platform: 'linux',
      find: p.find,
      maxBytes: 4096,
    })
    expect(got).toEqual({ kind: 'failed', message: 'wl-paste: the image on the clipboard is over 4 kB' })
  })
})
