import { mkdir, unlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatAnswer } from '../../../source/tools/code-search.ts'
import { type EmbeddingsServer, startEmbeddingsServer } from '../../support/embeddings-server.ts'
import { type CodeSearchFixture, codeSearchFixture, waitUntil } from './fixture.ts'

let f: CodeSearchFixture
let server: EmbeddingsServer
beforeEach(async () => {
  f = await codeSearchFixture()
  server = await startEmbeddingsServer()
})
afterEach(async () => {
  await f.dispose()
  await server.close()
})

const paths = async (s: Parameters<CodeSearchFixture['search']>[0], query: string) =>
  (await f.search(s, query)).hits.map((h) => h.path)

describe('CodeSearch during a session', () => {
  it('a file the session wrote is updated before the next query, without walking the workspace', async () => {
    let clock = 1_000
    const s = f.make(server.baseUrl, { now: () => clock })
    s.start()
    await s.idle()
    const colors = join(f.workspace, 'src', 'colors.ts')
    await writeFile(colors, 'export const jitter = "exponential jitter between attempts"\n')
    s.noteWritten(colors)
    clock += 1_000
    const before = server.inputCount()
    const answer = await f.search(s, 'exponential jitter')
    expect(answer.hits[0]?.path).toBe('src/colors.ts')
    expect(answer.hits[0]?.snippet).toContain('exponential jitter')
    expect(answer.partial).toBeUndefined()
    // colors.ts, then the query: nothing else was read or sent.
    expect(server.inputCount() - before).toBe(2)
  })

  it('a file changed by someone else is found once the re-check is due, not before', async () => {
    let clock = 1_000
    const s = f.make(server.baseUrl, { now: () => clock, recheckMs: 30_000 })
    s.start()
    await s.idle()
    const readme = join(f.workspace, 'README.md')
    await writeFile(readme, '# Gadgets\nHow gadgets are serialised to disk.\n')
    await utimes(readme, new Date(), new Date(Date.now() + 10_000))
    clock += 10_000
    const early = await f.search(s, 'gadgets serialised to disk')
    expect(early.hits.find((h) => h.path === 'README.md')?.snippet).toContain('widgets are rendered')
    clock += 25_000
    const answer = await f.search(s, 'gadgets serialised to disk')
    expect(answer.hits[0]?.path).toBe('README.md')
    expect(answer.hits[0]?.snippet).toContain('serialised')
  })

  it('a new file the session wrote is found (the walk judges it: .gitignore applies)', async () => {
    const s = f.make(server.baseUrl)
    s.start()
    await s.idle()
    await writeFile(join(f.workspace, '.gitignore'), 'out/\n')
    await mkdir(join(f.workspace, 'out'))
    for (const [file, text] of [
      ['src/queue.ts', 'export class PriorityQueue { dequeue() {} }\n'],
      ['out/queue.js', 'class PriorityQueue { dequeue() {} } // built\n'],
    ] as const) {
      await writeFile(join(f.workspace, file), text)
      s.noteWritten(join(f.workspace, file))
    }
    const found = await paths(s, 'priority queue dequeue')
    expect(found[0]).toBe('src/queue.ts')
    expect(found).not.toContain('out/queue.js')
  })

  it('a written file that is gone leaves the index', async () => {
    const s = f.make(server.baseUrl)
    s.start()
    await s.idle()
    const retry = join(f.workspace, 'src', 'retry.ts')
    await unlink(retry)
    s.noteWritten(retry)
    expect(await paths(s, 'retry policy backoff')).not.toContain('src/retry.ts')
  })

  it('a query that does not wait for the update says it searched a partly updated index', async () => {
    const s = f.make(server.baseUrl, { queryWaitMs: 0 })
    s.start()
    await s.idle()
    const colors = join(f.workspace, 'src', 'colors.ts')
    await writeFile(colors, 'export const jitter = "exponential jitter"\n')
    s.noteWritten(colors)
    // The update's request (whenever it comes) is held; the query's own embedding is answered.
    server.hold((inputs) => inputs.some((i) => String(i).startsWith('src/colors.ts:')))
    const answer = await f.search(s, 'exponential jitter')
    server.release()
    expect(answer.partial).toMatchObject({ updating: true, done: 0 })
    expect(formatAnswer({ query: 'exponential jitter' }, answer).forModel).toMatch(
      /\[partial: the index is being updated with files changed since it was built \((0 of 1 changed files read|looking for changes)\)/,
    )
    await s.idle()
    expect((await f.search(s, 'exponential jitter')).partial).toBeUndefined()
  })

  it('a query before the start: the start waits for its update, and nothing is embedded twice', async () => {
    const s = f.make(server.baseUrl)
    const query = f.search(s, 'retry backoff')
    s.start()
    expect((await query).hits[0]?.path).toBe('src/retry.ts')
    await s.idle()
    const sent = server.requests.flatMap((r) => r.inputs).filter((i) => String(i).includes(':1-'))
    expect(sent).toHaveLength(3)
    expect(f.updates.at(-1)).toMatchObject({ status: 'completed' })
    expect(f.updates.at(-1)?.lastLine).toMatch(/^3 files, 3 chunks indexed \(0 embedded/)
  })

  it('Esc while a query waits for the dimension probe ends the query at once', async () => {
    const s = f.make(server.baseUrl)
    server.hold()
    s.start()
    await waitUntil(() => server.held() > 0)
    const esc = new AbortController()
    const query = f.search(s, 'retry', esc.signal)
    esc.abort(new Error('interrupted'))
    await expect(query).rejects.toThrow('interrupted')
    // The probe was the update's as much as the query's: it goes on, and the index is built.
    server.release()
    await s.idle()
    expect(f.updates.at(-1)).toMatchObject({ status: 'completed' })
  })
})

describe('memory while indexing', () => {
  it("holds the process's young generation for each update, and lets go when it ends", async () => {
    const held: string[] = []
    const s = f.make(server.baseUrl, {
      duringUpdate: () => {
        held.push('hold')
        return () => held.push('release')
      },
    })
    server.hold()
    s.start()
    await waitUntil(() => server.held() > 0)
    expect(held).toEqual(['hold'])
    server.release()
    await s.idle()
    expect(held).toEqual(['hold', 'release'])
    const colors = join(f.workspace, 'src', 'colors.ts')
    await writeFile(colors, 'export const hue = 1\n')
    s.noteWritten(colors)
    await f.search(s, 'hue')
    await s.idle()
    expect(held).toEqual(['hold', 'release', 'hold', 'release'])
  })
})
