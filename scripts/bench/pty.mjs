// Runs a command in a pseudo-terminal and feeds its output to a headless xterm, recording when each
// chunk arrived. Screen conditions are checked after every parsed chunk (never by polling), so a match
// is timed at the arrival of the chunk that completed it.
import { performance } from 'node:perf_hooks'
import pty from '@lydell/node-pty'
import xterm from '@xterm/headless'

export const SYNC_BEGIN = '\x1b[?2026h'
export const PROMPT = '❯ '

export function countOf(text, needle) {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

/**
 * Starts `cmd args` in a 140×40 (default) pty. `env` is the complete child environment; CI is removed.
 * Returns the emulator, raw output, timing hooks and a `waitFor(predicate, timeoutMs)` that resolves with
 * the arrival time (performance.now()) of the chunk after which `predicate(screenText, lines)` held.
 */
export function startPty({ cmd = process.execPath, args, cwd, env, cols = 140, rows = 40 }) {
  const childEnv = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== 'CI') childEnv[name] = value
  }
  childEnv.TERM ??= 'xterm-256color'
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 })
  const spawnedAt = performance.now()
  const child = pty.spawn(cmd, args, { name: childEnv.TERM, cols, rows, cwd, env: childEnv })
  const chunks = [] // { at, start, length }: arrival time and offset in `raw`
  let raw = ''
  let lastDataAt = spawnedAt
  let running = true
  let disposed = false
  /** Output not yet given to the emulator while parsing is held (`holdScreen`). */
  let held = null
  const waiters = new Set()

  const lines = () => {
    const buffer = term.buffer.active
    const out = []
    for (let y = 0; y < term.rows; y++)
      out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '')
    return out
  }
  const check = (at) => {
    if (waiters.size === 0 || term.modes.synchronizedOutputMode) return
    const current = lines()
    const text = current.join('\n')
    for (const waiter of waiters) {
      if (waiter.predicate(text, current)) {
        waiters.delete(waiter)
        clearTimeout(waiter.timer)
        waiter.resolve(at)
      }
    }
  }

  child.onData((data) => {
    const at = performance.now()
    lastDataAt = at
    chunks.push({ at, start: raw.length, length: data.length })
    raw += data
    if (disposed) return
    if (held) held.push({ data, at })
    else term.write(data, () => check(at))
  })
  const exited = new Promise((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      running = false
      const fail = () => {
        for (const waiter of waiters) {
          clearTimeout(waiter.timer)
          waiter.reject(new Error(`the program exited (code ${exitCode}) while waiting for ${waiter.what}`))
        }
        waiters.clear()
        resolve({ exitCode, signal })
      }
      // What the program wrote before it exited may still be parsing: a condition it met still counts.
      if (disposed || held) fail()
      else term.write('', fail)
    })
  })

  const waitFor = (predicate, timeoutMs = 10_000, what = 'a screen condition') =>
    new Promise((resolve, reject) => {
      if (!running) return reject(new Error(`the program is not running (waiting for ${what})`))
      const waiter = { predicate, resolve, reject, what }
      waiter.timer = setTimeout(() => {
        waiters.delete(waiter)
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; screen:\n${lines().join('\n')}`),
        )
      }, timeoutMs)
      waiters.add(waiter)
      // The condition may already hold: check once everything received so far is parsed.
      term.write('', () => check(lastDataAt))
    })

  /** Resolves once no output arrived for `quietMs` (bounded by `maxMs`); returns whether it got quiet. */
  const quiet = async (quietMs = 300, maxMs = 5_000) => {
    const deadline = performance.now() + maxMs
    while (performance.now() < deadline) {
      const idleFor = performance.now() - lastDataAt
      if (idleFor >= quietMs) return true
      await new Promise((resolve) => setTimeout(resolve, quietMs - idleFor + 1))
    }
    return false
  }

  return {
    term,
    pid: child.pid,
    spawnedAt,
    exited,
    get running() {
      return running
    },
    raw: () => raw,
    /** The raw output of the chunks that arrived in [from, to] (performance.now() times). */
    rawBetween(from, to = Number.POSITIVE_INFINITY) {
      const inside = chunks.filter((c) => c.at >= from && c.at <= to)
      if (inside.length === 0) return ''
      const last = inside[inside.length - 1]
      return raw.slice(inside[0].start, last.start + last.length)
    },
    /** Arrival time of each occurrence of `needle` (e.g. a frame's opening) in [from, to]. */
    timesOf(needle, from, to = Number.POSITIVE_INFINITY) {
      const times = []
      for (const c of chunks) {
        if (c.at < from || c.at > to) continue
        const n = countOf(raw.slice(c.start, c.start + c.length), needle)
        for (let i = 0; i < n; i++) times.push(c.at)
      }
      return times
    },
    chunks,
    /**
     * Stops feeding the emulator (output is still read and timed) until the returned function is called,
     * which parses what arrived meanwhile. For measurements of the program's own timing: parsing its
     * frames costs this process CPU, which would delay anything else it serves (the endpoint).
     */
    holdScreen() {
      held ??= []
      return () => {
        const pending = held ?? []
        held = null
        for (const { data, at } of pending) if (!disposed) term.write(data, () => check(at))
      }
    },
    lines,
    screen: () => lines().join('\n'),
    waitFor,
    quiet,
    write(data) {
      if (running) child.write(data)
    },
    async kill() {
      if (running) {
        try {
          child.kill('SIGKILL')
        } catch {
          // already gone
        }
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))])
      }
      if (!disposed) {
        disposed = true
        term.dispose()
      }
    },
  }
}
