import { randomUUID } from 'node:crypto'
import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { readSessionHeader, readSessionTitle } from './read-session.js'
import type { SessionHeader } from './session-log.js'
import { TRANSCRIPT_SUFFIX } from './claude-transcript.js'
import { readTitleFile, TITLE_SUFFIX } from './session-title.js'

export interface SessionEntry {
  id: string
  path: string
  mtimeMs: number
  header: SessionHeader
  /** Nothing after the header: opened and left without a message. */
  empty: boolean
  /** Renamed (`/rename`): its title lies beside the log (session-title.ts). */
  renamed: boolean
}

export function newSessionId(): string {
  // Sortable by creation time, short enough to type for --resume.
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${stamp}-${randomUUID().slice(0, 6)}`
}

export function sessionPath(sessionsDir: string, id: string): string {
  return join(sessionsDir, `${id}.jsonl`)
}

/**
 * Lists sessions of one project, newest first, reading only file headers. With `workspace`, only those
 * begun there: two paths can share a folder's key (`/x/my-app` and `/x/my/app`), never a session.
 */
export async function listSessions(sessionsDir: string, workspace?: string): Promise<SessionEntry[]> {
  let names: string[]
  let all: string[]
  try {
    all = await readdir(sessionsDir)
    // A session's Claude Code-shaped transcript for hooks lies beside its log (claude-transcript.ts).
    names = all.filter((n) => n.endsWith('.jsonl') && !n.endsWith(TRANSCRIPT_SUFFIX))
  } catch {
    return []
  }
  const titled = new Set(all.filter((n) => n.endsWith(TITLE_SUFFIX)))
  const entries = await Promise.all(
    names.map(async (name) => {
      const path = join(sessionsDir, name)
      const [info, header] = await Promise.all([stat(path), readSessionHeader(path)])
      if (!header) return null
      // The header is written as one JSON line, so a log of that size holds nothing else.
      const empty = info.size <= Buffer.byteLength(`${JSON.stringify(header)}\n`)
      const renamed = titled.has(name.replace(/\.jsonl$/, TITLE_SUFFIX))
      return { id: header.id, path, mtimeMs: info.mtimeMs, header, empty, renamed }
    }),
  )
  const here = workspace === undefined ? undefined : resolve(workspace)
  return entries
    .filter((e): e is SessionEntry => e !== null && (here === undefined || resolve(e.header.cwd) === here))
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
}

export async function findSession(
  sessionsDir: string,
  id: string,
  workspace?: string,
): Promise<SessionEntry | undefined> {
  const all = await listSessions(sessionsDir, workspace)
  const exact = all.find((e) => e.id === id)
  if (exact) return exact
  const byPrefix = all.filter((e) => e.id.startsWith(id))
  return byPrefix.length === 1 ? byPrefix[0] : undefined
}

/** A session as a picker lists it. */
export interface SessionSummary {
  id: string
  /** From the first prompt; empty when the session has none yet. */
  title: string
  /** Last written (ms since the epoch). */
  updatedAt: number
  /** The log, for the picker's content search (session-search.ts); absent: titles only. */
  path?: string
}

/**
 * Sessions of one project for a picker, newest first, each titled by its `/rename` or else its first
 * prompt; none left empty.
 */
export async function summarizeSessions(sessionsDir: string, workspace?: string): Promise<SessionSummary[]> {
  const entries = (await listSessions(sessionsDir, workspace)).filter((e) => !e.empty)
  return Promise.all(
    entries.map(async (e) => ({
      id: e.id,
      title: (e.renamed ? readTitleFile(e.path) : undefined) ?? (await readSessionTitle(e.path)),
      updatedAt: e.mtimeMs,
      path: e.path,
    })),
  )
}
