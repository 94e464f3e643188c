import { isAbsolute, join, relative, sep } from 'node:path'
import type { Boundary } from '../permissions/protected-paths.js'
import type { CodeSearchAnswer, CodeSearchService } from '../tools/code-search.js'
import type { HostPrograms } from '../util/host-programs.js'
import { createEmbedder, type Embedder, type EmbeddingsEndpoint } from './embeddings.js'
import { type ListedFile, listIndexable, statListed } from './file-list.js'
import { createFreshness } from './freshness.js'
import type { IndexJob } from './index-job.js'
import { type IndexStore, indexFileName, openIndexStore } from './index-store.js'
import { type IndexProgress, updateIndex } from './indexer.js'
import { untilAborted } from '../util/until-aborted.js'

/**
 * CodeSearch for one session: opens the workspace's index, brings it up to date in the background (the
 * `i1` row of the tasks pane) and answers queries. A query first brings the index up to date when files
 * may have changed since (freshness.ts: the files the session wrote at once, a walk at most every
 * `recheckMs`). A query while an update runs waits a little for it, then searches what is indexed and
 * says the answer is partial. Loaded by a dynamic import, only when an
 * embeddings model is configured.
 */

export interface CodeSearchOptions {
  workspace: string
  /** Where the index files go: `dir` below the state dir `root` (trusted as named; nothing below followed). */
  index: { root: string; dir: string; key: string }
  endpoint: EmbeddingsEndpoint
  images: boolean
  batchSize: number
  boundary: Boundary
  /** The deny rule that keeps Read from a path: such files are never indexed. */
  deniedRead?: (abs: string) => string | undefined
  programs?: HostPrograms
  /** How long a query waits for an update under way before it searches what is there. */
  queryWaitMs: number
  /** A query walks the workspace for changes when the last walk began at least this long ago. */
  recheckMs: number
  now?: () => number
  /**
   * Taken for each update, released when it ends: the process's hold on V8's young generation, which an
   * index build (~1 GB allocated over 10,000 files) would otherwise grow to its largest for good.
   */
  duringUpdate?: () => () => void
  /** Makes the tasks-pane job (registered with the session's task directory). */
  job(): IndexJob
  /** A failure of the background update, for a notice where the user looks. */
  onFailure(message: string): void
  embedder?: Embedder
}

export interface SessionCodeSearch extends CodeSearchService {
  /** Starts the background update (once). */
  start(): void
  /** A file tool of the session wrote `absPath`: the next query updates it first. */
  noteWritten(absPath: string): void
  /** Resolves once the update under way (if any) has ended. */
  idle(): Promise<void>
  close(): Promise<void>
}

/** What an update reports to: the tasks-pane job at the start, a quiet one for a query's refresh. */
type UpdateJob = Pick<IndexJob, 'signal' | 'progress' | 'finish'>

export function createCodeSearch(opts: CodeSearchOptions): SessionCodeSearch {
  const embedder = opts.embedder ?? createEmbedder(opts.endpoint)
  const now = opts.now ?? Date.now
  // Ends the dimension probe and the quiet refreshes when the session closes.
  const life = new AbortController()
  const freshness = createFreshness(opts.recheckMs)
  let store: Promise<IndexStore> | undefined
  let running: Promise<void> | undefined
  let progress: IndexProgress | undefined
  let refreshing = false
  let failure: string | undefined
  let closed = false
  let current: IndexJob | undefined
  /** What the last walk listed: a written file it knows is updated without another walk. */
  let listing = new Map<string, ListedFile>()

  // Shared by the update and the queries, made under the session's own signal: a query that gives up
  // waiting (Esc) leaves it to the others.
  const openStore = (): Promise<IndexStore> => {
    store ??= (async () => {
      // Without a configured dimension, the model's own, from one short request.
      const dimensions =
        opts.endpoint.dimensions ?? (await embedder.embed(['dimension probe'], life.signal))[0]?.length ?? 0
      return openIndexStore({
        root: opts.index.root,
        path: join(opts.index.dir, indexFileName(opts.index.key, opts.endpoint.model, dimensions)),
        model: opts.endpoint.model,
        dimensions,
      })
    })()
    // A failed open is tried again by the next query (the endpoint may be back).
    store.catch(() => {
      store = undefined
    })
    return store
  }

  const listOf = async (scope: ReadonlySet<string> | undefined, signal: AbortSignal) => {
    if (scope === undefined) {
      listing = await listIndexable({
        workspace: opts.workspace,
        boundary: opts.boundary,
        ...(opts.deniedRead ? { deniedRead: opts.deniedRead } : {}),
        images: opts.images,
        // Voyage's multimodal endpoint takes PNG, JPEG, WebP and GIF only.
        svgImages: opts.endpoint.api !== 'voyage-multimodal',
        ...(opts.programs ? { programs: opts.programs } : {}),
        signal,
      })
      return listing
    }
    // Written files the walk knew: looked at again; one gone (or grown past the cap) leaves the index.
    const out = new Map<string, ListedFile>()
    for (const path of scope) {
      const known = listing.get(path)
      const seen = known && (await statListed(join(opts.workspace, path), known.kind))
      if (seen) out.set(path, seen)
      if (seen) listing.set(path, seen)
      else listing.delete(path)
    }
    return out
  }

  const update = async (job: UpdateJob, scope?: ReadonlySet<string>) => {
    const started = now()
    try {
      const index = await untilAborted(openStore(), job.signal)
      job.progress(scope ? 'updating written files' : 'listing files', true)
      const listed = await listOf(scope, job.signal)
      let tenth = 0
      const result = await updateIndex({
        workspace: opts.workspace,
        boundary: opts.boundary,
        ...(opts.deniedRead ? { deniedRead: opts.deniedRead } : {}),
        listed,
        ...(scope ? { scope } : {}),
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
        failure = undefined
        const { files, chunks } = index.counts()
        const seconds = ((now() - started) / 1000).toFixed(1)
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
      const message = `CodeSearch could not index the workspace: ${error instanceof Error ? error.message : String(error)}`
      job.finish('failed', message)
      // A refresh that fails as the last update did says nothing new.
      if (message !== failure) opts.onFailure(message)
      failure = message
    }
  }

  // One update at a time: the start's waits for a query's refresh that began before it.
  const run = (job: UpdateJob, scope?: ReadonlySet<string>) => {
    const before = running
    let done: Promise<void> | undefined
    done = (async () => {
      await before
      refreshing = job !== current
      const release = opts.duringUpdate?.()
      try {
        await update(job, scope)
      } finally {
        release?.()
        if (running === done) running = undefined
      }
    })()
    running = done
  }

  /** Before a query: the update the changes since the last one call for, without a row in the tasks pane. */
  const refresh = () => {
    if (running || closed) return
    const due = freshness.next(now(), (path) => listing.has(path))
    if (due.kind === 'none') return
    run(quietJob(life.signal), due.kind === 'paths' ? due.paths : undefined)
  }

  const relativeOf = (abs: string): string | undefined => {
    for (const base of [opts.workspace, opts.boundary.workspace]) {
      const rel = relative(base, abs)
      if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/')
    }
    return undefined
  }

  const service: SessionCodeSearch = {
    endpoint: embedder.url,
    start() {
      if (current || closed) return
      current = opts.job()
      freshness.fullStarted(now())
      run(current)
    },
    noteWritten(absPath) {
      const rel = relativeOf(absPath)
      if (rel !== undefined) freshness.written(rel)
    },
    idle: () => running ?? Promise.resolve(),
    async search(query, { limit, under, signal, allowed }): Promise<CodeSearchAnswer> {
      refresh()
      if (running) await waitAtMost(running, opts.queryWaitMs, signal)
      const index = await untilAborted(openStore(), signal)
      const [vector] = await embedder.embed([query], signal, index.dimensions)
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
      // Still running: partial, also before the update has counted its files.
      if (running)
        answer.partial = {
          done: progress?.done ?? 0,
          total: progress?.total ?? 0,
          ...(refreshing ? { updating: true } : {}),
        }
      else if (failure && hits.length === 0) throw new Error(failure)
      else if (failure) answer.stale = failure
      return answer
    },
    async close() {
      closed = true
      // Both stopped at once (a start waiting for a refresh must not wait for all of it); an update ends at
      // its next file, and the store closes after it (a write never meets a closed file).
      const stopped = current?.stop()
      life.abort(new Error('the session ended'))
      await stopped
      await running?.catch(() => undefined)
      await store?.then((s) => s.close()).catch(() => undefined)
    },
  }
  return service
}

function quietJob(signal: AbortSignal): UpdateJob {
  return { signal, progress() {}, finish() {} }
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
