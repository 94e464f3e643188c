import { Box, useApp, useBoxMetrics, useWindowSize } from 'ink'
import { type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react'
import { nextMode } from '../permissions/modes.js'
import {
  selectActiveConsent,
  selectActiveQuestion,
  selectRewindOpen,
  selectTodos,
  selectTrustRequest,
  selectUi,
} from '../store/selectors.js'
import type { FlashLevel } from './commands/command-context.js'
import type { Theme } from './components/theme.js'
import { StoreContext, useCommands, useDispatch, useStore } from './hooks/use-store.js'
import { keyLabel } from './keys/bindings.js'
import {
  KEY_PRIORITY,
  useBindings,
  useDoublePressMs,
  useKeyHandler,
  useWheelHandler,
} from './keys/dispatcher.js'
import { useKeyState } from './keys/use-key-state.js'
import { ConsentPrompt } from './panes/consent/consent-prompt.js'
import { OverlayView } from './panes/help/overlay.js'
import { ModelPicker } from './model-picker.js'
import { SessionPickerOverlay } from './session-picker.js'
import { InputPane } from './panes/input/input-pane.js'
import { McpPanel } from './panes/mcp/mcp-panel.js'
import { flashRows } from './panes/input/prompt-row.js'
import { PlanDialog } from './panes/question/plan-dialog.js'
import { QuestionDialog } from './panes/question/question-dialog.js'
import { RewindDialog } from './panes/rewind/rewind-dialog.js'
import { SidePanes, sideLayout } from './panes/side-panes.js'
import type { Prices } from './panes/status/format.js'
import { StatusBar } from './panes/status/status-bar.js'
import { AgentViewer } from './panes/tasks/agent-viewer.js'
import { TaskViewer } from './panes/tasks/task-viewer.js'
import { TrustDialog } from './panes/trust/trust-dialog.js'
import { useTasksController } from './panes/tasks/use-tasks-controller.js'
import { TranscriptPane } from './panes/transcript/transcript-pane.js'
import { createTranscriptView } from './panes/transcript/transcript-view.js'
import { useTranscriptScroll } from './panes/transcript/use-transcript-scroll.js'
import { SEARCH_AWAY_HINT, useTranscriptSearch } from './panes/transcript/use-transcript-search.js'
import { useRenderingWarmUp } from './panes/transcript/warm-up.js'
import { togglePin } from './panes/transcript/pin-toggle.js'
import { createTypeAhead, type Flash, type Overlay, type ShellApi, ShellContext } from './shell-context.js'

export interface AppProps {
  contextLimit: number
  theme: Theme
  branch?: string
  prices?: Prices
  /** Shown above the input at start (e.g. a keybindings settings error). */
  startupMessage?: Flash
  /**
   * Called once when the user exits (Ctrl+D twice, Ctrl+C twice, /quit), leaves for another session
   * (`resume`: its id, picked with /resume) or for the setup form (`setup`, /login); the caller shuts down.
   */
  onExit(code: number, resume?: string, setup?: boolean): void
  /** Warm up Markdown rendering at the first key (`useRenderingWarmUp`): for a fresh process. */
  warmUp?: boolean
  /** `/doctor`'s checks (app/doctor), as lines. */
  doctor?: () => Promise<string[]>
}

/** Below this size the layout drops side panes and caps docks hard instead of failing. */
const COMPACT_ROWS = 12

/**
 * Layout only: status bar, transcript (or task viewer / overlay) with side panes, dialogs docked above
 * the input, input at the bottom. The root box is exactly the terminal size, so a frame can never be
 * taller than the screen; the transcript gets the measured remaining height.
 */
export function App({
  contextLimit,
  theme,
  branch,
  prices,
  startupMessage,
  onExit,
  warmUp = false,
  doctor,
}: AppProps) {
  const { columns, rows } = useWindowSize()
  const width = Math.max(1, columns)
  const height = Math.max(1, rows)
  const commands = useCommands()
  const dispatch = useDispatch()
  const bindings = useBindings()
  const { suspendTerminal } = useApp()
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: render the App inside <TuiRoot>')
  const ui = useStore(selectUi)
  const todos = useStore(selectTodos)
  const consent = useStore(selectActiveConsent)
  const question = useStore(selectActiveQuestion)
  const trustRequest = useStore(selectTrustRequest)
  // The trust prompt waits for an empty prompt: a message being typed must never be read as its answer.
  const [draftEmpty, setDraftEmpty] = useState(true)
  const rewindOpen = useStore(selectRewindOpen)
  const [flash, setFlash, flashRef] = useKeyState<Flash | null>(startupMessage ?? null)
  const doublePressMs = useDoublePressMs()
  const [overlay, setOverlay] = useState<Overlay | null>(null)
  const exiting = useRef(false)
  const ctrlCArmedAt = useRef(0)

  const view = useMemo(() => createTranscriptView(theme), [theme])
  useRenderingWarmUp(warmUp, theme, width)
  const scroll = useTranscriptScroll(view)

  const requestExit = useCallback(
    (code: number, resume?: string, setup?: boolean) => {
      if (exiting.current) return
      exiting.current = true
      const text = setup ? 'Opening the setup form…' : resume ? `Opening session ${resume}…` : 'Exiting…'
      setFlash({ text, level: 'info' })
      onExit(code, resume, setup)
    },
    [onExit, setFlash],
  )
  const typeAhead = useMemo(() => createTypeAhead(), [])
  const shell = useMemo<ShellApi>(
    () => ({
      contextLimit,
      typeAhead,
      prices,
      flash: (text: string, level: FlashLevel = 'info') => setFlash({ text, level }),
      hint: (text: string) => setFlash({ text, level: 'info', transient: true }),
      clearFlash: () => setFlash(null),
      showHelp: () => setOverlay({ kind: 'help' }),
      showInfo: (title: string, lines: string[]) => setOverlay({ kind: 'info', title, lines }),
      showConfirm: (confirm) => setOverlay({ kind: 'confirm', ...confirm }),
      showMcp: () => setOverlay({ kind: 'mcp' }),
      showSessions: (sessions) => setOverlay({ kind: 'sessions', sessions }),
      showModels: (models, current) => setOverlay({ kind: 'models', models, current }),
      requestExit,
      requestResume: (id: string) => requestExit(0, id),
      requestSetup: () => requestExit(0, undefined, true),
      ...(doctor ? { doctor } : {}),
    }),
    [contextLimit, prices, requestExit, setFlash, typeAhead, doctor],
  )

  // A hint such as "press again to exit" is only true until the next key or the end of the window.
  useKeyHandler(KEY_PRIORITY.observer, (ev) => {
    if (flashRef.current?.transient) setFlash(null)
    if (!ev.has('app.ctrlC')) ctrlCArmedAt.current = 0
    return false
  })
  useEffect(() => {
    if (!flash?.transient) return
    const timer = setTimeout(() => setFlash((f) => (f === flash ? null : f)), doublePressMs)
    return () => clearTimeout(timer)
  }, [flash, doublePressMs, setFlash])

  const tasksUi = useTasksController(
    (text) => setFlash({ text, level: 'warn' }),
    (event) => typeAhead.push(event),
  )
  const trustShown = trustRequest !== null && consent === undefined && question === undefined && draftEmpty
  const dialogOpen = consent !== undefined || question !== undefined || trustShown || rewindOpen
  const away = (ui.focus === 'tasks' || ui.focus === 'transcript') && !dialogOpen && overlay === null
  const inputActive = !away && !dialogOpen && overlay === null

  useKeyHandler(KEY_PRIORITY.global, (ev) => {
    // Read the store at key time: several keys can arrive before the next render.
    const now = store.getState()
    const isBusy = now.run.phase !== 'idle'
    if (ev.has('app.ctrlC')) {
      if (isBusy) commands.interrupt()
      else if (Date.now() - ctrlCArmedAt.current < doublePressMs) requestExit(0)
      else {
        ctrlCArmedAt.current = Date.now()
        shell.hint(`Press ${keyLabel(bindings, 'app.ctrlC')} again to exit`)
      }
      return true
    }
    if (ev.has('app.exit')) requestExit(0)
    else if (ev.armed.has('app.exit'))
      shell.hint(`Press ${keyLabel(bindings, 'app.exit').replace(' ×2', '')} again to exit`)
    else if (ev.has('app.interrupt')) {
      if (!isBusy) return false
      commands.interrupt()
    } else if (ev.has('app.redraw')) {
      // Hands the terminal back and forth: Ink then repaints every row from scratch.
      void suspendTerminal(() => {})
    } else if (ev.has('mode.cycle')) {
      // SAFE → AUTO → PLAN (→ the launch mode, when that was DANGEROUS or CI) → SAFE; see permissions/modes.ts.
      const change = commands.setMode(nextMode(now.mode, now.launchMode))
      if (!change.ok) setFlash({ text: change.reason, level: 'warn' })
    } else if (ev.has('bash.background')) {
      // Under tmux Ctrl+B is the prefix, so users press it twice: a repeat that finds nothing is fine.
      if (!commands.backgroundForeground() && !ev.repeat)
        setFlash({ text: 'No running command to background', level: 'info' })
    } else if (ev.has('todos.toggle')) {
      // Narrow: Ctrl+T opens the whole list, hides it, brings the one line back; beside the transcript, toggles.
      const { showTodos, todosExpanded } = now.ui
      if (side.kind !== 'stacked' || !showTodos) dispatch({ type: 'ui/todos-toggled' })
      else if (!todosExpanded) dispatch({ type: 'ui/todos-expanded', expanded: true })
      else {
        dispatch({ type: 'ui/todos-expanded', expanded: false })
        dispatch({ type: 'ui/todos-toggled' })
      }
    } else if (ev.has('transcript.expand')) {
      const target = scroll.expandTarget()
      if (target) dispatch({ type: 'ui/expand-toggled', id: target })
    } else if (ev.has('transcript.pin')) {
      const id = scroll.pinTarget()
      setFlash(togglePin(id === undefined ? undefined : now.transcript.items[id], commands))
    } else if (ev.has('help.show')) setOverlay({ kind: 'help' })
    else if (ev.has('focus.next')) {
      // Focus stays put while a dialog owns the keys.
      if (now.consent.queue.length > 0 || now.questions.queue.length > 0) return true
      if (now.ui.focus === 'tasks' || now.tasks.order.length === 0)
        dispatch({ type: 'ui/focus', focus: 'input' })
      else dispatch({ type: 'ui/focus', focus: 'tasks' })
    } else if (ev.has('transcript.pageUp')) scroll.pageUp()
    else if (ev.has('transcript.pageDown')) scroll.pageDown()
    else if (ev.has('transcript.home')) scroll.home()
    else if (ev.has('transcript.end')) scroll.end()
    else return false
    return true
  })
  // Budget: status row, then input and dock caps that always leave the transcript a few rows.
  const available = Math.max(0, height - 1)
  // While a dialog is open the prompt cannot be typed into, so it shrinks to one line and the dialog
  // gets the room (a consent preview matters more than a draft).
  const flashHeight = flash ? flashRows(flash.text, width).length : 0
  const inputMax = dialogOpen
    ? 2 + flashHeight
    : Math.max(2 + flashHeight, Math.min(14, Math.floor(available * 0.35)))
  const minTranscript = available >= COMPACT_ROWS ? 3 : 0
  const dockMax = Math.max(0, available - inputMax - minTranscript)
  const side = sideLayout({
    columns: width,
    rows: height,
    showTodos: ui.showTodos && todos.length > 0,
    taskCount: tasksUi.tasks.length,
    todoCount: todos.length,
    todosExpanded: ui.todosExpanded,
  })

  const middleRef = useRef(null)
  const middle = useBoxMetrics(middleRef)
  const mainWidth = side.kind === 'column' ? Math.max(1, width - side.width) : width
  const stackedRows = side.kind === 'stacked' ? side.rowsFor(middle.height, tasksUi.focused) : 0
  const mainHeight = Math.max(0, middle.height - stackedRows)
  const viewing = tasksUi.viewingId ? tasksUi.tasks.find((t) => t.id === tasksUi.viewingId) : undefined
  const search = useTranscriptSearch(view, theme, typeAhead, overlay === null && viewing === undefined)
  // The wheel scrolls the transcript only while it is on screen (not under the help or a task's output).
  useWheelHandler(
    (lines) => {
      scroll.scrollBy(lines)
      return true
    },
    overlay === null && viewing === undefined,
  )

  let main: ReactNode
  if (overlay?.kind === 'sessions')
    main = (
      <SessionPickerOverlay
        sessions={overlay.sessions}
        now={Date.now()}
        rows={Math.max(1, mainHeight - 4)}
        onDone={(id) => {
          setOverlay(null)
          if (id) shell.requestResume(id)
        }}
      />
    )
  else if (overlay?.kind === 'mcp')
    main = <McpPanel width={mainWidth} height={mainHeight} onClose={() => setOverlay(null)} />
  else if (overlay?.kind === 'models')
    main = (
      <ModelPicker
        models={overlay.models}
        current={overlay.current}
        rows={Math.max(1, mainHeight - 5)}
        width={mainWidth}
        onDone={(model) => {
          setOverlay(null)
          if (model && model !== overlay.current) {
            commands.setModel(model)
            setFlash({ text: `Model set to ${model}`, level: 'info' })
          }
        }}
      />
    )
  else if (overlay)
    main = (
      <OverlayView overlay={overlay} width={mainWidth} height={mainHeight} onClose={() => setOverlay(null)} />
    )
  else if (viewing?.kind === 'agent') {
    main = (
      <AgentViewer
        task={viewing}
        store={commands.agentTranscript(viewing.id)}
        theme={theme}
        width={mainWidth}
        height={mainHeight}
        confirming={tasksUi.confirmId === viewing.id}
      />
    )
  } else if (viewing) {
    main = (
      <TaskViewer
        task={viewing}
        commands={commands}
        width={mainWidth}
        height={mainHeight}
        confirming={tasksUi.confirmId === viewing.id}
      />
    )
  } else {
    // It fills the middle before it is measured too, so its rectangle is in Ink's first frame (row-surface.tsx:
    // on a terminal it grows into the layout's room; the measured height only sizes Ink's rows in tests).
    main = (
      <TranscriptPane
        view={view}
        theme={theme}
        width={mainWidth}
        height={middle.hasMeasured ? mainHeight : undefined}
        search={search}
      />
    )
  }

  return (
    <ShellContext.Provider value={shell}>
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <StatusBar width={width} contextLimit={contextLimit} branch={branch} prices={prices} theme={theme} />
        <Box
          ref={middleRef}
          flexDirection={side.kind === 'column' ? 'row' : 'column'}
          flexGrow={1}
          flexShrink={1}
          flexBasis={0}
          overflow="hidden"
        >
          {middle.hasMeasured || (!overlay && !viewing) ? main : null}
          {side.kind !== 'none' && middle.hasMeasured ? (
            <SidePanes
              layout={side}
              width={side.kind === 'column' ? side.width : width}
              height={side.kind === 'column' ? middle.height : stackedRows}
              tasksUi={tasksUi}
              middleHeight={middle.height}
            />
          ) : null}
        </Box>
        {dialogOpen && dockMax > 0 ? (
          <Box flexShrink={0} maxHeight={dockMax} overflow="hidden" flexDirection="column">
            {consent ? (
              <ConsentPrompt width={width} maxHeight={dockMax} theme={theme} />
            ) : question?.kind === 'questions' ? (
              <QuestionDialog key={question.id} request={question} width={width} maxHeight={dockMax} />
            ) : question?.kind === 'plan' ? (
              <PlanDialog
                key={question.id}
                request={question}
                width={width}
                maxHeight={dockMax}
                theme={theme}
              />
            ) : trustShown ? (
              <TrustDialog key={trustRequest.id} request={trustRequest} width={width} maxHeight={dockMax} />
            ) : rewindOpen ? (
              <RewindDialog width={width} maxHeight={dockMax} />
            ) : null}
          </Box>
        ) : null}
        <Box flexShrink={0} maxHeight={inputMax} overflow="hidden" flexDirection="column">
          <InputPane
            width={width}
            maxHeight={inputMax}
            active={inputActive}
            focusedElsewhere={away}
            {...(ui.focus === 'transcript' ? { awayHint: SEARCH_AWAY_HINT } : {})}
            flash={flash}
            onDraftEmptyChange={setDraftEmpty}
          />
        </Box>
      </Box>
    </ShellContext.Provider>
  )
}
