import type { TranscriptItem } from '../../../store/state.js'
import type { ItemPieces, LineCache } from './line-cache.js'
/** The store slices the transcript is drawn from (all stable references in the store). */
export interface TranscriptSnapshot {
  order: readonly string[]
  items: Readonly<Record<string, TranscriptItem>>
  expanded: Readonly<Record<string, true>>
}

/** A line position: line `line` of piece `piece` of item `index` (the piece's lines plus the gap above it). */
export interface Position {
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
export class Blocks {
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

  /** Line `line` of the block as a line of its piece (-1 for a gap row). */
  pieceLine(at: Position, line: number): number {
    return line - this.gap(at)
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

/** The top position that puts the last line of the transcript on the last row. */
export function followTop(blocks: Blocks, height: number): Position {
  let total = 0
  for (let at = blocks.last(); at; at = blocks.previous(at)) {
    total += blocks.height(at)
    if (total >= height) return { ...at, line: total - height }
  }
  return { index: 0, piece: 0, line: 0 }
}

/** Moves a position whose line is out of its block's range onto the block that holds that line. */
export function normalise(blocks: Blocks, position: Position): Position {
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

/** Lines from `from` down to `to`: -1 when `to` is above `from`, anything past `limit` once beyond it. */
export function linesBetween(blocks: Blocks, from: Position, to: Position, limit: number): number {
  if (to.index < from.index || (to.index === from.index && to.piece < from.piece)) return -1
  let total = -from.line
  for (let at: Position | null = from; at && total <= limit; at = blocks.next(at)) {
    if (at.index === to.index && at.piece === to.piece) return total + to.line
    total += blocks.height(at)
  }
  return limit + 1
}

/** Lines from `position` to the end, counting no further than just past `limit`. */
export function remaining(blocks: Blocks, position: Position, limit: number): number {
  let total = blocks.height(position) - position.line
  for (let at = blocks.next(position); at && total <= limit; at = blocks.next(at)) total += blocks.height(at)
  return total
}
