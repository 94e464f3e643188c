import { useContext, useMemo } from 'react'
import type { TaskSummary } from '../../../store/domain.js'
import { listTasks, selectTasksState, selectUi } from '../../../store/selectors.js'
import { StoreContext, useCommands, useDispatch, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, type KeyEvent, useKeyHandler } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'

export interface TasksUi {
  tasks: TaskSummary[]
  focused: boolean
  selectedId: string | null
  /** Task awaiting "Stop b1? (y/n)". */
  confirmId: string | null
  /** Task shown in the live-tail viewer. */
  viewingId: string | null
  closeViewer(): void
}

/**
 * Keyboard and selection state of the tasks pane and its viewer. Lives above both because the
 * viewer takes the transcript's place while the list stays in the side column.
 */
export function useTasksController(
  onError: (message: string) => void,
  onTypeAhead: (event: KeyEvent) => void = () => undefined,
): TasksUi {
  const store = useContext(StoreContext)
  const tasksState = useStore(selectTasksState)
  const tasks = useMemo(() => listTasks(tasksState), [tasksState])
  const ui = useStore(selectUi)
  const dispatch = useDispatch()
  const commands = useCommands()
  const [selectedId, setSelectedId, selectedRef] = useKeyState<string | null>(null)
  const [confirmId, setConfirmId, confirmRef] = useKeyState<string | null>(null)
  const [viewingId, setViewingId, viewingRef] = useKeyState<string | null>(null)
  const focused = ui.focus === 'tasks'
  // Default to the newest task; a selection that disappeared falls back the same way.
  const pick = (list: TaskSummary[], id: string | null) =>
    list.find((t) => t.id === id) ?? list.at(-1) ?? null
  const selected = pick(tasks, selectedId)
  const viewing = viewingId !== null && tasks.some((t) => t.id === viewingId) ? viewingId : null

  const stop = (id: string) => {
    setConfirmId(null)
    commands.stopTask(id).catch((error: unknown) => {
      onError(`Could not stop ${id}: ${error instanceof Error ? error.message : String(error)}`)
    })
  }

  useKeyHandler(
    KEY_PRIORITY.pane,
    (ev) => {
      // Read the store and refs at key time: several keys may arrive before the next render.
      const current = store ? listTasks(store.getState().tasks) : tasks
      const sel = pick(current, selectedRef.current)
      const view = current.some((t) => t.id === viewingRef.current) ? viewingRef.current : null
      const confirming = confirmRef.current
      if (confirming !== null) {
        if (ev.has('tasks.confirm')) stop(confirming)
        else setConfirmId(null)
        return true
      }
      const hasFocus = store ? store.getState().ui.focus === 'tasks' : focused
      if (ev.has('tasks.back')) {
        // Esc from the pane or its job view goes back to the prompt, in one press.
        setViewingId(null)
        if (hasFocus) dispatch({ type: 'ui/focus', focus: 'input' })
        return true
      }
      // A job view left open while the prompt has the focus takes Esc only: what is typed is the prompt's.
      if (!hasFocus) return false
      if (ev.has('tasks.stop')) {
        const target = view ?? sel?.id
        const status = current.find((t) => t.id === target)?.status
        if (target && status === 'running') setConfirmId(target)
        else if (target) onError(`${target} is not running`)
        return true
      }
      if (ev.has('tasks.browse')) {
        const target = view ?? sel?.id
        if (target) commands.openTaskUrl(target)
        return true
      }
      const index = sel ? current.indexOf(sel) : -1
      if (!view && sel && ev.has('tasks.up')) setSelectedId(current[Math.max(0, index - 1)]?.id ?? null)
      else if (!view && sel && ev.has('tasks.down'))
        setSelectedId(current[Math.min(current.length - 1, index + 1)]?.id ?? null)
      else if (!view && sel && ev.has('tasks.open')) setViewingId(sel.id)
      else if (isTyping(ev)) {
        // Typing that is not one of the pane's keys is meant for the prompt: it gets the focus and the keys.
        dispatch({ type: 'ui/focus', focus: 'input' })
        onTypeAhead(ev)
      } else return false
      return true
    },
    focused || viewing !== null || confirmId !== null,
  )

  return {
    tasks,
    focused,
    selectedId: selected?.id ?? null,
    confirmId,
    viewingId: viewing,
    closeViewer: () => setViewingId(null),
  }
}

/** A printable key without Ctrl or Meta: text typed, not a command. */
function isTyping(ev: KeyEvent): boolean {
  return ev.input !== '' && !ev.key.ctrl && !ev.key.meta && !/[\x00-\x1f\x7f]/.test(ev.input)
}
