/** The doctor's endpoint checks against real scripted servers, one of each kind doctor tells apart. */
import { afterEach, describe, expect, it } from 'vitest'
import { type EndpointInput, endpointChecks } from '../../../../source/app/doctor/endpoint-checks.js'
import { type Check, doctorExitCode, formatJson, formatText } from '../../../../source/app/doctor/report.js'
import { type EndpointKind, endpointReply } from '../../../support/scripted-endpoints.ts'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'

let server: ScriptedServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const origins: EndpointInput['origins'] = { baseUrl: 'flag', apiKey: 'none', model: 'flag' }

async function check(kind: EndpointKind, extra: Partial<EndpointInput> = {}) {
  server = await startScriptedServer({ fallback: endpointReply(kind), models: [{ id: 'test-model' }] })
  const checks = await endpointChecks({
    baseUrl: server.baseUrl,
    apiKey: undefined,
    model: 'test-model',
    origins,
    ...extra,
  })
  return { checks, byId: (id: string) => checks.find((c) => c.id === id) as Check }
}

describe('the endpoint checks', () => {
  it('a server that does tool calls, streams and reports usage: all ✓, exit 0', async () => {
    const { checks, byId } = await check('tools')
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['endpoint', 'ok'],
      ['model', 'ok'],
      ['window', 'warn'],
      ['chat', 'ok'],
      ['streaming', 'ok'],
      ['usage', 'ok'],
      ['tool-calls', 'ok'],
    ])
    expect(byId('tool-calls').detail).toBe('the endpoint returns real tool calls')
    expect(byId('endpoint').detail).toMatch(/\(a flag\) answers, no key, lists 1 model$/)
    expect(doctorExitCode(checks)).toBe(0)
    // The probe sent a trivial tool, "auto" first, as sessions do.
    const probe = server?.requests.find((r) => Array.isArray(r.body.tools))
    expect(probe?.body.tool_choice).toBe('auto')
  })

  it('a server that ignores tools: ✗ with the hint, after asking again with the call required', async () => {
    const { checks, byId } = await check('ignores-tools')
    const tools = byId('tool-calls')
    expect(tools.status).toBe('fail')
    expect(tools.detail).toMatch(/prose although a tool call was required: the server ignores `tools`/)
    expect(tools.fix).toMatch(/tool-call parsing|tool use/)
    expect(tools.lines).toEqual(['it answered: "The answer is ok."'])
    expect(server?.requests.at(-1)?.body.tool_choice).toEqual({
      type: 'function',
      function: { name: 'record_answer' },
    })
    expect(doctorExitCode(checks)).toBe(1)
  })

  it('a llama.cpp that writes the call as text gets --jinja', async () => {
    server = await startScriptedServer({
      fallback: endpointReply('writes-tool-calls'),
      models: [{ id: 'm', owned_by: 'llamacpp' }],
    })
    const checks = await endpointChecks({ baseUrl: server.baseUrl, apiKey: undefined, model: 'm', origins })
    const tools = checks.find((c) => c.id === 'tool-calls')
    expect(tools?.detail).toMatch(
      /^llama\.cpp at .*: the model wrote a record_answer call as text \(<tool_call> markup\)/,
    )
    expect(tools?.fix).toMatch(/--jinja/)
  })

  it('a server that does not stream, and one without usage: ! (sessions still work)', async () => {
    const noStream = await check('no-stream')
    expect(noStream.byId('streaming').status).toBe('warn')
    expect(noStream.byId('tool-calls').status).toBe('ok')
    expect(doctorExitCode(noStream.checks)).toBe(0)
    await server?.close()
    const noUsage = await check('no-usage')
    expect(noUsage.byId('usage')).toMatchObject({
      status: 'warn',
      detail: 'not reported (no "usage" in the reply)',
    })
    expect(noUsage.byId('streaming').status).toBe('ok')
    expect(doctorExitCode(noUsage.checks)).toBe(0)
  })

  it('no endpoint: ✗ with what was probed and the way to set one up', async () => {
    const checks = await endpointChecks({
      baseUrl: undefined,
      apiKey: undefined,
      model: undefined,
      origins: { baseUrl: 'none', apiKey: 'none', model: 'none' },
      probed: [{ name: 'Ollama', url: 'http://127.0.0.1:11434/v1', result: 'connection refused' }],
    })
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['endpoint', 'fail'],
      ['model', 'skip'],
      ['tool-calls', 'skip'],
    ])
    expect(checks[0]?.fix).toMatch(/setup form/)
    expect(formatText(checks)).toContain('Ollama     http://127.0.0.1:11434/v1    connection refused')
  })

  it('a refused key, an unreachable server, a model not listed', async () => {
    server = await startScriptedServer({ modelsFaults: [{ status: 401 }], models: [{ id: 'a' }] })
    const refused = await endpointChecks({ baseUrl: server.baseUrl, apiKey: 'sk-x', model: 'a', origins })
    expect(refused[0]).toMatchObject({ status: 'fail', fix: expect.stringMatching(/\/login/) })
    expect(server.requests).toEqual([])
    const unlisted = await endpointChecks({ baseUrl: server.baseUrl, apiKey: undefined, model: 'b', origins })
    expect(unlisted.find((c) => c.id === 'model')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/is not among the 1 listed: a/),
    })
    const url = server.baseUrl
    await server.close()
    server = undefined
    const down = await endpointChecks({ baseUrl: url, apiKey: undefined, model: 'a', origins })
    expect(down[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/connection (refused|reset)/),
    })
  })

  it('the window says where it comes from', async () => {
    server = await startScriptedServer({
      fallback: endpointReply('tools'),
      models: [{ id: 'm', context_length: 32768 }],
    })
    const checks = await endpointChecks({ baseUrl: server.baseUrl, apiKey: undefined, model: 'm', origins })
    expect(checks.find((c) => c.id === 'window')).toMatchObject({
      status: 'ok',
      detail: "32,768 tokens, from the endpoint's model listing",
    })
  })
})

describe('the report', () => {
  const checks: Check[] = [
    { id: 'node', title: 'Node', status: 'ok', detail: '24', essential: true },
    {
      id: 'usage',
      title: 'Token usage',
      status: 'warn',
      detail: 'not reported',
      fix: 'estimates',
      essential: false,
    },
    {
      id: 'fence',
      title: 'Sandbox fence',
      status: 'fail',
      detail: 'open',
      fix: 'report it',
      essential: false,
    },
  ]

  it('marks each line, puts the fix under what is wrong, and exits 1 only for an essential failure', () => {
    const text = formatText(checks)
    expect(text.split('\n').slice(0, 5)).toEqual([
      '✓ Node           24',
      '! Token usage    not reported',
      '                 → estimates',
      '✗ Sandbox fence  open',
      '                 → report it',
    ])
    expect(text).toContain('Sessions can work; Sandbox fence failed')
    expect(doctorExitCode(checks)).toBe(0)
    const essential = [
      ...checks,
      { id: 'endpoint', title: 'Endpoint', status: 'fail', detail: 'x', essential: true } as Check,
    ]
    expect(doctorExitCode(essential)).toBe(1)
    expect(formatText(essential)).toContain('1 essential check failed: Endpoint')
    // Wrapped to a width, long lines continue under their column.
    const long: Check = {
      id: 'x',
      title: 'Node',
      status: 'fail',
      detail: 'word '.repeat(20).trim(),
      essential: false,
    }
    expect(formatText([long], 40).split('\n').slice(0, 3)).toEqual([
      '✗ Node  word word word word word word',
      '        word word word word word word',
      '        word word word word word word',
    ])
    expect(JSON.parse(formatJson(essential))).toMatchObject({
      ok: false,
      checks: [{ id: 'node' }, {}, {}, { id: 'endpoint', status: 'fail' }],
    })
  })
})

describe('a hostile endpoint', () => {
  it('a reply larger than 2 MB is not read to the end', async () => {
    const { createServer } = await import('node:http')
    const big = createServer((req, res) => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ data: [{ id: 'm' }] }))
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      // Endless: only the cap ends the read.
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (res.write(chunk)) {}
        res.once('drain', pump)
      }
      pump()
      res.on('close', () => res.removeAllListeners('drain'))
    })
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve))
    const port = (big.address() as { port: number }).port
    try {
      const checks = await endpointChecks({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: undefined,
        model: 'm',
        origins,
      })
      expect(checks.find((c) => c.id === 'chat')).toMatchObject({
        status: 'fail',
        detail: 'm: the reply was larger than 2 MB',
      })
    } finally {
      big.closeAllConnections()
      await new Promise((resolve) => big.close(resolve))
    }
  })
})
