import { describe, expect, it } from 'vitest'
import type { ConsentRequest } from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { ConsentPrompt } from '../../../source/ui/panes/consent/consent-prompt.js'
import { fakeCommands, KEYS, makeStore, renderPane, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

function edit(over: Partial<ConsentRequest> = {}): ConsentRequest {
  return {
    id: 'c1',
    callId: 'call-c1',
    tool: 'Edit',
    risk: 'edit',
    summary: 'Edit source/ui/app.tsx',
    reason: 'safe mode asks before edits',
    preview: { kind: 'diff', path: 'source/ui/app.tsx', diff: '@@ -1 +1 @@\n-a\n+b\n' },
    suggestedRule: 'Edit(source/ui/app.tsx)',
    directoryRule: 'Edit(source/ui/**)',
    sessionEditsRule: 'Edit(**)',
    createdAt: 0,
    ...over,
  }
}

function render(request: ConsentRequest, width = 100) {
  const store = makeStore([{ type: 'consent/requested', request }])
  const commands = fakeCommands({ store })
  return {
    ...renderPane(<ConsentPrompt width={width} maxHeight={20} theme={theme} />, { store, commands }),
    commands,
  }
}

describe('ConsentPrompt: the diff gets the room first', () => {
  it('at 80 columns puts the answers on one line when one per line would cut the diff', async () => {
    const diff = `@@ -1,18 +1,18 @@\n${Array.from({ length: 18 }, (_, i) => `-old ${i}\n+new ${i}`).join('\n')}\n`
    const request = edit({ preview: { kind: 'diff', path: 'f.txt', diff } })
    const store = makeStore([{ type: 'consent/requested', request }])
    const commands = fakeCommands({ store })
    const r = renderPane(<ConsentPrompt width={80} maxHeight={17} theme={theme} />, { store, commands })
    const frame = r.frame()
    const shown = frame.split('\n').filter((l) => /[-+](old|new) \d+/.test(l))
    // One answer per line left room for 2 of these lines here.
    expect(shown.length, frame).toBeGreaterThanOrEqual(6)
    expect(frame).toContain('1 once  2 session  3 always  4 all edits  d folder  Esc deny')
    expect(frame).toContain('2/3 Edit(source/ui/app.tsx) (3 saves to .agent-tui/settings.local.json) · d')
    expect(frame).toContain('Ctrl+O whole preview')
    // The answers still work by key and by arrows.
    r.stdin.write(KEYS.right)
    r.stdin.write(KEYS.right)
    r.stdin.write(KEYS.enter)
    await waitFor(() => commands.named('resolveConsent').length === 1, r.frame)
    expect(commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'always' }])
    r.unmount()
  })

  it('keeps one answer per line when the preview fits', () => {
    const r = render(edit(), 80)
    expect(r.frame()).toContain('❯ 1 Allow once')
    expect(r.frame()).not.toContain('1 once  2 session')
    r.unmount()
  })
})

describe('ConsentPrompt: the rules it offers', () => {
  it('says why a program that deletes is offered only as the exact command, beside the options', () => {
    const r = render(
      edit({
        tool: 'Bash',
        risk: 'exec',
        summary: 'Bash rm -rf build',
        preview: { kind: 'command', command: 'rm -rf build', cwd: '/w' },
        suggestedRule: 'Bash(rm -rf build)',
        directoryRule: undefined,
        sessionEditsRule: undefined,
        ruleCaution: 'rm deletes any file: "always" allows only this exact command',
      }),
    )
    const lines = r.frame().split('\n')
    const caution = lines.findIndex((l) =>
      l.includes('⚠ rm deletes any file: "always" allows only this exact command'),
    )
    expect(caution, r.frame()).toBeGreaterThan(-1)
    expect(lines.findIndex((l) => l.includes('3 Always allow Bash(rm -rf build)'))).toBeGreaterThan(caution)
    expect(r.frame()).not.toContain('Bash(rm *)')
    r.unmount()
  })

  it('offers the file and, beside it, the folder of an edit', () => {
    const r = render(edit())
    const frame = r.frame()
    expect(frame).toContain(
      '3 Always allow Edit(source/ui/app.tsx) (saved to .agent-tui/settings.local.json)',
    )
    expect(frame).toContain('d Always allow the folder: Edit(source/ui/**)')
    const order = [
      '1 Allow once',
      '2 Allow Edit(source/ui/app.tsx)',
      '3 Always',
      '4 Allow all edits',
      'd Always',
      'Esc Deny',
    ]
    expect(order.map((label) => frame.indexOf(label))).toEqual(
      [...order.map((label) => frame.indexOf(label))].sort((a, b) => a - b),
    )
    r.unmount()
  })

  it.each([['d'], ['D']])('%j saves the folder rule', async (key) => {
    const r = render(edit())
    r.stdin.write(key)
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'always', scope: 'directory' }])
    r.unmount()
  })

  it('the folder option can be picked with the arrows, with a note', async () => {
    const r = render(edit(), 80)
    for (let i = 0; i < 4; i++) r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ d Always allow the folder'), r.frame)
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.frame().includes('Note:'), r.frame)
    r.stdin.write('tests too')
    await waitFor(() => r.frame().includes('tests too'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual([
      'c1',
      { kind: 'always', scope: 'directory', note: 'tests too' },
    ])
    r.unmount()
  })

  it('a call no rule can allow offers only "allow once" and deny, and says why', async () => {
    const r = render(
      edit({
        tool: 'Bash',
        risk: 'exec',
        summary: 'Bash for f in a b; do touch "$f"; done',
        preview: { kind: 'command', command: 'for f in a b; do touch "$f"; done', cwd: '/p' },
        suggestedRule: 'Bash(touch *)',
        directoryRule: undefined,
        noRule: '`touch` writes "$f", a path only known when it runs',
      }),
    )
    const frame = r.frame()
    expect(frame).toContain('1 Allow once (no rule can allow it: it asks each time)')
    expect(frame).not.toContain('Always allow')
    expect(frame).not.toContain('Allow for session')
    r.stdin.write('3')
    r.stdin.write('2')
    r.stdin.write('y')
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')).toEqual([['c1', { kind: 'once' }]])
    r.unmount()
  })
})
