/**
 * Fault paths of the built full-screen TUI in a pseudo-terminal: what the user sees while an endpoint
 * cannot be reached.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'

let box: Sandbox | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await box?.cleanup()
  tui = undefined
  box = undefined
})

/** A port on 127.0.0.1 with nothing listening (bound once, then released). */
async function deadPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

describe('agent-tui with an unreachable endpoint', () => {
  it('shows one retry notice that counts attempts in place, then one error naming the URL and the cause', async () => {
    box = await makeSandbox()
    const configDir = join(box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    await writeFile(join(configDir, 'settings.json'), JSON.stringify({ retry: { maxAttempts: 3 } }))
    const url = `http://127.0.0.1:${await deadPort()}/v1`
    tui = startTui({
      args: ['--base-url', url, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 160,
      rows: 30,
    })
    await tui.waitFor((s) => s.includes('❯  Message'))
    await tui.submit('hello?')
    const screens: string[] = []
    const final = await tui.waitFor((s) => {
      screens.push(s)
      return s.includes('gave up after 3 attempts')
    })
    const mentions = (s: string) => s.split(`cannot reach ${url}`).length - 1
    // Never more than one notice about it on screen, however far the retries got.
    expect(Math.max(...screens.map(mentions))).toBe(1)
    expect(mentions(final)).toBe(1)
    expect(final).toContain(`cannot reach ${url}: connect ECONNREFUSED`)
    const waits = screens.flatMap((s) => [...s.matchAll(/attempt (\d) of 3 failed; next try in ([\d.]+) s/g)])
    expect(new Set(waits.map((m) => m[1]))).toEqual(new Set(['1', '2']))
    expect(waits.map((m) => m[2])).not.toContain('0.0')
  })
})
