import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import { createIndexJob, type IndexJob } from '../../../source/codesearch/index-job.ts'
import {
  type CodeSearchOptions,
  createCodeSearch,
  type SessionCodeSearch,
} from '../../../source/codesearch/service.ts'
import type { TaskSummary } from '../../../source/store/domain.ts'

/** A workspace of three small files, a state dir beside it, and CodeSearch services over them. */
export interface CodeSearchFixture {
  root: string
  workspace: string
  /** The state dir (the index's trusted root). */
  state: string
  updates: TaskSummary[]
  notices: string[]
  make(baseUrl: string, opts?: Partial<CodeSearchOptions>): SessionCodeSearch
  search(s: SessionCodeSearch, query: string, signal?: AbortSignal): ReturnType<SessionCodeSearch['search']>
  dispose(): Promise<void>
}

export async function codeSearchFixture(): Promise<CodeSearchFixture> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'cs-fixture-')))
  const workspace = join(root, 'ws')
  await mkdir(join(workspace, 'src'), { recursive: true })
  await writeFile(
    join(workspace, 'src', 'retry.ts'),
    'export function retryPolicy() {\n  // backoff between attempts\n}\n',
  )
  await writeFile(join(workspace, 'src', 'colors.ts'), 'export const palette = ["red", "green", "blue"]\n')
  await writeFile(join(workspace, 'README.md'), '# Widgets\nHow widgets are rendered on screen.\n')
  const state = join(root, 'state')
  const services: SessionCodeSearch[] = []
  const updates: TaskSummary[] = []
  const notices: string[] = []
  let n = 0
  return {
    root,
    workspace,
    state,
    updates,
    notices,
    make(baseUrl, opts = {}) {
      const service = createCodeSearch({
        workspace,
        index: { root: state, dir: join(state, 'code-search'), key: 'ws' },
        endpoint: { baseUrl, model: 'embed-test' },
        images: false,
        batchSize: 2,
        boundary: { workspace, additionalDirs: [], trustedReadDirs: [] },
        queryWaitMs: 60_000,
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
        ...opts,
      })
      services.push(service)
      return service
    },
    search: (s, query, signal = new AbortController().signal) =>
      s.search(query, { limit: 3, under: '', signal, allowed: () => true }),
    async dispose() {
      for (const s of services) await s.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

export function waitUntil(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 5))
    poll()
  })
}

/** A 1×1 PNG with one tEXt chunk (the scripted server embeds an image from its readable text). */
export function png(keyword: string, text: string): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1')),
    chunk('IDAT', deflateSync(Buffer.from([0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
