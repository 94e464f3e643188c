import { Box } from 'ink'
import { Text } from '../components/text.js'
import { TasksPane, tasksPaneWantedRows } from './tasks/tasks-pane.js'
import type { TasksUi } from './tasks/use-tasks-controller.js'
import { TodoPane } from './todo/todo-pane.js'
import { useTheme } from '../components/theme-context.js'

/** From this width the side panes sit right of the transcript; below it they stack underneath. */
export const SIDE_COLUMN_MIN_WIDTH = 100

export type SideLayout =
  | { kind: 'none' }
  | { kind: 'column'; width: number; showTodos: boolean; taskCount: number }
  | {
      kind: 'stacked'
      showTodos: boolean
      /** The todo pane shows its list rather than one line (Ctrl+T). */
      todosExpanded: boolean
      taskCount: number
      rowsFor(available: number, tasksFocused: boolean): number
      /** Rows of the todo pane within `rowsFor`'s rows. */
      todoRowsFor(available: number): number
    }

/**
 * Where the todo and tasks panes go. Hidden when empty; a column on wide terminals; one line each under
 * the transcript on narrow ones (the tasks pane opens up while it has focus); nothing on tiny ones.
 */
export function sideLayout(opts: {
  columns: number
  rows: number
  showTodos: boolean
  taskCount: number
  /** Todos in the list (the expanded narrow pane is as tall as they need, up to half the middle). */
  todoCount?: number
  todosExpanded?: boolean
}): SideLayout {
  const { columns, rows, showTodos, taskCount } = opts
  const todosExpanded = showTodos && (opts.todosExpanded ?? false)
  if (!showTodos && taskCount === 0) return { kind: 'none' }
  if (columns >= SIDE_COLUMN_MIN_WIDTH && rows >= 10) {
    return {
      kind: 'column',
      width: Math.max(28, Math.min(48, Math.floor(columns * 0.3))),
      showTodos,
      taskCount,
    }
  }
  if (rows < 10) return { kind: 'none' }
  const half = (available: number) => Math.max(0, Math.floor(available / 2))
  // Expanded, the list takes what it needs up to half the middle, leaving the tasks their line.
  const todoRowsFor = (available: number) =>
    !showTodos
      ? 0
      : todosExpanded
        ? Math.max(1, Math.min((opts.todoCount ?? 0) + 1, half(available) - (taskCount > 0 ? 1 : 0)))
        : 1
  return {
    kind: 'stacked',
    showTodos,
    todosExpanded,
    taskCount,
    todoRowsFor,
    rowsFor(available, tasksFocused) {
      const todoRows = todoRowsFor(available)
      const taskRows =
        taskCount === 0
          ? 0
          : tasksFocused
            ? Math.min(tasksPaneWantedRows(taskCount, true), Math.max(1, Math.floor(available / 2)))
            : 1
      // Never take more than half of the middle area: the transcript is the point of the screen.
      return Math.min(todoRows + taskRows, Math.max(0, Math.floor(available / 2)))
    },
  }
}

export interface SidePanesProps {
  layout: Exclude<SideLayout, { kind: 'none' }>
  /** Columns for the panes: the column width, or the full terminal width when stacked. */
  width: number
  /** Rows for the panes: the full middle height for a column, the stacked rows otherwise. */
  height: number
  tasksUi: TasksUi
  /** The whole middle area's height (stacked: the todo pane's share is figured from it). */
  middleHeight?: number
}

export function SidePanes({ layout, width, height, tasksUi, middleHeight }: SidePanesProps) {
  const { palette: p } = useTheme()
  const { tasks, focused, selectedId, confirmId } = tasksUi
  if (layout.kind === 'stacked') {
    const todoRows = Math.min(height, layout.todoRowsFor(middleHeight ?? height * 2))
    const taskRows = tasks.length === 0 ? 0 : Math.max(0, height - todoRows)
    return (
      <Box flexDirection="column" height={height} flexShrink={0} overflow="hidden">
        {layout.showTodos ? (
          <TodoPane width={width} height={todoRows} compact={!layout.todosExpanded} />
        ) : null}
        {taskRows > 0 ? (
          <TasksPane
            tasks={tasks}
            width={width}
            height={taskRows}
            focused={focused}
            selectedId={selectedId}
            confirmId={confirmId}
            compact={!focused && confirmId === null}
          />
        ) : null}
      </Box>
    )
  }
  // A left rule plus one space of padding separate the column from the transcript.
  const inner = Math.max(1, width - 2)
  const wantTasks = tasksPaneWantedRows(tasks.length, focused || confirmId !== null)
  const tasksRows = layout.showTodos ? Math.min(wantTasks, Math.floor(height / 2)) : height
  const spacer = tasks.length > 0 && layout.showTodos ? 1 : 0
  const todoRows = Math.max(0, height - tasksRows - spacer)
  return (
    <Box
      flexDirection="column"
      width={width}
      height={height}
      flexShrink={0}
      overflow="hidden"
      borderStyle="single"
      borderTop={false}
      borderBottom={false}
      borderRight={false}
      borderColor={p.border}
      paddingLeft={1}
    >
      {layout.showTodos ? <TodoPane width={inner} height={todoRows} /> : null}
      {spacer ? <Text> </Text> : null}
      {tasks.length > 0 ? (
        <TasksPane
          tasks={tasks}
          width={inner}
          height={tasksRows}
          focused={focused}
          selectedId={selectedId}
          confirmId={confirmId}
        />
      ) : null}
    </Box>
  )
}
