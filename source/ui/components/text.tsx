import { Text as InkText, type TextProps } from 'ink'
import { createElement, type ReactNode } from 'react'
import { cleanText } from '../../util/display-text.js'
import { useTheme } from './theme-context.js'

export interface CleanTextProps extends TextProps {
  /**
   * The children are lines a renderer of ours built, already cleaned and styled with our own ANSI
   * (Markdown, a diff, the transcript's rows): passed through as they are, or their colours would go.
   */
  styled?: boolean
}

/**
 * Ink's `Text`, for every pane: each string child goes through `cleanText` first, so nothing a model, a
 * tool, a server or a file wrote can drive the terminal or spoof what is shown, whichever pane shows it
 * (Ink itself keeps OSC sequences, SGR colours and bidi controls). The only `Text` the UI may use
 * (scripts/check-architecture.mjs).
 */
export function Text({ styled, children, ...rest }: CleanTextProps) {
  // Dim text where the palette says dim is a guess (light, high-contrast): its faint colour instead.
  const { faint } = useTheme().palette
  const props =
    rest.dimColor && faint !== 'dim' ? { ...rest, dimColor: false, color: rest.color ?? faint } : rest
  if (styled) return createElement(InkText, props, children)
  // Children as arguments, not one array: React then treats them as the static list JSX wrote.
  const list = Array.isArray(children) ? children : [children]
  return createElement(InkText, props, ...list.map(clean))
}

function clean(node: ReactNode): ReactNode {
  if (typeof node === 'string') return cleanText(node)
  if (Array.isArray(node)) return node.map(clean)
  return node
}
