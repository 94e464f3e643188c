import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runTask, type TaskServer } from '../../../../source/app/mcp-serve/run-task.js'
import { parseMcpServeArgs } from '../../../../source/config/mcp-serve-args.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'

/** `run_task` in-process (the CLI's wiring, a real session against the scripted server). */
let server: ScriptedServer
let root: string
let serve: TaskServer

beforeEach(async () => {
  server = await startScriptedServer()
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-task-')))
  const home = join(root, 'home')
  await mkdir(join(root, 'work'), { recursive: true })
  await mkdir(home, { recursive: true })
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') }
  const { base, maxMode } = parseMcpServeArgs(['--base-url', server.baseUrl, '--model', 'm'])
  serve = { base, maxMode, root: join(root, 'work'), home, env }
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(root, { recursive: true, force: true })
})

const quiet = { write: () => undefined }

describe('run_task', () => {
  it('answers with the session id and the status', async () => {
    server.enqueue({ text: 'hello back' })
    const outcome = await runTask(
      serve,
      { prompt: 'hello' },
      { err: quiet, signal: new AbortController().signal, number: 1 },
    )
    expect(outcome).toMatchObject({ ok: true, task: { result: 'hello back', status: 'completed', steps: 1 } })
    if (outcome.ok) expect(outcome.task.session_id).toMatch(/\S/)
  })

  it('a call cancelled before its turn began runs nothing', async () => {
    const cancelled = new AbortController()
    cancelled.abort()
    const outcome = await runTask(
      serve,
      { prompt: 'hello' },
      { err: quiet, signal: cancelled.signal, number: 1 },
    )
    expect(outcome).toEqual({ ok: false, message: 'the task was cancelled before it began' })
    expect(server.requests).toHaveLength(0)
  })

  it('a mode over the ceiling is refused before any session is made', async () => {
    const outcome = await runTask(
      serve,
      { prompt: 'hello', mode: 'auto' },
      { err: quiet, signal: new AbortController().signal, number: 1 },
    )
    expect(outcome.ok).toBe(false)
    expect(server.requests).toHaveLength(0)
  })
})
