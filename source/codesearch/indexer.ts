import { createHash } from 'node:crypto'
import { realpath } from 'node:fs/promises'
import { extname } from 'node:path'
import type { Boundary } from '../permissions/protected-paths.js'
import { sniffBytes, SNIFF_BYTES } from '../tools/sniff.js'
import { type Chunk, chunkText } from './chunker.js'
import type { EmbeddingInput, Embedder } from './embeddings.js'
import { IMAGE_EXTENSIONS, type ListedFile } from './file-list.js'
import type { IndexStore, StoredChunk } from './index-store.js'
import { needsEmbedding, planIndex } from './index-plan.js'
import { readListed } from './read-listed.js'

/**
 * One update of the index: files gone are removed, new and changed ones read, hashed and (when the hash
 * changed) chunked and embedded, batch by batch. Each file is stored once all its vectors are back, so a
 * stop or failure leaves whole files indexed and the next update carries on from there.
 */

export interface IndexProgress {
  /** Files to read this update, and how many of them are done. */
  total: number
  done: number
  /** Files the index held unchanged at the start. */
  unchanged: number
  removed: number
  embedded: number
}

export interface UpdateOptions {
  workspace: string
  /** The read boundary and deny rules, judged again on each file's real path when it is read. */
  boundary: Boundary
  deniedRead?: (abs: string) => string | undefined
  listed: ReadonlyMap<string, ListedFile>
  store: IndexStore
  embedder: Embedder
  signal: AbortSignal
  /** Inputs per embeddings request. */
  batchSize: number
  onProgress(progress: IndexProgress): void
  /**
   * Only these paths (files the session wrote): `listed` holds those of them still there, and the rest of
   * the index is left alone. Without it, `listed` is the whole workspace.
   */
  scope?: ReadonlySet<string>
}

/** Lines of a chunk kept as the result's snippet. */
const SNIPPET_LINES = 12
const SNIPPET_CHARS = 800

interface Pending {
  path: string
  state: { mtimeMs: number; size: number; hash: string }
  chunks: Chunk[]
  inputs: EmbeddingInput[]
}

export async function updateIndex(opts: UpdateOptions): Promise<IndexProgress> {
  const { store, signal } = opts
  const held = store.files()
  const scope = opts.scope
  const indexed = scope ? new Map([...held].filter(([path]) => scope.has(path))) : held
  const plan = planIndex(opts.listed, indexed)
  const check = {
    realWorkspace: await realpath(opts.workspace),
    boundary: opts.boundary,
    ...(opts.deniedRead ? { deniedRead: opts.deniedRead } : {}),
  }
  for (const path of plan.remove) store.removeFile(path)
  const progress: IndexProgress = {
    total: plan.check.length,
    done: 0,
    unchanged: plan.unchanged,
    removed: plan.remove.length,
    embedded: 0,
  }
  opts.onProgress({ ...progress })
  let batch: Pending[] = []
  let inputs = 0
  const flush = async () => {
    if (batch.length === 0) return
    const all = batch.flatMap((p) => p.inputs)
    const vectors: Float32Array[] = []
    for (let at = 0; at < all.length; at += opts.batchSize)
      vectors.push(
        ...(await opts.embedder.embed(all.slice(at, at + opts.batchSize), signal, store.dimensions)),
      )
    let next = 0
    for (const p of batch) {
      const stored: StoredChunk[] = p.chunks.map((c) => ({
        startLine: c.startLine,
        endLine: c.endLine,
        snippet: snippetOf(c.text),
        vector: vectors[next++] as Float32Array,
      }))
      store.putFile(p.path, p.state, stored)
      progress.embedded++
    }
    progress.done += batch.length
    batch = []
    inputs = 0
    opts.onProgress({ ...progress })
  }
  for (const path of plan.check) {
    if (signal.aborted) break
    const listed = opts.listed.get(path) as ListedFile
    const bytes = await readListed(opts.workspace, path, listed, check)
    const pending = bytes && prepareFile(path, listed, bytes)
    if (!pending) {
      // Unreadable, replaced since the listing, binary after all, or empty: nothing of it stays in the index.
      if (indexed.has(path)) store.removeFile(path)
      progress.done++
      continue
    }
    if (!needsEmbedding(indexed.get(path), pending.state.hash)) {
      store.touchFile(path, pending.state)
      progress.done++
      continue
    }
    batch.push(pending)
    inputs += pending.inputs.length
    if (inputs >= opts.batchSize) await flush()
  }
  if (!signal.aborted) await flush()
  return progress
}

function prepareFile(path: string, listed: ListedFile, bytes: Buffer): Pending | undefined {
  const state = {
    mtimeMs: listed.mtimeMs,
    size: listed.size,
    hash: createHash('sha1').update(bytes).digest('hex'),
  }
  if (listed.kind === 'image') {
    const mime = IMAGE_EXTENSIONS[extname(path).toLowerCase()] ?? 'application/octet-stream'
    const chunk: Chunk = { startLine: 1, endLine: 1, text: `[image ${path}]` }
    return {
      path,
      state,
      chunks: [chunk],
      inputs: [{ imageDataUrl: `data:${mime};base64,${bytes.toString('base64')}` }],
    }
  }
  const head = bytes.subarray(0, SNIFF_BYTES)
  if (sniffBytes(head, bytes.length > SNIFF_BYTES).kind !== 'text') return undefined
  const chunks = chunkText(path, bytes.toString('utf8'))
  if (chunks.length === 0) return undefined
  // The path is part of what is embedded: "the tests of the chunker" should find chunker.test.ts.
  const inputs = chunks.map((c) => `${path}:${c.startLine}-${c.endLine}\n${c.text}`)
  return { path, state, chunks, inputs }
}

function snippetOf(text: string): string {
  const lines = text.split('\n').slice(0, SNIPPET_LINES).join('\n')
  return lines.length <= SNIPPET_CHARS ? lines : `${lines.slice(0, SNIPPET_CHARS - 1)}…`
}
