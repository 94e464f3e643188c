import { openOwnForReading } from '../util/safe-files.js'
import type { PersistedAction } from '../store/actions.js'
import { SESSION_FORMAT, type SessionHeader } from './session-log.js'

export interface LoadedSession {
  header: SessionHeader
  actions: PersistedAction[]
  warnings: string[]
}

/**
 * Reads a session log tolerantly: a torn or corrupt line is skipped with a warning naming its line number,
 * never a failure of the whole session.
 */
export async function readSession(path: string): Promise<LoadedSession> {
  // Not through a link, and a FIFO at the name cannot stall a resume.
  const handle = await openOwnForReading(path)
  let text: string
  try {
    text = await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
  const lines = text.split('\n')
  const warnings: string[] = []
  const actions: PersistedAction[] = []
  let header: SessionHeader | undefined
  lines.forEach((line, index) => {
    if (!line.trim()) return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      const torn = index === lines.length - 1 || (index === lines.length - 2 && lines.at(-1) === '')
      warnings.push(
        torn
          ? `${path}: skipped a torn last line (${line.length} bytes) — the previous run ended mid-write`
          : `${path}:${index + 1}: skipped a corrupt line`,
      )
      return
    }
    if (!isRecord(value) || typeof value.type !== 'string') {
      warnings.push(`${path}:${index + 1}: skipped a line without an event type`)
      return
    }
    if (value.type === 'header') {
      if (!header) header = value as unknown as SessionHeader
      return
    }
    const { ts: _ts, ...action } = value
    actions.push(action as PersistedAction)
  })
  if (!header) throw new Error(`${path} is not an agent-tui session (no header line)`)
  if (header.format > SESSION_FORMAT) {
    warnings.push(
      `${path} was written by a newer agent-tui (format ${header.format}); reading what is understood`,
    )
  }
  return { header, actions, warnings }
}

/** Reads only the first line, so listing thousands of sessions stays cheap. */
export async function readSessionHeader(path: string): Promise<SessionHeader | null> {
  const handle = await openOwnForReading(path)
  try {
    const buffer = Buffer.alloc(4096)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? ''
    const value: unknown = JSON.parse(first)
    return isRecord(value) && value.type === 'header' ? (value as unknown as SessionHeader) : null
  } catch {
    return null
  } finally {
    await handle.close()
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How much of a log `readSessionTitle` reads: the title is written with the first prompt, near the top. */
const TITLE_SCAN_BYTES = 32 * 1024

/**
 * The session's title (set from its first prompt), read from the head of the log only; '' when it has none
 * there (a session that never got a prompt) or the file cannot be read.
 */
export async function readSessionTitle(path: string): Promise<string> {
  let head: string
  try {
    const handle = await openOwnForReading(path)
    try {
      const buffer = Buffer.alloc(TITLE_SCAN_BYTES)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      head = buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    return ''
  }
  for (const line of head.split('\n')) {
    if (!line.includes('"session/titled"')) continue
    try {
      const value: unknown = JSON.parse(line)
      if (isRecord(value) && value.type === 'session/titled' && typeof value.title === 'string')
        return value.title
    } catch {
      // A line cut by the scan's end or torn by a crash: keep looking.
    }
  }
  return ''
}
