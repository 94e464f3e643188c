import { describe, expect, it } from 'vitest'
import type { AgentListing } from '../../../source/agent/runtime/commands.js'
import type { Action } from '../../../source/store/actions.js'
import type { ConsentRequest, TaskSummary } from '../../../source/store/domain.js'
import { listTasks } from '../../../source/store/selectors.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { ConsentPrompt } from '../../../source/ui/panes/consent/consent-prompt.js'
import { agentLines } from '../../../source/ui/commands/info-lines.js'
import { TasksPane } from '../../../source/ui/panes/tasks/tasks-pane.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderPane, renderSized, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

function agentTask(over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id: 'a1',
    kind: 'agent',
    command: 'explore agent: Find the tests',
    description: 'Find the tests',
    status: 'running',
    exitCode: null,
    startedAt: Date.now() - 12_000,
    endedAt: null,
    lastLine: '✓ Glob **/*.test.ts (4 ms)',
    outputBytes: 30,
    logPath: '/tmp/a1.log',
    agent: { type: 'explore', tool: 'Grep "describe("', steps: 3, tokens: 4150 },
    ...over,
  }
}

const shellJob: TaskSummary = {
  id: 'b1',
  kind: 'bash',
  command: 'npm run dev',
  owner: 'a1',
  status: 'running',
  exitCode: null,
  startedAt: Date.now(),
  endedAt: null,
  lastLine: 'ready on :3000',
  outputBytes: 1,
  logPath: '/tmp/b1.log',
}

describe('background subagents in the tasks pane', () => {
  it('shows description, current tool, steps, tokens and elapsed time; a job it started names it', () => {
    const store = makeStore([
      { type: 'task/updated', task: agentTask() },
      { type: 'task/updated', task: shellJob },
    ])
    const r = renderPane(
      <TasksPane
        tasks={listTasks(store.getState().tasks)}
        width={90}
        height={10}
        focused={false}
        selectedId={null}
        confirmId={null}
      />,
      { store, commands: fakeCommands() },
    )
    const frame = r.frame()
    expect(frame).toMatch(/a1 running 1\ds Find the tests/)
    expect(frame).toContain('explore · step 3 · 4.2k tok · Grep "describe("')
    expect(frame).toContain('[a1] ready on :3000')
    r.unmount()
  })

  it('Enter shows its live transcript (read-only), k and y stop it', async () => {
    const child = makeStore([
      { type: 'user/submitted', id: 'u1', content: 'find the tests', text: 'find the tests' },
      { type: 'assistant/delta', id: 'x1', text: 'Looking in test/ first.' },
    ])
    const store = makeStore([{ type: 'task/updated', task: agentTask() }])
    const commands = fakeCommands({ store, transcripts: { a1: child } })
    const r = renderSized(
      <TuiRoot
        store={store}
        commands={commands}
        contextLimit={100_000}
        theme={theme}
        onExit={() => undefined}
      />,
      120,
      30,
    )
    const frame = () => r.frame()
    r.stdin.write(KEYS.tab)
    await waitFor(() => store.getState().ui.focus === 'tasks')
    r.stdin.write(KEYS.enter)
    await waitFor(() => frame().includes('Looking in test/ first.'), frame)
    expect(frame()).toContain('find the tests')
    expect(frame()).toContain('read-only transcript')
    // Live: what the subagent streams next shows up.
    child.dispatch({ type: 'assistant/delta', id: 'x1', text: ' Found 12 files.' })
    await waitFor(() => frame().includes('Found 12 files.'), frame)
    r.stdin.write('k')
    await waitFor(() => frame().includes('Stop a1 and the jobs it started? (y/n)'), frame)
    r.stdin.write('y')
    await waitFor(() => commands.named('stopTask').length === 1)
    expect(commands.named('stopTask')).toEqual([['a1']])
    r.stdin.write(KEYS.esc)
    await waitFor(() => !frame().includes('read-only transcript'), frame)
    r.instance.unmount()
  })
})

describe('consent for a subagent', () => {
  it('says which subagent asks', () => {
    const request: ConsentRequest = {
      id: 'c1',
      callId: 'k1',
      tool: 'Write',
      risk: 'edit',
      summary: 'Write out.txt',
      reason: 'safe mode asks before edits',
      preview: { kind: 'none' },
      suggestedRule: 'Write(out.txt)',
      agent: 'general-purpose a2 · Write the file',
      createdAt: 0,
    }
    const store = makeStore([{ type: 'consent/requested', request }])
    const r = renderPane(<ConsentPrompt width={100} maxHeight={20} theme={theme} />, {
      store,
      commands: fakeCommands({ store }),
    })
    expect(r.frame()).toContain('Subagent general-purpose a2 · Write the file asks:')
    expect(r.frame()).toContain('Write out.txt (edit)')
    r.unmount()
  })
})

describe('/agents and /cost', () => {
  const listing: AgentListing = {
    current: 'build',
    agents: [
      { name: 'build', description: 'Default', source: 'built-in', tools: 'every tool', mainOnly: true },
      {
        name: 'reviewer',
        description: 'Reviews diffs',
        source: 'project',
        file: '.agent-tui/agents/reviewer.md',
        tools: 'Read, Grep',
        model: 'small',
        maxTurns: 8,
        mainOnly: false,
      },
    ],
    problems: [
      { file: '.agent-tui/agents/bad.md', field: 'max_turns', message: 'expected a number', skipped: true },
    ],
  }

  it('lists the agents with where they come from, their tools, and the files with problems', () => {
    const lines = agentLines(listing).join('\n')
    expect(lines).toContain('runs as build')
    expect(lines).toMatch(/● build\s+Default/)
    expect(lines).toContain(
      'project · .agent-tui/agents/reviewer.md · tools: Read, Grep · model small · at most 8 turns',
    )
    expect(lines).toContain('.agent-tui/agents/bad.md: "max_turns": expected a number (agent not loaded)')
  })

  it("a plugin's long name has a line of its own; its description starts in the column, never against it", () => {
    const long = 'pr-review-toolkit:code-reviewer'
    const lines = agentLines({
      ...listing,
      agents: [
        ...listing.agents,
        {
          name: long,
          description: 'Reviews code',
          source: 'plugin:pr-review-toolkit',
          tools: 'every tool',
          mainOnly: false,
        },
      ],
    })
    const at = lines.indexOf(`  ${long}`)
    expect(at).toBeGreaterThan(0)
    expect(lines[at + 1]).toBe(`${' '.repeat(28)}Reviews code`)
    expect(lines.join('\n')).toMatch(/ {2}reviewer {2,}Reviews diffs/)
  })

  async function runCommand(line: string, actions: Action[] = []) {
    const store = makeStore(actions)
    const commands = fakeCommands({ store, agents: listing })
    const r = renderSized(
      <TuiRoot
        store={store}
        commands={commands}
        contextLimit={100_000}
        theme={theme}
        onExit={() => undefined}
      />,
      120,
      30,
    )
    r.stdin.write(line)
    await waitFor(() => r.frame().includes(line), r.frame)
    r.stdin.write(KEYS.enter)
    return { r, store, commands }
  }

  it('/agents shows the list; /agents NAME switches the main agent', async () => {
    const a = await runCommand('/agents')
    await waitFor(() => a.r.frame().includes('Reviews diffs'), a.r.frame)
    a.r.instance.unmount()
    const b = await runCommand('/agents reviewer')
    await waitFor(() => b.commands.named('switchAgent').length === 1)
    expect(b.commands.named('switchAgent')).toEqual([['reviewer']])
    await waitFor(() => b.r.frame().includes('now runs as the reviewer agent'), b.r.frame)
    b.r.instance.unmount()
  })

  it("/cost shows the subagents' share of the session", async () => {
    const { r } = await runCommand('/cost', [
      { type: 'usage/recorded', usage: { input: 1000, output: 100, cached: 0 }, contextTokens: 1000 },
      { type: 'usage/subagent', usage: { input: 4000, output: 300, cached: 0 }, agent: 'explore' },
    ])
    await waitFor(() => r.frame().includes('Of it subagents'), r.frame)
    expect(r.frame()).toMatch(/Session\s+5k in \(0 cached\) · 400 out/)
    expect(r.frame()).toMatch(/Of it subagents\s+4k in \(0 cached\) · 300 out/)
    r.instance.unmount()
  })
})
