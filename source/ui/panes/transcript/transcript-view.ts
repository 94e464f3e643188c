import { isPinnable } from '../../../store/pins.js'
import type { TranscriptItem } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { renderItemLines } from './item-lines.js'
import { type ItemPieces, LineCache } from './line-cache.js'

/** The store slices the transcript is drawn from (all stable references in the store). */
export interface TranscriptSnapshot {
  order: readonly string[]
  items: Readonly<Record<string, TranscriptItem>>
  expanded: Readonly<Record<string, true>>
}

export interface TranscriptFrame {
  /** Exactly `height` rows, each already wrapped to the width. */
  rows: readonly string[]
  /** The view sticks to the bottom and follows new output. */
  following: boolean
  /** Output arrived below the viewport since the user scrolled away from the bottom. */
  newOutput: boolean
}

/** A line position: line `line` of piece `piece` of item `index` (the piece's lines plus the gap above it). */
interface Position {
  index: number
  piece: number
  line: number
}

/** Blank rows between consecutive items. */
const GAP = 1

/**
 * Block geometry of one snapshot at one width. A block is one piece of an item (see `ItemPieces`), so a
 * long reply is walked piece by piece and only the pieces walked over are rendered. Every height comes
 * from the line cache.
 */
class Blocks {
  private lastIndex = -1
  private lastPieces: ItemPieces | null = null

  constructor(
    private readonly cache: LineCache,
    private readonly snapshot: TranscriptSnapshot,
    private readonly width: number,
  ) {}

  get count(): number {
    return this.snapshot.order.length
  }

  item(index: number): TranscriptItem | undefined {
    const id = this.snapshot.order[index]
    return id === undefined ? undefined : this.snapshot.items[id]
  }

  indexOf(id: string): number {
    return this.snapshot.order.indexOf(id)
  }

  /** Blocks of item `index`: its pieces, or one empty block for an item that renders nothing. */
  pieceCount(index: number): number {
    return Math.max(1, this.pieces(index)?.count ?? 0)
  }

  /** An empty piece takes no rows, not even its gap. */
  height(at: Position): number {
    const n = this.pieces(at.index)?.lines(at.piece).length ?? 0
    return n === 0 ? 0 : n + this.gap(at)
  }

  row(at: Position, line: number): string {
    const gap = this.gap(at)
    return line < gap ? '' : (this.pieces(at.index)?.lines(at.piece)[line - gap] ?? '')
  }

  next(at: Position): Position | null {
    if (at.piece + 1 < this.pieceCount(at.index)) return { index: at.index, piece: at.piece + 1, line: 0 }
    return at.index + 1 < this.count ? { index: at.index + 1, piece: 0, line: 0 } : null
  }

  previous(at: Position): Position | null {
    if (at.piece > 0) return { index: at.index, piece: at.piece - 1, line: 0 }
    if (at.index === 0) return null
    return { index: at.index - 1, piece: this.pieceCount(at.index - 1) - 1, line: 0 }
  }

  last(): Position | null {
    return this.count === 0
      ? null
      : { index: this.count - 1, piece: this.pieceCount(this.count - 1) - 1, line: 0 }
  }

  private gap(at: Position): number {
    if (at.piece > 0) return this.pieces(at.index)?.gapAbove(at.piece) ?? 0
    return at.index > 0 ? GAP : 0
  }

  private pieces(index: number): ItemPieces | null {
    // Rows are read one by one from the same item: remember the last lookup.
    if (index === this.lastIndex) return this.lastPieces
    const item = this.item(index)
    this.lastIndex = index
    this.lastPieces = item
      ? this.cache.pieces(item, this.width, this.snapshot.expanded[item.id] === true)
      : null
    return this.lastPieces
  }
}

/**
 * The transcript's viewport: scroll state plus windowing over the line cache. A frame walks only the
 * blocks that intersect the viewport (from the bottom when following, from the anchor otherwise), so its
 * cost does not grow with the transcript: 50 or 5,000 items, or a reply of 20k tokens, take the same work.
 *
 * Scroll position is an anchor — an item id, a piece and a line offset inside it — rather than an absolute line
 * number. Appending output then never moves what a scrolled-up user is reading, no total height has to
 * be known (it would need every item rendered at the current width), and a width change re-renders only
 * what comes into view.
 *
 * `layout` is called while rendering and only reads the scroll state; the scroll commands change it and
 * notify subscribers (`useSyncExternalStore(view.subscribe, view.getVersion)`).
 */
export class TranscriptView {
  readonly cache: LineCache
  #following = true
  #anchor: { id: string; index: number; piece: number; line: number } | null = null
  /** The bottom of the transcript when the user left it, to tell whether new output arrived since. */
  #seen: { length: number; last: TranscriptItem | undefined } | null = null
  #input: { snapshot: TranscriptSnapshot; width: number; height: number } | null = null
  #visible: { first: number; last: number } | null = null
  #version = 0
  readonly #listeners = new Set<() => void>()

  constructor(cache: LineCache) {
    this.cache = cache
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly getVersion = (): number => this.#version

  readonly isFollowing = (): boolean => this.#following

  /** Computes the rows to show. Renders (or reuses) only the items that intersect the viewport. */
  layout(snapshot: TranscriptSnapshot, width: number, height: number): TranscriptFrame {
    this.#input = { snapshot, width, height }
    const rows: string[] = []
    if (height <= 0) {
      this.#visible = null
      return { rows, following: this.#following, newOutput: false }
    }
    const blocks = new Blocks(this.cache, snapshot, width)
    const { position: top, anchored } = this.#top(blocks, height)
    let first = -1
    let last = -1
    for (let at: Position | null = top; at && rows.length < height; at = blocks.next(at)) {
      const blockHeight = blocks.height(at)
      for (let k = at.line; k < blockHeight && rows.length < height; k++) rows.push(blocks.row(at, k))
      if (blockHeight > at.line) {
        if (first < 0) first = at.index
        last = at.index
      }
    }
    while (rows.length < height) rows.push('')
    this.#visible = first < 0 ? null : { first, last }
    return { rows, following: !anchored, newOutput: anchored && this.#hasNewOutput(snapshot) }
  }

  /** Scrolls by `delta` lines (negative = up). Reaching the bottom resumes following. */
  scrollBy(delta: number): void {
    const input = this.#input
    if (!input || delta === 0 || !Number.isFinite(delta) || input.height <= 0) return
    const blocks = new Blocks(this.cache, input.snapshot, input.width)
    const current = this.#top(blocks, input.height).position
    const next = normalise(blocks, { ...current, line: current.line + Math.trunc(delta) })
    if (remaining(blocks, next, input.height) <= input.height) this.#follow()
    else this.#anchorAt(blocks, next)
  }

  pageUp(): void {
    this.scrollBy(-this.#page())
  }

  pageDown(): void {
    this.scrollBy(this.#page())
  }

  /** Jumps to the first line of the transcript. */
  home(): void {
    const input = this.#input
    if (!input || input.snapshot.order.length === 0) return
    const blocks = new Blocks(this.cache, input.snapshot, input.width)
    const start = { index: 0, piece: 0, line: 0 }
    if (remaining(blocks, start, input.height) <= input.height) this.#follow()
    else this.#anchorAt(blocks, start)
  }

  /** Jumps to the bottom and follows new output again. */
  end(): void {
    this.#follow()
  }

  /**
   * The item Ctrl+O should toggle: the lowest expandable item (a tool card, a hook card, or an assistant
   * item with reasoning) among those on screen in the last frame.
   */
  expandTarget(): string | undefined {
    const input = this.#input
    const visible = this.#visible
    if (!input || !visible) return undefined
    for (let i = visible.last; i >= visible.first; i--) {
      const id = input.snapshot.order[i]
      const item = id === undefined ? undefined : input.snapshot.items[id]
      if (
        item?.kind === 'tool' ||
        (item?.kind === 'hook' && item.detail !== '') ||
        (item?.kind === 'assistant' && item.reasoning.trim() !== '')
      )
        return item.id
    }
    return undefined
  }

  /**
   * The item Ctrl+P should pin or unpin: the lowest message or finished tool card among those on screen
   * in the last frame (scroll to bring another one to the bottom).
   */
  pinTarget(): string | undefined {
    const input = this.#input
    const visible = this.#visible
    if (!input || !visible) return undefined
    for (let i = visible.last; i >= visible.first; i--) {
      const id = input.snapshot.order[i]
      const item = id === undefined ? undefined : input.snapshot.items[id]
      if (isPinnable(item)) return item?.id
    }
    return undefined
  }

  /**
   * Top position of the viewport: the anchor, clamped so the view never shows space below the end.
   * `anchored` is false when following, or when the anchor item is gone (the view then shows the end).
   */
  #top(blocks: Blocks, height: number): { position: Position; anchored: boolean } {
    const anchor = this.#anchor
    if (this.#following || !anchor) return { position: followTop(blocks, height), anchored: false }
    let index = anchor.index
    if (blocks.item(index)?.id !== anchor.id) {
      // The order changed other than by appending (e.g. /clear): look the anchor up once and remember it.
      index = blocks.indexOf(anchor.id)
      if (index < 0) return { position: followTop(blocks, height), anchored: false }
      anchor.index = index
    }
    const position = normalise(blocks, { index, piece: anchor.piece, line: anchor.line })
    const clamped = remaining(blocks, position, height) <= height
    return { position: clamped ? followTop(blocks, height) : position, anchored: true }
  }

  #page(): number {
    return Math.max(1, (this.#input?.height ?? 1) - 1)
  }

  #hasNewOutput(snapshot: TranscriptSnapshot): boolean {
    const seen = this.#seen
    if (this.#following || !seen) return false
    const lastId = snapshot.order.at(-1)
    return (
      snapshot.order.length !== seen.length || (lastId !== undefined && snapshot.items[lastId] !== seen.last)
    )
  }

  #follow(): void {
    if (this.#following) return
    this.#following = true
    this.#anchor = null
    this.#seen = null
    this.#changed()
  }

  #anchorAt(blocks: Blocks, position: Position): void {
    const item = blocks.item(position.index)
    if (!item) return
    if (this.#following) {
      const lastId = this.#input?.snapshot.order.at(-1)
      this.#seen = {
        length: blocks.count,
        last: lastId === undefined ? undefined : this.#input?.snapshot.items[lastId],
      }
    }
    const anchor = this.#anchor
    const same =
      !this.#following &&
      anchor?.id === item.id &&
      anchor.piece === position.piece &&
      anchor.line === position.line
    this.#following = false
    this.#anchor = { id: item.id, index: position.index, piece: position.piece, line: position.line }
    if (!same) this.#changed()
  }

  #changed(): void {
    this.#version++
    for (const listener of [...this.#listeners]) listener()
  }
}

/** The top position that puts the last line of the transcript on the last row. */
function followTop(blocks: Blocks, height: number): Position {
  let total = 0
  for (let at = blocks.last(); at; at = blocks.previous(at)) {
    total += blocks.height(at)
    if (total >= height) return { ...at, line: total - height }
  }
  return { index: 0, piece: 0, line: 0 }
}

/** Moves a position whose line is out of its block's range onto the block that holds that line. */
function normalise(blocks: Blocks, position: Position): Position {
  const count = blocks.count
  if (count === 0) return { index: 0, piece: 0, line: 0 }
  const index = Math.min(Math.max(position.index, 0), count - 1)
  const piece = Math.min(Math.max(position.piece, 0), blocks.pieceCount(index) - 1)
  let at: Position = { index, piece, line: 0 }
  let line = position.line
  while (line < 0) {
    const previous = blocks.previous(at)
    if (!previous) return { index: 0, piece: 0, line: 0 }
    at = previous
    line += blocks.height(at)
  }
  while (line > 0 && line >= blocks.height(at)) {
    const next = blocks.next(at)
    if (!next) return { ...at, line: Math.max(0, blocks.height(at) - 1) }
    line -= blocks.height(at)
    at = next
  }
  return { ...at, line }
}

/** Lines from `position` to the end, counting no further than just past `limit`. */
function remaining(blocks: Blocks, position: Position, limit: number): number {
  let total = blocks.height(position) - position.line
  for (let at = blocks.next(position); at && total <= limit; at = blocks.next(at)) total += blocks.height(at)
  return total
}

/** A view over a fresh line cache that renders items with `renderItemLines` in `theme`. */
export function createTranscriptView(theme: Theme, options: { maxLines?: number } = {}): TranscriptView {
  const cache = new LineCache({
    render: (item, width, expanded) => renderItemLines(item, width, { expanded, theme }),
    ...options,
  })
  return new TranscriptView(cache)
}
