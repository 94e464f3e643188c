/**
 * End-to-end tests of the built full-screen TUI: the real CLI in a pseudo-terminal, its screen read
 * through a headless xterm, against the scripted OpenAI-compatible server. Needs `npm run build` first.
 * Every wait is on a screen (or file, or process) condition; nothing sleeps for a fixed time.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, PROMPT, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, runCli, type Sandbox } from '../support/run-cli.ts'
import { type ReplySource, type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'
import { isGone } from '../unit/tasks/helpers.ts'

const NOTES = 'first line\nold line\nlast line\n'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined
/** Pids of background jobs a test started; killed at the end whatever happened. */
const strayPids: number[] = []

afterEach(async () => {
  await tui?.kill()
  for (const pid of strayPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await server?.close()
  await box?.cleanup()
  tui = undefined
  server = undefined
  box = undefined
})

const call = (name: string, args: Record<string, unknown>): ReplySource => ({
  toolCalls: [{ name, arguments: args }],
})

/** A sandbox, a scripted server with `replies`, and the TUI on it (`--base-url … --model test-model`). */
async function launch(
  replies: ReplySource[],
  size: { cols: number; rows: number } = { cols: 140, rows: 40 },
  flags: string[] = [],
) {
  box = await makeSandbox()
  server = await startScriptedServer({ replies })
  await writeFile(join(box.workspace, 'notes.txt'), NOTES)
  tui = startTui({
    args: ['--base-url', server.baseUrl, '--model', 'test-model', ...flags],
    cwd: box.workspace,
    env: box.env,
    ...size,
  })
  await firstFrame(tui)
  return { box, server, tui }
}

/** The idle frame: status bar with model and mode on row 1, the empty prompt at the bottom. */
function firstFrame(t: TuiSession) {
  return t.waitFor((screen) => /test-model/.test(firstLine(screen)) && screen.includes('❯  Message'))
}

const firstLine = (screen: string) => screen.split('\n')[0] ?? ''

/** True when no turn runs: no spinner label in the status bar and no busy separator above the prompt. */
const idle = (screen: string) =>
  !/thinking|responding|running tools|waiting for you/.test(firstLine(screen)) &&
  !screen.includes('Esc interrupts') &&
  screen.includes('❯  Message')

async function readWorkspaceFile(name: string): Promise<string> {
  return readFile(join(box?.workspace ?? '', name), 'utf8').catch(() => '')
}

async function jobPid(): Promise<number> {
  let pid = 0
  await pollUntil(
    async () => {
      const text = await readWorkspaceFile('job.pid')
      pid = Number(text.trim())
      return text.endsWith('\n') && Number.isInteger(pid) && pid > 0
    },
    () => 'timed out waiting for the background job to write job.pid',
  )
  strayPids.push(pid)
  return pid
}

describe('agent-tui in a pseudo-terminal', () => {
  it('opens full-screen with the status bar, and Ctrl+D twice restores the terminal and exits 0', async () => {
    const { tui } = await launch([])
    const screen = tui.screen()
    expect(firstLine(screen)).toMatch(/^ SAFE {2}test-model/)
    expect(tui.term.buffer.active.type).toBe('alternate')
    // Button-event mouse reporting (1000) in SGR encoding (1006) for the wheel.
    // Mouse reporting is switched on with raw mode, which may land just after the first frame.
    await pollUntil(
      () => tui.term.modes.mouseTrackingMode === 'vt200',
      () => `mouse reporting never switched on (mode ${tui.term.modes.mouseTrackingMode})`,
    )
    expect(tui.output()).toContain('\x1b[?1006h')

    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    const exit = await tui.exited
    expect(exit.exitCode).toBe(0)
    // node-pty reports the exit only after the last output arrived.
    await tui.settle()
    expect(tui.term.buffer.active.type).toBe('normal')
    const raw = tui.output()
    expect(raw.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1049h'))
    expect(tui.term.modes.bracketedPasteMode).toBe(false)
    expect(tui.term.modes.mouseTrackingMode).toBe('none')
    expect(raw.lastIndexOf('\x1b[?1006l')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1006h'))
    expect(tui.term.modes.applicationCursorKeysMode).toBe(false)
  })

  it('keeps keys typed at the first frame while the UI loads: echoed at once, then sent on Enter', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [{ text: 'Got it.' }] })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 140,
      rows: 40,
    })
    // The status bar is on screen before the UI's modules have loaded; type straight away.
    await tui.waitFor((screen) => /^ SAFE {2}test-model/.test(firstLine(screen)))
    tui.write('hello early')
    await tui.waitFor((screen) => screen.includes(`${PROMPT}hello early`))
    tui.write('\r')
    await server.waitForRequests(1)
    const messages = server.requests[0]?.body.messages as Array<{ role: string; content: unknown }>
    // Typed once, sent once: the UI saw each key exactly once.
    expect(JSON.stringify(messages.at(-1)?.content)).toMatch(/"hello early"|[^y]hello early[^h]/)
    await tui.waitFor('Got it.')
    await tui.waitFor(idle)
  })

  it('restores the terminal, mouse reporting included, when killed with SIGTERM', async () => {
    const { tui } = await launch([])
    // Mouse reporting is switched on with raw mode, which may land just after the first frame.
    await pollUntil(
      () => tui.term.modes.mouseTrackingMode === 'vt200',
      () => `mouse reporting never switched on (mode ${tui.term.modes.mouseTrackingMode})`,
    )
    process.kill(tui.pid, 'SIGTERM')
    const exit = await tui.exited
    expect(exit.exitCode).toBe(143)
    await tui.settle()
    const raw = tui.output()
    expect(tui.term.buffer.active.type).toBe('normal')
    expect(tui.term.modes.mouseTrackingMode).toBe('none')
    expect(raw.lastIndexOf('\x1b[?1006l')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1006h'))
    // Switched off before Ink leaves the alternate screen.
    expect(raw.lastIndexOf('\x1b[?1000l')).toBeLessThan(raw.lastIndexOf('\x1b[?1049l'))
  })

  it('writes the compile cache once start-up is done, so a session killed before any turn still leaves it', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [] })
    const cacheDir = join(box.home, 'compile-cache')
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: { ...box.env, NODE_COMPILE_CACHE: cacheDir },
    })
    await firstFrame(tui)
    const entries = async () =>
      (await readdir(cacheDir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) =>
        e.isFile(),
      ).length
    // Node itself writes the cache only at a normal exit (it makes the directory at start-up).
    await pollUntil(
      async () => (await entries()) > 0,
      () => `nothing was written to ${cacheDir} while the session ran`,
    )
    process.kill(tui.pid, 'SIGKILL')
    await tui.exited
    expect(await entries()).toBeGreaterThan(0)
  })

  it('shows todos, asks before an edit and a background command, and stops the job from /tasks', async () => {
    const { server, tui } = await launch([
      call('TodoWrite', {
        todos: [
          { content: 'Read the notes', status: 'completed', activeForm: 'Reading the notes' },
          { content: 'Edit the notes', status: 'in_progress', activeForm: 'Editing the notes' },
          { content: 'Start the job', status: 'pending', activeForm: 'Starting the job' },
        ],
      }),
      call('Read', { file_path: 'notes.txt' }),
      call('Edit', { file_path: 'notes.txt', old_string: 'old line', new_string: 'new line' }),
      call('Bash', {
        command: 'echo $$ > job.pid; exec sleep 300',
        description: 'sleepy job',
        run_in_background: true,
      }),
      { text: 'All set.' },
    ])

    await tui.submit('tidy the notes')
    // The todo pane is the right-hand column: a left rule, then the list.
    await tui.waitFor('│ Todos 1/3')
    const todos = await tui.waitFor(/│ ◐ Editing the notes/)
    expect(todos).toMatch(/│ ☑ Read the notes/)
    expect(todos).toMatch(/│ ☐ Start the job/)

    const consent = await tui.waitFor(/\+new line/)
    expect(consent).toContain('notes.txt')
    expect(consent).toMatch(/-old line/)
    expect(consent).toMatch(/Always allow \S+/)
    expect(consent).toContain('Allow once')
    expect(await readWorkspaceFile('notes.txt')).toBe(NOTES)
    tui.write('y')
    await pollUntil(
      async () => (await readWorkspaceFile('notes.txt')) === 'first line\nnew line\nlast line\n',
      () => `notes.txt was not edited:\n${tui.screen()}`,
    )

    const bashConsent = await tui.waitFor('$ echo $$ > job.pid; exec sleep 300')
    expect(bashConsent).toContain('Allow once')
    tui.write('y')
    const pid = await jobPid()
    await tui.waitFor(/│ {3}b1 running/)
    await tui.waitFor((s) => s.includes('All set.') && idle(s))

    await tui.submit('/tasks')
    await tui.waitFor('k stop')
    tui.write('k')
    await tui.waitFor('Stop b1? (y/n)')
    tui.write('y')
    await tui.waitFor(/b1 stopped/)
    await pollUntil(
      () => isGone(pid),
      () => `job ${pid} still runs after stopping b1`,
    )
    expect(server.pairingViolations).toEqual([])
  })

  it('/permissions shows a rule granted for the session; /memory add writes .agent-tui/memory.md', async () => {
    const { server, tui } = await launch([
      call('Bash', { command: 'touch made.txt', description: 'make a file' }),
      { text: 'Made it.' },
    ])
    await tui.submit('make a file')
    await tui.waitFor('$ touch made.txt')
    tui.write('2')
    await tui.waitFor((s) => s.includes('Made it.') && idle(s))
    expect(await readWorkspaceFile('made.txt')).toBe('')

    await tui.submit('/permissions')
    const rules = await tui.waitFor(/Allow\s+Bash\(touch[^)]*\)\s+this session/)
    expect(rules).toMatch(/Deny\s+\(none\)/)
    expect(rules).toMatch(/Mode\s+SAFE/)
    tui.write(keys.esc)
    await tui.waitFor((s) => !s.includes('this session') && idle(s))

    await tui.submit('/memory add run make before committing')
    await tui.waitFor('Remembered in .agent-tui/memory.md')
    expect(await readWorkspaceFile('.agent-tui/memory.md')).toBe(
      '# Project memory\n\n- run make before committing\n',
    )
    expect(server.pairingViolations).toEqual([])
  })

  it('cycles SAFE → AUTO → PLAN with Shift+Tab, and plan mode refuses an edit without asking', async () => {
    const { server, tui } = await launch([
      call('Read', { file_path: 'notes.txt' }),
      call('Edit', { file_path: 'notes.txt', old_string: 'old line', new_string: 'new line' }),
      { text: 'Plan noted.' },
    ])
    tui.write(keys.shiftTab)
    await tui.waitFor((s) => firstLine(s).startsWith(' AUTO '))
    tui.write(keys.shiftTab)
    await tui.waitFor((s) => firstLine(s).startsWith(' PLAN '))

    await tui.submit('change the notes')
    const denied = await tui.waitFor(/⊘ Edit.*denied/)
    expect(denied).toContain('notes.txt')
    await tui.waitFor((s) => s.includes('Plan noted.') && idle(s))
    expect(tui.output()).not.toContain('Allow once')
    expect(await readWorkspaceFile('notes.txt')).toBe(NOTES)
    expect(server.requests).toHaveLength(3)
    expect(JSON.stringify(server.requests[2]?.body.messages)).toMatch(/plan mode/)
    expect(server.pairingViolations).toEqual([])
  })

  it('a session launched in DANGEROUS cycles back to it, and refuses CI with the flag that sets it', async () => {
    const { tui } = await launch([], undefined, ['--dangerously-skip-permissions'])
    await tui.waitFor((s) => firstLine(s).startsWith(' DANGEROUS '))
    for (const badge of ['SAFE', 'AUTO', 'PLAN', 'DANGEROUS']) {
      tui.write(keys.shiftTab)
      await tui.waitFor((s) => firstLine(s).startsWith(` ${badge} `))
    }
    await tui.submit('/mode ci')
    await tui.waitFor('ci mode can only be chosen when starting agent-tui (-p or --mode ci)')
    expect(firstLine(tui.screen())).toMatch(/^ DANGEROUS /)
  })

  it('Esc interrupts a streaming reply and the next request keeps the pairing rule', async () => {
    const story = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')
    const { server, tui } = await launch([
      { text: story, chunkSize: 6, chunkDelayMs: 50, hangAfterChunks: 12 },
      { text: 'Back again.' },
    ])
    await tui.submit('tell a long story')
    await tui.waitFor((s) => s.includes('word3') && s.includes('Esc interrupts'))
    expect(firstLine(tui.screen())).toMatch(/thinking|responding/)
    tui.write(keys.esc)
    const after = await tui.waitFor(idle)
    expect(after).toContain('word3')

    await tui.submit('and now?')
    await tui.waitFor((s) => s.includes('Back again.') && idle(s))
    expect(server.requests).toHaveLength(2)
    expect(server.pairingViolations).toEqual([])
  })

  it('scrolls the transcript with the mouse wheel, and clicks never reach the prompt', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `row ${i}`).join('\n\n')
    const { tui } = await launch([{ text: long }])
    await tui.submit('print rows')
    await tui.waitFor((s) => /\brow 59\b/.test(s) && idle(s))
    const wheelUp = '\x1b[<64;20;10M'
    const wheelDown = '\x1b[<65;20;10M'
    tui.write(wheelUp.repeat(5))
    const scrolled = await tui.waitFor((s) => !/\brow 59\b/.test(s))
    expect(scrolled).toMatch(/\brow 45\b/)
    // A click (press and release) is swallowed; typing still goes to the prompt, nothing else does.
    tui.write('\x1b[<0;20;10M\x1b[<0;20;10m')
    tui.write('x')
    const typed = await tui.waitFor((s) => s.includes('❯ x'))
    expect(typed).not.toMatch(/\[<|;20;10/)
    expect(typed).not.toMatch(/\brow 59\b/)
    tui.write(wheelDown.repeat(5))
    await tui.waitFor((s) => /\brow 59\b/.test(s))
  })

  it('re-lays out the frame when the terminal is resized to 90×28', async () => {
    const { tui } = await launch([
      call('TodoWrite', {
        todos: [
          { content: 'Measure', status: 'in_progress', activeForm: 'Measuring' },
          { content: 'Report', status: 'pending', activeForm: 'Reporting' },
        ],
      }),
      { text: 'Measured.' },
    ])
    await tui.submit('measure things')
    await tui.waitFor((s) => s.includes('│ ◐ Measuring') && s.includes('Measured.') && idle(s))

    tui.resize(90, 28)
    // Ink may paint an intermediate frame while the layout catches up: wait for the settled 90×28 one.
    // Narrow: the todo pane collapses to one summary line under the transcript.
    const screen = await tui.waitFor((s) => {
      const rows = s.split('\n')
      return (
        rows.length === 28 &&
        /^ SAFE {2}test-model/.test(rows[0] ?? '') &&
        rows[1] === '› measure things' &&
        s.includes('  ⎿ ◐ Measuring') &&
        rows.includes('Todos 0/2 · ◐ Measuring · Ctrl+T shows all') &&
        rows.includes('─'.repeat(90)) &&
        rows.slice(-2).some((l) => l.startsWith('❯'))
      )
    })
    const lines = screen.split('\n')
    expect(screen).not.toContain('│ ◐ Measuring')
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(90)
    // A line longer than the terminal would have auto-wrapped into the next row.
    const buffer = tui.term.buffer.active
    for (let y = 0; y < tui.term.rows; y++) {
      expect(buffer.getLine(buffer.viewportY + y)?.isWrapped ?? false).toBe(false)
    }
    expect(buffer.type).toBe('alternate')
  })

  it('shows the resumed conversation at once on --continue, and new output below it', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [{ text: 'The earlier answer.' }, { text: 'A fresh answer.' }],
    })
    const first = await runCli(
      ['-p', 'an earlier question', '--base-url', server.baseUrl, '--model', 'test-model'],
      {
        cwd: box.workspace,
        env: box.env,
      },
    )
    expect(first.code).toBe(0)
    tui = startTui({
      args: ['--continue', '--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 140,
      rows: 40,
    })
    // The status bar and prompt come first, with the usage left for the log to tell; keys typed at them
    // are kept for the UI.
    const early = await tui.waitFor((s) => /^ SAFE {2}test-model/.test(s))
    expect(early.split('\n')[0]).not.toContain('ctx')
    expect(early).not.toContain('The earlier answer.')
    tui.write('and now?')
    // Nothing else is typed: the resumed transcript must be painted without any further frame.
    const resumed = await tui.waitFor('The earlier answer.')
    expect(resumed).toContain('› an earlier question')
    await tui.waitFor((s) => s.split('\n').some((line) => line.startsWith('❯ and now?')))
    await tui.waitFor((s) => s.split('\n')[0]?.includes('ctx') === true)
    tui.write('\r')
    const after = await tui.waitFor('A fresh answer.')
    expect(after.indexOf('The earlier answer.')).toBeLessThan(after.indexOf('A fresh answer.'))
  })

  it('opens a picker on a bare --resume and resumes the session picked there', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [{ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' }],
    })
    const endpoint = ['--base-url', server.baseUrl, '--model', 'test-model']
    for (const prompt of ['the older question', 'the newer question']) {
      const run = await runCli(['-p', prompt, ...endpoint], { cwd: box.workspace, env: box.env })
      expect(run.code).toBe(0)
    }
    tui = startTui({ args: ['--resume', ...endpoint], cwd: box.workspace, env: box.env, cols: 140, rows: 40 })
    const list = await tui.waitFor('Resume a session of this directory')
    await tui.waitFor((s) => s.includes('the older question'))
    expect(list.indexOf('the newer question')).toBeLessThan(list.indexOf('the older question'))
    tui.write(keys.down)
    await tui.waitFor((s) => s.split('\n').some((line) => /❯ .*the older question/.test(line)))
    tui.write('\r')
    const resumed = await tui.waitFor('Answer one.')
    expect(resumed).toContain('› the older question')
    expect(resumed).not.toContain('the newer question')
    await tui.waitFor((s) => s.includes('❯  Message'))
    tui.write('one more')
    await tui.waitFor((s) => s.split('\n').some((line) => line.startsWith('❯ one more')))
    tui.write('\r')
    await tui.waitFor('Answer three.')
  })

  it('/resume switches to an earlier session in place, and Ctrl+D twice still exits 0', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      replies: [{ text: 'Old answer.' }, { text: 'Current answer.' }, { text: 'Continued answer.' }],
    })
    const endpoint = ['--base-url', server.baseUrl, '--model', 'test-model']
    const run = await runCli(['-p', 'an old question', ...endpoint], { cwd: box.workspace, env: box.env })
    expect(run.code).toBe(0)
    tui = startTui({ args: endpoint, cwd: box.workspace, env: box.env, cols: 140, rows: 40 })
    await firstFrame(tui)
    await tui.submit('a current question')
    await tui.waitFor((s) => s.includes('Current answer.') && idle(s))

    await tui.submit('/resume')
    const list = await tui.waitFor('Resume a session of this directory')
    // This session is not offered: only the other one.
    expect(list).toContain('an old question')
    expect(list).not.toContain('a current question')
    tui.write('\r')
    const resumed = await tui.waitFor((s) => s.includes('Old answer.') && idle(s))
    expect(resumed).toContain('› an old question')
    expect(resumed).not.toContain('Current answer.')
    await tui.submit('go on')
    await tui.waitFor('Continued answer.')
    // The follow-up carried the resumed conversation, not the one left behind.
    const last = JSON.stringify(server.requests.at(-1)?.body.messages)
    expect(last).toContain('an old question')
    expect(last).not.toContain('a current question')

    tui.write(keys.ctrlD)
    await tui.waitFor('again to exit')
    tui.write(keys.ctrlD)
    const exit = await tui.exited
    expect(exit.exitCode).toBe(0)
    expect(server.pairingViolations).toEqual([])
  })

  it('says so and exits 1 on a bare --resume where there is no session to resume', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ replies: [] })
    tui = startTui({
      args: ['--resume', '--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 140,
      rows: 40,
    })
    const exit = await tui.exited
    expect(exit.exitCode).toBe(1)
    await tui.settle()
    expect(tui.output()).toContain('no sessions to resume in')
  })
})
