/**
 * Headless runs of the built CLI against the scripted server for the daily-driver rough edges of issue #21:
 * --cwd, stream-json/json tool arguments and results, @path attachments, denials, finished background jobs.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const { cli } = env

type Event = { type: string; [key: string]: unknown }
const eventsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event)

describe('--cwd', () => {
  it('works in the named folder instead of the current directory', async () => {
    const project = join(env.box.root, 'project')
    await mkdir(project)
    await writeFile(join(project, 'hello.txt'), 'hello from the project\n')
    env.server.enqueue(
      { toolCalls: [{ name: 'Read', arguments: { file_path: 'hello.txt' } }] },
      { text: 'read it' },
    )
    const r = await cli(['--cwd', project, '-p', 'read hello.txt', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    const events = eventsOf(r.stdout)
    expect(events[0]).toMatchObject({ type: 'init', cwd: project })
    const result = env.server.requests[1]?.body.messages.at(-1) as { content: string }
    expect(result.content).toContain('hello from the project')
  })

  it('exits 2 naming a folder that does not exist', async () => {
    const r = await cli(['--cwd', join(env.box.root, 'nope'), '-p', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--cwd')
    expect(r.stderr).toContain('no such directory')
    expect(env.server.requests).toHaveLength(0)
  })
})
