import { describe, expect, it } from 'vitest'
import type { ConsentRequest, QuestionRequest } from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { ConsentPrompt } from '../../../source/ui/panes/consent/consent-prompt.js'
import { PlanDialog } from '../../../source/ui/panes/question/plan-dialog.js'
import { QuestionDialog } from '../../../source/ui/panes/question/question-dialog.js'
import { fakeCommands, KEYS, makeStore, renderPane, waitFor } from './helpers.js'

const theme = createTheme({ level: 0 })

function consent(id: string, over: Partial<ConsentRequest> = {}): ConsentRequest {
  return {
    id,
    callId: `call-${id}`,
    tool: 'Bash',
    risk: 'exec',
    summary: 'Run npm test',
    reason: 'SAFE mode asks before running commands',
    preview: { kind: 'command', command: 'npm test -- --run', cwd: '/tmp/project' },
    suggestedRule: 'Bash(npm test *)',
    createdAt: 0,
    ...over,
  }
}

function renderConsent(...requests: ConsentRequest[]) {
  const store = makeStore(requests.map((request) => ({ type: 'consent/requested' as const, request })))
  const commands = fakeCommands({ store })
  const r = renderPane(<ConsentPrompt width={100} maxHeight={20} theme={theme} />, { store, commands })
  return { ...r, commands, store }
}

describe('ConsentPrompt', () => {
  it('shows tool, risk, summary, reason, the full command and the rule "always" saves', () => {
    const r = renderConsent(consent('c1'))
    const frame = r.frame()
    expect(frame).toContain('Bash Run npm test (exec)')
    expect(frame).toContain('Why: SAFE mode asks before running commands')
    expect(frame).toContain('$ npm test -- --run')
    expect(frame).toContain('1 Allow once')
    expect(frame).toContain('2 Allow Bash(npm test *) for this session')
    expect(frame).toContain('3 Always allow Bash(npm test *) (saved to .agent-tui/settings.local.json)')
    expect(frame).toContain('Esc Deny')
    // Not an edit: no "all edits" choice.
    expect(frame).not.toContain('all edits')
    r.unmount()
  })

  it.each([
    [
      { status: 'on', network: false },
      '⛨ sandbox: writes only in workspace and /tmp; .git/ read-only; no network',
    ],
    [
      { status: 'on', network: true },
      '⛨ sandbox: writes only in workspace and /tmp; .git/ read-only; network allowed',
    ],
    [
      { status: 'unavailable', network: false },
      '⚠ the sandbox is unavailable: this command runs unsandboxed',
    ],
  ] as const)('says whether the command runs in the sandbox (%j)', (sandbox, line) => {
    const r = renderConsent(
      consent('c1', { preview: { kind: 'command', command: 'npm test', cwd: '/tmp/project', sandbox } }),
    )
    expect(r.frame()).toContain(line)
    r.unmount()
  })

  it('says nothing of a sandbox the session did not ask for', () => {
    const r = renderConsent(consent('c1'))
    expect(r.frame()).not.toContain('sandbox')
    r.unmount()
  })

  it('renders a diff preview for edits', () => {
    const diff = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n'
    const r = renderConsent(
      consent('c1', {
        tool: 'Edit',
        risk: 'edit',
        preview: { kind: 'diff', path: 'src/a.ts', diff },
        suggestedRule: 'Edit(src/**)',
      }),
    )
    const frame = r.frame()
    expect(frame).toContain('src/a.ts')
    expect(frame).toMatch(/\d -old line/)
    expect(frame).toMatch(/\d \+new line/)
    expect(frame).toContain('Always allow Edit(src/**)')
    r.unmount()
  })

  it('shows the URL for fetches and the queue position', () => {
    const r = renderConsent(
      consent('c1', {
        tool: 'WebFetch',
        risk: 'network',
        preview: { kind: 'url', url: 'https://example.com/x' },
      }),
      consent('c2'),
    )
    expect(r.frame()).toContain('https://example.com/x')
    expect(r.frame()).toContain('1 of 2')
    r.unmount()
  })

  it('shows where a local or private host resolves to', () => {
    const r = renderConsent(
      consent('c1', {
        tool: 'WebFetch',
        risk: 'network',
        preview: {
          kind: 'url',
          url: 'http://intranet.test:3000/admin',
          address: 'intranet.test resolves to 127.0.0.1, a loopback address (this machine)',
        },
        suggestedRule: 'WebFetch(domain:intranet.test)',
      }),
    )
    expect(r.frame()).toContain('http://intranet.test:3000/admin')
    expect(r.frame()).toContain('⚠ intranet.test resolves to 127.0.0.1, a loopback address (this machine)')
    expect(r.frame()).toContain('Always allow WebFetch(domain:intranet.test)')
    r.unmount()
  })

  it.each([
    ['y', 'once'],
    ['1', 'once'],
    [KEYS.enter, 'once'],
    ['2', 'session'],
    ['a', 'session'],
    ['3', 'always'],
    ['A', 'always'],
    [KEYS.esc, 'deny'],
    ['n', 'deny'],
  ])('key %j decides %s', async (key, kind) => {
    const r = renderConsent(consent('c1'))
    r.stdin.write(key)
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind }])
    r.unmount()
  })

  it('wraps the "always allow" option on a narrow terminal instead of cutting the rule or the file', () => {
    const store = makeStore([{ type: 'consent/requested', request: consent('c1') }])
    const r = renderPane(<ConsentPrompt width={60} maxHeight={20} theme={theme} />, {
      store,
      commands: fakeCommands({ store }),
    })
    const frame = r.frame()
    expect(frame).not.toContain('…')
    const joined = frame.replace(/│/g, ' ').replace(/\s+/g, ' ')
    expect(joined).toContain('3 Always allow Bash(npm test *) (saved to .agent-tui/settings.local.json)')
    r.unmount()
  })

  it('names the tool once in the header (the summary starts with it)', () => {
    const r = renderConsent(consent('c1', { tool: 'Write', risk: 'edit', summary: 'Write colours.txt' }))
    expect(r.frame()).toContain('Write colours.txt (edit)')
    expect(r.frame()).not.toContain('Write Write')
    r.unmount()
  })

  it('a protected write offers only "allow once" and deny; 2 and 3 do nothing', async () => {
    const r = renderConsent(
      consent('c1', {
        tool: 'Edit',
        risk: 'edit',
        summary: 'Edit .git/config',
        reason: 'writes to .git/ always ask',
        preview: { kind: 'diff', path: '.git/config', diff: '@@ -1 +1 @@\n-a\n+b\n' },
        suggestedRule: 'Edit(.git/**)',
        protectedWrite: true,
      }),
    )
    const frame = r.frame()
    expect(frame).toContain('1 Allow once')
    expect(frame).toContain('Esc Deny')
    expect(frame).not.toContain('for this session')
    expect(frame).not.toContain('Always allow')
    r.stdin.write('3')
    r.stdin.write('2')
    r.stdin.write('1')
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')).toEqual([['c1', { kind: 'once' }]])
    r.unmount()
  })

  it('an edit offers "allow all edits this session" (4 or e) beside the per-file rule', async () => {
    const edit = consent('c1', {
      tool: 'Edit',
      risk: 'edit',
      summary: 'Edit src/a.ts',
      preview: { kind: 'diff', path: 'src/a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' },
      suggestedRule: 'Edit(src/**)',
      sessionEditsRule: 'Edit(**)',
    })
    for (const key of ['4', 'e']) {
      const r = renderConsent(edit)
      expect(r.frame()).toContain('2 Allow Edit(src/**) for this session')
      expect(r.frame()).toContain('4 Allow all edits in the workspace this session')
      r.stdin.write(key)
      await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
      expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'session', scope: 'edits' }])
      r.unmount()
    }
  })

  it('Ctrl+O shows the whole diff, PgUp/PgDn scroll it, and the keys still answer', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `+line ${i + 1}`)
    const diff = `@@ -0,0 +1,60 @@\n${lines.join('\n')}\n`
    const r = renderConsent(
      consent('c1', {
        tool: 'Write',
        risk: 'edit',
        summary: 'Write big.txt',
        preview: { kind: 'diff', path: 'big.txt', diff },
        suggestedRule: 'Edit(big.txt)',
      }),
    )
    expect(r.frame()).toMatch(/… \+\d+ more lines · Ctrl\+O to see all/)
    expect(r.frame()).not.toContain('+line 60')
    r.stdin.write(KEYS.ctrl('o'))
    await waitFor(() => r.frame().includes('PgUp/PgDn scroll'), r.frame)
    // The opened preview has the prompt's room: the reason and option rows give way to it.
    expect(r.frame()).not.toContain('Why:')
    for (let i = 0; i < 5; i++) r.stdin.write(KEYS.pageDown)
    await waitFor(() => r.frame().includes('+line 60'), r.frame)
    expect(r.frame()).toMatch(/lines \d+–62 of 62/)
    r.stdin.write(KEYS.pageUp)
    await waitFor(() => !r.frame().includes('+line 60'), r.frame)
    r.stdin.write(KEYS.ctrl('o'))
    await waitFor(() => r.frame().includes('Why:'), r.frame)
    r.stdin.write('1')
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'once' }])
    r.unmount()
  })

  it('arrows move the selection and Enter picks it', async () => {
    const r = renderConsent(consent('c1'))
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ 2 Allow Bash(npm test *) for this session'), r.frame)
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ Esc Deny'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('resolveConsent').length === 1)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'deny' }])
    r.unmount()
  })

  it('Tab adds a note that goes with the decision (deny with feedback)', async () => {
    const r = renderConsent(consent('c1'))
    r.stdin.write(KEYS.left) // stays on "allow once"
    r.stdin.write(KEYS.up)
    for (let i = 0; i < 3; i++) r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ Esc Deny'), r.frame)
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.frame().includes('Note:'), r.frame)
    r.stdin.write('use pnpm instead')
    await waitFor(() => r.frame().includes('use pnpm instead'), r.frame)
    // Keys that are consent shortcuts are plain text inside the note.
    r.stdin.write(' y')
    await waitFor(() => r.frame().includes('pnpm instead y'), r.frame)
    r.stdin.write(KEYS.backspace)
    r.stdin.write(KEYS.backspace)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'deny', note: 'use pnpm instead' }])
    r.unmount()
  })

  it('a note with the default selection allows once with the note', async () => {
    const r = renderConsent(consent('c1'))
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.frame().includes('Note:'), r.frame)
    r.stdin.write('only this time')
    await waitFor(() => r.frame().includes('only this time'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('resolveConsent').length === 1)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'once', note: 'only this time' }])
    r.unmount()
  })

  it('with a note open, says what Enter sends, and ↑/↓ move the answer to Deny without losing the note', async () => {
    const r = renderConsent(consent('c1'))
    r.stdin.write(KEYS.tab)
    await waitFor(() => r.frame().includes('Note:'), r.frame)
    r.stdin.write('use pnpm instead')
    await waitFor(() => r.frame().includes('use pnpm instead'), r.frame)
    expect(r.frame()).toContain('Enter allows once with the note · ↑/↓ change answer · Esc drops note')
    for (let i = 0; i < 3; i++) r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ Esc Deny'), r.frame)
    expect(r.frame()).toContain('use pnpm instead')
    expect(r.frame()).toContain(
      'Enter denies; the agent follows the note · ↑/↓ change answer · Esc drops note',
    )
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('resolveConsent').length === 1, r.frame)
    expect(r.commands.named('resolveConsent')[0]).toEqual(['c1', { kind: 'deny', note: 'use pnpm instead' }])
    r.unmount()
  })

  it('moves on to the next queued request when the runtime resolves the first', async () => {
    const r = renderConsent(consent('c1'), consent('c2', { summary: 'Run second' }))
    r.store.dispatch({ type: 'consent/resolved', id: 'c1' })
    await waitFor(() => r.frame().includes('Run second'), r.frame)
    expect(r.frame()).not.toContain('1 of')
    r.unmount()
  })
})

const QUESTIONS: Extract<QuestionRequest, { kind: 'questions' }> = {
  id: 'q1',
  kind: 'questions',
  callId: 'call-q1',
  createdAt: 0,
  questions: [
    {
      question: 'Which database?',
      header: 'Database',
      multiSelect: false,
      options: [
        { label: 'Postgres', description: 'Relational, robust' },
        { label: 'SQLite', description: 'Single file' },
      ],
    },
    {
      question: 'Which features?',
      header: 'Features',
      multiSelect: true,
      options: [
        { label: 'Auth', description: 'Login' },
        { label: 'Search', description: 'Full text' },
        { label: 'Billing', description: 'Stripe' },
      ],
    },
  ],
}

function renderQuestion(
  request: Extract<QuestionRequest, { kind: 'questions' }> = QUESTIONS,
  size = { width: 100, maxHeight: 20 },
) {
  const store = makeStore([{ type: 'question/requested', request }])
  const commands = fakeCommands({ store })
  const r = renderPane(<QuestionDialog request={request} {...size} />, { store, commands })
  return { ...r, commands }
}

describe('QuestionDialog', () => {
  it('shows headers, the question, options with descriptions and an Other row', () => {
    const r = renderQuestion()
    const frame = r.frame()
    expect(frame).toContain('Database')
    expect(frame).toContain('Features')
    expect(frame).toContain('Which database?')
    expect(frame).toContain('❯ 1. Postgres')
    expect(frame).toContain('Relational, robust')
    expect(frame).toContain('3. Other:')
    r.unmount()
  })

  it('wraps a long question and its descriptions at word boundaries at 80 columns, never cutting them', () => {
    const question =
      'Which colour should the primary buttons of the settings page use, given that the brand guide allows several accents?'
    const blue =
      'Matches the existing brand palette used across the dashboard and the marketing site, no extra review needed'
    const request: Extract<QuestionRequest, { kind: 'questions' }> = {
      ...QUESTIONS,
      questions: [
        {
          question,
          header: 'Colour',
          multiSelect: false,
          options: [
            { label: 'Blue', description: blue },
            { label: 'Red', description: 'Stands out' },
          ],
        },
      ],
    }
    const r = renderQuestion(request, { width: 80, maxHeight: 18 })
    const frame = r.frame()
    expect(frame).not.toContain('…')
    const text = frame
      .split('\n')
      .map((line) => line.replace(/^│\s*/, '').replace(/\s*│$/, ''))
      .join(' ')
    expect(text).toContain(question)
    expect(text).toContain(blue)
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    r.unmount()
  })

  it('answers single and multi-select questions', async () => {
    const r = renderQuestion()
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ 2. SQLite'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('Which features?'), r.frame)
    r.stdin.write(' ')
    await waitFor(() => r.frame().includes('[x] Auth'), r.frame)
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ 3. [ ] Billing'), r.frame)
    r.stdin.write(' ')
    await waitFor(() => r.frame().includes('[x] Billing'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('answerQuestion').length === 1, r.frame)
    expect(r.commands.named('answerQuestion')[0]).toEqual([
      'q1',
      { kind: 'questions', answers: { 'Which database?': 'SQLite', 'Which features?': 'Auth, Billing' } },
    ])
    r.unmount()
  })

  it('takes free text on the Other row', async () => {
    const single = { ...QUESTIONS, questions: [QUESTIONS.questions[0]!] }
    const r = renderQuestion(single)
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ 3. Other:'), r.frame)
    r.stdin.write('MySQL 8')
    await waitFor(() => r.frame().includes('MySQL 8'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('answerQuestion').length === 1, r.frame)
    expect(r.commands.named('answerQuestion')[0]).toEqual([
      'q1',
      { kind: 'questions', answers: { 'Which database?': 'MySQL 8' } },
    ])
    r.unmount()
  })

  it('asks for a choice instead of sending an empty multi-select, and Esc cancels', async () => {
    const multi = { ...QUESTIONS, questions: [QUESTIONS.questions[1]!] }
    const r = renderQuestion(multi)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('Pick at least one option'), r.frame)
    expect(r.commands.named('answerQuestion')).toEqual([])
    r.stdin.write(KEYS.esc)
    await waitFor(() => r.commands.named('answerQuestion').length === 1)
    expect(r.commands.named('answerQuestion')[0]).toEqual(['q1', { kind: 'cancelled' }])
    r.unmount()
  })
})

describe('PlanDialog', () => {
  const request: Extract<QuestionRequest, { kind: 'plan' }> = {
    id: 'p1',
    kind: 'plan',
    callId: 'call-p1',
    createdAt: 0,
    plan: '# Plan\n\n1. Add the route\n2. Write **tests**',
  }

  function renderPlan() {
    const store = makeStore([{ type: 'question/requested', request }])
    const commands = fakeCommands({ store })
    const r = renderPane(<PlanDialog request={request} width={100} maxHeight={20} theme={theme} />, {
      store,
      commands,
    })
    return { ...r, commands }
  }

  it('renders the plan as Markdown with the three options', () => {
    const r = renderPlan()
    const frame = r.frame()
    expect(frame).toContain('Plan ready for approval')
    expect(frame).toContain('Add the route')
    expect(frame).toContain('Write tests')
    // Each option says the mode it leads to: approving always leaves PLAN.
    expect(frame).toContain('❯ 1. Approve and switch to AUTO (edits run without asking)')
    expect(frame).toContain('2. Approve and switch to SAFE (each edit and command asks first)')
    expect(frame).toContain('3. Keep planning (stay in PLAN)')
    r.unmount()
  })

  it.each([
    [0, 'approve-auto'],
    [1, 'approve-safe'],
    [2, 'keep-planning'],
  ])('option %i sends %s', async (downs, decision) => {
    const r = renderPlan()
    for (let i = 0; i < downs; i++) r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes(`❯ ${downs + 1}.`), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('answerQuestion').length === 1)
    expect(r.commands.named('answerQuestion')[0]).toEqual(['p1', { kind: 'plan', decision }])
    r.unmount()
  })

  it('sends the feedback line with the choice', async () => {
    const r = renderPlan()
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    r.stdin.write('also cover errors')
    await waitFor(() => r.frame().includes('also cover errors'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('answerQuestion').length === 1)
    expect(r.commands.named('answerQuestion')[0]).toEqual([
      'p1',
      { kind: 'plan', decision: 'keep-planning', feedback: 'also cover errors' },
    ])
    r.unmount()
  })
})
