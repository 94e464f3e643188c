import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ClipboardEnv, clipboardPlan, createClipboard } from '../../../source/ui/clipboard/clipboard.js'
import { createHostPrograms } from '../../../source/util/host-programs.js'

describe('clipboardPlan: the decision table', () => {
  const linux = (env: Record<string, string>, tty = true): ClipboardEnv => ({ env, platform: 'linux', tty })
  const table: [string, ClipboardEnv, { osc52: boolean; tmux: boolean; programs: string[] }][] = [
    ['a terminal, no display', linux({ TERM: 'xterm-256color' }), { osc52: true, tmux: false, programs: [] }],
    ['Wayland', linux({ WAYLAND_DISPLAY: 'wayland-0' }), { osc52: true, tmux: false, programs: ['wl-copy'] }],
    ['X11', linux({ DISPLAY: ':0' }), { osc52: true, tmux: false, programs: ['xclip', 'xsel'] }],
    [
      'XWayland: Wayland first',
      linux({ WAYLAND_DISPLAY: 'w', DISPLAY: ':0' }),
      { osc52: true, tmux: false, programs: ['wl-copy', 'xclip', 'xsel'] },
    ],
    ['WSL', linux({ WSL_DISTRO_NAME: 'Ubuntu' }), { osc52: true, tmux: false, programs: ['clip.exe'] }],
    [
      'macOS',
      { env: { TERM_PROGRAM: 'iTerm.app' }, platform: 'darwin', tty: true },
      { osc52: true, tmux: false, programs: ['pbcopy'] },
    ],
    [
      'Apple Terminal: no OSC 52',
      { env: { TERM_PROGRAM: 'Apple_Terminal' }, platform: 'darwin', tty: true },
      { osc52: false, tmux: false, programs: ['pbcopy'] },
    ],
    ['inside tmux', linux({ TMUX: '/tmp/tmux-1/default,1,0' }), { osc52: true, tmux: true, programs: [] }],
    ['the Linux console', linux({ TERM: 'linux' }), { osc52: false, tmux: false, programs: [] }],
    [
      'not a terminal',
      linux({ DISPLAY: ':0' }, false),
      { osc52: false, tmux: false, programs: ['xclip', 'xsel'] },
    ],
  ]
  it.each(table)('%s', (_name, input, expected) => {
    const plan = clipboardPlan(input)
    expect({
      osc52: plan.noOsc52 === undefined,
      tmux: plan.tmux,
      programs: plan.programs.map((p) => p.name),
    }).toEqual(expected)
  })
})

describe('createClipboard', () => {
  let dir = ''
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-clip-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** A real clipboard program on a PATH of its own: it writes what it was given to `got`. */
  async function program(name: string, body: string) {
    const path = join(dir, name)
    await writeFile(path, `#!/bin/sh\n${body}\n`)
    await chmod(path, 0o755)
    return createHostPrograms({ path: dir, unsafe: [] })
  }

  it('writes OSC 52 and runs the first program found, with the text on stdin', async () => {
    const programs = await program('xsel', `cat > "${dir}/got"; echo "$@" > "${dir}/args"`)
    const written: string[] = []
    const clip = createClipboard({
      env: { DISPLAY: ':0' },
      platform: 'linux',
      tty: true,
      write: (t) => written.push(t),
      find: programs.find,
    })
    const outcome = await clip.copy('copied ✓\n')
    expect(outcome).toEqual({ via: ['OSC 52', 'xsel'], failed: [] })
    expect(written).toEqual([`\x1b]52;c;${Buffer.from('copied ✓\n').toString('base64')}\x07`])
    expect(await readFile(join(dir, 'got'), 'utf8')).toBe('copied ✓\n')
    expect(await readFile(join(dir, 'args'), 'utf8')).toBe('--clipboard --input\n')
  })

  it('a program that fails is named with its first line of stderr', async () => {
    const programs = await program('wl-copy', 'echo "Failed to connect to a Wayland server" >&2; exit 1')
    const clip = createClipboard({
      env: { WAYLAND_DISPLAY: 'w' },
      platform: 'linux',
      tty: false,
      write: () => {},
      find: programs.find,
    })
    expect(await clip.copy('x')).toEqual({
      via: [],
      failed: ['wl-copy: Failed to connect to a Wayland server'],
    })
  })

  it('does not wait for the child a clipboard program leaves behind to own the selection', async () => {
    // Like xclip: the parent reads stdin and exits; a child keeps stdout/stderr open and serves the selection.
    const programs = await program('xclip', `cat > "${dir}/got"; (sleep 4 &) ; exit 0`)
    const clip = createClipboard({
      env: { DISPLAY: ':0' },
      platform: 'linux',
      tty: false,
      write: () => {},
      find: programs.find,
      timeoutMs: 10_000,
    })
    const started = Date.now()
    expect(await clip.copy('kept')).toEqual({ via: ['xclip'], failed: [] })
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('a program that hangs is killed and reported', async () => {
    const programs = await program('pbcopy', 'exec sleep 30')
    const clip = createClipboard({
      env: {},
      platform: 'darwin',
      tty: false,
      write: () => {},
      find: programs.find,
      timeoutMs: 200,
    })
    expect(await clip.copy('x')).toEqual({ via: [], failed: ['pbcopy: timed out'] })
  })

  it('a program only in an unsafe folder (the workspace) is not run', async () => {
    await program('xclip', `touch "${dir}/ran"`)
    const programs = createHostPrograms({ path: dir, unsafe: [dir] })
    const clip = createClipboard({
      env: { DISPLAY: ':0' },
      platform: 'linux',
      tty: true,
      write: () => {},
      find: programs.find,
    })
    expect(await clip.copy('x')).toEqual({ via: ['OSC 52'], failed: [] })
    await expect(readFile(join(dir, 'ran'))).rejects.toThrow()
  })

  it('text too big for OSC 52 still goes to the program, and says why OSC 52 did not', async () => {
    const programs = await program('xclip', `cat > "${dir}/got"`)
    const written: string[] = []
    const clip = createClipboard({
      env: { DISPLAY: ':0' },
      platform: 'linux',
      tty: true,
      write: (t) => written.push(t),
      find: programs.find,
    })
    const big = 'y'.repeat(200_000)
    expect(await clip.copy(big)).toEqual({ via: ['xclip'], failed: ['OSC 52: too long for terminals'] })
    expect(written).toEqual([])
    expect((await readFile(join(dir, 'got'), 'utf8')).length).toBe(200_000)
  })
})
