import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { readGitBranch } from '../../../source/app/session/git-branch.js'
import { lastTurnMarkdown, runTui } from '../../../source/ui/run-tui.js'
import { FakeStdin, FakeStdout, fakeCommands, KEYS, makeState, makeStore, waitFor } from './helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-tui-run-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const theme = createTheme({ level: 0 })

function io() {
  const stdout = new FakeStdout(100, 30)
  const stdin = new FakeStdin()
  return {
    stdout,
    stdin,
    streams: {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    },
  }
}

describe('runTui', () => {
  it('resolves 0 after /quit, once the runtime has shut down', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const { stdin, streams } = io()
    const done = runTui({ store, commands, contextLimit: 1000, theme, branch: 'main', ...streams })
    // Non-interactive (no TTY): keys still arrive; the frame is only written at unmount.
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write('/quit')
    stdin.write(KEYS.enter)
    await expect(done).resolves.toEqual({ status: 0 })
    expect(commands.named('shutdown')).toHaveLength(1)
  })

  it('starts in the editorMode it is given, and hands on what /vim changed it to', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const { stdin, streams } = io()
    const done = runTui({ store, commands, contextLimit: 1000, theme, editorMode: 'vim', ...streams })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    expect(store.getState().ui.editorMode).toBe('vim')
    stdin.write('/vim off')
    stdin.write(KEYS.enter)
    await waitFor(() => store.getState().ui.editorMode === 'normal')
    stdin.write('/quit')
    stdin.write(KEYS.enter)
    await expect(done).resolves.toEqual({ status: 0, editorMode: 'normal' })
    expect(commands.named('saveEditorMode')).toEqual([['normal']])
  })

  it('/resume <id> leaves for that session: the runtime shuts down and runTui resolves with its id', async () => {
    const store = makeStore()
    const commands = fakeCommands({
      store,
      sessions: [
        { id: '20260101-100000-aaaaaa', title: 'newer work', updatedAt: 2 },
        { id: '20251231-090000-bbbbbb', title: 'older work', updatedAt: 1 },
      ],
    })
    const { stdin, streams } = io()
    const done = runTui({ store, commands, contextLimit: 1000, theme, printOnExit: true, ...streams })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write('/resume 2025')
    stdin.write(KEYS.enter)
    await expect(done).resolves.toEqual({ status: 0, resume: '20251231-090000-bbbbbb' })
    expect(commands.named('shutdown')).toHaveLength(1)
  })

  it('re-renders with a context window learnt after the first frame', async () => {
    const store = makeStore([
      { type: 'usage/recorded', usage: { input: 25_000, output: 100, cached: 0 }, contextTokens: 25_000 },
    ])
    const commands = fakeCommands({ store })
    const { stdout, stdin, streams } = io()
    let learn: (limit: number) => void = () => {}
    const contextLimitLater = new Promise<number | undefined>((resolve) => {
      learn = resolve
    })
    const done = runTui({ store, commands, contextLimit: 50_000, contextLimitLater, theme, ...streams })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    learn(100_000)
    await contextLimitLater
    stdin.write('/quit')
    stdin.write(KEYS.enter)
    await expect(done).resolves.toEqual({ status: 0 })
    const written = stdout.frames.join('')
    expect(written).toContain('ctx 25%')
    expect(written).not.toContain('ctx 50%')
  })

  it('exits on Ctrl+D twice and can print the last turn to the normal screen', async () => {
    const store = makeStore([
      { type: 'user/submitted', id: 'u1', content: 'old question', text: 'old question' },
      { type: 'user/submitted', id: 'u2', content: 'what is 2+2?', text: 'what is 2+2?' },
      { type: 'assistant/settled', id: 'a1', message: { role: 'assistant', content: 'It is 4.' } },
    ])
    const commands = fakeCommands({ store })
    const { stdin, stdout, streams } = io()
    const done = runTui({ store, commands, contextLimit: 1000, theme, printOnExit: true, ...streams })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write(KEYS.ctrl('d'))
    stdin.write(KEYS.ctrl('d'))
    await expect(done).resolves.toEqual({ status: 0 })
    const printed = stdout.lastFrame()
    expect(printed).toContain('what is 2+2?')
    expect(printed).toContain('It is 4.')
    expect(printed).not.toContain('old question')
  })

  it('turns on the kitty keyboard protocol when the terminal answers, and turns it off on exit', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const { stdin, stdout, streams } = io()
    Object.assign(stdout, { isTTY: true })
    const done = runTui({ store, commands, contextLimit: 1000, theme, mouse: false, ...streams })
    const written = () => stdout.frames.join('')
    // Ink asks (CSI ? u); a kitty-capable terminal answers with its current flags.
    await waitFor(() => written().includes('\x1b[?u'), written)
    stdin.write('\x1b[?0u')
    await waitFor(() => written().includes('\x1b[>1u'), written)
    // Shift+Enter now arrives as CSI 13;2u: a new line in the prompt, not a submit.
    stdin.write('one')
    stdin.write('\x1b[13;2u')
    stdin.write('two')
    stdin.write(KEYS.enter)
    await waitFor(() => commands.named('submit').length === 1)
    expect(commands.named('submit')[0]).toEqual([{ text: 'one\ntwo' }])
    // Ctrl+D as CSI 100;5u, twice.
    stdin.write('\x1b[100;5u')
    stdin.write('\x1b[100;5u')
    await expect(done).resolves.toEqual({ status: 0 })
    const all = written()
    expect(all.lastIndexOf('\x1b[<u')).toBeGreaterThan(all.indexOf('\x1b[>1u'))
  })

  it('stays on the legacy keyboard when the terminal does not answer', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const { stdin, stdout, streams } = io()
    Object.assign(stdout, { isTTY: true })
    const done = runTui({ store, commands, contextLimit: 1000, theme, mouse: false, ...streams })
    await waitFor(() => stdout.frames.join('').includes('\x1b[?u'))
    stdin.write('hi')
    stdin.write(KEYS.enter)
    await waitFor(() => commands.named('submit').length === 1)
    stdin.write(KEYS.ctrl('d'))
    stdin.write(KEYS.ctrl('d'))
    await expect(done).resolves.toEqual({ status: 0 })
    expect(stdout.frames.join('')).not.toContain('\x1b[>1u')
  })

  it('reports bad keybindings settings and keeps the defaults', async () => {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const { stdin, stdout, streams } = io()
    // A TTY makes Ink interactive, so frames are written while the app runs (and the alternate screen is used).
    Object.assign(stdout, { isTTY: true })
    const done = runTui({
      store,
      commands,
      contextLimit: 1000,
      theme,
      keybindings: { 'no.such': 'x' },
      ...streams,
    })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write(KEYS.ctrl('d'))
    stdin.write(KEYS.ctrl('d'))
    await expect(done).resolves.toEqual({ status: 0 })
    const written = stdout.frames.join('')
    expect(written).toContain('unknown command in keybindings: no.such')
    // The alternate screen is entered and left again.
    expect(written).toContain('\x1b[?1049h')
    expect(written).toContain('\x1b[?1049l')
    // Bracketed paste is switched on for the prompt and off again on exit.
    expect(written).toContain('\x1b[?2004h')
    expect(written.lastIndexOf('\x1b[?2004l')).toBeGreaterThan(written.lastIndexOf('\x1b[?2004h'))
  })
})

describe('lastTurnMarkdown', () => {
  it('starts at the last user message', () => {
    const state = makeState([
      { type: 'user/submitted', id: 'u1', content: 'first', text: 'first' },
      { type: 'user/submitted', id: 'u2', content: 'second', text: 'second' },
    ])
    expect(lastTurnMarkdown(state)).toContain('second')
    expect(lastTurnMarkdown(state)).not.toContain('first')
  })
})

describe('readGitBranch', () => {
  it('reads the branch from .git/HEAD, walking up from a subdirectory', () => {
    const repo = join(dir, 'repo')
    mkdirSync(join(repo, '.git'), { recursive: true })
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true })
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/feature/x\n')
    expect(readGitBranch(join(repo, 'src', 'deep'))).toBe('feature/x')
  })

  it('follows a worktree gitdir file and shows a detached HEAD as a short hash', () => {
    const wt = join(dir, 'wt')
    const gitdir = join(dir, 'gitdirs', 'wt')
    mkdirSync(wt, { recursive: true })
    mkdirSync(gitdir, { recursive: true })
    writeFileSync(join(wt, '.git'), `gitdir: ${gitdir}\n`)
    writeFileSync(join(gitdir, 'HEAD'), '0123456789abcdef\n')
    expect(readGitBranch(wt)).toBe('0123456')
  })

  it('is undefined outside a repository', () => {
    expect(readGitBranch('/')).toBeUndefined()
  })
})
