/**
 * What the task viewer holds of a job's log and where it is scrolled, as a pure model. The viewer follows
 * the end of the log until the user scrolls up; then it stops following and reads earlier (or, scrolling
 * down again, later) pieces of the log through `readTaskLog` as they are needed, keeping at most
 * `MAX_LOADED_BYTES` in memory. End (or scrolling back to the bottom) follows again.
 */
import wrapAnsi from 'wrap-ansi'
import type { TaskLogSlice } from '../../../agent/runtime/commands.js'
import { cleanText } from '../../../util/display-text.js'

/** The end of the log the viewer shows while following (and polls). */
export const TASK_LOG_BYTES = 64 * 1024
/** One piece read when scrolling past what is loaded. */
export const LOG_PAGE_BYTES = 64 * 1024
/** The most of a log the viewer keeps at once. */
export const MAX_LOADED_BYTES = 512 * 1024

export interface LogWindow {
  /** The loaded part of the log: whole lines, but for the file's very start and end. */
  text: string
  start: number
  end: number
  size: number
  /** Pinned to the end of the log (new output scrolls in). */
  follow: boolean
  /** Display rows scrolled up from the bottom of the loaded text (0 = its last row at the bottom). */
  fromBottom: number
}

export const EMPTY_WINDOW: LogWindow = { text: '', start: 0, end: 0, size: 0, follow: true, fromBottom: 0 }

/**
 * Display rows of a piece of log: `\r` progress lines at their last state, cleaned (`cleanText`: escape
 * sequences, controls, bidi and invisible characters out), wrapped.
 */
export function logRows(text: string, width: number): string[] {
  const raw = text.replace(/\r\n/g, '\n').split('\n')
  if (raw.at(-1) === '') raw.pop()
  const out: string[] = []
  for (const line of raw) {
    const shown = cleanText(line.split('\r').at(-1) ?? '', { newlines: false }).replaceAll('\t', '    ')
    // Most log lines are short printable ASCII: one row each, without asking wrap-ansi.
    if (shown.length <= width && PLAIN.test(shown)) out.push(shown)
    else out.push(...wrapAnsi(shown, Math.max(1, width), { hard: true, trim: false }).split('\n'))
  }
  return out
}

const PLAIN = /^[\x20-\x7e]*$/

/** The end of the log, as polled while following. */
export function followed(slice: TaskLogSlice): LogWindow {
  return { ...slice, follow: true, fromBottom: 0 }
}

/** Scrolled by `rows` (negative is up) within what is loaded; reaching the bottom follows again. */
export function scrolled(win: LogWindow, rows: number, total: number, height: number): LogWindow {
  const maxUp = Math.max(0, total - height)
  const fromBottom = Math.max(0, Math.min(maxUp, win.fromBottom - rows))
  const atEnd = fromBottom === 0 && win.end >= win.size
  return { ...win, fromBottom, follow: atEnd }
}

/** Whether scrolling up would run out of loaded rows and there is more of the log before them. */
export function needsEarlier(win: LogWindow, total: number, height: number): boolean {
  return win.start > 0 && win.fromBottom + height >= total
}

/** Whether scrolling down reached the loaded bottom while the log goes on after it. */
export function needsLater(win: LogWindow): boolean {
  return win.fromBottom === 0 && win.end < win.size
}

/** An earlier piece joined in front; the view stays on the same rows. */
export function withEarlier(win: LogWindow, piece: TaskLogSlice, width: number): LogWindow {
  if (piece.end !== win.start || piece.text === '') return { ...win, start: Math.min(win.start, piece.start) }
  const joined = { ...win, text: piece.text + win.text, start: piece.start, size: piece.size, follow: false }
  return trimEnd(joined, width)
}

/** A later piece joined behind; rows scrolled from the bottom grow by what it added. */
export function withLater(win: LogWindow, piece: TaskLogSlice, width: number): LogWindow {
  if (piece.start !== win.end || piece.text === '') return { ...win, size: piece.size }
  const added = logRows(win.text + piece.text, width).length - logRows(win.text, width).length
  const joined = {
    ...win,
    text: win.text + piece.text,
    end: piece.end,
    size: piece.size,
    fromBottom: win.fromBottom + added,
  }
  return trimStart(joined)
}

/** The head of the log (Home): its first piece, scrolled to the top. */
export function atHead(piece: TaskLogSlice, width: number, height: number): LogWindow {
  const total = logRows(piece.text, width).length
  return { ...piece, follow: false, fromBottom: Math.max(0, total - height) }
}

/** Too much loaded after joining an earlier piece: drop whole lines from the end (below the view). */
function trimEnd(win: LogWindow, width: number): LogWindow {
  const excess = Buffer.byteLength(win.text) - MAX_LOADED_BYTES
  if (excess <= 0) return win
  let cutAt = win.text.length
  let bytes = 0
  let rows = 0
  while (bytes < excess) {
    const previous = win.text.lastIndexOf('\n', cutAt - 2)
    if (previous < 0) break
    const line = win.text.slice(previous + 1, cutAt)
    const lineRows = logRows(line, width).length
    // Rows on screen are never dropped.
    if (rows + lineRows > win.fromBottom) break
    bytes += Buffer.byteLength(line)
    rows += lineRows
    cutAt = previous + 1
  }
  return { ...win, text: win.text.slice(0, cutAt), end: win.end - bytes, fromBottom: win.fromBottom - rows }
}

/** Too much loaded after joining a later piece: drop whole lines from the start (above the view). */
function trimStart(win: LogWindow): LogWindow {
  const excess = Buffer.byteLength(win.text) - MAX_LOADED_BYTES
  if (excess <= 0) return win
  let cutAt = 0
  let bytes = 0
  while (bytes < excess) {
    const next = win.text.indexOf('\n', cutAt)
    if (next < 0 || next === win.text.length - 1) break
    bytes += Buffer.byteLength(win.text.slice(cutAt, next + 1))
    cutAt = next + 1
  }
  return { ...win, text: win.text.slice(cutAt), start: win.start + bytes }
}
