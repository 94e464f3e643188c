import type { AssistantItem, TranscriptItem } from '../../../store/state.js'
import { findSafeSplitPoint } from './stream-split.js'

/**
 * Renders one item to lines at a width. Must be pure for a given (item object, width, expanded), and for
 * assistant items compositional: reasoning lines first, then the text's lines, so that rendering a text
 * in blank-line-separated pieces and joining them with one empty line equals rendering it whole.
 */
export type ItemRenderer = (item: TranscriptItem, width: number, expanded: boolean) => readonly string[]

export interface LineCacheOptions {
  render: ItemRenderer
  /** Upper bound on cached lines across all items (LRU by use); visible items are always re-renderable. */
  maxLines?: number
}

interface Entry {
  /** The item object the lines were rendered from: store items are immutable, so identity is the version. */
  item: TranscriptItem
  expanded: boolean
  lines: readonly string[]
}

/** A streaming assistant text: a settled head kept as rendered pieces, plus a tail re-rendered per frame. */
interface Stream {
  /** The text up to the last safe boundary, rendered into `head`; the live tail starts after it. */
  headText: string
  head: string[]
  /** The last result, so a frame that changed nothing else reuses it. */
  item: TranscriptItem | null
  expanded: boolean
  lines: readonly string[]
}

const DEFAULT_MAX_LINES = 50_000
const MAX_STREAMS = 4

/**
 * Rendered lines per item at the current width. A hit costs one map lookup; an item is rendered again
 * only when its object changes (a new version in the store), its expanded flag flips, or the width
 * changes. A width change drops everything at once but re-renders nothing by itself: items are
 * re-rendered lazily as the view asks for them, i.e. as they come into view.
 *
 * A streaming assistant item is rendered as a cached head (cut at safe Markdown boundaries, see
 * `findSafeSplitPoint`) plus a small live tail, so each frame re-renders only the text since the last
 * blank line instead of the whole reply.
 */
export class LineCache {
  readonly #render: ItemRenderer
  readonly #maxLines: number
  #width = -1
  /** Insertion order is recency order: a hit moves the entry to the end, eviction takes from the front. */
  readonly #entries = new Map<string, Entry>()
  readonly #streams = new Map<string, Stream>()
  #cachedLines = 0

  constructor(options: LineCacheOptions) {
    this.#render = options.render
    this.#maxLines = options.maxLines ?? DEFAULT_MAX_LINES
  }

  /** The item's lines at `width`; renders only on a miss. The result must not be mutated. */
  lines(item: TranscriptItem, width: number, expanded: boolean): readonly string[] {
    if (width !== this.#width) this.#reset(width)
    if (item.kind === 'assistant' && item.streaming) return this.#streaming(item, width, expanded)
    const entry = this.#entries.get(item.id)
    if (entry) {
      this.#entries.delete(item.id)
      if (entry.item === item && entry.expanded === expanded) {
        this.#entries.set(item.id, entry)
        return entry.lines
      }
      this.#cachedLines -= entry.lines.length
    }
    const lines = this.#settled(item, width, expanded) ?? this.#render(item, width, expanded)
    this.#entries.set(item.id, { item, expanded, lines })
    this.#cachedLines += lines.length
    this.#evict(item.id)
    return lines
  }

  /** Number of items whose lines are held (for tests and diagnostics). */
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
    this.#streams.clear()
    this.#cachedLines = 0
  }

  #evict(keep: string): void {
    for (const [id, entry] of this.#entries) {
      if (this.#cachedLines <= this.#maxLines) return
      if (id === keep) continue
      this.#entries.delete(id)
      this.#cachedLines -= entry.lines.length
    }
  }

  #streaming(item: AssistantItem, width: number, expanded: boolean): readonly string[] {
    let stream = this.#streams.get(item.id)
    if (stream?.item === item && stream.expanded === expanded) return stream.lines
    // Deltas only append; a text that no longer extends the head means the item was replaced.
    if (!stream || !item.text.startsWith(stream.headText)) {
      stream = { headText: '', head: [], item: null, expanded, lines: [] }
      this.#streams.delete(item.id)
      this.#streams.set(item.id, stream)
      for (const id of this.#streams.keys()) {
        if (this.#streams.size <= MAX_STREAMS) break
        this.#streams.delete(id)
      }
    }
    const consumed = stream.headText.length
    const split = consumed + findSafeSplitPoint(item.text.slice(consumed))
    if (split > consumed) {
      this.#append(stream.head, this.#textLines(item, item.text.slice(consumed, split), width))
      stream.headText = item.text.slice(0, split)
    }
    stream.item = item
    stream.expanded = expanded
    stream.lines = this.#compose(item, stream, width, expanded)
    return stream.lines
  }

  /**
   * A reply that just finished streaming keeps its rendered head, so settling costs one streaming frame
   * rather than a full render of a possibly very long text. (It may differ from a fresh full render only
   * where Markdown joins blocks across a blank line, e.g. a loose list; a width change renders it whole.)
   */
  #settled(item: TranscriptItem, width: number, expanded: boolean): readonly string[] | undefined {
    if (this.#streams.size === 0) return undefined
    const stream = this.#streams.get(item.id)
    if (!stream) return undefined
    this.#streams.delete(item.id)
    if (item.kind !== 'assistant' || !item.text.startsWith(stream.headText)) return undefined
    return this.#compose(item, stream, width, expanded)
  }

  /** Reasoning lines, then the cached head, then the tail after the head rendered now. */
  #compose(item: AssistantItem, stream: Stream, width: number, expanded: boolean): string[] {
    const reasoning = item.reasoning ? this.#render({ ...item, text: '' }, width, expanded) : []
    const tail = this.#textLines(item, item.text.slice(stream.headText.length), width)
    const text = [...stream.head]
    this.#append(text, tail)
    return reasoning.length > 0 ? [...reasoning, ...text] : text
  }

  #textLines(item: AssistantItem, text: string, width: number): readonly string[] {
    if (!text.trim()) return []
    return this.#render(
      { kind: 'assistant', id: item.id, text, reasoning: '', streaming: false },
      width,
      false,
    )
  }

  /** Appends rendered text pieces with the blank line that separated them in the source. */
  #append(target: string[], piece: readonly string[]): void {
    if (piece.length === 0) return
    if (target.length > 0) target.push('')
    for (const line of piece) target.push(line)
  }
}
