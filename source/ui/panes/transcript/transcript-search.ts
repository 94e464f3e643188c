import type { TranscriptItem } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { renderItemLines } from './item-lines.js'
import { searchBar } from './search-bar.js'
import { highlightLine, type SearchStyles, searchStyles } from './search-highlight.js'
import { compileQuery, findInText, foldCase, type Needle, plainText } from './search-match.js'
import { reduceSearch, SEARCH_CLOSED, type SearchEvent, type SearchState } from './search-model.js'
import type { LineAddress, RowDecorator, TranscriptSnapshot, TranscriptView } from './transcript-view.js'

type Ranges = Array<[number, number]>

/** One searched row: its matches, and the index of its first one among all of them. */
interface RowMatches {
  ranges: Ranges
  first: number
}

interface SearchResult {
  source: TranscriptSnapshot
  width: number
  query: string
  /** The snapshot shown while searching: folded blocks that hide a match are open in it. */
  snapshot: TranscriptSnapshot
  matches: LineAddress[]
  /** `index:piece` → row → its matches. */
  rows: Map<string, Map<number, RowMatches>>
  opened: number
}

/** What the transcript pane draws while the search is open. */
export interface SearchFrame {
  snapshot: TranscriptSnapshot
  decorate: RowDecorator
  bar: string
}

interface RowText {
  plain: string[]
  folded: string[]
}

/** Renders an item folded or unfolded, outside the line cache: to tell whether folding hides a match. */
export type FoldRenderer = (item: TranscriptItem, width: number, expanded: boolean) => readonly string[]

/**
 * The transcript search: its state (`reduceSearch`), the matches over the rendered rows, the highlights and
 * the scrolling to the current match. It searches the rows the line cache renders, each piece's rows
 * stripped and case-folded once (memoised by the cache's arrays) and searched again only when the query or
 * the piece changes, so a key in the field costs one pass of `indexOf` over the transcript's rows. A folded
 * block (a tool card's output, a hook's detail, a reply's reasoning) whose unfolded rows hold more matches is
 * shown unfolded while the search is open. Nothing here runs while the search is closed.
 */
export class TranscriptSearch {
  #state: SearchState = SEARCH_CLOSED
  #version = 0
  readonly #listeners = new Set<() => void>()
  #last: { snapshot: TranscriptSnapshot; width: number; height: number } | null = null
  #result: SearchResult | null = null
  /** A query changed before any frame (typed while the module loaded): the first frame picks the match. */
  #unpicked = false
  readonly #text = new WeakMap<readonly string[], RowText>()
  readonly #found = new WeakMap<
    readonly string[],
    { query: string; ranges: (Ranges | null)[]; none: boolean }
  >()
  readonly #folds = new WeakMap<TranscriptItem, { width: number; folded: RowText; unfolded: RowText }>()

  constructor(
    private readonly view: TranscriptView,
    private readonly renderFold: FoldRenderer,
    private readonly theme: Theme,
    private readonly styles: SearchStyles = searchStyles(theme),
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly getVersion = (): number => this.#version

  get state(): SearchState {
    return this.#state
  }

  isOpen(): boolean {
    return this.#state.phase !== 'closed'
  }

  /** Applies an event; a new query picks the match nearest the view, a step scrolls to the next one. */
  send(event: SearchEvent): void {
    const before = this.#state
    const next = reduceSearch(before, event)
    if (next === before) return
    this.#state = next
    if (next.phase === 'closed') this.#result = null
    else if (next.query !== before.query) this.#pickNearest()
    else if (event.type === 'step') this.#revealCurrent()
    this.#changed()
  }

  /** n / N, Enter / Shift+Enter, ↓ / ↑. */
  step(direction: 1 | -1): void {
    this.send({ type: 'step', direction, count: this.#latest()?.matches.length ?? 0 })
  }

  /** The rows' snapshot, highlights and status row for a frame of `height` transcript rows. */
  frame(snapshot: TranscriptSnapshot, width: number, height: number): SearchFrame {
    this.#last = { snapshot, width, height }
    const result = this.#compute(snapshot, width)
    if (this.#unpicked) {
      this.#unpicked = false
      this.#state = reduceSearch(this.#state, { type: 'pick', current: this.#nearest(result) })
      // Scrolling notifies the view's listeners: not while a frame is being drawn.
      queueMicrotask(() => this.#revealCurrent())
    }
    const count = result.matches.length
    const current = this.#state.current < count ? this.#state.current : -1
    const decorate: RowDecorator = (row, index, piece, line) => {
      const found = result.rows.get(`${index}:${piece}`)?.get(line)
      return found ? highlightLine(row, found.ranges, current - found.first, this.styles) : row
    }
    const { phase, query } = this.#state
    const bar = searchBar({ phase, query, current, count, opened: result.opened }, width, this.theme)
    return { snapshot: result.snapshot, decorate, bar }
  }

  #latest(): SearchResult | null {
    const last = this.#last
    return last ? this.#compute(last.snapshot, last.width) : null
  }

  #pickNearest(): void {
    const result = this.#latest()
    this.#unpicked = result === null
    this.#state = reduceSearch(this.#state, { type: 'pick', current: result ? this.#nearest(result) : -1 })
    this.#revealCurrent()
  }

  /** The first match on screen or below it; above it only when there is none below. */
  #nearest(result: SearchResult): number {
    const matches = result.matches
    if (matches.length === 0) return -1
    const first = this.view.visibleItems()?.first ?? 0
    const below = matches.findIndex((m) => m.index >= first)
    return below < 0 ? matches.length - 1 : below
  }

  #revealCurrent(): void {
    const last = this.#last
    const result = this.#latest()
    const target = result?.matches[this.#state.current]
    if (last && result && target) this.view.reveal(result.snapshot, last.width, last.height, target)
  }

  /** The matches for this snapshot, width and query: the last result while none of them changed. */
  #compute(source: TranscriptSnapshot, width: number): SearchResult {
    const query = this.#state.query
    const cached = this.#result
    if (
      cached &&
      cached.width === width &&
      cached.query === query &&
      cached.source.order === source.order &&
      cached.source.items === source.items &&
      cached.source.expanded === source.expanded
    )
      return cached
    const result: SearchResult = {
      source,
      width,
      query,
      snapshot: source,
      matches: [],
      rows: new Map(),
      opened: 0,
    }
    this.#result = result
    const needle = compileQuery(query)
    if (!needle) return result
    let expanded = source.expanded
    source.order.forEach((id, index) => {
      const item = source.items[id]
      if (!item) return
      let open = expanded[id] === true
      if (!open && this.#foldHidesMatch(item, width, needle)) {
        expanded = expanded === source.expanded ? { ...expanded } : expanded
        ;(expanded as Record<string, true>)[id] = true
        open = true
        result.opened++
      }
      const pieces = this.view.cache.pieces(item, width, open)
      for (let piece = 0; piece < pieces.count; piece++) {
        const ranges = this.#ranges(pieces.lines(piece), needle, query)
        let rows: Map<number, RowMatches> | undefined
        ranges.forEach((found, line) => {
          if (!found) return
          if (!rows) {
            rows = new Map()
            result.rows.set(`${index}:${piece}`, rows)
          }
          rows.set(line, { ranges: found, first: result.matches.length })
          for (let k = 0; k < found.length; k++) result.matches.push({ index, piece, line })
        })
      }
    })
    if (expanded !== source.expanded) result.snapshot = { ...source, expanded }
    return result
  }

  /** Whether unfolding the item would show more matches than it shows folded. */
  #foldHidesMatch(item: TranscriptItem, width: number, needle: Needle): boolean {
    const foldable =
      item.kind === 'tool' ||
      (item.kind === 'hook' && item.detail !== '') ||
      (item.kind === 'assistant' && item.reasoning.trim() !== '')
    if (!foldable) return false
    let fold = this.#folds.get(item)
    if (!fold || fold.width !== width) {
      // A reply folds only its reasoning: render that alone, never the (possibly long) text.
      const probe: TranscriptItem = item.kind === 'assistant' ? { ...item, text: '' } : item
      fold = {
        width,
        folded: rowText(this.renderFold(probe, width, false)),
        unfolded: rowText(this.renderFold(probe, width, true)),
      }
      this.#folds.set(item, fold)
    }
    return countIn(fold.unfolded, needle) > countIn(fold.folded, needle)
  }

  #ranges(lines: readonly string[], needle: Needle, query: string): (Ranges | null)[] {
    const found = this.#found.get(lines)
    if (found?.query === query) return found.ranges
    // Typing extends the query: rows that did not hold the shorter one cannot hold the longer one.
    if (found?.none && query.startsWith(found.query)) {
      found.query = query
      return found.ranges
    }
    let text = this.#text.get(lines)
    if (!text) {
      text = rowText(lines)
      this.#text.set(lines, text)
    }
    let none = true
    const ranges = text.plain.map((plain, i) => {
      const hits = findInText(plain, text.folded[i] ?? '', needle)
      if (hits.length === 0) return null
      none = false
      return hits
    })
    this.#found.set(lines, { query, ranges, none })
    return ranges
  }

  #changed(): void {
    this.#version++
    for (const listener of [...this.#listeners]) listener()
  }
}

function rowText(lines: readonly string[]): RowText {
  const plain = lines.map(plainText)
  return { plain, folded: plain.map(foldCase) }
}

function countIn(text: RowText, needle: Needle): number {
  let count = 0
  text.plain.forEach((plain, i) => {
    count += findInText(plain, text.folded[i] ?? '', needle).length
  })
  return count
}

/** The search for a transcript view, rendering folds as the transcript does. */
export function createTranscriptSearch(view: TranscriptView, theme: Theme): TranscriptSearch {
  return new TranscriptSearch(
    view,
    (item, width, expanded) => renderItemLines(item, width, { expanded, theme }),
    theme,
  )
}
