/**
 * What a full-screen session loads: Node's undici (the global fetch, Headers, Response) costs ~5 MB of
 * idle RSS and ~45 ms of CPU to load, and a session talks to its endpoint over the provider's
 * own node:http fetch, so neither start-up, the endpoint's model listing nor a turn may load it (README,
 * Benchmarks: Memory). The built CLI runs in a pseudo-terminal with a preload that writes the built-in
 * modules it loaded at exit.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, repoRoot, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = box = server = undefined
})

describe('a full-screen session and undici', () => {
  it('lists the models and runs a turn without loading undici, http2 or tls', async () => {
    box = await makeSandbox()
    // The listing names a small window, so the meter shows when its answer has reached the session.
    server = await startScriptedServer({
      models: [{ id: 'test-model', context_length: 1000 }],
      replies: [{ text: 'the answer', usage: { prompt: 500, completion: 3 } }],
    })
    const report = join(box.root, 'builtins.txt')
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: {
        ...box.env,
        NODE_OPTIONS: `--require ${JSON.stringify(join(repoRoot, 'test', 'support', 'report-builtins.cjs'))}`,
        AGENT_TUI_TEST_BUILTINS: report,
      },
    })
    await tui.waitFor('test-model')
    await tui.submit('hello')
    await tui.waitFor('the answer')
    // 500 of the listed 1000 tokens: the listing came back (without it the profile's window applies).
    await tui.waitFor(/ctx ~?50%/)
    tui.write(keys.ctrlD)
    await tui.waitFor(/again to exit/)
    tui.write(keys.ctrlD)
    expect((await tui.exited).exitCode).toBe(0)
    const loaded = (await readFile(report, 'utf8')).split('\n')
    // The session did talk over node:http.
    expect(loaded).toContain('http')
    expect(loaded).not.toContain('internal/deps/undici/undici')
    expect(loaded).not.toContain('http2')
    expect(loaded).not.toContain('tls')
  })
})
