import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createConsentBroker } from '../../../source/permissions/broker.js'
import { authorize, createPermissionGate, type GateCall } from '../../../source/permissions/gate.js'
import { parseRule } from '../../../source/permissions/rules.js'
import { createStore } from '../../../source/store/create-store.js'
import type { ConsentDecision, Mode } from '../../../source/store/domain.js'
import { initialState } from '../../../source/store/state.js'

// authorize: the one trip a call makes to the gate, on the real policy and broker.

let ws: string
beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), 'gate-')))
})
afterAll(async () => {
  await rm(ws, { recursive: true, force: true })
})

function makeGate(mode: Mode, opts: { deny?: string[]; interactive?: boolean } = {}) {
  const store = createStore(
    initialState({ id: 's', cwd: ws, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, mode),
  )
  const broker = createConsentBroker({
    dispatch: store.dispatch,
    policy: 'interactive',
    workspace: ws,
    home: join(tmpdir(), 'gate-home-not-the-workspace'),
  })
  const gate = createPermissionGate({
    store,
    rules: { allow: [], ask: [], deny: (opts.deny ?? []).map((t) => parseRule(t, 'test')) },
    broker,
    workspace: ws,
    // Not the workspace: a workspace that holds the home directory makes auto mode ask before edits.
    home: join(tmpdir(), 'gate-home-not-the-workspace'),
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: opts.interactive ?? true,
    savedTo: '.agent-tui/settings.local.json',
  })
  return { gate, store }
}

const edit = (hook?: GateCall['hook']): GateCall => ({
  callId: 'c1',
  tool: 'Write',
  risk: 'edit',
  summary: 'Write a.txt',
  target: { kind: 'path', path: join(ws, 'a.txt'), access: 'write' },
  readOnly: () => false,
  ...(hook ? { hook } : {}),
})

/** Runs authorize, answering a prompt with `answer`; records the side effects in order. */
async function authorized(mode: Mode, call: GateCall, answer?: ConsentDecision, opts = {}) {
  const { gate, store } = makeGate(mode, opts)
  const seen: string[] = []
  const abort = new AbortController()
  const pending = authorize(gate, call, {
    signal: abort.signal,
    preview: async () => {
      seen.push('preview')
      return { kind: 'none' }
    },
    onPrompt: (open) => seen.push(open ? 'prompt' : 'answered'),
    onHookAllow: (text) => seen.push(text),
  })
  if (answer) {
    while (store.getState().consent.queue.length === 0) await new Promise((r) => setImmediate(r))
    const id = store.getState().consent.queue[0] as string
    if (answer.kind === 'deny' && answer.note === 'abort') abort.abort()
    else gate.resolve(id, answer)
  }
  return { auth: await pending, seen, request: store.getState().consent }
}

describe('authorize', () => {
  it('allows what the policy allows without a prompt and without computing the preview', async () => {
    const { auth, seen } = await authorized('auto', edit())
    expect(auth).toMatchObject({ decision: 'allow', readOnly: false, target: { real: join(ws, 'a.txt') } })
    expect(seen).toEqual([])
  })

  it('asks when the policy asks: the prompt opens, the preview is made, the answer comes back', async () => {
    const { auth, seen } = await authorized('safe', edit(), { kind: 'once', note: 'fine' })
    expect(auth).toMatchObject({ decision: 'allow', approval: { kind: 'once', note: 'fine' } })
    expect(seen).toEqual(['prompt', 'preview', 'answered'])
  })

  it.each<[string, Mode, { deny?: string[]; interactive?: boolean }, string, RegExp]>([
    ['a deny rule', 'safe', { deny: ['Write'] }, 'policy', /rule Write in test denies/],
    ['nobody to ask', 'safe', { interactive: false }, 'no-user', /safe mode asks before edits/],
  ])('denies: %s, with the offer the envelope names', async (_what, mode, opts, by, reason) => {
    const { auth, seen } = await authorized(mode, edit(), undefined, opts)
    expect(auth).toMatchObject({ decision: 'deny', by, offer: { rule: 'Edit(a.txt)' } })
    expect(auth.decision === 'deny' && auth.by !== 'user' && auth.verdict.reason).toMatch(reason)
    expect(seen).toEqual([])
  })

  it('gives the user’s denial back as the answer', async () => {
    const { auth } = await authorized('safe', edit(), { kind: 'deny' })
    expect(auth).toEqual({ decision: 'deny', by: 'user', answer: { kind: 'deny' } })
  })

  it('is withdrawn when the signal aborts while it asks', async () => {
    const { auth, seen } = await authorized('safe', edit(), { kind: 'deny', note: 'abort' })
    expect(auth).toEqual({ decision: 'withdrawn' })
    expect(seen).toEqual(['prompt', 'preview'])
  })

  it('folds a PreToolUse hook in: its allow skips the mode’s question and says so; its ask asks', async () => {
    const allowed = await authorized('safe', edit({ allow: true, ask: null }))
    expect(allowed.auth.decision).toBe('allow')
    expect(allowed.seen).toEqual([
      'PreToolUse hook allowed Write without asking (otherwise: safe mode asks before edits)',
    ])
    const asked = await authorized('auto', edit({ allow: false, ask: 'check it' }), { kind: 'once' })
    expect(asked.auth.decision).toBe('allow')
    expect(asked.seen).toEqual(['prompt', 'preview', 'answered'])
  })

  it('hands a searching tool the deny rules that keep it from files it finds', async () => {
    const { gate } = makeGate('safe', { deny: ['Read(secret/**)'] })
    const auth = await authorize(
      gate,
      {
        ...edit(),
        tool: 'Grep',
        risk: 'read',
        target: { kind: 'path', path: ws, access: 'read' },
        readOnly: () => true,
      },
      { signal: new AbortController().signal, preview: async () => ({ kind: 'none' }) },
    )
    expect(auth.decision === 'allow' && auth.deniedRead?.(join(ws, 'secret/k'))).toBe(
      'rule Read(secret/**) in test',
    )
  })
})

describe('a tool that asks once per session (SaveMemory)', () => {
  const save = (id: string): GateCall => ({
    callId: id,
    tool: 'SaveMemory',
    risk: 'config',
    summary: 'SaveMemory: x',
    target: { kind: 'none' },
    readOnly: () => false,
    sessionGrant: true,
  })

  it('asks the first time; allowing it allows the next call without a prompt', async () => {
    const { gate, store } = makeGate('safe')
    const opts = (seen: string[]) => ({
      signal: new AbortController().signal,
      preview: async () => ({ kind: 'none' as const }),
      onPrompt: (open: boolean) => seen.push(open ? 'prompt' : 'answered'),
    })
    const first: string[] = []
    const pending = authorize(gate, save('c1'), opts(first))
    while (store.getState().consent.queue.length === 0) await new Promise((r) => setImmediate(r))
    const id = store.getState().consent.queue[0] as string
    expect(store.getState().consent.byId[id]).toMatchObject({
      sessionGrant: true,
      suggestedRule: 'SaveMemory',
    })
    gate.resolve(id, { kind: 'once' })
    expect(await pending).toMatchObject({ decision: 'allow' })
    const second: string[] = []
    expect(await authorize(gate, save('c2'), opts(second))).toMatchObject({ decision: 'allow' })
    expect([first, second]).toEqual([['prompt', 'answered'], []])
  })
})
