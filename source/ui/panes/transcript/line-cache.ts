import type { AssistantItem, TranscriptItem } from '../../../store/state.js'
import { safeBoundaries } from './stream-split.js'

/**
 * Renders one item to lines at a width. Must be pure for a given (item object, width, expanded), and for
 * assistant items compositional: reasoning lines first, then the text's lines, so that rendering a text
 * in pieces cut at safe boundaries (`safeBoundaries`) and joining them with one empty line equals
 * rendering it whole.
 */
export type ItemRenderer = (item: TranscriptItem, width: number, expanded: boolean) => readonly string[]

export interface LineCacheOptions {
  render: ItemRenderer
  /** Upper bound on cached lines across all items (LRU by use); visible items are always re-renderable. */
  maxLines?: number
}

/**
 * One item's lines as consecutive pieces, each rendered only when asked for: a view that shows the end
 * of a long reply renders the pieces it shows, not the whole reply. The item's lines are the non-empty
 * pieces joined with `gapAbove(k)` blank lines before piece k (none before the first).
 */
export interface ItemPieces {
  readonly count: number
  gapAbove(piece: number): number
  lines(piece: number): readonly string[]
}

interface Piece {
  /** The slice of an assistant text this piece renders; null renders the whole item (or its reasoning). */
  text: string | null
  gapAbove: number
  lines: readonly string[] | null
}

interface Entry {
  /** The item object the pieces were cut from: store items are immutable, so identity is the version. */
  item: TranscriptItem
  expanded: boolean
  /** Assistant items: the text up to the last safe boundary, which the complete pieces cover. */
  headText: string
  /** Assistant items: how many leading pieces are complete (reasoning, then head text pieces). */
  headPieces: number
  pieces: Piece[]
  renderedLines: number
  view: ItemPieces
}

const DEFAULT_MAX_LINES = 50_000

/**
 * Rendered lines per item at the current width. A hit costs one map lookup; a piece is rendered again
 * only when its item object changes (a new version in the store), the expanded flag flips, or the width
 * changes. A width change drops everything at once but re-renders nothing by itself: pieces are rendered
 * lazily as the view asks for them, i.e. as they come into view.
 *
 * An assistant text is cut into pieces at safe Markdown boundaries. While it streams, every complete
 * piece keeps its lines and only the text after the last boundary (the live tail) is rendered again per
 * frame; a reply that settles keeps them too. A reply too long for the screen is never rendered whole.
 */
export class LineCache {
  readonly #render: ItemRenderer
  readonly #maxLines: number
  #width = -1
  /** Insertion order is recency order: a hit moves the entry to the end, eviction takes from the front. */
  readonly #entries = new Map<string, Entry>()
  #renderedLines = 0

  constructor(options: LineCacheOptions) {
    this.#render = options.render
    this.#maxLines = options.maxLines ?? DEFAULT_MAX_LINES
  }

  /** The item's pieces at `width`; cuts them on a miss but renders nothing until a piece is asked for. */
  pieces(item: TranscriptItem, width: number, expanded: boolean): ItemPieces {
    if (width !== this.#width) this.#reset(width)
    const found = this.#entries.get(item.id)
    if (found) this.#entries.delete(item.id)
    let entry = found
    if (!entry || entry.item !== item || entry.expanded !== expanded) {
      entry = this.#update(found, item, expanded)
      if (found && found !== entry) this.#renderedLines -= found.renderedLines
    }
    this.#entries.set(item.id, entry)
    return entry.view
  }

  /** The item's lines, whole (every piece rendered). The result must not be mutated. */
  lines(item: TranscriptItem, width: number, expanded: boolean): readonly string[] {
    const pieces = this.pieces(item, width, expanded)
    if (pieces.count === 1) return pieces.lines(0)
    const out: string[] = []
    for (let k = 0; k < pieces.count; k++) {
      const lines = pieces.lines(k)
      if (lines.length === 0) continue
      if (out.length > 0) for (let gap = pieces.gapAbove(k); gap > 0; gap--) out.push('')
      out.push(...lines)
    }
    return out
  }

  /** Number of items whose pieces are held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size
  }

  /** Drops all rendered lines (theme change, Ctrl+L redraw). */
  clear(): void {
    this.#reset(this.#width)
  }

  #reset(width: number): void {
    this.#width = width
    this.#entries.clear()
    this.#renderedLines = 0
  }

  /** The entry for a new version of an item: complete pieces of an assistant text that only grew are kept. */
  #update(previous: Entry | undefined, item: TranscriptItem, expanded: boolean): Entry {
    if (item.kind !== 'assistant') {
      return this.#entry(item, expanded, [{ text: null, gapAbove: 0, lines: null }], '', 1)
    }
    const reasoning = item.reasoning.trim() !== ''
    // A pin (marked under the last piece) changes what the pieces render: cut them afresh.
    const kept =
      previous?.item.kind === 'assistant' &&
      previous.item.pinned === item.pinned &&
      item.text.startsWith(previous.headText)
        ? previous
        : undefined
    if (!kept) {
      const pieces: Piece[] = reasoning ? [{ text: null, gapAbove: 0, lines: null }] : []
      const entry = this.#entry(item, expanded, pieces, '', pieces.length)
      this.#extend(entry, item)
      return entry
    }
    // Deltas only append: keep the complete text pieces (and the reasoning's, if unchanged), re-cut the rest.
    const previousItem = kept.item as AssistantItem
    const keepReasoning = previousItem.reasoning === item.reasoning && kept.expanded === expanded
    const previousReasoning = keepReasoning ? kept.pieces.find((piece) => piece.text === null) : undefined
    const pieces: Piece[] = reasoning ? [previousReasoning ?? { text: null, gapAbove: 0, lines: null }] : []
    for (const piece of kept.pieces.slice(0, kept.headPieces)) if (piece.text !== null) pieces.push(piece)
    const entry = this.#entry(item, expanded, pieces, kept.headText, pieces.length)
    // The old tail is often a whole piece now (the blank line after it arrived in the last frame).
    this.#extend(entry, item, kept.pieces[kept.headPieces])
    entry.renderedLines = entry.pieces.reduce((sum, piece) => sum + (piece.lines?.length ?? 0), 0)
    this.#renderedLines += entry.renderedLines
    return entry
  }

  /** Cuts the text after the entry's head into complete pieces and a tail piece; `reusable` keeps its lines. */
  #extend(entry: Entry, item: AssistantItem, reusable?: Piece): void {
    const rest = item.text.slice(entry.headText.length)
    let from = 0
    let first = !entry.pieces.some((piece) => piece.text !== null)
    const add = (text: string) => {
      if (text.trim() === '') return
      // Text pieces are separated by the blank line they were cut at; reasoning runs straight into text.
      const lines = reusable?.text === text ? reusable.lines : null
      entry.pieces.push({ text, gapAbove: first ? 0 : 1, lines })
      first = false
    }
    for (const boundary of safeBoundaries(rest)) {
      add(rest.slice(from, boundary))
      from = boundary
    }
    entry.headText = item.text.slice(0, entry.headText.length + from)
    entry.headPieces = entry.pieces.length
    add(rest.slice(from))
  }

  #entry(
    item: TranscriptItem,
    expanded: boolean,
    pieces: Piece[],
    headText: string,
    headPieces: number,
  ): Entry {
    const entry: Entry = {
      item,
      expanded,
      headText,
      headPieces,
      pieces,
      renderedLines: 0,
      view: {
        get count() {
          return entry.pieces.length
        },
        gapAbove: (k) => entry.pieces[k]?.gapAbove ?? 0,
        lines: (k) => this.#pieceLines(entry, k),
      },
    }
    return entry
  }

  #pieceLines(entry: Entry, k: number): readonly string[] {
    const piece = entry.pieces[k]
    if (!piece) return []
    if (piece.lines) return piece.lines
    const { item, expanded } = entry
    const lines =
      item.kind !== 'assistant'
        ? this.#render(item, this.#width, expanded)
        : piece.text === null
          ? this.#render({ ...item, text: '' }, this.#width, expanded)
          : this.#textLines(item, piece.text, k === entry.pieces.length - 1)
    piece.lines = lines
    // Counted only while the entry is held: a piece of a replaced or evicted entry is not.
    if (this.#entries.get(item.id) === entry) {
      entry.renderedLines += lines.length
      this.#renderedLines += lines.length
      this.#evict(item.id)
    }
    return lines
  }

  #textLines(item: AssistantItem, text: string, last: boolean): readonly string[] {
    const pinned = last && item.pinned === true
    return this.#render(
      {
        kind: 'assistant',
        id: item.id,
        text,
        reasoning: '',
        streaming: false,
        ...(pinned ? { pinned } : {}),
      },
      this.#width,
      false,
    )
  }

  #evict(keep: string): void {
    for (const [id, entry] of this.#entries) {
      if (this.#renderedLines <= this.#maxLines) return
      if (id === keep) continue
      this.#entries.delete(id)
      this.#renderedLines -= entry.renderedLines
    }
  }
}
