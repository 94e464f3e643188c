import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ConsentAbortedError,
  type ConsentRequestInput,
  createConsentBroker,
} from '../../../source/permissions/broker.js'
import { evaluate } from '../../../source/permissions/policy.js'
import type { Action } from '../../../source/store/actions.js'

function setup(
  opts: {
    timeoutSeconds?: number
    onAlways?: Parameters<typeof createConsentBroker>[0]['onAlways']
    alwaysSource?: string
    recheck?: Parameters<typeof createConsentBroker>[0]['recheck']
  } = {},
) {
  const actions: Action[] = []
  let n = 0
  const broker = createConsentBroker({
    dispatch: (a) => actions.push(a),
    policy: 'interactive',
    now: () => 1000,
    newId: () => `id${++n}`,
    workspace: '/w',
    home: '/h',
    ...opts,
  })
  return { broker, actions }
}

function bashRequest(command: string, suggestedRule: string): ConsentRequestInput {
  return {
    callId: `call-${command}`,
    tool: 'Bash',
    risk: 'exec',
    summary: command,
    reason: 'safe mode asks before running commands',
    preview: { kind: 'command', command, cwd: '/w' },
    suggestedRule,
    target: { kind: 'command', command },
  }
}

const types = (actions: Action[]) => actions.map((a) => a.type)

afterEach(() => {
  vi.useRealTimers()
})

describe('createConsentBroker', () => {
  it('dispatches the request and resolves with the decision', async () => {
    const { broker, actions } = setup()
    const promise = broker.request(bashRequest('rm x', 'Bash(rm *)'), new AbortController().signal)
    expect(actions[0]).toMatchObject({
      type: 'consent/requested',
      request: { id: 'id1', createdAt: 1000, tool: 'Bash' },
    })
    expect(actions[0]?.type === 'consent/requested' && 'target' in actions[0].request).toBe(false)
    expect(broker.pending().map((r) => r.id)).toEqual(['id1'])
    expect(broker.resolve('id1', { kind: 'once', note: 'careful' })).toBe(true)
    await expect(promise).resolves.toEqual({ kind: 'once', note: 'careful' })
    expect(types(actions)).toEqual(['consent/requested', 'consent/resolved'])
    expect(broker.pending()).toEqual([])
    expect(broker.sessionRules()).toEqual([])
  })

  it('returns false for unknown or already settled ids', async () => {
    const { broker } = setup()
    const promise = broker.request(bashRequest('rm x', 'Bash(rm *)'), new AbortController().signal)
    expect(broker.resolve('nope', { kind: 'once' })).toBe(false)
    expect(broker.resolve('id1', { kind: 'deny' })).toBe(true)
    expect(broker.resolve('id1', { kind: 'once' })).toBe(false)
    await expect(promise).resolves.toEqual({ kind: 'deny' })
  })

  it('deny-all resolves at once without dispatching', async () => {
    const actions: Action[] = []
    const broker = createConsentBroker({ dispatch: (a) => actions.push(a), policy: 'deny-all' })
    await expect(
      broker.request(bashRequest('rm x', 'Bash(rm *)'), new AbortController().signal),
    ).resolves.toEqual({
      kind: 'deny',
      note: 'no user available (ci mode)',
      automatic: true,
    })
    expect(actions).toEqual([])
  })

  it('a session grant adds the rule and settles other covered requests', async () => {
    const { broker, actions } = setup()
    const signal = new AbortController().signal
    const first = broker.request(bashRequest('npm test', 'Bash(npm test *)'), signal)
    const covered = broker.request(bashRequest('npm test -- a.test.ts', 'Bash(npm test *)'), signal)
    const coveredCompound = broker.request(bashRequest('cd sub && npm test', 'Bash(npm test *)'), signal)
    const other = broker.request(bashRequest('npm test && rm x', 'Bash(rm *)'), signal)
    broker.resolve('id1', { kind: 'session' })
    await expect(first).resolves.toEqual({ kind: 'session' })
    await expect(covered).resolves.toEqual({ kind: 'once' })
    await expect(coveredCompound).resolves.toEqual({ kind: 'once' })
    expect(broker.pending().map((r) => r.summary)).toEqual(['npm test && rm x'])
    expect(broker.sessionRules().map((r) => [r.text, r.source])).toEqual([
      ['Bash(npm test *)', 'this session'],
    ])
    expect(actions.filter((a) => a.type === 'consent/resolved')).toHaveLength(3)
    broker.denyAll('shutting down')
    await expect(other).resolves.toEqual({ kind: 'deny', note: 'shutting down', automatic: true })
  })

  it('a grant re-judges pending requests with the policy: a protected path still asks', async () => {
    let broker: ReturnType<typeof createConsentBroker> | undefined
    const made = setup({
      recheck: (call) =>
        evaluate({
          ...call,
          mode: 'safe',
          rules: { allow: broker?.sessionRules() ?? [], ask: [], deny: [] },
          workspace: '/w',
          home: '/h',
        }).decision === 'allow',
    })
    broker = made.broker
    const signal = new AbortController().signal
    const first = broker.request({ ...bashRequest('rm x', 'Bash(rm *)'), readOnly: false }, signal)
    const git = broker.request(
      {
        ...bashRequest('rm -rf .git', 'Bash(rm *)'),
        target: { kind: 'command', command: 'rm -rf .git', cwd: '/w' },
      },
      signal,
    )
    const plain = broker.request(
      { ...bashRequest('rm y', 'Bash(rm *)'), target: { kind: 'command', command: 'rm y', cwd: '/w' } },
      signal,
    )
    broker.resolve('id1', { kind: 'session' })
    await expect(first).resolves.toEqual({ kind: 'session' })
    await expect(plain).resolves.toEqual({ kind: 'once' })
    expect(broker.pending().map((r) => r.summary)).toEqual(['rm -rf .git'])
    broker.denyAll('done')
    await git
  })

  it('a session grant for edits covers pending edits under the granted directory', async () => {
    const { broker } = setup()
    const signal = new AbortController().signal
    const edit = (path: string): ConsentRequestInput => ({
      callId: path,
      tool: 'Edit',
      risk: 'edit',
      summary: path,
      reason: 'safe mode asks before edits',
      preview: { kind: 'diff', path, diff: '' },
      suggestedRule: 'Edit(source/**)',
    })
    const first = broker.request(edit('/w/source/a.ts'), signal)
    const nested = broker.request(edit('/w/source/deep/b.ts'), signal)
    const outside = broker.request(edit('/w/test/c.ts'), signal)
    broker.resolve('id1', { kind: 'session' })
    await expect(first).resolves.toEqual({ kind: 'session' })
    await expect(nested).resolves.toEqual({ kind: 'once' })
    expect(broker.pending().map((r) => r.summary)).toEqual(['/w/test/c.ts'])
    broker.denyAll('done')
    await outside
  })

  it('"allow all edits this session" grants the request\'s edits rule and settles every pending edit', async () => {
    const { broker } = setup()
    const signal = new AbortController().signal
    const edit = (path: string): ConsentRequestInput => ({
      callId: path,
      tool: path.endsWith('.ipynb') ? 'NotebookEdit' : 'Write',
      risk: 'edit',
      summary: path,
      reason: 'safe mode asks before edits',
      preview: { kind: 'diff', path, diff: '' },
      suggestedRule: 'Edit(source/**)',
      sessionEditsRule: 'Edit(**)',
    })
    const first = broker.request(edit('/w/source/a.ts'), signal)
    const elsewhere = broker.request(edit('/w/test/c.ts'), signal)
    const notebook = broker.request(edit('/w/n.ipynb'), signal)
    broker.resolve('id1', { kind: 'session', scope: 'edits' })
    await expect(first).resolves.toEqual({ kind: 'session', scope: 'edits' })
    await expect(elsewhere).resolves.toEqual({ kind: 'once' })
    await expect(notebook).resolves.toEqual({ kind: 'once' })
    expect(broker.sessionRules().map((r) => r.text)).toEqual(['Edit(**)'])
  })

  it('a protected write is allowed once whatever the answer: no rule is granted or saved for it', async () => {
    const saved: string[] = []
    const { broker } = setup({ onAlways: (rule) => void saved.push(rule) })
    const signal = new AbortController().signal
    const write = broker.request(
      {
        callId: 'g',
        tool: 'Edit',
        risk: 'edit',
        summary: '.git/config',
        reason: 'writes to .git/ always ask',
        preview: { kind: 'diff', path: '/w/.git/config', diff: '' },
        suggestedRule: 'Edit(.git/**)',
        protectedWrite: true,
      },
      signal,
    )
    broker.resolve('id1', { kind: 'always' })
    await expect(write).resolves.toEqual({ kind: 'always' })
    expect(broker.sessionRules()).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(saved).toEqual([])
  })

  it('an always grant persists the rule once', async () => {
    const saved: string[] = []
    const { broker } = setup({
      onAlways: (rule) => {
        saved.push(rule)
        return undefined
      },
    })
    const signal = new AbortController().signal
    const a = broker.request(bashRequest('git status', 'Bash(git status *)'), signal)
    broker.resolve('id1', { kind: 'always' })
    await a
    const b = broker.request(bashRequest('git status -s', 'Bash(git status *)'), signal)
    broker.resolve('id2', { kind: 'always' })
    await b
    await vi.waitFor(() => expect(saved).toEqual(['Bash(git status *)', 'Bash(git status *)']))
    expect(broker.sessionRules().map((r) => r.text)).toEqual(['Bash(git status *)'])
  })

  it('labels each granted rule with where it lives: this session, or the file an always grant saved it to', async () => {
    const { broker } = setup({ onAlways: () => undefined, alwaysSource: '.agent-tui/settings.local.json' })
    const signal = new AbortController().signal
    const a = broker.request(bashRequest('make', 'Bash(make *)'), signal)
    broker.resolve('id1', { kind: 'session' })
    await a
    const b = broker.request(bashRequest('npm test', 'Bash(npm test *)'), signal)
    broker.resolve('id2', { kind: 'always' })
    await b
    const sources = () => broker.sessionRules().map((r) => `${r.text} ${r.source}`)
    expect(sources()).toEqual([
      'Bash(make *) this session',
      'Bash(npm test *) .agent-tui/settings.local.json',
    ])
    // A rule first granted for the session and then "always" is now saved: its source says so.
    const c = broker.request(bashRequest('make all', 'Bash(make *)'), signal)
    broker.resolve('id3', { kind: 'always' })
    await c
    expect(sources()).toEqual([
      'Bash(make *) .agent-tui/settings.local.json',
      'Bash(npm test *) .agent-tui/settings.local.json',
    ])
  })

  it('a failing save becomes a warning notice', async () => {
    const { broker, actions } = setup({
      onAlways: () => Promise.reject(new Error('disk full')),
    })
    const a = broker.request(bashRequest('make', 'Bash(make *)'), new AbortController().signal)
    broker.resolve('id1', { kind: 'always' })
    await a
    await vi.waitFor(() =>
      expect(actions.at(-1)).toMatchObject({
        type: 'notice/added',
        level: 'warn',
        text: 'could not save rule Bash(make *): disk full',
      }),
    )
  })

  it('abort withdraws the request and rejects with an AbortError', async () => {
    const { broker, actions } = setup()
    const controller = new AbortController()
    const promise = broker.request(bashRequest('rm x', 'Bash(rm *)'), controller.signal)
    controller.abort(new Error('turn cancelled'))
    await expect(promise).rejects.toBeInstanceOf(ConsentAbortedError)
    await expect(promise).rejects.toMatchObject({ name: 'AbortError' })
    expect(types(actions)).toEqual(['consent/requested', 'consent/resolved'])
    expect(broker.pending()).toEqual([])
    expect(broker.resolve('id1', { kind: 'once' })).toBe(false)
  })

  it('an already aborted signal rejects without dispatching', async () => {
    const { broker, actions } = setup()
    const controller = new AbortController()
    controller.abort()
    await expect(broker.request(bashRequest('rm x', 'Bash(rm *)'), controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(actions).toEqual([])
  })

  it('times out with a denial that says so', async () => {
    vi.useFakeTimers()
    const { broker, actions } = setup({ timeoutSeconds: 30 })
    const promise = broker.request(bashRequest('rm x', 'Bash(rm *)'), new AbortController().signal)
    vi.advanceTimersByTime(29_999)
    expect(broker.pending()).toHaveLength(1)
    vi.advanceTimersByTime(1)
    await expect(promise).resolves.toEqual({
      kind: 'deny',
      note: 'no answer within 30s; denied automatically (consentTimeoutSeconds)',
      automatic: true,
    })
    expect(types(actions)).toEqual(['consent/requested', 'consent/resolved'])
  })

  it('a resolved request never times out later', async () => {
    vi.useFakeTimers()
    const { broker, actions } = setup({ timeoutSeconds: 5 })
    const promise = broker.request(bashRequest('rm x', 'Bash(rm *)'), new AbortController().signal)
    broker.resolve('id1', { kind: 'once' })
    vi.advanceTimersByTime(10_000)
    await expect(promise).resolves.toEqual({ kind: 'once' })
    expect(types(actions)).toEqual(['consent/requested', 'consent/resolved'])
  })
})
