import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { MODES, type Mode, type TaskSummary } from '../../../source/store/domain.js'
import { listTasks } from '../../../source/store/selectors.js'
import { createTheme, modeBadge } from '../../../source/ui/components/theme.js'
import { contextPercent, formatTokens, shortenPath } from '../../../source/ui/panes/status/format.js'
import { StatusBar } from '../../../source/ui/panes/status/status-bar.js'
import { logRows } from '../../../source/ui/panes/tasks/log-window.js'
import { TaskViewer } from '../../../source/ui/panes/tasks/task-viewer.js'
import { TasksPane, tasksFooter } from '../../../source/ui/panes/tasks/tasks-pane.js'
import { useTasksController } from '../../../source/ui/panes/tasks/use-tasks-controller.js'
import { TodoPane } from '../../../source/ui/panes/todo/todo-pane.js'
import { useCommands } from '../../../source/ui/hooks/use-store.js'
import { fakeCommands, KEYS, makeStore, renderPane, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

function task(id: string, over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id,
    kind: 'bash',
    command: `npm run job-${id}`,
    status: 'running',
    exitCode: null,
    startedAt: Date.now() - 65_000,
    endedAt: null,
    lastLine: `last line of ${id}`,
    outputBytes: 10,
    logPath: `/tmp/${id}.log`,
    ...over,
  }
}

describe('StatusBar', () => {
  it.each(MODES)('shows the %s badge', (mode: Mode) => {
    const store = makeStore([], mode)
    const r = renderPane(<StatusBar theme={theme} width={100} contextLimit={1000} />, {
      store,
      commands: fakeCommands(),
    })
    expect(r.frame()).toContain(` ${mode.toUpperCase()} `)
    r.unmount()
  })

  it.each([
    ['off', false, undefined],
    ['checking', false, '⛨ sandbox…'],
    ['on', false, '⛨ sandbox'],
    ['on', true, '⛨ sandbox+net'],
    ['unavailable', false, '⛨ no sandbox'],
  ] as const)(
    'shows the sandbox %s (network %s) as %s, right after the mode badge',
    (status, network, badge) => {
      const store = makeStore([{ type: 'sandbox/changed', sandbox: { status, network } }], 'auto')
      const r = renderPane(<StatusBar theme={theme} width={80} contextLimit={1000} />, {
        store,
        commands: fakeCommands(),
      })
      const frame = r.frame()
      if (badge === undefined) expect(frame).not.toContain('⛨')
      else expect(frame).toMatch(new RegExp(`^ AUTO  ${badge.replace(/[+.]/g, '\\$&')}( ·|$)`, 'm'))
      r.unmount()
    },
  )

  it('keeps the sandbox badge when a narrow terminal drops the rest', () => {
    const store = makeStore([{ type: 'sandbox/changed', sandbox: { status: 'on', network: false } }], 'auto')
    const r = renderPane(<StatusBar theme={theme} width={24} contextLimit={1000} />, {
      store,
      commands: fakeCommands(),
    })
    expect(r.frame()).toContain(' AUTO  ⛨ sandbox')
    r.unmount()
  })

  it('gives each mode its own colour (ANSI is off in tests, so check the badge table it renders from)', () => {
    const looks = new Set(MODES.map((m) => `${modeBadge(m).color}/${modeBadge(m).backgroundColor ?? ''}`))
    expect(looks.size).toBe(MODES.length)
  })

  it('shows the context meter, cached share, tokens, model and cwd', () => {
    const usage: Action = {
      type: 'usage/recorded',
      usage: { input: 25_000, output: 1200, cached: 20_000 },
      contextTokens: 25_000,
    }
    const r = renderPane(<StatusBar theme={theme} width={100} contextLimit={100_000} branch="main" />, {
      store: makeStore([usage]),
      commands: fakeCommands(),
    })
    const frame = r.frame()
    expect(frame).toContain('ctx 25% (80% cached)')
    expect(frame).toContain('25k↑ 1.2k↓')
    expect(frame).toContain('test-model')
    expect(frame).toContain('/tmp/project (main)')
    expect(frame).not.toContain('$')
    r.unmount()
  })

  it('adds a cost estimate when prices are known', () => {
    const usage: Action = {
      type: 'usage/recorded',
      usage: { input: 1_000_000, output: 100_000, cached: 0 },
      contextTokens: 10,
    }
    const r = renderPane(
      <StatusBar
        theme={theme}
        width={120}
        contextLimit={100_000}
        prices={{ inputPerMillion: 1, outputPerMillion: 10 }}
      />,
      { store: makeStore([usage]), commands: fakeCommands() },
    )
    expect(r.frame()).toContain('$2.00')
    r.unmount()
  })

  it('shows the spinner and phase only while busy', async () => {
    const store = makeStore()
    const r = renderPane(<StatusBar theme={theme} width={100} contextLimit={1000} />, {
      store,
      commands: fakeCommands(),
    })
    expect(r.frame()).not.toContain('thinking')
    store.dispatch({ type: 'turn/started', turnId: 't1', at: Date.now() })
    await waitFor(() => r.frame().includes('thinking 0s'), r.frame)
    store.dispatch({ type: 'turn/ended', result: { kind: 'completed', text: '', steps: 1 } })
    await waitFor(() => !r.frame().includes('thinking'), r.frame)
    r.unmount()
  })

  it('says "waiting for you" while a question or plan approval waits inside a running tool', async () => {
    const store = makeStore([
      { type: 'turn/started', turnId: 't1', at: Date.now() },
      { type: 'phase/changed', phase: 'tools' },
    ])
    const r = renderPane(<StatusBar theme={theme} width={100} contextLimit={1000} />, {
      store,
      commands: fakeCommands(),
    })
    await waitFor(() => r.frame().includes('running tools'), r.frame)
    store.dispatch({
      type: 'question/requested',
      request: { id: 'q1', kind: 'plan', callId: 'x', plan: 'do it', createdAt: 0 },
    })
    await waitFor(() => r.frame().includes('waiting for you'), r.frame)
    store.dispatch({ type: 'question/resolved', id: 'q1' })
    await waitFor(() => r.frame().includes('running tools'), r.frame)
    r.unmount()
  })

  it('drops low-priority segments instead of wrapping on narrow terminals', () => {
    const r = renderPane(<StatusBar theme={theme} width={30} contextLimit={1000} />, {
      store: makeStore(),
      commands: fakeCommands(),
    })
    const lines = r.frame().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('SAFE')
    r.unmount()
  })

  it('formats helpers', () => {
    expect(contextPercent(50, 200)).toBe(25)
    expect(contextPercent(500, 200)).toBe(100)
    expect(formatTokens(999)).toBe('999')
    expect(formatTokens(12_345)).toBe('12k')
    expect(formatTokens(2_500_000)).toBe('2.5M')
    expect(shortenPath('/home/me/src/app', 40, '/home/me')).toBe('~/src/app')
    expect(shortenPath('/very/long/path/to/some/project', 16, '/home/me')).toBe('…/some/project')
  })
})

describe('TodoPane', () => {
  it('shows ☐ ◐ ☑ with the in-progress activeForm', () => {
    const store = makeStore([
      {
        type: 'todos/replaced',
        todos: [
          { content: 'Write tests', status: 'completed', activeForm: 'Writing tests' },
          { content: 'Fix bug', status: 'in_progress', activeForm: 'Fixing the bug' },
          { content: 'Ship it', status: 'pending', activeForm: 'Shipping' },
        ],
      },
    ])
    const r = renderPane(<TodoPane width={40} height={10} />, { store, commands: fakeCommands() })
    const frame = r.frame()
    expect(frame).toContain('Todos 1/3')
    expect(frame).toContain('☑ Write tests')
    expect(frame).toContain('◐ Fixing the bug')
    expect(frame).toContain('☐ Ship it')
    r.unmount()
  })

  it('renders nothing without todos and one line when compact', () => {
    const empty = renderPane(<TodoPane width={40} height={10} />, {
      store: makeStore(),
      commands: fakeCommands(),
    })
    expect(empty.frame()).toBe('')
    empty.unmount()
    const store = makeStore([
      { type: 'todos/replaced', todos: [{ content: 'A', status: 'in_progress', activeForm: 'Doing A' }] },
    ])
    const compact = renderPane(<TodoPane width={60} height={5} compact />, {
      store,
      commands: fakeCommands(),
    })
    expect(compact.frame()).toBe('Todos 0/1 · ◐ Doing A · Ctrl+T shows all')
    compact.unmount()
  })
})

/** The tasks pane and viewer wired to the controller, as the app does. */
function TasksHarness({ width = 80 }: { width?: number }) {
  const ui = useTasksController(() => {})
  const commands = useCommands()
  const viewing = ui.tasks.find((t) => t.id === ui.viewingId)
  if (viewing) {
    return (
      <TaskViewer
        task={viewing}
        commands={commands}
        width={width}
        height={8}
        confirming={ui.confirmId === viewing.id}
      />
    )
  }
  return (
    <TasksPane
      tasks={ui.tasks}
      width={width}
      height={10}
      focused={ui.focused}
      selectedId={ui.selectedId}
      confirmId={ui.confirmId}
    />
  )
}

describe('tasks pane', () => {
  const actions: Action[] = [
    {
      type: 'task/updated',
      task: task('b1', {
        ports: [
          { address: '0.0.0.0', port: 3000, reachable: true, url: 'http://localhost:3000/', seen: 'socket' },
        ],
      }),
    },
    { type: 'task/updated', task: task('b2', { status: 'completed', exitCode: 0, endedAt: Date.now() }) },
    { type: 'ui/focus', focus: 'tasks' },
  ]

  it('lists id, status, runtime, command, ports and last line', () => {
    const store = makeStore(actions)
    const tasks = listTasks(store.getState().tasks)
    const r = renderPane(
      <TasksPane tasks={tasks} width={80} height={10} focused={false} selectedId={null} confirmId={null} />,
      { store, commands: fakeCommands() },
    )
    const frame = r.frame()
    expect(frame).toContain('Tasks 1 running / 2')
    // The port column comes before the command, so a narrow row cuts the command first.
    expect(frame).toMatch(/b1 running 1m \d+s :3000 npm run job-b1/)
    expect(frame).toContain('http://localhost:3000/ · last line of b1')
    expect(frame).toContain('b2 completed')
    r.unmount()
  })

  it('marks a port the host cannot reach, and offers no URL for it', () => {
    const sandboxed = task('b1', {
      ports: [{ address: '127.0.0.1', port: 5173, reachable: false, seen: 'socket' }],
    })
    const r = renderPane(
      <TasksPane tasks={[sandboxed]} width={80} height={10} focused selectedId="b1" confirmId={null} />,
      { store: makeStore([]), commands: fakeCommands() },
    )
    const frame = r.frame()
    expect(frame).toMatch(/b1 running 1m \d+s :5173 unreachable npm run job-b1/)
    expect(frame).toContain("127.0.0.1:5173 is inside the sandbox's own network · last line of b1")
    expect(frame).not.toContain('o browser')
    r.unmount()
  })

  it('names the listening jobs in the one-line pane', () => {
    const store = makeStore(actions)
    const r = renderPane(
      <TasksPane
        tasks={listTasks(store.getState().tasks)}
        width={80}
        height={1}
        focused={false}
        selectedId={null}
        confirmId={null}
      />,
      { store, commands: fakeCommands() },
    )
    expect(r.frame()).toBe('Tasks 1 running / 2 · b1 :3000 · Tab to focus')
    r.unmount()
  })

  it.each([
    [80, true, '↑↓ select · Enter open · o browser · k stop · Esc back'],
    [34, true, 'Enter · o url · k stop · Esc back'],
    [80, false, '↑↓ select · Enter open · k stop · Esc back'],
    [34, false, 'Enter open · k stop · Esc back'],
    // The side column at 100 columns.
    [29, true, 'o url · k stop · Esc back'],
    [29, false, 'Enter · k stop · Esc back'],
  ])('at %i columns (a URL: %s) the footer is "%s"', (width, hasUrl, footer) => {
    expect(tasksFooter(width, hasUrl)).toBe(footer)
    expect(footer.length).toBeLessThanOrEqual(width)
  })

  it("o asks the runtime to open the selected job's URL", async () => {
    const store = makeStore(actions)
    const commands = fakeCommands({ store })
    const r = renderPane(<TasksHarness />, { store, commands })
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('▸ b1'), r.frame)
    await waitFor(() => r.frame().includes('o browser'), r.frame)
    r.stdin.write('o')
    await waitFor(() => commands.named('openTaskUrl').length === 1)
    expect(commands.named('openTaskUrl')).toEqual([['b1']])
    // From the job's output view too.
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('Esc back · k stop · o browser'), r.frame)
    r.stdin.write('o')
    await waitFor(() => commands.named('openTaskUrl').length === 2)
    r.unmount()
  })

  it('keeps "Esc back" in the footer in the side column (34 wide at 120 columns)', () => {
    const store = makeStore(actions)
    const tasks = listTasks(store.getState().tasks)
    const r = renderPane(
      <TasksPane tasks={tasks} width={34} height={10} focused selectedId="b1" confirmId={null} />,
      { store, commands: fakeCommands() },
    )
    // b1 listens: its footer has `o` too.
    expect(r.frame()).toContain('Enter · o url · k stop · Esc back')
    r.unmount()
  })

  it('selects with ↑/↓ and stops with k then y', async () => {
    const store = makeStore(actions)
    const commands = fakeCommands({ store })
    const r = renderPane(<TasksHarness />, { store, commands })
    await waitFor(() => r.frame().includes('▸ b2'), r.frame)
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('▸ b1'), r.frame)
    r.stdin.write('k')
    await waitFor(() => r.frame().includes('Stop b1? (y/n)'), r.frame)
    expect(commands.named('stopTask')).toEqual([])
    r.stdin.write('y')
    await waitFor(() => commands.named('stopTask').length === 1)
    expect(commands.named('stopTask')).toEqual([['b1']])
    await waitFor(() => !r.frame().includes('Stop b1?'), r.frame)
    r.unmount()
  })

  it('any key but y cancels the stop', async () => {
    const store = makeStore(actions)
    const commands = fakeCommands({ store })
    const r = renderPane(<TasksHarness />, { store, commands })
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('▸ b1'), r.frame)
    r.stdin.write('k')
    await waitFor(() => r.frame().includes('Stop b1?'), r.frame)
    r.stdin.write('n')
    await waitFor(() => !r.frame().includes('Stop b1?'), r.frame)
    expect(commands.named('stopTask')).toEqual([])
    r.unmount()
  })

  it('Enter opens the live tail (polling readTaskLog) and Esc goes back', async () => {
    const store = makeStore(actions)
    const commands = fakeCommands({ store, taskLog: 'line one\nserver listening on :3000\n' })
    const r = renderPane(<TasksHarness />, { store, commands })
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('▸ b1'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('server listening on :3000'), r.frame)
    expect(commands.named('readTaskLog')[0]).toEqual(['b1', 64 * 1024])
    // It keeps polling while open and the task runs.
    await waitFor(() => commands.named('readTaskLog').length >= 2)
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.frame().includes('Tasks 1 running'), r.frame)
    const polls = commands.named('readTaskLog').length
    // Closed: no more polls. Waiting for another frame keeps this free of fixed sleeps.
    store.dispatch({ type: 'task/updated', task: task('b3') })
    await waitFor(() => r.frame().includes('Tasks 2 running'), r.frame)
    expect(commands.named('readTaskLog').length).toBeLessThanOrEqual(polls + 1)
    r.unmount()
  })

  it("PgUp/PgDn/Home/End scroll the job's output, reading earlier pieces of the log as needed", async () => {
    // 4,000 lines (~60 KB before the tail window): far more than the first read of the tail brings.
    const log = Array.from({ length: 4000 }, (_, i) => `output line ${String(i + 1).padStart(4, '0')}`).join(
      '\n',
    )
    const store = makeStore(actions)
    const commands = fakeCommands({ store, taskLog: `${log}\n` })
    const r = renderPane(<TasksHarness />, { store, commands })
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('▸ b1'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('output line 4000'), r.frame)
    r.stdin.write(KEYS.pageUp)
    await waitFor(() => r.frame().includes('output line 3994'), r.frame)
    expect(r.frame()).not.toContain('output line 4000')
    expect(r.frame()).toContain('End follows the output')
    // Home: the start of the log, read from the file (it is not in the tail that was loaded).
    r.stdin.write(KEYS.home)
    await waitFor(() => r.frame().includes('output line 0001'), r.frame)
    expect(commands.named('readTaskLog')).toContainEqual(['b1', 64 * 1024, { from: 0 }])
    r.stdin.write(KEYS.pageDown)
    await waitFor(() => r.frame().includes('output line 0008'), r.frame)
    r.stdin.write(KEYS.end)
    await waitFor(() => r.frame().includes('output line 4000'), r.frame)
    r.unmount()
  })

  it('shows a log wrapped, honouring carriage returns', () => {
    expect(logRows('a\nb\nprogress 10%\rprogress 90%\n', 80)).toEqual(['a', 'b', 'progress 90%'])
    expect(logRows('abcdefgh', 4)).toEqual(['abcd', 'efgh'])
  })
})
