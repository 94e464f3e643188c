/**
 * The setup form end to end (docs/configuration.md#setting-up-in-agent-tui): the built CLI with a fresh
 * HOME and no OPENAI_* variables reaches a working session through the form, without leaving agent-tui;
 * what it saved opens the next start directly; `/login` reopens it; headless keeps its error and exit code.
 */
import { readFile, stat } from 'node:fs/promises'
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
  tui = undefined
  server = undefined
  box = undefined
})

const settingsFile = (b: Sandbox) => join(b.home, '.config', 'agent-tui', 'settings.json')
const credentialsFile = (b: Sandbox) => join(b.home, '.config', 'agent-tui', 'credentials.json')

describe('the setup form', () => {
  it('a fresh HOME: URL, key, model, test, save, and the session answers — then the next start opens directly', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({
      models: [{ id: 'alpha-model' }, { id: 'beta-coder' }, { id: 'gamma-model' }],
      fallback: { text: 'OK' },
    })
    tui = startTui({ args: [], cwd: box.workspace, env: box.env, cols: 80, rows: 24 })
    await tui.waitFor('Where is the model?')
    await tui.waitFor('No local server answered')
    // A loopback URL needs no key by default; one is typed here anyway, and shown masked.
    tui.write(server.baseUrl.replace('127.0.0.1', 'localhost'))
    tui.write(keys.enter)
    await tui.waitFor('API key for')
    tui.write(keys.down)
    tui.write('sk-e2e-secret')
    let screen = await tui.waitFor('•••••••••••••')
    expect(screen).not.toContain('sk-e2e-secret')
    tui.write(keys.enter)
    await tui.waitFor('beta-coder')
    tui.write('coder')
    screen = await tui.waitFor((s) => s.includes('1 of 3 models'))
    expect(screen).not.toContain('alpha-model')
    tui.write(keys.enter)
    // The session opens with the chosen model, without a restart.
    screen = await tui.waitFor(
      (s) => (s.split('\n')[0] ?? '').includes('beta-coder') && s.includes('❯  Message'),
    )
    // What the test request found, and where it was saved, is said in the session.
    await tui.waitFor((s) => s.includes('beta-coder answered in') && s.includes('/login changes it'))
    const saved = JSON.parse(await readFile(settingsFile(box), 'utf8'))
    expect(saved).toEqual({ baseUrl: server.baseUrl.replace('127.0.0.1', 'localhost'), model: 'beta-coder' })
    expect((await stat(credentialsFile(box))).mode & 0o777).toBe(0o600)
    expect(await readFile(credentialsFile(box), 'utf8')).toContain('sk-e2e-secret')
    // The test request carried the key.
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-e2e-secret')
    tui.write('hello')
    tui.write(keys.enter)
    await server.waitForRequests(2)
    await tui.waitFor((s) => s.split('\n').some((l) => l.trim() === 'OK'))
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sk-e2e-secret')
    tui.write(keys.ctrlD)
    tui.write(keys.ctrlD)
    expect((await tui.exited).exitCode).toBe(0)

    // The next start reads what was saved (and the stored key) and opens the session directly.
    tui = startTui({ args: [], cwd: box.workspace, env: box.env, cols: 120, rows: 40 })
    await tui.waitFor((s) => (s.split('\n')[0] ?? '').includes('beta-coder') && s.includes('❯  Message'))
    tui.write('again')
    await tui.waitFor((s) => s.includes('again'))
    tui.write(keys.enter)
    await server.waitForRequests(3)
    await tui.waitFor(() => server?.requests.at(-1)?.headers.authorization === 'Bearer sk-e2e-secret')

    // /login reopens the form on the endpoint in use; Esc goes back to the same session.
    tui.write('/login')
    tui.write(keys.enter)
    screen = await tui.waitFor('Esc cancel')
    expect(screen).toContain('Where is the model?')
    tui.write(keys.esc)
    await tui.waitFor((s) => (s.split('\n')[0] ?? '').includes('beta-coder') && s.includes('again'))
  })

  it('leaving the form without an endpoint exits with 2', async () => {
    box = await makeSandbox()
    tui = startTui({ args: [], cwd: box.workspace, env: box.env, cols: 80, rows: 24 })
    const screen = await tui.waitFor('No local server answered')
    expect(screen).toContain('127.0.0.1:11434')
    tui.write(keys.esc)
    expect((await tui.exited).exitCode).toBe(2)
  })

  it('headless without an endpoint keeps its exact message and exit code 2', async () => {
    box = await makeSandbox()
    const result = await runCli(['-p', 'hi'], { cwd: box.workspace, env: box.env })
    expect(result.code).toBe(2)
    const lines = result.stderr.split('\n')
    expect(lines.slice(0, 6)).toEqual([
      'agent-tui: no model endpoint configured and no local server found.',
      'Set one of:',
      '  OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-…   (environment)',
      '  --base-url URL --model NAME [--api-key KEY]                      (flags)',
      '  "baseUrl" and "model" in ~/.config/agent-tui/settings.json       (settings)',
      'Local servers probed:',
    ])
    expect(lines[6]).toMatch(/^ {2}Ollama {5}http:\/\/127\.0\.0\.1:11434\/v1/)
  })
})
