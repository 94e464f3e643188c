import { createHash } from 'node:crypto'
import { closeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { PRIVATE_DIR, placeOf } from '../util/safe-files.js'
import { createNew, openExisting, type SafeDir } from '../util/safe-open.js'
import type { FileState } from './index-plan.js'

/**
 * The index of one workspace: a SQLite file under the state dir (node:sqlite) with the sqlite-vec
 * extension's `vec0` table for the vectors (cosine distance). One row per indexed file (its mtime, size
 * and hash, for incremental updates), one per chunk (path, lines, the snippet shown in results), and the
 * chunk's vector under the same rowid. A file's rows change in one transaction, so an interrupted index
 * holds whole files only. The file's name carries the model and dimension (`indexFileName`), so another
 * model gets its own file and switching back finds its index whole; they are recorded inside too, and a
 * file that holds others (or an older schema) starts afresh.
 *
 * The file is agent-tui's own: its folder is opened below the state dir without following a link (made
 * 0700 when missing), and the file and SQLite's `-wal`/`-shm` beside it must be regular files of this user
 * (made 0600 when missing), never links. sqlite-vec is the one extension loaded; loading is switched off
 * right after, so no statement on the connection can load another.
 */

export interface StoredChunk {
  startLine: number
  endLine: number
  snippet: string
  vector: Float32Array
}

export interface SearchHit {
  path: string
  startLine: number
  endLine: number
  snippet: string
  /** Cosine similarity, 1 = same direction. */
  score: number
}

export interface IndexStore {
  readonly path: string
  readonly dimensions: number
  files(): Map<string, FileState>
  /** Replaces everything the index holds for `path`. */
  putFile(path: string, state: FileState, chunks: readonly StoredChunk[]): void
  /** Records a changed mtime of a file whose content (hash) did not change. */
  touchFile(path: string, state: FileState): void
  removeFile(path: string): void
  search(vector: Float32Array, limit: number, under?: string): SearchHit[]
  counts(): { files: number; chunks: number }
  close(): void
}

const SCHEMA_VERSION = '1'

/** Thrown when this Node has no node:sqlite (Node before 22.5, or 22 without --experimental-sqlite). */
export class NoSqliteError extends Error {}

// Required, not imported: node:sqlite loads only for a session that uses CodeSearch, and a Node without
// it must give a clear message rather than fail to start.
const require = createRequire(import.meta.url)

function loadSqlite(): typeof import('node:sqlite') {
  try {
    return require('node:sqlite') as typeof import('node:sqlite')
  } catch (error) {
    throw new NoSqliteError(
      `CodeSearch needs node:sqlite, which Node ${process.versions.node} does not have (${error instanceof Error ? error.message : String(error)}); run agent-tui on Node 22.13 or later (npm install brings Node 24)`,
    )
  }
}

/** `<workspace key>.<model slug>-<dimensions>d-<hash>.sqlite`: short, filesystem-safe, one per model. */
export function indexFileName(key: string, model: string, dimensions: number): string {
  const slug =
    model
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 40) || 'model'
  // The slug alone could join two models ("a/b" and "a-b"): the hash of the exact name keeps them apart.
  const hash = createHash('sha256').update(`${model}\0${dimensions}`).digest('hex').slice(0, 10)
  return `${key}.${slug}-${dimensions}d-${hash}.sqlite`
}

export async function openIndexStore(opts: {
  /** The state dir: trusted as named; nothing below it is followed through a link. */
  root: string
  /** The index file, below `root`. */
  path: string
  model: string
  dimensions: number
}): Promise<IndexStore> {
  const { getLoadablePath } = await import('sqlite-vec')
  const path = checkIndexFile(opts.root, opts.path)
  const db = openDatabase(path, getLoadablePath())
  try {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL')
    prepare(db, opts)
  } catch (error) {
    db.close()
    throw error
  }
  return storeOver(db, path, opts.dimensions)
}

/** A connection with sqlite-vec loaded and extension loading switched off again. */
export function openDatabase(path: string, extension: string): DatabaseSync {
  const { DatabaseSync } = loadSqlite()
  const db = new DatabaseSync(path, { allowExtension: true })
  try {
    db.loadExtension(extension)
    db.enableLoadExtension(false)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/**
 * Opens the index's folder safely (made 0700) and makes sure the index file and its WAL files are this
 * user's regular files or absent (the file itself is made, 0600). Returns the path SQLite opens.
 */
function checkIndexFile(root: string, path: string): string {
  const { dir, name } = placeOf(root, path, { createDirs: PRIVATE_DIR })
  try {
    ownOrMissing(dir, name, true)
    for (const suffix of ['-wal', '-shm', '-journal']) ownOrMissing(dir, `${name}${suffix}`, false)
    return join(dir.path, name)
  } finally {
    dir.close()
  }
}

function ownOrMissing(dir: SafeDir, name: string, create: boolean): void {
  // Throws UnsafePathError for a link, a FIFO, another user's file or one with other hard links.
  const fd = openExisting(dir, name, 'read') ?? (create ? createNew(dir, name, { mode: 0o600 }) : undefined)
  if (fd !== undefined) closeSync(fd)
}

/** Creates the tables, or starts afresh when the index was made with another model, dimension or schema. */
function prepare(db: DatabaseSync, opts: { model: string; dimensions: number }): void {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
  const meta = new Map(
    (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [
      r.key,
      r.value,
    ]),
  )
  const wanted = { version: SCHEMA_VERSION, model: opts.model, dimensions: String(opts.dimensions) }
  const same = Object.entries(wanted).every(([k, v]) => meta.get(k) === v)
  if (!same) {
    db.exec('DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS vectors')
    db.exec('DELETE FROM meta')
    const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
    for (const [k, v] of Object.entries(wanted)) put.run(k, v)
  }
  db.exec(`CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, mtime_ms REAL NOT NULL, size INTEGER NOT NULL, hash TEXT NOT NULL)`)
  db.exec(`CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    snippet TEXT NOT NULL)`)
  db.exec('CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path)')
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS vectors USING vec0(embedding float[${opts.dimensions}] distance_metric=cosine)`,
  )
}

function storeOver(db: DatabaseSync, path: string, dimensions: number): IndexStore {
  const q = {
    files: db.prepare('SELECT path, mtime_ms, size, hash FROM files'),
    putFile: db.prepare(
      'INSERT INTO files (path, mtime_ms, size, hash) VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET mtime_ms = excluded.mtime_ms, size = excluded.size, hash = excluded.hash',
    ),
    chunkIds: db.prepare('SELECT id FROM chunks WHERE path = ?'),
    deleteChunks: db.prepare('DELETE FROM chunks WHERE path = ?'),
    deleteVector: db.prepare('DELETE FROM vectors WHERE rowid = ?'),
    deleteFile: db.prepare('DELETE FROM files WHERE path = ?'),
    putChunk: db.prepare('INSERT INTO chunks (path, start_line, end_line, snippet) VALUES (?, ?, ?, ?)'),
    putVector: db.prepare('INSERT INTO vectors (rowid, embedding) VALUES (?, ?)'),
    knn: db.prepare(
      'SELECT c.path, c.start_line, c.end_line, c.snippet, v.distance FROM vectors v JOIN chunks c ON c.id = v.rowid WHERE v.embedding MATCH ? AND k = ? ORDER BY v.distance',
    ),
    // Under a folder: the distance of that folder's chunks only, computed for each (no KNN index there).
    under: db.prepare(
      'SELECT c.path, c.start_line, c.end_line, c.snippet, vec_distance_cosine(v.embedding, ?) AS distance FROM chunks c JOIN vectors v ON v.rowid = c.id WHERE c.path = ? OR substr(c.path, 1, length(?)) = ? ORDER BY distance LIMIT ?',
    ),
    counts: db.prepare(
      'SELECT (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM chunks) AS chunks',
    ),
  }
  const inTransaction = (work: () => void) => {
    db.exec('BEGIN IMMEDIATE')
    try {
      work()
      db.exec('COMMIT')
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
  }
  const dropChunks = (file: string) => {
    for (const row of q.chunkIds.all(file) as Array<{ id: number | bigint }>)
      q.deleteVector.run(BigInt(row.id))
    q.deleteChunks.run(file)
  }
  const hit = (r: Record<string, unknown>): SearchHit => ({
    path: String(r.path),
    startLine: Number(r.start_line),
    endLine: Number(r.end_line),
    snippet: String(r.snippet),
    score: 1 - Number(r.distance),
  })
  return {
    path,
    dimensions,
    files() {
      const out = new Map<string, FileState>()
      for (const r of q.files.all() as Array<{ path: string; mtime_ms: number; size: number; hash: string }>)
        out.set(r.path, { mtimeMs: r.mtime_ms, size: r.size, hash: r.hash })
      return out
    },
    putFile(file, state, chunks) {
      for (const c of chunks) {
        if (c.vector.length !== dimensions)
          throw new Error(`a vector of ${c.vector.length} dimensions for an index of ${dimensions}`)
      }
      inTransaction(() => {
        dropChunks(file)
        for (const c of chunks) {
          const { lastInsertRowid } = q.putChunk.run(file, c.startLine, c.endLine, c.snippet)
          // vec0 takes a BigInt rowid only ("Only integers are allowed for primary key values").
          q.putVector.run(BigInt(lastInsertRowid), c.vector)
        }
        q.putFile.run(file, state.mtimeMs, state.size, state.hash)
      })
    },
    touchFile(file, state) {
      q.putFile.run(file, state.mtimeMs, state.size, state.hash)
    },
    removeFile(file) {
      inTransaction(() => {
        dropChunks(file)
        q.deleteFile.run(file)
      })
    },
    search(vector, limit, under) {
      if (under === undefined || under === '')
        return (q.knn.all(vector, limit) as Array<Record<string, unknown>>).map(hit)
      const prefix = `${under.replace(/\/+$/, '')}/`
      return (q.under.all(vector, under, prefix, prefix, limit) as Array<Record<string, unknown>>).map(hit)
    },
    counts() {
      const r = q.counts.get() as { files: number; chunks: number }
      return { files: Number(r.files), chunks: Number(r.chunks) }
    },
    close() {
      if (db.isOpen) db.close()
    },
  }
}
