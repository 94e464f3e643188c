import { isPinnable } from '../../../store/pins.js'
import type { TranscriptItem } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { renderItemLines } from './item-lines.js'
import {
  Blocks,
  followTop,
  type TranscriptSnapshot,
  linesBetween,
  normalise,
  type Position,
  remaining,
} from './blocks.js'
import { LineCache } from './line-cache.js'

export type { TranscriptSnapshot } from './blocks.js'

/** Restyles a row of piece `piece` of item `index` (its line `line`): the search's highlights. */
export type RowDecorator = (row: string, index: number, piece: number, line: number) => string

/** A line of the transcript: line `line` of piece `piece` of item `index`, without the gap above the piece. */
export interface LineAddress {
  index: number
  piece: number
  line: number
}

export interface TranscriptFrame {
  /** Exactly `height` rows, each already wrapped to the width. */
  rows: readonly string[]
  /** The view sticks to the bottom and follows new output. */
  following: boolean
  /** Output arrived below the viewport since the user scrolled away from the bottom. */
  newOutput: boolean
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
  layout(
    snapshot: TranscriptSnapshot,
    width: number,
    height: number,
    decorate?: RowDecorator,
  ): TranscriptFrame {
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
      for (let k = at.line; k < blockHeight && rows.length < height; k++) {
        const row = blocks.row(at, k)
        const line = decorate ? blocks.pieceLine(at, k) : -1
        rows.push(decorate && line >= 0 ? decorate(row, at.index, at.piece, line) : row)
      }
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

  /** Item indices on screen in the last frame (null before one, or when it showed nothing). */
  visibleItems(): { first: number; last: number } | null {
    return this.#visible
  }

  /**
   * Scrolls, if needed, so that a line is on screen (a third of the way down): the search's current match.
   * Takes the frame's inputs, since the search may open folded blocks the last frame did not have.
   */
  reveal(snapshot: TranscriptSnapshot, width: number, height: number, target: LineAddress): void {
    if (height <= 0 || target.index >= snapshot.order.length) return
    const blocks = new Blocks(this.cache, snapshot, width)
    const at: Position = { index: target.index, piece: target.piece, line: 0 }
    const wanted = { ...at, line: target.line - blocks.pieceLine(at, 0) }
    const top = this.#top(blocks, height).position
    const below = linesBetween(blocks, top, wanted, height)
    if (below >= 0 && below < height) return
    const next = normalise(blocks, { ...wanted, line: wanted.line - Math.floor(height / 3) })
    this.#input = { snapshot, width, height }
    if (remaining(blocks, next, height) <= height) this.#follow()
    else this.#anchorAt(blocks, next)
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

/** A view over a fresh line cache that renders items with `renderItemLines` in `theme`. */
export function createTranscriptView(theme: Theme, options: { maxLines?: number } = {}): TranscriptView {
  const cache = new LineCache({
    render: (item, width, expanded) => renderItemLines(item, width, { expanded, theme }),
    ...options,
  })
  return new TranscriptView(cache)
}
