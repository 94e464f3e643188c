import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isProcessAlive, processStartTime } from '../tasks/process-group.js'

/**
 * When something the user did not answer for could change files: from the first command a session ran
 * in the sandbox without asking (or the first edit auto mode made without asking) to the session's end.
 * Every session that had one leaves a record in the state dir, so a later session — in this folder or
 * another — can tell a file changed then (its ctime lies in a window) from one the user changed between
 * sessions. ctime is set by the kernel on every change and cannot be set back by a program.
 *
 * One file per session (`<session>.json`), written when its window opens and again when it closes: no
 * two processes write the same file. A window left open by a session that crashed is closed by the next
 * reader at the time it finds it (everything up to then counts as possibly changed). Old windows are
 * merged pairwise once there are many: a merged window is wider, so it can only make more files count
 * as changed, never fewer.
 */

export interface UnaskedWindow {
  /** ms since the epoch; ctimes from this on count (a margin for the file system's coarse clock is applied when reading). */
  start: number
  /** Absent while the session runs. */
  end?: number
  /** Real paths the session's unasked commands and edits could write. */
  roots: string[]
}

interface WindowFile extends UnaskedWindow {
  pid?: number
  /** Kernel start time of `pid` (Linux), so a reused pid is not taken for the session. */
  pidStart?: string
}

export interface WindowLedger {
  /** Opens this session's window (once; later calls do nothing). Written before it returns. */
  open(): void
  /** Whether this session's window is open. */
  isOpen(): boolean
  /** Closes this session's window at `now` (session end). */
  close(): void
  /** Every window, this session's included; crashed sessions' windows are closed as found. */
  list(): UnaskedWindow[]
  /** Bumped at every `open()` and each call of `touch()`: a check made before may be stale. */
  generation(): number
  /** Says that an unasked change is about to start (after the window is open). */
  touch(): void
}

export interface WindowLedgerOptions {
  /** `$XDG_STATE_HOME/agent-tui/provenance/windows`. */
  dir: string
  session: string
  roots: readonly string[]
  now?: () => number
}

/** `$XDG_STATE_HOME/agent-tui/provenance/windows`: one file per session that had a window. */
export function unaskedWindowsDir(stateDir: string): string {
  return join(stateDir, 'provenance', 'windows')
}

/** Windows kept before the oldest are merged. */
const MAX_WINDOWS = 64
/**
 * ctimes come from the kernel's coarse clock, which lags the wall clock by up to a tick (1-10 ms): a
 * window starts this much earlier than it opened. (Files on a network file system carry the server's
 * clock, which may be further off.)
 */
export const CLOCK_MARGIN_MS = 100

export function createWindowLedger(opts: WindowLedgerOptions): WindowLedger {
  const now = opts.now ?? Date.now
  const file = join(opts.dir, `${safeName(opts.session)}.json`)
  let mine: WindowFile | undefined
  let gen = 0

  const write = (path: string, value: WindowFile) => {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 })
    const temp = `${path}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify(value)}\n`, { mode: 0o600 })
    renameSync(temp, path)
  }

  return {
    open() {
      gen++
      if (mine) return
      const pidStart = processStartTime(process.pid)
      mine = {
        start: now(),
        roots: [...opts.roots],
        pid: process.pid,
        ...(pidStart ? { pidStart } : {}),
      }
      try {
        write(file, mine)
      } catch {
        // Unrecorded, it still holds for this session (`list` returns it); a later session cannot see it.
      }
      compact(opts.dir, file, now)
    },
    isOpen: () => mine !== undefined && mine.end === undefined,
    close() {
      if (!mine || mine.end !== undefined) return
      mine = { ...mine, end: now() }
      try {
        write(file, mine)
      } catch {
        // Left open on disk: the next reader closes it at the time it reads it.
      }
    },
    list() {
      const found = readWindows(opts.dir, now).filter((w) => w.file !== file)
      return [...found.map(({ file: _f, ...w }) => w), ...(mine ? [windowOf(mine)] : [])]
    },
    generation: () => gen,
    touch() {
      gen++
    },
  }
}

function windowOf(w: WindowFile): UnaskedWindow {
  return { start: w.start, roots: w.roots, ...(w.end !== undefined ? { end: w.end } : {}) }
}

/** Whether a file's change time (ms) falls in a window that covers `path`. */
export function changedInWindow(
  ctimeMs: number,
  path: string,
  windows: readonly UnaskedWindow[],
  inside: (path: string, root: string) => boolean,
  since = Number.NEGATIVE_INFINITY,
  margin = CLOCK_MARGIN_MS,
): UnaskedWindow | undefined {
  // A change just after the last check may carry a ctime a clock tick before it.
  if (ctimeMs < since - margin) return undefined
  return windows.find(
    (w) =>
      ctimeMs >= w.start - margin &&
      (w.end === undefined || ctimeMs <= w.end) &&
      w.roots.some((root) => inside(path, root)),
  )
}

/** Every recorded window (for a reader that is not a session: project trust at start). */
export function listWindows(dir: string, now: () => number = Date.now): UnaskedWindow[] {
  return readWindows(dir, now).map(({ file: _file, ...w }) => w)
}

function readWindows(dir: string, now: () => number): Array<UnaskedWindow & { file: string }> {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'))
  } catch {
    return []
  }
  const out: Array<UnaskedWindow & { file: string }> = []
  for (const name of names) {
    const path = join(dir, name)
    const w = parse(path)
    if (!w) continue
    if (w.end === undefined && !ownerAlive(w)) {
      // Crashed: everything up to now may have been changed by it.
      const closed = { ...w, end: now() }
      try {
        writeFileSync(path, `${JSON.stringify(closed)}\n`, { mode: 0o600 })
      } catch {
        // Counted as closed now anyway.
      }
      out.push({ ...windowOf(closed), file: path })
    } else out.push({ ...windowOf(w), file: path })
  }
  return out
}

function parse(path: string): WindowFile | undefined {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as Partial<WindowFile>
    if (typeof json.start !== 'number' || !Array.isArray(json.roots)) return undefined
    return {
      start: json.start,
      roots: json.roots.filter((r): r is string => typeof r === 'string'),
      ...(typeof json.end === 'number' ? { end: json.end } : {}),
      ...(typeof json.pid === 'number' ? { pid: json.pid } : {}),
      ...(typeof json.pidStart === 'string' ? { pidStart: json.pidStart } : {}),
    }
  } catch {
    return undefined
  }
}

function ownerAlive(w: WindowFile): boolean {
  if (w.pid === undefined || !isProcessAlive(w.pid)) return false
  return w.pidStart === undefined || processStartTime(w.pid) === w.pidStart
}

/** Merges the oldest closed windows into one while there are more than MAX_WINDOWS. */
function compact(dir: string, own: string, now: () => number): void {
  const closed = readWindows(dir, now)
    .filter((w) => w.file !== own && w.end !== undefined)
    .sort((a, b) => a.start - b.start)
  const excess = closed.length - MAX_WINDOWS + 1
  if (excess < 2) return
  const merging = closed.slice(0, excess)
  const merged: WindowFile = {
    start: Math.min(...merging.map((w) => w.start)),
    end: Math.max(...merging.map((w) => w.end ?? now())),
    roots: [...new Set(merging.flatMap((w) => w.roots))],
  }
  try {
    const path = join(dir, `merged-${now()}-${process.pid}.json`)
    writeFileSync(path, `${JSON.stringify(merged)}\n`, { mode: 0o600 })
    for (const w of merging) rmSync(w.file, { force: true })
  } catch {
    // Kept as they are: more files to read, nothing lost.
  }
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_')
}
