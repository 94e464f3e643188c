import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import type { RecordedRequest, ReplySource } from '../support/scripted-server.ts'

const env = setupE2eEnv()
const { cli } = env

type Msg = { role: string; content: string }
const lastToolResult = (req: RecordedRequest) =>
  ((req.body.messages as Msg[]) ?? []).filter((m) => m.role === 'tool').at(-1)?.content ?? ''

/** A dev server on a free loopback port, printing its URL as Vite does. */
const SERVER = `'${process.execPath}' -e "require('http').createServer().listen(0, '127.0.0.1', function () { console.log('  Local:   http://localhost:' + this.address().port + '/') })"`

describe('listening ports through the built CLI', () => {
  it('TaskOutput reports the port a background dev server listens on, with the URL it printed', async () => {
    // The model asks again (a short wait each time) until the port is reported: a condition, not a sleep.
    const poll: ReplySource[] = Array.from(
      { length: 120 },
      (_, i) => (req: RecordedRequest) =>
        lastToolResult(req).includes('Listening:')
          ? { text: 'seen' }
          : {
              toolCalls: [
                { name: 'TaskOutput', arguments: { task_id: 'b1', block: true, timeout: 250 + i } },
              ],
            },
    )
    env.server.enqueue(
      { toolCalls: [{ name: 'Bash', arguments: { command: SERVER, run_in_background: true } }] },
      ...poll,
    )
    const r = await cli(['-p', 'serve', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const last = env.server.requests.at(-1) as RecordedRequest
    const result = lastToolResult(last)
    const all = env.server.requests.map(lastToolResult).join('\n')
    const port = /Local: {3}http:\/\/localhost:(\d+)\//.exec(all)?.[1]
    expect(port, all).toBeDefined()
    expect(result).toContain(`Listening: 127.0.0.1:${port} → http://localhost:${port}/`)
    expect(r.stdout).toContain('seen')
  })
})
