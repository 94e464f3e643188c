/**
 * Every painted string is cleaned, end to end: the built CLI against the scripted server, whose model
 * puts an RLO and an OSC 52 (a write to the user's clipboard) into a tool call's title, a command at the
 * consent prompt and its answer. In a pseudo-terminal read by a real emulator, neither takes effect: no
 * OSC 52 reaches the emulator's parser, no bidi control is written, and the title shows both as text.
 * Headless, stderr is cleaned, a piped answer stays byte for byte, JSON is escaped but parses the same.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'

const env = setupE2eEnv()
let tui: TuiSession | undefined
afterEach(async () => {
  await tui?.kill()
  tui = undefined
})

const RLO = '\u202e'
const OSC52 = '\x1b]52;c;cm0gLXJmIH4=\x07'
const TITLE = `notes${RLO}txt.exe ${OSC52}`
const ANSWER = `Done ${RLO}gnp.exe and ${OSC52} copied.`
/** Markdown's entities decode to the same (`&#27;` is ESC): the answer as the model may write it. */
const ENTITY_ANSWER = 'Done &#x202e;gnp.exe and &#27;]52;c;cm0gLXJmIH4=&#7; copied.'

describe('the TUI in a pseudo-terminal', () => {
  it("shows a tool call's RLO and OSC 52 as text, at the consent prompt too; neither takes effect", async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: TITLE } }] },
      // Auto mode writes in the workspace without asking: its diff is on the card.
      { toolCalls: [{ name: 'Write', arguments: { file_path: 'notes.md', content: `${TITLE}\n` } }] },
      { toolCalls: [{ name: 'Bash', arguments: { command: `echo ${TITLE}` } }] },
      { text: ENTITY_ANSWER },
    )
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model', '--mode', 'auto'],
      cwd: env.box.workspace,
      env: env.box.env,
      cols: 140,
      rows: 40,
    })
    // What the emulator's parser receives as OSC 52: a clipboard write, had it got through.
    const clipboard: string[] = []
    tui.term.parser.registerOscHandler(52, (data) => {
      clipboard.push(data)
      return true
    })
    await tui.waitFor('❯  Message')
    await tui.submit('read my notes')
    // The card's title says what the call was given, the RLO and the escape shown, not obeyed.
    await tui.waitFor('notes⟨U+202E⟩txt.exe ␛]52;c;cm0gLXJmIH4=␇')
    // The file's bytes in the diff, shown as text.
    await tui.waitFor('+notes⟨U+202E⟩txt.exe ␛]52;c;cm0gLXJmIH4=␇')
    // The Bash call asks: the consent prompt shows the same.
    await tui.waitFor((s) => s.includes('$ echo notes⟨U+202E⟩txt.exe ␛]52;c;cm0gLXJmIH4=␇'))
    tui.write(keys.esc)
    await tui.waitFor('Denied')
    await tui.submit('never mind')
    await tui.waitFor('Done gnp.exe and  copied.')
    await tui.settle()
    expect(clipboard).toEqual([])
    const written = tui.output()
    expect(written).not.toContain('\x1b]52')
    expect(written).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
  })
})

describe('headless output', () => {
  it('stderr is cleaned, a piped answer is the model’s text byte for byte, JSON parses to it', async () => {
    env.server.enqueue({ toolCalls: [{ name: 'Read', arguments: { file_path: TITLE } }] }, { text: ANSWER })
    const text = await env.cli(['-p', 'read my notes', '--verbose'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toBe(`${ANSWER}\n`)
    expect(text.stderr).toContain(`→ Read notestxt.exe `)
    expect(text.stderr).not.toMatch(/\x1b|\u202e/)

    env.server.enqueue({ toolCalls: [{ name: 'Read', arguments: { file_path: TITLE } }] }, { text: ANSWER })
    const json = await env.cli(['-p', 'read my notes', '--output-format', 'json'])
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).not.toMatch(/[\x1b\u202e]/)
    expect(JSON.parse(json.stdout).result).toBe(ANSWER)

    env.server.enqueue({ text: ANSWER })
    const stream = await env.cli(['-p', 'again', '--output-format', 'stream-json'])
    expect(stream.stdout).not.toMatch(/[\x1b\u202e]/)
    const events = stream.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; result?: string })
    expect(events.find((e) => e.type === 'result')?.result).toBe(ANSWER)
  })
})
