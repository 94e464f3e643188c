/**
 * Every painted string is cleaned: each pane is fed what a hostile model, tool, server or file would
 * write (an OSC 52 clipboard write, an OSC 8 link, a cursor move, concealed text, an RLO, zero-width
 * characters, C1 controls, a lone surrogate) and its raw frame — colours and all, as the terminal would
 * get it — must hold none of it. Ink alone keeps OSC sequences, SGR colours and bidi controls.
 */
import { render } from 'ink-testing-library'
import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createStore } from '../../../source/store/create-store.js'
import type {
  ConsentRequest,
  McpServerView,
  TaskSummary,
  TrustRequest,
} from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { StoreContext } from '../../../source/ui/hooks/use-store.js'
import { ModelPicker } from '../../../source/ui/model-picker.js'
import { ConsentPrompt } from '../../../source/ui/panes/consent/consent-prompt.js'
import { McpPanel } from '../../../source/ui/panes/mcp/mcp-panel.js'
import { PlanDialog } from '../../../source/ui/panes/question/plan-dialog.js'
import { QuestionDialog } from '../../../source/ui/panes/question/question-dialog.js'
import { StatusBar } from '../../../source/ui/panes/status/status-bar.js'
import { logRows } from '../../../source/ui/panes/tasks/log-window.js'
import { TasksPane } from '../../../source/ui/panes/tasks/tasks-pane.js'
import { TodoPane } from '../../../source/ui/panes/todo/todo-pane.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { TranscriptPane } from '../../../source/ui/panes/transcript/transcript-pane.js'
import { createTranscriptView } from '../../../source/ui/panes/transcript/transcript-view.js'
import { TrustDialog } from '../../../source/ui/panes/trust/trust-dialog.js'
import { SessionPicker } from '../../../source/ui/session-picker.js'
import { fakeCommands, makeState, makeStore, renderPane } from './helpers.js'

const ESC = '\x1b'
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=\x07`
const OSC8 = `${ESC}]8;;https://evil.example/${ESC}\\`
const RLO = '\u202e'
/** One of each: the clipboard, a link, a cursor move, concealed text, bidi, invisible, C1, a lone surrogate. */
const HOSTILE = `a${OSC52}b${OSC8}c${ESC}[2A${ESC}[8md${RLO}e\u200bf\u2066g\x9b2Jh\x9d0;t\x07i\ud800j`

/** Colours (SGR) are what Ink and our theme write themselves; nothing else of the list may remain. */
function expectClean(frame: string): void {
  const withoutColours = frame.replace(/\x1b\[[0-9;]*m/g, '')
  expect(withoutColours).not.toMatch(/\x1b/)
  expect(frame).not.toContain(`${ESC}[8m`)
  expect(frame).not.toMatch(/[\x80-\x9f]/)
  expect(frame).not.toMatch(/[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/)
  expect(frame.isWellFormed()).toBe(true)
  // The text around the hostile parts is still shown.
  expect(withoutColours).toMatch(/a.*b.*c.*d.*e.*f.*g.*h/s)
}

const theme = createTheme({ level: 1 })

function task(over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id: 'b1',
    kind: 'bash',
    command: `run ${HOSTILE}`,
    description: `job ${HOSTILE}`,
    status: 'running',
    exitCode: null,
    startedAt: Date.now(),
    endedAt: null,
    lastLine: `out ${HOSTILE}`,
    outputBytes: 1,
    logPath: '/tmp/b1.log',
    ...over,
  }
}

describe('every pane cleans what it paints', () => {
  it('transcript: a tool card title shows the RLO and OSC 52 as text, its output and the answer clean', () => {
    const state = makeState([
      { type: 'user/submitted', id: 'u1', content: 'go', text: `go ${HOSTILE}` },
      {
        type: 'assistant/settled',
        id: 'a1',
        message: {
          role: 'assistant',
          content: `Answer ${HOSTILE}\n\n\`code ${HOSTILE}\` [label ${HOSTILE}](https://x.example/${HOSTILE}) &#27;]52;c;eA==&#7; &#x202e;x`,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{}' } }],
        },
      },
      {
        type: 'tool/started',
        callId: 'c1',
        name: 'Bash',
        summary: `Bash rm evil${RLO}txt.exe ${OSC52}`,
        at: 0,
      },
      {
        type: 'tool/finished',
        callId: 'c1',
        name: 'Bash',
        summary: `Bash rm evil${RLO}txt.exe ${OSC52}`,
        status: 'done',
        content: HOSTILE,
        preview: HOSTILE,
        display: {
          kind: 'command',
          command: 'rm',
          output: `line ${HOSTILE}\nprogress 10%\rprogress 100%`,
          exitCode: 0,
          timedOut: false,
          truncated: false,
        },
        durationMs: 1,
      },
      { type: 'notice/added', id: 'n1', level: 'warn', text: `notice ${HOSTILE}` },
      {
        type: 'todos/replaced',
        todos: [{ content: `todo ${HOSTILE}`, activeForm: `doing ${HOSTILE}`, status: 'in_progress' }],
      },
    ])
    const store = createStore(state)
    const view = createTranscriptView(theme)
    const app = render(
      <StoreContext.Provider value={store}>
        <TranscriptPane view={view} theme={theme} width={200} height={30} />
      </StoreContext.Provider>,
    )
    const frame = app.lastFrame() ?? ''
    expectClean(frame)
    expect(frame).toContain(`rm evil⟨U+202E⟩txt.exe ␛]52;c;cm0gLXJmIH4=␇`)
    expect(frame).toContain('progress 100%')
    app.unmount()
    // Each item alone, expanded (the whole output), as the line cache keeps it.
    for (const id of state.transcript.order) {
      const item = state.transcript.items[id]
      if (item) expectClean(renderItemLines(item, 120, { expanded: true, theme }).join('\n'))
    }
  })

  it("transcript: a diff shows the file's escape sequences and bidi controls as text", () => {
    const state = makeState([
      {
        type: 'tool/finished',
        callId: 'c1',
        name: 'Write',
        summary: 'Write a.txt',
        status: 'done',
        content: 'ok',
        preview: 'ok',
        display: {
          kind: 'diff',
          path: 'a.txt',
          diff: `@@ -0,0 +1 @@\n+${HOSTILE}\r\n`,
          added: 1,
          removed: 0,
          created: true,
        },
        durationMs: 1,
      },
    ])
    const item = state.transcript.items.c1
    if (!item) throw new Error('no item')
    const lines = renderItemLines(item, 200, { expanded: true, theme }).join('\n')
    expectClean(lines)
    expect(lines).toContain('␛]52;c;cm0gLXJmIH4=␇')
    expect(lines).toContain('⟨U+202E⟩e')
  })

  it('consent prompt: summary, reason, command, rule and the asking subagent', () => {
    const request: ConsentRequest = {
      id: 'k1',
      callId: 'c1',
      tool: 'Bash',
      risk: 'exec',
      summary: `Bash rm evil${RLO}txt ${OSC52}`,
      reason: `asks because ${HOSTILE}`,
      preview: { kind: 'command', command: `rm ${HOSTILE}`, cwd: `/w/${HOSTILE}` },
      suggestedRule: `Bash(rm ${HOSTILE})`,
      agent: `helper ${HOSTILE}`,
      createdAt: 0,
    }
    const store = makeStore([{ type: 'consent/requested', request }])
    const r = renderPane(<ConsentPrompt width={220} maxHeight={30} theme={theme} />, {
      store,
      commands: fakeCommands({ store }),
    })
    const frame = r.lastFrame() ?? ''
    expectClean(frame)
    expect(frame).toContain('rm evil⟨U+202E⟩txt ␛]52;c;cm0gLXJmIH4=␇')
    expect(frame).toContain('$ rm a␛]52;c;cm0gLXJmIH4=␇b')
    r.unmount()
  })

  it('consent prompt: a diff and JSON arguments', () => {
    for (const preview of [
      { kind: 'diff', path: `a${RLO}.txt`, diff: `@@ -1 +1 @@\n-x\n+${HOSTILE}\n` },
      { kind: 'json', text: JSON.parse(JSON.stringify(`{"q": "${HOSTILE}"}`)) as string },
      { kind: 'url', url: `https://x.example/${HOSTILE}`, address: HOSTILE },
    ] as const) {
      const request: ConsentRequest = {
        id: 'k1',
        callId: 'c1',
        tool: 'Write',
        risk: 'edit',
        summary: 'Write a.txt',
        reason: 'safe mode asks',
        preview,
        suggestedRule: 'Edit(a.txt)',
        createdAt: 0,
      }
      const store = makeStore([{ type: 'consent/requested', request }])
      const r = renderPane(<ConsentPrompt width={220} maxHeight={30} theme={theme} />, {
        store,
        commands: fakeCommands({ store }),
      })
      expectClean(r.lastFrame() ?? '')
      r.unmount()
    }
  })

  it('tasks pane: a job command, its description and last output line, a subagent doing', () => {
    const tasks = [
      task(),
      task({
        id: 'a1',
        kind: 'agent',
        agent: { type: `explore ${HOSTILE}`, steps: 1, tokens: 10, tool: `Grep ${HOSTILE}` },
      }),
    ]
    const store = makeStore()
    const r = renderPane(
      <TasksPane tasks={tasks} width={220} height={10} focused selectedId="b1" confirmId={null} />,
      { store, commands: fakeCommands({ store }) },
    )
    expectClean(r.lastFrame() ?? '')
    r.unmount()
  })

  it('task viewer: the log rows', () => {
    const rows = logRows(`first ${HOSTILE}\nbar 10%\rbar 100% ${HOSTILE}\n`, 300)
    expectClean(rows.join('\n'))
    expect(rows[1]).toMatch(/^bar 100% /)
  })

  it('todo pane, whole and as one line', () => {
    const store = makeStore([
      {
        type: 'todos/replaced',
        todos: [
          { content: `first ${HOSTILE}`, activeForm: `doing ${HOSTILE}`, status: 'in_progress' },
          { content: `next ${HOSTILE}`, activeForm: '', status: 'pending' },
        ],
      },
    ])
    for (const compact of [false, true]) {
      const r = renderPane(<TodoPane width={220} height={6} compact={compact} />, {
        store,
        commands: fakeCommands(),
      })
      expectClean(r.lastFrame() ?? '')
      r.unmount()
    }
  })

  it('status bar: the model name from the endpoint, the git branch, the working directory', () => {
    const actions: Action[] = [{ type: 'model/changed', model: `model ${HOSTILE}` }]
    const store = createStore({
      ...makeState(actions),
      session: { ...makeState(actions).session, cwd: `/w/${HOSTILE}` },
    })
    const r = renderPane(
      <StatusBar theme={theme} width={300} contextLimit={1000} branch={`main${HOSTILE}`} />,
      {
        store,
        commands: fakeCommands(),
      },
    )
    expectClean(r.lastFrame() ?? '')
    r.unmount()
  })

  it('MCP panel: server names, commands, errors, tools and prompts from the server', () => {
    const server: McpServerView = {
      name: `srv${HOSTILE}`,
      source: `.mcp.json${HOSTILE}`,
      transport: 'stdio',
      target: `npx ${HOSTILE}`,
      status: 'needs_auth',
      error: `failed: ${HOSTILE}`,
      authUrl: `https://x.example/${HOSTILE}`,
      tools: [`mcp__srv__t${HOSTILE}`],
      resources: false,
      prompts: [
        { command: 'mcp__srv__p', name: 'p', usage: `/mcp__srv__p ${HOSTILE}`, description: HOSTILE },
      ],
    }
    const store = makeStore([{ type: 'mcp/servers', servers: [server] }])
    const r = renderPane(<McpPanel width={300} height={20} onClose={() => undefined} />, {
      store,
      commands: fakeCommands(),
    })
    expectClean(r.lastFrame() ?? '')
    r.unmount()
  })

  it('question and plan dialogs: what the model asks and plans', () => {
    const question = {
      id: 'q1',
      kind: 'questions' as const,
      callId: 'c1',
      createdAt: 0,
      questions: [
        {
          question: `Which ${HOSTILE}?`,
          header: `Head ${HOSTILE}`,
          multiSelect: false,
          options: [{ label: `one ${HOSTILE}`, description: `desc ${HOSTILE}` }],
        },
      ],
    }
    const store = makeStore([{ type: 'question/requested', request: question }])
    const q = renderPane(<QuestionDialog request={question} width={220} maxHeight={20} />, {
      store,
      commands: fakeCommands({ store }),
    })
    expectClean(q.lastFrame() ?? '')
    q.unmount()
    const plan = {
      id: 'p1',
      kind: 'plan' as const,
      callId: 'c2',
      createdAt: 0,
      plan: `# Plan ${HOSTILE}\n\n- step ${HOSTILE} &#27;]52;c;eA==&#7;`,
    }
    const p = renderPane(<PlanDialog request={plan} width={220} maxHeight={20} theme={theme} />, {
      store,
      commands: fakeCommands({ store }),
    })
    expectClean(p.lastFrame() ?? '')
    p.unmount()
  })

  it("trust dialog: what the repository's files bring", () => {
    const request: TrustRequest = {
      id: 't1',
      folder: `~/code/${HOSTILE}`,
      parent: null,
      broad: false,
      current: 'undecided',
      groups: [{ title: 'MCP servers', items: [`db (npx ${HOSTILE})`], files: [`.mcp.json${HOSTILE}`] }],
      createdAt: 0,
    }
    const store = makeStore([{ type: 'trust/requested', request }])
    const r = renderPane(<TrustDialog request={request} width={220} maxHeight={20} />, {
      store,
      commands: fakeCommands({ store }),
    })
    expectClean(r.lastFrame() ?? '')
    r.unmount()
  })

  it('resume picker and model picker: session titles, model ids from the endpoint', () => {
    const sessions = [{ id: 's1', title: `title ${HOSTILE}`, updatedAt: 0, messages: 1 }]
    const s = render(<SessionPicker sessions={sessions} now={0} rows={5} onDone={() => undefined} />)
    expectClean(s.lastFrame() ?? '')
    s.unmount()
    const store = makeStore()
    const m = renderPane(
      <ModelPicker models={[`model ${HOSTILE}`]} current="x" rows={5} width={220} onDone={() => undefined} />,
      { store, commands: fakeCommands() },
    )
    expectClean(m.lastFrame() ?? '')
    m.unmount()
  })
})
