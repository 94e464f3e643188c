import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import type { Store } from '../../../source/store/create-store.js'
import type { McpServerView, Mode, TaskSummary } from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { INIT_PROMPT } from '../../../source/ui/commands/builtin-commands.js'
import { type FakeCommands, fakeCommands, KEYS, makeStore, renderSized, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })
const dir = mkdtempSync(join(tmpdir(), 'agent-tui-app-'))
writeFileSync(join(dir, 'README.md'), '# hi')
writeFileSync(join(dir, 'shot.png'), 'png')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function task(id: string): TaskSummary {
  return {
    id,
    kind: 'bash',
    command: 'npm run dev',
    status: 'running',
    exitCode: null,
    startedAt: Date.now(),
    endedAt: null,
    lastLine: 'ready on :3000',
    outputBytes: 1,
    logPath: '/tmp/b1.log',
    ports: [
      { address: '0.0.0.0', port: 3000, reachable: true, url: 'http://localhost:3000/', seen: 'socket' },
    ],
  }
}

const BUSY: Action[] = [{ type: 'turn/started', turnId: 't1', at: Date.now() }]

function start(
  opts: {
    actions?: Action[]
    mode?: Mode
    columns?: number
    rows?: number
    store?: Store
    commands?: Omit<Parameters<typeof fakeCommands>[0], 'store'>
    terminalInput?: boolean
  } = {},
) {
  const store = opts.store ?? makeStore(opts.actions ?? [], opts.mode)
  // The session cwd drives @path completion and image paths.
  store.dispatch({
    type: 'session/started',
    session: { ...store.getState().session, cwd: dir },
    mode: store.getState().mode,
  })
  const commands = fakeCommands({ store, ...opts.commands })
  const exits: number[] = []
  const resumed: string[] = []
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={100_000}
      theme={theme}
      branch="main"
      doublePressMs={60_000}
      onExit={(code, resume) => {
        exits.push(code)
        if (resume) resumed.push(resume)
      }}
    />,
    opts.columns ?? 120,
    opts.rows ?? 30,
    { terminalInput: opts.terminalInput ?? false },
  )
  const waitFrame = (text: string) => waitFor(() => r.frame().includes(text), r.frame)
  const type = async (text: string) => {
    r.stdin.write(text)
    await waitFrame(text.split('\n').at(-1) ?? text)
  }
  return { ...r, store, commands, exits, resumed, waitFrame, type }
}

const submitted = (commands: FakeCommands) => commands.named('submit').map((args) => args[0])

describe('layout', () => {
  it.each([
    [140, 40],
    [90, 28],
  ])('renders exactly %i×%i (rows) with panes, tasks and a consent prompt', async (columns, rows) => {
    const actions: Action[] = [
      {
        type: 'todos/replaced',
        todos: [{ content: 'Do it', status: 'in_progress', activeForm: 'Doing it' }],
      },
      { type: 'task/updated', task: task('b1') },
      { type: 'user/submitted', id: 'u1', content: 'hello', text: 'hello' },
      {
        type: 'consent/requested',
        request: {
          id: 'c1',
          callId: 'x',
          tool: 'Bash',
          risk: 'exec',
          summary: 'Run tests',
          reason: 'SAFE mode asks',
          preview: {
            kind: 'command',
            command: Array.from({ length: 6 }, (_, i) => `echo ${i}`).join('\n'),
            cwd: dir,
          },
          suggestedRule: 'Bash(echo *)',
          createdAt: 0,
        },
      },
    ]
    const r = start({ actions, columns, rows })
    await r.waitFrame('Allow once')
    await r.waitFrame('hello')
    const lines = r.frame().split('\n')
    expect(lines).toHaveLength(rows)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns)
    expect(r.frame()).toContain('Todos')
    expect(r.frame()).toContain('Tasks 1 running')
    r.instance.unmount()
  })

  it('keeps the consent options visible when the preview is long', async () => {
    const command = Array.from({ length: 60 }, (_, i) => `echo ${i}`).join('\n')
    const r = start({
      columns: 90,
      rows: 28,
      actions: [
        {
          type: 'consent/requested',
          request: {
            id: 'c1',
            callId: 'x',
            tool: 'Bash',
            risk: 'exec',
            summary: 'Run',
            reason: 'SAFE mode asks',
            preview: { kind: 'command', command, cwd: dir },
            suggestedRule: 'Bash(echo *)',
            createdAt: 0,
          },
        },
      ],
    })
    // The preview gets the room: the answers go on one line by their short names.
    await r.waitFrame('Esc deny')
    expect(r.frame()).toContain('more lines')
    expect(r.frame()).toContain('1 once  2 session  3 always  Esc deny')
    expect(r.frame().split('\n')).toHaveLength(28)
    r.instance.unmount()
  })

  it('runs no interval timer while idle; the spinner timer lives only while busy', async () => {
    const setSpy = vi.spyOn(globalThis, 'setInterval')
    const clearSpy = vi.spyOn(globalThis, 'clearInterval')
    try {
      const r = start()
      await r.waitFrame('SAFE')
      expect(setSpy).not.toHaveBeenCalled()
      r.store.dispatch({ type: 'turn/started', turnId: 't1', at: Date.now() })
      await r.waitFrame('thinking')
      expect(setSpy).toHaveBeenCalledTimes(1)
      r.store.dispatch({ type: 'turn/ended', result: { kind: 'completed', text: '', steps: 1 } })
      await waitFor(() => !r.frame().includes('thinking'), r.frame)
      expect(clearSpy).toHaveBeenCalledTimes(1)
      r.instance.unmount()
    } finally {
      setSpy.mockRestore()
      clearSpy.mockRestore()
    }
  })

  it('side panes sit right of the transcript on wide terminals and stack on narrow ones', async () => {
    const actions: Action[] = [
      {
        type: 'todos/replaced',
        todos: [{ content: 'Write docs', status: 'pending', activeForm: 'Writing docs' }],
      },
      { type: 'user/submitted', id: 'u1', content: 'first message', text: 'first message' },
    ]
    const wide = start({ actions, columns: 140, rows: 30 })
    await wide.waitFrame('☐ Write docs')
    const wideLine =
      wide
        .frame()
        .split('\n')
        .find((l) => l.includes('☐ Write docs')) ?? ''
    expect(wideLine.indexOf('☐')).toBeGreaterThan(80)
    wide.instance.unmount()
    const narrow = start({ actions, columns: 90, rows: 30 })
    await narrow.waitFrame('Todos 0/1')
    expect(narrow.frame()).not.toContain('☐ Write docs')
    narrow.instance.unmount()
  })

  it('below 100 columns Ctrl+T cycles the todo pane: one line → the whole list → hidden → one line', async () => {
    const todos = ['Read the code', 'Ask about the colour', 'Write the file', 'Run the tests', 'Summarise']
    const actions: Action[] = [
      {
        type: 'todos/replaced',
        todos: todos.map((content, i) => ({
          content,
          status: i === 0 ? 'completed' : i === 1 ? 'in_progress' : 'pending',
          activeForm: `${content}…`,
        })),
      },
      { type: 'task/updated', task: task('b1') },
    ]
    const r = start({ actions, columns: 80, rows: 24 })
    await r.waitFrame('Todos 1/5 · ◐ Ask about the colour… · Ctrl+T shows all')
    expect(r.frame()).not.toContain('☐ Run the tests')
    r.stdin.write(KEYS.ctrl('t'))
    await r.waitFrame('☐ Run the tests')
    const frame = r.frame()
    for (const content of ['☑ Read the code', '◐ Ask about the colour…', '☐ Write the file', '☐ Summarise'])
      expect(frame).toContain(content)
    // The tasks pane keeps its line, and the frame its size.
    expect(frame).toContain('Tasks 1 running')
    expect(frame.split('\n')).toHaveLength(24)
    r.stdin.write(KEYS.ctrl('t'))
    await waitFor(() => !r.frame().includes('Todos'), r.frame)
    r.stdin.write(KEYS.ctrl('t'))
    await r.waitFrame('Todos 1/5 · ◐')
    expect(r.frame()).not.toContain('☐ Run the tests')
    r.instance.unmount()
  })

  it('re-lays out on resize and survives tiny terminals', async () => {
    const r = start({ columns: 120, rows: 30, actions: [{ type: 'task/updated', task: task('b1') }] })
    await r.waitFrame('SAFE')
    r.stdout.columns = 30
    r.stdout.rows = 5
    r.stdout.emit('resize')
    await waitFor(() => r.frame().split('\n').length === 5, r.frame)
    r.stdout.columns = 10
    r.stdout.rows = 2
    r.stdout.emit('resize')
    await waitFor(() => r.frame().split('\n').length === 2, r.frame)
    r.instance.unmount()
  })
})

describe('input', () => {
  it('types, edits and submits with Enter; Ctrl+J and \\+Enter add lines', async () => {
    const r = start()
    await r.type('helo')
    r.stdin.write(KEYS.left)
    await r.type('l')
    await r.waitFrame('hello')
    r.stdin.write(KEYS.end)
    r.stdin.write(KEYS.ctrl('j'))
    await r.type('world\\')
    r.stdin.write(KEYS.enter)
    await r.type('!')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toEqual({ text: 'hello\nworld\n!' })
    await waitFor(() => !r.frame().includes('world'), r.frame)
    r.instance.unmount()
  })

  it('submits typed text that arrives in one read together with Enter (the terminal stand-in splits it)', async () => {
    const r = start({ terminalInput: true })
    r.stdin.write('fix the greeting please\r')
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toEqual({ text: 'fix the greeting please' })
    r.instance.unmount()
  })

  it('Enter while busy submits; the queued message shows above the prompt until it is sent', async () => {
    const r = start({ actions: BUSY })
    await r.type('also check the docs')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)).toEqual([{ text: 'also check the docs' }])
    // What the runtime does with it: it is queued, then sent at the next step.
    r.store.dispatch({ type: 'queue/added', message: { id: 'q1', text: 'also check the docs', images: 0 } })
    await r.waitFrame('⧗ also check the docs')
    expect(r.frame()).toContain('1 queued for the next step · ↑ edits')
    r.store.dispatch({ type: 'queue/removed', ids: ['q1'] })
    await waitFor(() => !r.frame().includes('queued'), r.frame)
    r.instance.unmount()
  })

  it('↑ takes a queued message back to edit; Esc while busy interrupts and puts it back in the prompt', async () => {
    const queued = [{ text: 'first thought' }]
    const r = start({ actions: BUSY, commands: { queued } })
    r.store.dispatch({ type: 'queue/added', message: { id: 'q1', text: 'first thought', images: 0 } })
    await r.waitFrame('⧗ first thought')
    r.stdin.write(KEYS.up)
    await r.waitFrame('❯ first thought')
    expect(r.frame()).not.toContain('⧗')
    expect(r.commands.named('interrupt')).toEqual([])

    r.stdin.write(KEYS.ctrl('u'))
    await r.waitFrame('❯  Message')
    queued.push({ text: 'second thought' })
    r.store.dispatch({ type: 'queue/added', message: { id: 'q2', text: 'second thought', images: 0 } })
    await r.waitFrame('⧗ second thought')
    await r.type('draft')
    r.stdin.write(KEYS.esc)
    await r.waitFrame('❯ second thought')
    expect(r.frame()).toContain('draft')
    expect(r.frame()).toContain('back in the prompt')
    expect(r.commands.named('interrupt')).toEqual([[]])
    expect(r.store.getState().queued).toEqual([])
    r.instance.unmount()
  })

  it('↑/↓ browse history and Ctrl+R searches it', async () => {
    const r = start()
    for (const text of ['npm test', 'git status']) {
      await r.type(text)
      r.stdin.write(KEYS.enter)
      await waitFor(() => !r.frame().includes(`❯ ${text}`), r.frame)
    }
    r.stdin.write(KEYS.up)
    await r.waitFrame('❯ git status')
    r.stdin.write(KEYS.up)
    await r.waitFrame('❯ npm test')
    r.stdin.write(KEYS.down)
    await r.waitFrame('❯ git status')
    r.stdin.write(KEYS.down)
    await waitFor(() => !r.frame().includes('❯ git status'), r.frame)
    r.stdin.write(KEYS.ctrl('r'))
    await r.waitFrame('(search)')
    r.stdin.write('npm')
    await r.waitFrame('(search) npm: npm test')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('❯ npm test')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 3)
    expect(submitted(r.commands)[2]).toEqual({ text: 'npm test' })
    r.instance.unmount()
  })

  it('a large paste becomes a chip, never submits, and is expanded on submit', async () => {
    const r = start()
    const big = Array.from({ length: 12 }, (_, i) => `log line ${i}`).join('\n')
    r.stdin.write(KEYS.paste(big))
    await r.waitFrame('[Pasted text #1 +12 lines]')
    expect(submitted(r.commands)).toEqual([])
    await r.type(' explain')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toEqual({ text: `${big} explain` })
    r.instance.unmount()
  })

  it('a small multi-line paste is inserted as text and does not submit', async () => {
    const r = start()
    r.stdin.write(KEYS.paste('one\ntwo'))
    await r.waitFrame('two')
    expect(submitted(r.commands)).toEqual([])
    r.instance.unmount()
  })

  it('a pasted image path becomes an [Image #1] chip sent as an attachment', async () => {
    const r = start()
    r.stdin.write(KEYS.paste(join(dir, 'shot.png')))
    await r.waitFrame('[Image #1]')
    await r.type(' what is this?')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(r.commands.named('loadImage')).toEqual([[join(dir, 'shot.png')]])
    expect(submitted(r.commands)[0]).toEqual({
      text: '[Image #1] what is this?',
      images: [{ path: join(dir, 'shot.png'), url: 'data:image/png;base64,AAAA' }],
    })
    r.instance.unmount()
  })

  it('!cmd runs a shell command', async () => {
    const r = start()
    await r.type('!ls -la')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('runShell').length === 1)
    expect(r.commands.named('runShell')).toEqual([['ls -la']])
    expect(submitted(r.commands)).toEqual([])
    r.instance.unmount()
  })

  it('@ completes file paths from the session directory', async () => {
    const r = start()
    await r.type('read @RE')
    await r.waitFrame('@README.md')
    r.stdin.write(KEYS.tab)
    await r.waitFrame('❯ read @README.md')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toEqual({ text: 'read @README.md ' })
    r.instance.unmount()
  })
})

describe('slash commands', () => {
  it('shows the completion popup and runs the highlighted command with Enter', async () => {
    const r = start()
    await r.type('/co')
    await r.waitFrame('/compact')
    await r.waitFrame('/cost')
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Cost')
    await r.waitFrame('Session')
    r.instance.unmount()
  })

  it('/mode auto calls setMode', async () => {
    const r = start()
    await r.type('/mode auto')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('setMode').length === 1)
    expect(r.commands.named('setMode')).toEqual([['auto']])
    await r.waitFrame('AUTO')
    r.instance.unmount()
  })

  it('/mode dangerous is refused in-app', async () => {
    const r = start()
    await r.type('/mode dangerous')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('can only be chosen when starting')
    expect(r.commands.named('setMode')).toEqual([])
    r.instance.unmount()
  })

  it('runs the wired commands', async () => {
    const r = start({ actions: [{ type: 'task/updated', task: task('b1') }] })
    const run = async (line: string) => {
      await r.type(line)
      r.stdin.write(KEYS.enter)
    }
    await run('/plan')
    await waitFor(() => r.commands.named('setMode').length === 1)
    expect(r.commands.named('setMode')[0]).toEqual(['plan'])
    await run('/model gpt-x')
    await waitFor(() => r.commands.named('setModel').length === 1)
    expect(r.commands.named('setModel')[0]).toEqual(['gpt-x'])
    await run('/clear')
    await waitFor(() => r.commands.named('clear').length === 1)
    await run('/export /tmp/out.md')
    await r.waitFrame('Transcript exported to /tmp/out.md')
    await run('/image shot.png what is it')
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toMatchObject({ text: 'what is it', images: [{ path: 'shot.png' }] })
    await run('/compact')
    await r.waitFrame('Nothing to compact — nothing to summarise yet')
    await run('/todos')
    await waitFor(() => !r.store.getState().ui.showTodos)
    await run('/bashes')
    await waitFor(() => r.store.getState().ui.focus === 'tasks')
    r.instance.unmount()
  })

  it('/mcp shows the servers live; r restarts and a signs in to the selected one; MCP prompts are commands', async () => {
    const r = start()
    const servers: McpServerView[] = [
      {
        name: 'docs',
        source: '.mcp.json',
        transport: 'stdio',
        target: 'npx docs-mcp',
        status: 'connected',
        tools: ['mcp__docs__search'],
        resources: false,
        prompts: [
          {
            command: 'mcp__docs__summarize',
            name: 'summarize',
            description: 'Summarise a topic',
            usage: '/mcp__docs__summarize <topic>',
          },
        ],
      },
      {
        name: 'remote',
        source: '~/.config/agent-tui/settings.json',
        transport: 'http',
        target: 'https://mcp.example.com/mcp',
        status: 'connecting',
        tools: [],
        resources: false,
        prompts: [],
      },
    ]
    r.store.dispatch({ type: 'mcp/servers', servers })
    await r.type('/mcp')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('MCP servers')
    expect(r.frame()).toMatch(/❯ docs +connected +1 tool · 1 prompt +\(\.mcp\.json\)/)
    expect(r.frame()).toContain('tools: mcp__docs__search')
    // The status is live: the panel follows the store.
    r.store.dispatch({
      type: 'mcp/servers',
      servers: [
        servers[0] as McpServerView,
        {
          ...(servers[1] as McpServerView),
          status: 'needs_auth',
          authUrl: 'https://auth.example.com/authorize?x',
        },
      ],
    })
    r.stdin.write(KEYS.down)
    await r.waitFrame('sign in at: https://auth.example.com/authorize?x')
    r.stdin.write('a')
    await waitFor(() => r.commands.named('authenticateMcpServer').length === 1)
    r.stdin.write('r')
    await waitFor(() => r.commands.named('reconnectMcpServer').length === 1)
    expect(r.commands.named('authenticateMcpServer')).toEqual([['remote']])
    expect(r.commands.named('reconnectMcpServer')).toEqual([['remote']])
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('MCP servers'), r.frame)

    // The server's prompt completes like a command and runs through the runtime.
    await r.type('/mcp__d')
    await r.waitFrame('Summarise a topic (MCP prompt of docs)')
    await r.type('ocs__summarize rate limits')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('runMcpPrompt').length === 1)
    expect(r.commands.named('runMcpPrompt')).toEqual([['mcp__docs__summarize', 'rate limits']])
    r.instance.unmount()
  })

  it('/permissions lists every rule in force with its source, deny first', async () => {
    const r = start({
      commands: {
        rules: {
          allow: [
            { text: 'Bash(npm test *)', source: '.agent-tui/settings.json' },
            { text: 'Edit(src/**)', source: 'this session' },
          ],
          ask: [],
          deny: [{ text: 'Read(~/.ssh/**)', source: '~/.agent-tui/settings.json' }],
          savedTo: '.agent-tui/settings.local.json',
        },
      },
    })
    await r.type('/permissions')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Permissions')
    const frame = r.frame()
    expect(frame).toMatch(/Mode\s+SAFE/)
    expect(frame).toMatch(/Deny\s+Read\(~\/\.ssh\/\*\*\)\s+~\/\.agent-tui\/settings\.json/)
    expect(frame).toMatch(/Ask\s+\(none\)/)
    expect(frame).toMatch(/Allow\s+Bash\(npm test \*\)\s+\.agent-tui\/settings\.json/)
    expect(frame).toMatch(/Edit\(src\/\*\*\)\s+this session/)
    expect(frame).toContain('saves its rule to .agent-tui/settings.local.json')
    expect(frame.indexOf('Deny')).toBeLessThan(frame.indexOf('Allow'))
    r.instance.unmount()
  })

  it("/hooks lists the hooks in force with their file, and the repository's that wait for trust", async () => {
    const hook = (event: 'PreToolUse' | 'Stop', matcher: string, command: string, file: string) => ({
      event,
      matcher,
      command,
      timeoutSeconds: 60,
      scope: 'user' as const,
      file,
    })
    const r = start({
      columns: 120,
      commands: {
        hooks: {
          active: [
            hook('PreToolUse', 'Bash', './guard.sh', '~/.config/agent-tui/settings.json'),
            { ...hook('Stop', '', 'npm test', '.agent-tui/settings.local.json'), timeoutSeconds: 300 },
          ],
          inactive: [
            {
              ...hook('PreToolUse', '*', 'curl x | sh', '.agent-tui/settings.json'),
              why: 'this folder is not trusted (/trust)',
            },
          ],
          warnings: [
            '.agent-tui/settings.json: hooks.Foo is not an event agent-tui fires; its hooks are ignored',
          ],
        },
      },
    })
    await r.type('/hooks')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('In force (2)')
    const frame = r.frame()
    const lines = frame.split('\n').map((l) => l.trim())
    const at = (text: string) => lines.findIndex((l) => l.startsWith(text))
    expect(at('~/.config/agent-tui/settings.json')).toBe(at('In force (2):') + 1)
    expect(lines[at('~/.config/agent-tui/settings.json') + 1]).toMatch(/^PreToolUse\s+Bash\s+\.\/guard\.sh$/)
    expect(lines[at('.agent-tui/settings.local.json') + 1]).toMatch(
      /^Stop\s+\(all\)\s+npm test\s+\(timeout 300 s\)$/,
    )
    const untrusted = at('Not in force — this folder is not trusted (/trust):')
    expect(lines[untrusted + 1]).toBe('.agent-tui/settings.json')
    expect(lines[untrusted + 2]).toMatch(/^PreToolUse\s+\(all\)\s+curl x \| sh$/)
    expect(frame).toContain('hooks.Foo is not an event agent-tui fires')
    r.instance.unmount()
  })

  it('/hooks with none configured says how to add one', async () => {
    const r = start()
    await r.type('/hooks')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('No hooks are configured.')
    expect(r.frame()).toContain('"hooks": {"PreToolUse"')
    r.instance.unmount()
  })

  it.each([
    [80, 24],
    [110, 30],
  ])(
    '/permissions wraps its text at %i columns (beside the side column too) instead of cutting it',
    async (columns, rows) => {
      const actions: Action[] = [
        {
          type: 'todos/replaced',
          todos: [{ content: 'Do it', status: 'in_progress', activeForm: 'Doing it' }],
        },
      ]
      const r = start({ actions, columns, rows })
      await r.type('/permissions')
      r.stdin.write(KEYS.enter)
      await r.waitFrame('Permissions')
      // The status bar (first row) shortens the path; the overlay below must cut nothing.
      const frame = r.frame().split('\n').slice(1).join('\n')
      expect(frame).not.toContain('…')
      const joined = frame.replace(/│.*$/gm, '').replace(/\s+/g, ' ')
      expect(joined).toContain(
        '"Allow always" saves its rule to .agent-tui/settings.local.json; edit the settings files to remove rules.',
      )
      r.instance.unmount()
    },
  )

  it("/model lists the endpoint's models to pick from: typing filters, Enter switches, Esc leaves", async () => {
    const models = { models: ['gpt-4o', 'gpt-4o-mini', 'test-model', 'qwen2.5-coder-32b'] }
    const r = start({ commands: { models } })
    await r.type('/model')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Switch model')
    expect(r.frame()).toContain('❯ test-model (current)')
    expect(r.frame()).toContain('qwen2.5-coder-32b')
    r.stdin.write('mini')
    await waitFor(() => !r.frame().includes('qwen2.5'), r.frame)
    expect(r.frame()).toContain('1 of 4 models')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Model set to gpt-4o-mini')
    expect(r.commands.named('setModel')).toEqual([['gpt-4o-mini']])
    expect(r.store.getState().session.model).toBe('gpt-4o-mini')

    await r.type('/model')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Switch model')
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('Switch model'), r.frame)
    expect(r.commands.named('setModel')).toHaveLength(1)
    r.instance.unmount()
  })

  it('/memory lists the instruction files; /memory add saves a line; /init asks the agent for AGENTS.md', async () => {
    const r = start({
      commands: {
        memory: [
          { path: 'AGENTS.md', lines: 12 },
          { path: 'CLAUDE.md', lines: null },
        ],
      },
    })
    await r.type('/memory')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Read into the system prompt')
    expect(r.frame()).toMatch(/AGENTS\.md\s+12 lines/)
    expect(r.frame()).toMatch(/CLAUDE\.md\s+not there/)
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('Read into the system prompt'), r.frame)

    await r.type('/memory add tests need docker')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Remembered in .agent-tui/memory.md')
    expect(r.commands.named('addMemory')).toEqual([['tests need docker']])

    await r.type('/memory forget it')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Usage: /memory')
    expect(r.commands.named('addMemory')).toHaveLength(1)

    await r.type('/init')
    r.stdin.write(KEYS.enter)
    await waitFor(() => submitted(r.commands).length === 1)
    expect(submitted(r.commands)[0]).toEqual({ text: INIT_PROMPT })
    r.instance.unmount()
  })

  it('/rewind opens the rewind dialog when idle, and says why not while the agent works', async () => {
    const r = start()
    await r.type('/rewind')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('No turns yet: nothing to rewind.')
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.store.getState().ui.rewind === false, r.frame)
    r.store.dispatch({ type: 'turn/started', turnId: 't1', at: Date.now() })
    await r.type('/rewind')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('press Esc to interrupt it, then /rewind')
    expect(r.store.getState().ui.rewind).toBe(false)
    r.instance.unmount()
  })

  it('/resume lists the other sessions; Esc stays, Enter leaves for the one picked', async () => {
    const now = Date.now()
    const r = start({
      commands: {
        sessions: [
          { id: '20260101-100000-aaaaaa', title: 'newer work', updatedAt: now - 120_000 },
          { id: '20251231-090000-bbbbbb', title: 'older work', updatedAt: now - 2 * 86_400_000 },
        ],
      },
    })
    await r.type('/resume')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Resume a session of this directory')
    expect(r.frame()).toMatch(/❯ 2 min\s+newer work 20260101-100000-aaaaaa/)
    expect(r.frame()).toMatch(/2 d\s+older work/)
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('Resume a session'), r.frame)
    expect(r.exits).toEqual([])

    await r.type('/resume')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('Resume a session of this directory')
    r.stdin.write(KEYS.down)
    await waitFor(() => /❯ 2 d\s+older work/.test(r.frame()), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.exits.length === 1, r.frame)
    expect(r.resumed).toEqual(['20251231-090000-bbbbbb'])
    r.instance.unmount()
  })

  it('/resume says so when there is nothing else to resume, or the id matches nothing, or a turn runs', async () => {
    const r = start({
      commands: { sessions: [{ id: '20260101-100000-aaaaaa', title: 'work', updatedAt: 1 }] },
    })
    await r.type('/resume nope')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('No other session "nope" in this directory')
    r.store.dispatch({ type: 'turn/started', turnId: 't1', at: Date.now() })
    await r.type('/resume')
    r.stdin.write(KEYS.enter)
    await r.waitFrame('press Esc to interrupt it, then /resume')
    expect(r.exits).toEqual([])
    r.instance.unmount()

    const busy = start({
      actions: [{ type: 'task/updated', task: task('b1') }],
      commands: { sessions: [{ id: '20260101-100000-aaaaaa', title: 'work', updatedAt: 1 }] },
    })
    await busy.type('/resume')
    busy.stdin.write(KEYS.enter)
    await busy.waitFrame('Background jobs still run (b1)')
    expect(busy.commands.named('listSessions')).toEqual([])
    busy.instance.unmount()

    const empty = start()
    await empty.type('/resume')
    empty.stdin.write(KEYS.enter)
    await empty.waitFrame('No other sessions in this directory')
    empty.instance.unmount()
  })

  it('/quit shuts down through onExit', async () => {
    const r = start()
    await r.type('/quit')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.exits.length === 1)
    expect(r.exits).toEqual([0])
    r.instance.unmount()
  })

  it('/help and ? show the help overlay generated from the bindings', async () => {
    const r = start()
    r.stdin.write('?')
    await r.waitFrame('Keys and commands')
    await waitFor(() => /Ctrl\+T\s+Todo pane: show\/hide/.test(r.frame()), r.frame)
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('Keys and commands'), r.frame)
    // With text in the prompt, ? is just a character.
    await r.type('why?')
    expect(r.frame()).not.toContain('Keys and commands')
    r.instance.unmount()
  })
})

describe('global keys', () => {
  it('Shift+Tab cycles SAFE → AUTO → PLAN → SAFE via setMode', async () => {
    const r = start()
    for (const label of ['AUTO', 'PLAN', 'SAFE']) {
      r.stdin.write(KEYS.shiftTab)
      await r.waitFrame(` ${label} `)
    }
    expect(r.commands.named('setMode')).toEqual([['auto'], ['plan'], ['safe']])
    r.instance.unmount()
  })

  it('Ctrl+C interrupts when busy, then clears the input, then exits on a double press', async () => {
    const r = start({ actions: BUSY })
    await r.type('draft text')
    r.stdin.write(KEYS.ctrl('c'))
    await waitFor(() => r.commands.named('interrupt').length === 1)
    expect(r.frame()).toContain('draft text')
    r.store.dispatch({ type: 'turn/ended', result: { kind: 'interrupted', text: '', steps: 1 } })
    await waitFor(() => !r.frame().includes('thinking'), r.frame)
    r.stdin.write(KEYS.ctrl('c'))
    await waitFor(() => !r.frame().includes('draft text'), r.frame)
    expect(r.exits).toEqual([])
    r.stdin.write(KEYS.ctrl('c'))
    await r.waitFrame('again to exit')
    expect(r.exits).toEqual([])
    r.stdin.write(KEYS.ctrl('c'))
    await waitFor(() => r.exits.length === 1)
    expect(r.commands.named('interrupt')).toHaveLength(1)
    r.instance.unmount()
  })

  it('Ctrl+D twice exits', async () => {
    const r = start()
    r.stdin.write(KEYS.ctrl('d'))
    await r.waitFrame('again to exit')
    expect(r.exits).toEqual([])
    r.stdin.write(KEYS.ctrl('d'))
    await waitFor(() => r.exits.length === 1)
    r.instance.unmount()
  })

  it('Esc interrupts a running step; Esc Esc clears the input when idle', async () => {
    const busy = start({ actions: BUSY })
    busy.stdin.write(KEYS.esc)
    await waitFor(() => busy.commands.named('interrupt').length === 1)
    busy.instance.unmount()
    const idle = start()
    await idle.type('some text')
    idle.stdin.write(KEYS.esc)
    await idle.waitFrame('Esc again')
    idle.stdin.write(KEYS.esc)
    await waitFor(() => !idle.frame().includes('some text'), idle.frame)
    expect(idle.commands.named('interrupt')).toEqual([])
    idle.instance.unmount()
  })

  it('Esc Esc on an empty idle prompt opens /rewind; not after an Esc that interrupted the agent', async () => {
    const turns = [
      {
        id: 'turn-1',
        number: 1,
        prompt: 'make the change',
        files: ['a.txt'],
        skipped: [],
        code: true,
        conversation: true,
      },
    ]
    const idle = start({
      actions: [{ type: 'user/submitted', id: 'u1', content: 'x', text: 'x', turnId: 'turn-1' }],
      commands: { rewindTurns: turns },
    })
    idle.stdin.write(KEYS.esc)
    await idle.waitFrame('Press Esc again to rewind')
    idle.stdin.write(KEYS.esc)
    await idle.waitFrame('Rewind — go back to the start of a turn')
    expect(idle.frame()).toContain('❯ 1. “make the change”')
    idle.stdin.write(KEYS.esc)
    await waitFor(() => !idle.frame().includes('Rewind — go back'), idle.frame)
    idle.instance.unmount()

    const busy = start({ actions: BUSY, commands: { rewindTurns: turns } })
    busy.stdin.write(KEYS.esc)
    await waitFor(() => busy.commands.named('interrupt').length === 1)
    busy.store.dispatch({ type: 'turn/ended', result: { kind: 'interrupted', text: '', steps: 1 } })
    busy.stdin.write(KEYS.esc)
    // Text typed next lands in the prompt (its first letter pairs with the Esc): the Esc opened nothing.
    busy.stdin.write('zqzq')
    await busy.waitFrame('❯ qzq')
    expect(busy.store.getState().ui.rewind).toBe(false)
    busy.instance.unmount()
  })

  it('Ctrl+T toggles todos, Ctrl+B backgrounds, Tab focuses the tasks pane', async () => {
    const r = start({
      actions: [
        { type: 'todos/replaced', todos: [{ content: 'Step', status: 'pending', activeForm: 'Stepping' }] },
        { type: 'task/updated', task: task('b1') },
      ],
    })
    await r.waitFrame('☐ Step')
    r.stdin.write(KEYS.ctrl('t'))
    await waitFor(() => !r.frame().includes('☐ Step'), r.frame)
    r.stdin.write(KEYS.ctrl('b'))
    await waitFor(() => r.commands.named('backgroundForeground').length === 1)
    await r.waitFrame('No running command to background')
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.store.getState().ui.focus === 'tasks')
    await r.waitFrame('▸ b1')
    r.stdin.write('k')
    await r.waitFrame('Stop b1? (y/n)')
    r.stdin.write('y')
    await waitFor(() => r.commands.named('stopTask').length === 1)
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.store.getState().ui.focus === 'input')
    r.instance.unmount()
  })

  it("o opens a listening job's URL from the tasks pane, and is only a letter in the prompt", async () => {
    const r = start({ actions: [{ type: 'task/updated', task: task('b1') }] })
    await r.waitFrame('http://localhost:3000/')
    await r.type('open it')
    await r.waitFrame('❯ open it')
    expect(r.commands.named('openTaskUrl')).toEqual([])
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.store.getState().ui.focus === 'tasks')
    await r.waitFrame('o url')
    r.stdin.write('o')
    await waitFor(() => r.commands.named('openTaskUrl').length === 1)
    expect(r.commands.named('openTaskUrl')).toEqual([['b1']])
    // The pane keeps the keys: `o` is its key there, not the start of a word for the prompt.
    expect(r.store.getState().ui.focus).toBe('tasks')
    expect(r.frame()).toContain('❯ open it')
    expect(r.frame()).not.toContain('❯ open ito')
    r.instance.unmount()
  })

  it('keys go to the consent prompt first, but PgUp still scrolls and typing does not reach the input', async () => {
    const r = start({
      actions: [
        {
          type: 'consent/requested',
          request: {
            id: 'c1',
            callId: 'x',
            tool: 'Bash',
            risk: 'exec',
            summary: 'Run it',
            reason: 'SAFE mode asks',
            preview: { kind: 'command', command: 'make', cwd: dir },
            suggestedRule: 'Bash(make *)',
            createdAt: 0,
          },
        },
      ],
    })
    await r.waitFrame('Allow once')
    r.stdin.write(KEYS.pageUp)
    r.stdin.write('x')
    r.stdin.write('y')
    await waitFor(() => r.commands.named('resolveConsent').length === 1)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'once' }])
    expect(r.frame()).not.toContain('❯ x')
    r.instance.unmount()
  })
})
