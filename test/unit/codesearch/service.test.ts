import { mkdir, mkdtemp, realpath, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createIndexJob, type IndexJob } from '../../../source/codesearch/index-job.ts'
import { createCodeSearch, type SessionCodeSearch } from '../../../source/codesearch/service.ts'
import type { TaskSummary } from '../../../source/store/domain.ts'
import { type EmbeddingsServer, startEmbeddingsServer } from '../../support/embeddings-server.ts'
import { png, waitUntil } from './fixture.ts'

let root: string
let workspace: string
let server: EmbeddingsServer
let services: SessionCodeSearch[] = []
let updates: TaskSummary[] = []
let notices: string[] = []

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cs-service-')))
  workspace = join(root, 'ws')
  await mkdir(join(workspace, 'src'), { recursive: true })
  await writeFile(
    join(workspace, 'src', 'retry.ts'),
    'export function retryPolicy() {\n  // backoff between attempts\n}\n',
  )
  await writeFile(join(workspace, 'src', 'colors.ts'), 'export const palette = ["red", "green", "blue"]\n')
  await writeFile(join(workspace, 'README.md'), '# Widgets\nHow widgets are rendered on screen.\n')
  updates = []
  notices = []
})
afterEach(async () => {
  for (const s of services) await s.close()
  services = []
  await server?.close()
  await rm(root, { recursive: true, force: true })
})

function make(
  opts: { model?: string; dimensions?: number; apiKey?: string; images?: boolean; denied?: string } = {},
) {
  let n = 0
  const service = createCodeSearch({
    workspace,
    index: { root: join(root, 'state'), dir: join(root, 'state', 'code-search'), key: 'ws' },
    endpoint: {
      baseUrl: server.baseUrl,
      model: opts.model ?? 'embed-test',
      ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      ...(opts.dimensions ? { dimensions: opts.dimensions } : {}),
    },
    images: opts.images ?? false,
    batchSize: 2,
    boundary: {
      workspace,
      additionalDirs: [],
      trustedReadDirs: [],
      appDirs: [join(workspace, '.agent-state')],
    },
    deniedRead: (abs) => (opts.denied && abs.includes(opts.denied) ? `Read(${opts.denied})` : undefined),
    queryWaitMs: 0,
    recheckMs: 60_000,
    job: (): IndexJob =>
      createIndexJob({
        id: `i${++n}`,
        logPath: join(root, 'outputs', `i${n}.log`),
        privateRoot: join(root, 'outputs'),
        now: Date.now,
        onUpdate: (t) => updates.push(t),
      }),
    onFailure: (text) => notices.push(text),
  })
  services.push(service)
  return service
}

const search = (s: SessionCodeSearch, query: string, under = '') =>
  s.search(query, { limit: 3, under, signal: new AbortController().signal, allowed: () => true })

describe('CodeSearch over a real index', () => {
  it('indexes the workspace in the background and finds by meaning, with path, lines and score', async () => {
    server = await startEmbeddingsServer()
    const s = make()
    s.start()
    await s.idle()
    const answer = await search(s, 'where is the retry backoff policy')
    expect(answer.partial).toBeUndefined()
    expect(answer.hits[0]).toMatchObject({ path: 'src/retry.ts', startLine: 1, endLine: 3 })
    expect(answer.hits[0]?.snippet).toContain('retryPolicy')
    expect(answer.hits[0]?.score).toBeGreaterThan(answer.hits[1]?.score ?? 1)
    expect(updates.at(-1)).toMatchObject({ id: 'i1', kind: 'index', status: 'completed' })
    expect(updates.at(-1)?.lastLine).toMatch(/^3 files, 3 chunks indexed/)
    expect((await search(s, 'widgets rendered', 'src')).hits.map((h) => h.path)).not.toContain('README.md')
  })

  it('a second update embeds only what changed and forgets deleted files', async () => {
    server = await startEmbeddingsServer()
    const first = make()
    first.start()
    await first.idle()
    await first.close()
    const before = server.inputCount()
    await writeFile(join(workspace, 'src', 'colors.ts'), 'export const palette = ["cyan"]\n')
    await unlink(join(workspace, 'README.md'))
    // Touched, same content: read and hashed, not embedded again.
    await utimes(join(workspace, 'src', 'retry.ts'), new Date(), new Date(Date.now() + 5000))
    const second = make()
    second.start()
    await second.idle()
    // The probe for the dimension, then colors.ts only.
    expect(server.requests.slice(-2).map((r) => r.inputs.length)).toEqual([1, 1])
    expect(server.inputCount() - before).toBe(2)
    expect(updates.at(-1)?.lastLine).toMatch(/^2 files, 2 chunks indexed \(1 embedded, 1 removed\)/)
    expect((await search(second, 'widgets rendered on screen')).hits.map((h) => h.path)).not.toContain(
      'README.md',
    )
  })

  it('never indexes secrets, denied files, ignored files or links out of the workspace', async () => {
    server = await startEmbeddingsServer()
    await writeFile(join(workspace, '.env'), 'SECRET_TOKEN=hunter2 retry policy\n')
    await mkdir(join(workspace, 'private'))
    await writeFile(join(workspace, 'private', 'plan.md'), 'retry policy secret plan\n')
    await writeFile(join(workspace, '.gitignore'), 'build/\n')
    await mkdir(join(workspace, 'build'))
    await writeFile(join(workspace, 'build', 'out.js'), 'function retryPolicy() {}\n')
    await writeFile(join(root, 'outside.ts'), 'retry policy outside\n')
    await symlink(join(root, 'outside.ts'), join(workspace, 'src', 'link.ts'))
    await writeFile(join(workspace, 'blob.dat'), Buffer.from([0, 1, 2, 3, 0, 0, 7]))
    // agent-tui's own state, as when a session runs in the home folder.
    await mkdir(join(workspace, '.agent-state', 'sessions'), { recursive: true })
    await writeFile(join(workspace, '.agent-state', 'sessions', 's.jsonl'), '{"app state": "retry policy"}\n')
    const s = make({ denied: '/private/' })
    s.start()
    await s.idle()
    const sent = JSON.stringify(server.requests.map((r) => r.inputs))
    for (const leak of ['hunter2', 'secret plan', 'outside', 'build/out.js', 'blob.dat', 'app state'])
      expect(sent).not.toContain(leak)
    const hits = (await search(s, 'retry policy')).hits.map((h) => h.path)
    expect(hits).toContain('src/retry.ts')
    for (const p of ['.env', 'private/plan.md', 'build/out.js', 'src/link.ts']) expect(hits).not.toContain(p)
  })

  it('a query while the index is built searches what is there and says it is partial', async () => {
    server = await startEmbeddingsServer()
    const s = make({ dimensions: 64 })
    server.hold()
    s.start()
    await waitUntil(() => server.held() > 0)
    const during = s.search('retry', {
      limit: 3,
      under: '',
      signal: new AbortController().signal,
      allowed: () => true,
    })
    // The query's own embedding is held too: release everything, the update ends later than the query.
    await waitUntil(() => server.held() > 1)
    server.release()
    const answer = await during
    expect(answer.partial?.total).toBe(3)
    expect(answer.partial?.done).toBeLessThan(3)
    await s.idle()
    expect((await search(s, 'retry')).partial).toBeUndefined()
  })

  it('images are embedded when the model takes them: "the architecture diagram" finds docs/arch.svg', async () => {
    server = await startEmbeddingsServer()
    await mkdir(join(workspace, 'docs'))
    await writeFile(
      join(workspace, 'docs', 'arch.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg"><title>system architecture diagram</title></svg>',
    )
    const s = make({ images: true })
    s.start()
    await s.idle()
    const image = server.requests.flatMap((r) => r.inputs).find((i) => typeof i !== 'string') as {
      type: string
      image_url: { url: string }
    }
    expect(image.type).toBe('image_url')
    expect(image.image_url.url.startsWith('data:image/svg+xml;base64,')).toBe(true)
    expect((await search(s, 'the architecture diagram')).hits[0]?.path).toBe('docs/arch.svg')
  })

  it('a PNG is embedded as an image (the test server reads its tEXt chunk): "the architecture diagram" finds docs/arch.png', async () => {
    server = await startEmbeddingsServer()
    await mkdir(join(workspace, 'docs'))
    await writeFile(join(workspace, 'docs', 'arch.png'), png('Description', 'system architecture diagram'))
    const s = make({ images: true })
    s.start()
    await s.idle()
    const image = server.requests.flatMap((r) => r.inputs).find((i) => typeof i !== 'string') as {
      image_url: { url: string }
    }
    expect(image.image_url.url.startsWith('data:image/png;base64,iVBORw0KGgo')).toBe(true)
    expect((await search(s, 'the architecture diagram')).hits[0]).toMatchObject({
      path: 'docs/arch.png',
      startLine: 1,
    })
    // Without images on, a PNG is not sent at all.
    await s.close()
    const before = server.requests.length
    await rm(join(root, 'state'), { recursive: true })
    const text = make()
    text.start()
    await text.idle()
    const sent = server.requests.slice(before).flatMap((r) => r.inputs)
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.every((i) => typeof i === 'string')).toBe(true)
  })

  it('stopping the index job (k in the tasks pane) ends the update; what is indexed stays searchable', async () => {
    server = await startEmbeddingsServer()
    let job: IndexJob | undefined
    const s = createCodeSearch({
      workspace,
      index: { root: join(root, 'state'), dir: join(root, 'state', 'code-search'), key: 'ws' },
      endpoint: { baseUrl: server.baseUrl, model: 'embed-test', dimensions: 64 },
      images: false,
      batchSize: 1,
      boundary: { workspace, additionalDirs: [], trustedReadDirs: [] },
      queryWaitMs: 0,
      recheckMs: 60_000,
      job: () => {
        job = createIndexJob({
          id: 'i1',
          logPath: join(root, 'outputs', 'i1.log'),
          privateRoot: join(root, 'outputs'),
          now: Date.now,
          onUpdate: (t) => updates.push(t),
        })
        return job
      },
      onFailure: (text) => notices.push(text),
    })
    services.push(s)
    server.hold()
    s.start()
    await waitUntil(() => server.held() > 0)
    const stopped = job?.stop()
    server.release()
    expect((await stopped)?.status).toBe('stopped')
    await s.idle()
    expect(notices).toEqual([])
    const answer = await search(s, 'retry')
    expect(answer.partial).toBeUndefined()
    expect(answer.indexed.files).toBeLessThan(3)
    expect((await job?.read({ block: false, timeoutMs: 0 }))?.output).toMatch(/stopped: /)
  })

  it.each([
    [
      'a refused key',
      { apiKey: 'wrong' },
      { apiKey: 'right' },
      /refused the request \(401\).*embeddings\.apiKey/,
    ],
    [
      'an unknown model',
      { model: 'nope' },
      {},
      /embedding model nope not found at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings/,
    ],
    [
      'a dimension the model does not give',
      { dimensions: 32 },
      {},
      /returned vectors of 64 dimensions, but "embeddings\.dimensions" says 32/,
    ],
    [
      'dimensions refused',
      { dimensions: 64 },
      { refuseDimensions: true },
      /does not accept "dimensions": 64/,
    ],
  ])(
    '%s: a notice, a failed task and the same message for the query',
    async (_name, mine, theirs, message) => {
      server = await startEmbeddingsServer(theirs)
      const s = make(mine)
      s.start()
      await s.idle()
      expect(notices).toHaveLength(1)
      expect(notices[0]).toMatch(message)
      expect(updates.at(-1)).toMatchObject({ status: 'failed' })
      await expect(search(s, 'anything')).rejects.toThrow(message)
    },
  )
})
