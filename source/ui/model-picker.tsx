import { Box } from 'ink'
import { Text } from './components/text.js'
import { useMemo } from 'react'
import { KEY_PRIORITY, useKeyHandler } from './keys/dispatcher.js'
import { useKeyState } from './keys/use-key-state.js'
import { useTheme } from './components/theme-context.js'

export interface ModelPickerProps {
  /** The endpoint's models, as it lists them. */
  models: readonly string[]
  current: string
  /** Rows of models shown at once; the list scrolls with the selection. */
  rows: number
  width: number
  /** The picked model, or null when the user backed out. */
  onDone(model: string | null): void
}

/** Models whose id contains every word of the filter (case-insensitive), in the endpoint's order. */
export function filterModels(models: readonly string[], filter: string): string[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  return models.filter((m) => words.every((w) => m.toLowerCase().includes(w)))
}

/**
 * `/model` without an id: the endpoint's models to pick from, in the transcript's place. ↑/↓ (PgUp/PgDn,
 * Home/End) move, typing filters, Enter switches, Esc leaves. It takes every key while open.
 */
export function ModelPicker({ models, current, rows, width, onDone }: ModelPickerProps) {
  const { palette: p } = useTheme()
  const [filter, setFilter, filterRef] = useKeyState('')
  const start = Math.max(0, models.indexOf(current))
  const [selected, setSelected, selectedRef] = useKeyState(start)
  const shown = useMemo(() => filterModels(models, filter), [models, filter])
  const page = Math.max(1, rows)

  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    const list = filterModels(models, filterRef.current)
    const at = Math.min(selectedRef.current, Math.max(0, list.length - 1))
    const move = (to: number) => setSelected(Math.max(0, Math.min(list.length - 1, to)))
    const k = ev.key
    if (k.escape || ev.has('app.ctrlC')) onDone(null)
    else if (k.return) onDone(list[at] ?? null)
    else if (k.upArrow) move(at - 1)
    else if (k.downArrow) move(at + 1)
    else if (k.pageUp) move(at - page)
    else if (k.pageDown) move(at + page)
    else if (k.home) move(0)
    else if (k.end) move(list.length - 1)
    else if (k.backspace || k.delete) {
      setFilter(filterRef.current.slice(0, -1))
      setSelected(0)
    } else if (ev.input && !k.ctrl && !k.meta && !k.tab) {
      setFilter(filterRef.current + ev.input)
      setSelected(0)
    }
    return true
  })

  const at = Math.min(selected, Math.max(0, shown.length - 1))
  const top = Math.min(Math.max(0, at - page + 1), Math.max(0, shown.length - page))
  const visible = shown.slice(top, top + page)
  const count = `${shown.length}${filter ? ` of ${models.length}` : ''} model${models.length === 1 ? '' : 's'}`
  return (
    <Box flexDirection="column" paddingX={1} width={width}>
      <Text bold wrap="truncate">
        Switch model <Text dimColor>(now {current})</Text>
      </Text>
      <Text dimColor wrap="truncate">
        ↑/↓ select · type to filter · Enter switch · Esc cancel · {count}
      </Text>
      <Text wrap="truncate">
        <Text color={p.accent}>Filter: </Text>
        {filter || <Text dimColor>(none)</Text>}
      </Text>
      {visible.map((model, i) => {
        const isSelected = top + i === at
        return (
          <Text key={model} color={isSelected ? p.accent : undefined} bold={isSelected} wrap="truncate">
            {isSelected ? '❯ ' : '  '}
            {model}
            {model === current ? <Text dimColor> (current)</Text> : null}
          </Text>
        )
      })}
      {shown.length === 0 ? <Text dimColor>{'  '}no model matches</Text> : null}
      {top + page < shown.length ? <Text dimColor> … {shown.length - top - page} more</Text> : null}
    </Box>
  )
}
