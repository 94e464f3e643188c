import { join } from 'node:path'
import type { Boundary } from '../permissions/protected-paths.js'
import type { CodeSearchAnswer, CodeSearchService } from '../tools/code-search.js'
import type { HostPrograms } from '../util/host-programs.js'
import { createEmbedder, type Embedder, type EmbeddingsEndpoint } from './embeddings.js'
import { listIndexable } from './file-list.js'
import type { IndexJob } from './index-job.js'
import { type IndexStore, openIndexStore } from './index-store.js'
import { type IndexProgress, updateIndex } from './indexer.js'

/**
 * CodeSearch for one session: opens the workspace's index, brings it up to date in the background (the
 * `i1` row of the tasks pane) and answers queries. A query while the update runs waits a little for it,
 * then searches what is indexed and says the answer is partial. Loaded by a dynamic import, only when an
 * embeddings model is configured.
 */

export interface CodeSearchOptions {
  workspace: string
  /** The index file (one per workspace, under the state dir). */
  indexPath: string
  endpoint: EmbeddingsEndpoint
  images: boolean
  batchSize: number
  boundary: Boundary
  /** The deny rule that keeps Read from a path: such files are never indexed. */
  deniedRead?: (abs: string) => string | undefined
  programs?: HostPrograms
  /** How long a query waits for an update under way before it searches what is there. */
  queryWaitMs: number
  /** Makes the tasks-pane job (registered with the session's task directory). */
  job(): IndexJob
  /** A failure of the background update, for a notice where the user looks. */
  onFailure(message: string): void
  embedder?: Embedder
}

export interface SessionCodeSearch extends CodeSearchService {
  /** Starts the background update (once). */
  start(): void
  /** Resolves once the update under way (if any) has ended. */
  idle(): Promise<void>
  close(): Promise<void>
}

export function createCodeSearch(opts: CodeSearchOptions): SessionCodeSearch {
  const embedder = opts.embedder ?? createEmbedder(opts.endpoint)
  let store: Promise<IndexStore> | undefined
  let running: Promise<void> | undefined
  let progress: IndexProgress | undefined
  let failure: string | undefined
  let closed = false
  let current: IndexJob | undefined

  const openStore = (signal: AbortSignal): Promise<IndexStore> => {
    store ??= (async () => {
      // Without a configured dimension, the model's own, from one short request.
      const dimensions =
        opts.endpoint.dimensions ?? (await embedder.embed(['dimension probe'], signal))[0]?.length ?? 0
      return openIndexStore({ path: opts.indexPath, model: opts.endpoint.model, dimensions })
    })()
    // A failed open is tried again by the next query (the endpoint may be back).
    store.catch(() => {
      store = undefined
    })
    return store
  }

  const update = async (job: IndexJob) => {
    const started = Date.now()
    try {
      const index = await openStore(job.signal)
      job.progress('listing files', true)
      const listed = await listIndexable({
        workspace: opts.workspace,
        boundary: opts.boundary,
        ...(opts.deniedRead ? { deniedRead: opts.deniedRead } : {}),
        images: opts.images,
        ...(opts.programs ? { programs: opts.programs } : {}),
        signal: job.signal,
      })
      let tenth = 0
      const result = await updateIndex({
        workspace: opts.workspace,
        boundary: opts.boundary,
        ...(opts.deniedRead ? { deniedRead: opts.deniedRead } : {}),
        listed,
        store: index,
        embedder,
        signal: job.signal,
        batchSize: opts.batchSize,
        onProgress(p) {
          progress = p
          const step = p.total === 0 ? 10 : Math.floor((p.done * 10) / p.total)
          job.progress(progressLine(p), step > tenth || p.done === 0)
          tenth = Math.max(tenth, step)
        },
      })
      progress = undefined
      if (job.signal.aborted) job.finish('stopped', `stopped: ${progressLine(result)}`)
      else {
        const { files, chunks } = index.counts()
        const seconds = ((Date.now() - started) / 1000).toFixed(1)
        job.finish(
          'completed',
          `${files} files, ${chunks} chunks indexed (${result.embedded} embedded, ${result.removed} removed) in ${seconds} s`,
        )
      }
    } catch (error) {
      const last = progress
      progress = undefined
      if (job.signal.aborted) {
        // Stopped mid-request: the files stored so far stay indexed.
        job.finish('stopped', `stopped: ${last ? progressLine(last) : 'before any file was read'}`)
        return
      }
      failure = `CodeSearch could not index the workspace: ${error instanceof Error ? error.message : String(error)}`
      job.finish('failed', failure)
      opts.onFailure(failure)
    }
  }

  const service: SessionCodeSearch = {
    endpoint: embedder.url,
    start() {
      if (running || closed) return
      current = opts.job()
      running = update(current)
    },
    idle: () => running ?? Promise.resolve(),
    async search(query, { limit, under, signal, allowed }): Promise<CodeSearchAnswer> {
      if (running) await waitAtMost(running, opts.queryWaitMs, signal)
      const index = await openStore(signal)
      const [vector] = await embedder.embed([query], signal)
      if (!vector || vector.length !== index.dimensions)
        throw new Error(
          `the embedding of the query has ${vector?.length ?? 0} dimensions, the index ${index.dimensions}: the model changed its output; restart the session to index again`,
        )
      // Asked for more than needed: results a rule now hides are dropped after the search.
      const hits = index
        .search(vector, Math.min(limit * 3 + 10, 200), under)
        .filter((h) => allowed(join(opts.workspace, h.path)))
        .slice(0, limit)
      const answer: CodeSearchAnswer = { hits, indexed: index.counts() }
      if (progress) answer.partial = { done: progress.done, total: progress.total }
      else if (failure && hits.length === 0) throw new Error(failure)
      else if (failure) answer.stale = failure
      return answer
    },
    async close() {
      closed = true
      // The update ends at its next file; the store closes after it (a write never meets a closed file).
      await current?.stop()
      await store?.then((s) => s.close()).catch(() => undefined)
    },
  }
  return service
}

function progressLine(p: IndexProgress): string {
  const base = `${p.done}/${p.total} files read`
  const extra = [
    p.unchanged > 0 ? `${p.unchanged} unchanged` : '',
    p.removed > 0 ? `${p.removed} removed` : '',
  ]
  return [base, ...extra].filter(Boolean).join(' · ')
}

/** Resolves when `work` ends, `ms` pass or `signal` aborts, whichever is first; leaves no timer behind. */
function waitAtMost(work: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    void work.then(done, done)
  })
}
