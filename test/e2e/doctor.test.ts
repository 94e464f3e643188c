/**
 * `agent-tui doctor` and the first-turn notice, end to end: the built CLI against scripted servers that
 * do tool calls, that ignore `tools`, and with no endpoint at all.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { endpointReply } from '../support/scripted-endpoints.ts'
import { makeSandbox, runCli, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'
import { osSandbox } from '../support/os-sandbox.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined

afterEach(async () => {
  await server?.close()
  await box?.cleanup()
  server = undefined
  box = undefined
})

const line = (out: string, title: string) => out.split('\n').find((l) => l.slice(2).startsWith(title)) ?? ''

describe('agent-tui doctor', () => {
  it('against a server that does tool calls: every endpoint line ✓, exit 0', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ fallback: endpointReply('tools') })
    const r = await runCli(['doctor', '--base-url', server.baseUrl, '--model', 'test-model'], {
      cwd: box.workspace,
      env: box.env,
    })
    expect(r.stderr).toBe('')
    for (const title of [
      'Node',
      'Endpoint',
      'Model',
      'Test request',
      'Streaming',
      'Token usage',
      'Tool calls',
      'ripgrep',
      'Folder trust',
      'Settings',
      'Extensions',
    ])
      expect(line(r.stdout, title), `${title}\n${r.stdout}`).toMatch(/^✓ /)
    expect(line(r.stdout, 'Tool calls')).toContain('the endpoint returns real tool calls')
    if (osSandbox?.kind === 'bwrap')
      expect(line(r.stdout, 'Sandbox fence')).toMatch(/^✓ .*refused.*unreachable/)
    expect(r.code).toBe(0)
  })

  it('against a server that ignores tools: ✗ Tool calls with the fix, exit 1; --json says the same', async () => {
    box = await makeSandbox()
    server = await startScriptedServer({ fallback: endpointReply('ignores-tools') })
    const args = ['doctor', '--base-url', server.baseUrl, '--model', 'test-model']
    const r = await runCli(args, { cwd: box.workspace, env: box.env })
    expect(line(r.stdout, 'Tool calls')).toMatch(/^✗ .*the server ignores `tools`/)
    expect(r.stdout).toMatch(/→ turn on the server's tool-call parsing/)
    expect(r.stdout).toContain('1 essential check failed: Tool calls')
    expect(r.code).toBe(1)
    const j = await runCli([...args, '--json'], { cwd: box.workspace, env: box.env })
    const report = JSON.parse(j.stdout) as { ok: boolean; checks: Array<{ id: string; status: string }> }
    expect(report.ok).toBe(false)
    expect(report.checks.find((c) => c.id === 'tool-calls')?.status).toBe('fail')
    expect(j.code).toBe(1)
  })

  it('with no endpoint: ✗ Endpoint with the servers probed, exit 1', async () => {
    box = await makeSandbox()
    const r = await runCli(['doctor'], { cwd: box.workspace, env: box.env })
    expect(line(r.stdout, 'Endpoint')).toBe('✗ Endpoint       none configured, and no local server answered')
    expect(r.stdout).toMatch(/Ollama +http:\/\/127\.0\.0\.1:11434\/v1/)
    expect(r.stdout).toMatch(/→ run agent-tui and use the setup form/)
    expect(line(r.stdout, 'Tool calls')).toBe('- Tool calls     not checked: no endpoint')
    expect(r.code).toBe(1)
  })

  it('a prompt is a usage error', async () => {
    box = await makeSandbox()
    const r = await runCli(['doctor', 'hello'], { cwd: box.workspace, env: box.env })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/doctor takes no prompt/)
  })
})

describe('the first-turn notice', () => {
  const written = { text: '<tool_call>\n{"name": "Read", "arguments": {"file_path": "a.txt"}}\n</tool_call>' }

  it('headless, text tool calls off in the profile: a call written as text is named once on stderr, with the fix', async () => {
    box = await makeSandbox()
    await mkdir(join(box.home, '.config', 'agent-tui'), { recursive: true })
    await writeFile(
      join(box.home, '.config', 'agent-tui', 'settings.json'),
      JSON.stringify({ models: { 'test-model': { textToolCalls: false } } }),
    )
    server = await startScriptedServer({
      replies: [{ text: '<tool_call>\n{"name": "Read", "arguments": {"file_path": "a.txt"}}\n</tool_call>' }],
      fallback: { text: 'done' },
    })
    const r = await runCli(['-p', 'read a.txt', '--base-url', server.baseUrl, '--model', 'test-model'], {
      cwd: box.workspace,
      env: box.env,
    })
    const warnings = r.stderr.split('\n').filter((l) => l.includes('as text'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^agent-tui: warning: the server at http:\/\/127\.0\.0\.1:\d+\/v1: the model wrote a Read call as text \(<tool_call> markup\) instead of a tool call, so nothing ran\. To fix it, .*`agent-tui doctor` checks the endpoint\.$/,
    )
  })

  it('headless, text tool calls on (a local endpoint): the call is recovered and runs, and nothing is said', async () => {
    box = await makeSandbox()
    await writeFile(join(box.workspace, 'a.txt'), 'hello\n')
    server = await startScriptedServer({ replies: [written], fallback: { text: 'done' } })
    const r = await runCli(['-p', 'read a.txt', '--base-url', server.baseUrl, '--model', 'test-model'], {
      cwd: box.workspace,
      env: box.env,
    })
    expect(r.stderr).not.toMatch(/as text/)
    // The second request carries the Read's result.
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('hello')
  })
})
