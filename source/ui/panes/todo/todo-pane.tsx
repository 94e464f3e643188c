import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { memo } from 'react'
import type { Todo } from '../../../store/domain.js'
import { selectTodos } from '../../../store/selectors.js'
import { useStore } from '../../hooks/use-store.js'
import { useTheme } from '../../components/theme-context.js'

const GLYPH = { pending: '☐', in_progress: '◐', completed: '☑' } as const

export interface TodoPaneProps {
  width: number
  /** Rows available, including the title row. */
  height: number
  /** Collapsed: a single line with counts and the current step. */
  compact?: boolean
}

export function todoSummary(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === 'completed').length
  const active = todos.find((t) => t.status === 'in_progress')
  return `Todos ${done}/${todos.length}${active ? ` · ◐ ${active.activeForm}` : ''}`
}

/**
 * The TodoWrite list: ☐ pending, ◐ in progress (its activeForm highlighted), ☑ completed (dim).
 * When the list is taller than the pane, the window keeps the in-progress item visible.
 */
export const TodoPane = memo(function TodoPane({ width, height, compact = false }: TodoPaneProps) {
  const { palette: p } = useTheme()
  const todos = useStore(selectTodos)
  if (todos.length === 0 || height <= 0) return null
  if (compact || height === 1) {
    return (
      <Box width={width} height={1}>
        <Text wrap="truncate" color={p.accent}>
          {todoSummary(todos)}
          {compact ? <Text dimColor> · Ctrl+T shows all</Text> : null}
        </Text>
      </Box>
    )
  }
  const rows = height - 1
  const activeIndex = Math.max(
    0,
    todos.findIndex((t) => t.status === 'in_progress'),
  )
  const start =
    todos.length <= rows ? 0 : Math.min(Math.max(0, activeIndex - Math.floor(rows / 2)), todos.length - rows)
  const visible = todos.slice(start, start + rows)
  const done = todos.filter((t) => t.status === 'completed').length
  return (
    <Box flexDirection="column" width={width} height={Math.min(height, visible.length + 1)}>
      <Text bold wrap="truncate">
        Todos {done}/{todos.length}
        {todos.length > rows ? <Text dimColor> (Ctrl+T hides)</Text> : null}
      </Text>
      {visible.map((todo, i) => (
        // Todos have no ids and may repeat their text; their position is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <TodoRow key={start + i} todo={todo} />
      ))}
    </Box>
  )
})

function TodoRow({ todo }: { todo: Todo }) {
  const { palette: p } = useTheme()
  const glyph = GLYPH[todo.status]
  if (todo.status === 'in_progress') {
    return (
      <Text wrap="truncate" color={p.warn} bold>
        {glyph} {todo.activeForm || todo.content}
      </Text>
    )
  }
  return (
    <Text wrap="truncate" dimColor={todo.status === 'completed'}>
      {glyph} {todo.content}
    </Text>
  )
}
