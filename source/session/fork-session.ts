import { dirname } from 'node:path'
import { PRIVATE_DIR, placeOf, replaceInDirAsync } from '../util/safe-files.js'
import { readSession } from './read-session.js'
import { SESSION_FORMAT } from './session-log.js'
import { writeSessionTitle } from './session-title.js'

export interface ForkOptions {
  /** The session forked from: its log is read, never written. */
  source: string
  /** The new session's log (a fresh file in the same sessions folder). */
  target: string
  id: string
  cwd: string
  now: number
  /** Where the fork's conversation ends: the turn after which it is cut (absent: all of it). */
  cut?: { turnNumber: number; nextTurnId: string }
  /** The fork's title (a `session/renamed` event, and beside the log for the list). */
  title: string
}

/**
 * A new session from an old one's log: its events copied, a `forkedFrom` header naming the original
 * (and the turn), and, to end it at a turn, the same `conversation/rewound` event a conversation rewind
 * appends, so a resume replays it like any other. The original log is not touched, nor are any files.
 */
export async function forkSessionLog(opts: ForkOptions): Promise<void> {
  const loaded = await readSession(opts.source)
  const header = {
    type: 'header',
    format: SESSION_FORMAT,
    id: opts.id,
    cwd: opts.cwd,
    createdAt: opts.now,
    forkedFrom: {
      id: loaded.header.id,
      ...(opts.cut ? { turn: opts.cut.turnNumber } : {}),
    },
  }
  const events: unknown[] = [header, ...loaded.actions]
  if (opts.cut)
    events.push({ type: 'conversation/rewound', rewindId: `fork-${opts.id}`, turnId: opts.cut.nextTurnId })
  events.push({ type: 'session/renamed', title: opts.title })
  const text = `${events.map((e) => JSON.stringify(e)).join('\n')}\n`
  const { dir, name } = placeOf(dirname(dirname(opts.target)), opts.target, { createDirs: PRIVATE_DIR })
  try {
    await replaceInDirAsync(dir, name, text, { mode: 0o600 })
  } finally {
    dir.close()
  }
  await writeSessionTitle(opts.target, opts.title)
}
