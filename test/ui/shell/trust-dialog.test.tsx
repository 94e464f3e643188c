import { describe, expect, it } from 'vitest'
import type { TrustRequest } from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TrustDialog } from '../../../source/ui/panes/trust/trust-dialog.js'
import { trustListLines } from '../../../source/ui/panes/trust/trust-lines.js'
import { describeServer } from '../../../source/config/project-settings-filter.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import { fakeCommands, KEYS, makeStore, renderPane, renderSized, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

function request(over: Partial<TrustRequest> = {}): TrustRequest {
  return {
    id: 't1',
    folder: '~/code/app',
    parent: '~/code',
    broad: false,
    current: 'undecided',
    groups: [
      { title: 'Allow rules', items: ['Bash'], files: ['.agent-tui/settings.json'] },
      { title: 'MCP servers', items: ['db (npx db-mcp)'], files: ['.mcp.json'] },
    ],
    createdAt: 0,
    ...over,
  }
}

function renderDialog(req = request(), maxHeight = 20) {
  const store = makeStore([{ type: 'trust/requested', request: req }])
  const commands = fakeCommands({ store })
  const r = renderPane(<TrustDialog request={req} width={100} maxHeight={maxHeight} />, { store, commands })
  return { ...r, commands }
}

describe('TrustDialog', () => {
  it.each([[80], [120]])("shows an MCP server's whole command, wrapped, at %i columns", (width) => {
    const server = {
      command: 'npx',
      args: [
        '-y',
        '@acme/mcp-server-postgres@1.4.2',
        '--connection',
        'postgres://localhost:5432/app',
        '--read-only',
        'a b',
      ],
      env: { NODE_OPTIONS: '--require ./x.js', PGPASSWORD: 'hunter2' },
    }
    const label = describeServer('db', server, Number.POSITIVE_INFINITY)
    expect(label).toBe(
      "db (npx -y @acme/mcp-server-postgres@1.4.2 --connection postgres://localhost:5432/app --read-only 'a b', env NODE_OPTIONS, PGPASSWORD)",
    )
    const req = request({ groups: [{ title: 'MCP servers', items: [label], files: ['.mcp.json'] }] })
    const store = makeStore([{ type: 'trust/requested', request: req }])
    const r = renderPane(<TrustDialog request={req} width={width} maxHeight={24} />, {
      store,
      commands: fakeCommands({ store }),
    })
    const text = r
      .frame()
      .split('\n')
      .map((l) => l.replace(/^│\s*/, '').replace(/\s*│$/, ''))
      .join(' ')
      .replace(/\s+/g, ' ')
    expect(text).toContain(label)
    expect(r.frame()).not.toContain('hunter2')
    expect(r.frame()).not.toContain('…')
    r.unmount()
  })

  it('asks about the folder and lists what it brings, by kind, with the four choices', () => {
    const r = renderDialog()
    const frame = r.frame()
    expect(frame).toContain('Do you trust ~/code/app?')
    expect(frame).toContain('What its repository brings only applies once you trust the folder:')
    expect(frame).toContain('Allow rules (.agent-tui/settings.json):')
    expect(frame).toContain('    Bash')
    expect(frame).toContain('MCP servers (.mcp.json):')
    expect(frame).toContain('    db (npx db-mcp)')
    expect(frame).toContain('❯ 1. Trust this folder (remembered)')
    expect(frame).toContain('2. Trust the parent folder ~/code')
    expect(frame).toContain("3. Don't trust this folder (remembered)")
    expect(frame).toContain('4. Decide later')
    r.unmount()
  })

  it.each([
    ['1', 'trust-folder'],
    ['2', 'trust-parent'],
    ['3', 'distrust'],
    ['4', 'later'],
    [KEYS.esc, 'later'],
    [KEYS.enter, 'trust-folder'],
    [`${KEYS.down}${KEYS.down}${KEYS.enter}`, 'distrust'],
  ])('key %j answers %s, once', async (keys, choice) => {
    const r = renderDialog()
    r.stdin.write(keys)
    await waitFor(() => r.commands.named('resolveTrust').length > 0, r.frame)
    r.stdin.write('1')
    await waitFor(() => r.frame().includes('Answer sent'), r.frame)
    expect(r.commands.named('resolveTrust')).toEqual([['t1', choice]])
    r.unmount()
  })

  it('without a parent to offer (the home folder), 3 is "decide later" and 4 does nothing', async () => {
    const r = renderDialog(request({ parent: null, broad: true }))
    expect(r.frame()).toContain('1. Trust this folder (only itself, not its subfolders)')
    expect(r.frame()).not.toContain('parent')
    r.stdin.write('4')
    r.stdin.write('3')
    await waitFor(() => r.commands.named('resolveTrust').length > 0, r.frame)
    expect(r.commands.named('resolveTrust')).toEqual([['t1', 'later']])
    r.unmount()
  })

  it('from /trust on a trusted folder, the last choice keeps the answer', () => {
    const r = renderDialog(request({ current: 'trusted' }))
    expect(r.frame()).toContain('Trusted. What its repository brings, all in force:')
    expect(r.frame()).toContain('4. Keep it as it is (trusted)')
    r.unmount()
  })

  it('a short dock shows one line per kind instead of one per item', () => {
    const groups = [
      { title: 'Allow rules', items: ['Bash', 'Edit', 'Write'], files: ['.agent-tui/settings.json'] },
      { title: 'Agents', items: ['a', 'b'], files: ['.agent-tui/agents/a.md', '.agent-tui/agents/b.md'] },
    ]
    expect(trustListLines(groups, 10)).toHaveLength(7)
    expect(trustListLines(groups, 3)).toEqual([
      'Allow rules (.agent-tui/settings.json): Bash, Edit, Write',
      'Agents: a, b',
    ])
    expect(trustListLines(groups, 1)).toEqual([
      '… and 5 more (make the terminal taller, or see .agent-tui/ and .mcp.json)',
    ])
  })
})

describe('the trust prompt in the app', () => {
  function startApp() {
    const store = makeStore()
    const commands = fakeCommands({ store })
    const r = renderSized(
      <TuiRoot
        store={store}
        commands={commands}
        contextLimit={100_000}
        theme={theme}
        doublePressMs={60_000}
        onExit={() => {}}
      />,
      100,
      30,
    )
    return { ...r, store, commands }
  }

  it('waits while a message is being typed, so its keys are never taken as an answer', async () => {
    const r = startApp()
    r.stdin.write('fix bug')
    await waitFor(() => r.frame().includes('fix bug'), r.frame)
    r.store.dispatch({ type: 'trust/requested', request: request() })
    r.stdin.write(' 1')
    await waitFor(() => r.frame().includes('fix bug 1'), r.frame)
    expect(r.frame()).not.toContain('Do you trust')
    r.stdin.write(KEYS.enter)
    // Sent; the prompt is empty again and the dialog takes over.
    await waitFor(() => r.frame().includes('Do you trust ~/code/app?'), r.frame)
    expect(r.commands.named('submit')).toEqual([[{ text: 'fix bug 1' }]])
    expect(r.commands.named('resolveTrust')).toEqual([])
    r.stdin.write('3')
    await waitFor(() => r.commands.named('resolveTrust').length > 0, r.frame)
    expect(r.commands.named('resolveTrust')).toEqual([['t1', 'distrust']])
    r.instance.unmount()
  })

  it('gives way to a permission prompt and comes back after it', async () => {
    const r = startApp()
    r.store.dispatch({ type: 'trust/requested', request: request() })
    await waitFor(() => r.frame().includes('Do you trust'), r.frame)
    r.store.dispatch({
      type: 'consent/requested',
      request: {
        id: 'c1',
        callId: 'x',
        tool: 'Bash',
        risk: 'exec',
        summary: 'Run make',
        reason: 'SAFE mode asks',
        preview: { kind: 'command', command: 'make', cwd: '/tmp' },
        suggestedRule: 'Bash(make *)',
        createdAt: 0,
      },
    })
    await waitFor(() => r.frame().includes('Allow once') && !r.frame().includes('Do you trust'), r.frame)
    r.store.dispatch({ type: 'consent/resolved', id: 'c1' })
    await waitFor(() => r.frame().includes('Do you trust'), r.frame)
    r.instance.unmount()
  })
})
