import type { DOMElement } from 'ink'
import { createContext } from 'react'
import type { Rect } from './painted-region.js'
import type { ScreenPainter } from './screen-painter.js'

/** Present only in a real terminal: panes that can paint themselves do so instead of rendering rows in Ink. */
export const PainterContext = createContext<ScreenPainter | null>(null)

/**
 * Where an Ink element is visible on screen, from the layout Ink computed for its latest frame: its box
 * clipped by every ancestor's box. The clipping matters: for one frame a pane can still have its old
 * explicit height while its parent has already shrunk (a dialog docked below), and painting the unclipped
 * box would draw over the dialog.
 */
export function screenRect(element: DOMElement): Rect | null {
  const chain: DOMElement[] = []
  for (let node: DOMElement | undefined = element; node?.yogaNode; node = node.parentNode) chain.push(node)
  if (chain.length === 0) return null
  let top = 0
  let left = 0
  let clip = { top: 0, left: 0, bottom: Number.POSITIVE_INFINITY, right: Number.POSITIVE_INFINITY }
  for (let i = chain.length - 1; i >= 0; i--) {
    const yoga = chain[i]?.yogaNode
    if (!yoga) return null
    top += yoga.getComputedTop()
    left += yoga.getComputedLeft()
    const bottom = top + yoga.getComputedHeight()
    const right = left + yoga.getComputedWidth()
    clip = {
      top: Math.max(clip.top, top),
      left: Math.max(clip.left, left),
      bottom: Math.min(clip.bottom, bottom),
      right: Math.min(clip.right, right),
    }
  }
  return {
    top: Math.round(clip.top),
    left: Math.round(clip.left),
    width: Math.max(0, Math.round(clip.right - clip.left)),
    height: Math.max(0, Math.round(clip.bottom - clip.top)),
  }
}
