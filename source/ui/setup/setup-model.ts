/**
 * The setup form as a pure state machine (docs/configuration.md#setting-up-in-agent-tui):
 * `reduceSetup(state, event, env)` → the next state and the effects to run. Four steps — where the model
 * is (a local server that answered, or a typed base URL), the API key (none, typed and masked, or the
 * name of an environment variable), the model (the endpoint's list, filterable, or a typed id), then one
 * test request and the save — each a small reducer. No React, no I/O: effects are plain data that the
 * binding (use-setup-form.ts) carries out, feeding the results back as events.
 */
import type { KeyChoice } from '../../config/save-endpoint.js'
import { isLoopbackUrl, normalizeBaseUrl } from './setup-url.js'

export type { KeyChoice }

/** A loopback server the probe tried. */
export interface ProbedServer {
  name: string
  url: string
  /** `found 3 models`, `connection refused`, `no answer within 300 ms`… */
  result: string
  /** It answered with models: one of the form's choices. */
  answered: boolean
}

export type SetupStep = 'endpoint' | 'key' | 'model' | 'done'
export type KeyRow = 'none' | 'typed' | 'env'
export const KEY_ROWS: readonly KeyRow[] = ['none', 'typed', 'env']

export interface SetupState {
  readonly step: SetupStep
  readonly servers: readonly ProbedServer[]
  /** Among the answered servers, then the URL field (the last row). */
  readonly endpointRow: number
  readonly url: string
  /** The base URL chosen at the first step. */
  readonly baseUrl: string
  readonly keyRow: KeyRow
  readonly typedKey: string
  readonly envName: string
  readonly models: readonly string[]
  readonly filter: string
  readonly modelRow: number
  /** The model being tested or saved. */
  readonly model: string
  /** A request or save in flight: what the form says meanwhile. */
  readonly busy: string | null
  readonly error: string | null
  /** What the last step found (the test's answer, a listing note). */
  readonly note: string | null
}

/** A key as the form sees it (Ink's `useInput` gives one). */
export interface SetupKey {
  input: string
  return?: boolean
  escape?: boolean
  upArrow?: boolean
  downArrow?: boolean
  backspace?: boolean
  delete?: boolean
  tab?: boolean
  ctrl?: boolean
  meta?: boolean
}

export type SetupEvent =
  | { type: 'key'; key: SetupKey }
  | { type: 'probed'; servers: readonly ProbedServer[] }
  | { type: 'listed'; ok: true; models: readonly string[] }
  | { type: 'listed'; ok: false; error: string; status?: number; unreachable: boolean }
  | { type: 'tested'; ok: true; summary: string }
  | { type: 'tested'; ok: false; error: string }
  | { type: 'saved'; ok: true }
  | { type: 'saved'; ok: false; error: string }

export interface SetupResult {
  baseUrl: string
  model: string
  key: KeyChoice
}

export type SetupEffect =
  | { type: 'probe' }
  | { type: 'list-models'; baseUrl: string; key: KeyChoice }
  | { type: 'test'; baseUrl: string; key: KeyChoice; model: string }
  | { type: 'save'; choice: SetupResult }
  /** Stop the request in flight (Esc while busy). */
  | { type: 'cancel' }
  /** Continue into the session with this endpoint (saved, or not when `saved` is false). */
  | { type: 'done'; choice: SetupResult; saved: boolean; note?: string }
  /** Leave without an endpoint. */
  | { type: 'exit' }

export interface SetupEnv {
  /** Whether a variable is set (non-empty) in agent-tui's environment. */
  envHas(name: string): boolean
}

export interface SetupTransition {
  state: SetupState
  effects: SetupEffect[]
}

export interface SetupStart {
  servers?: readonly ProbedServer[]
  /**
   * The endpoint in use, when the form is reopened with /login: its URL and model come first, and its key
   * (one stored by the form, or the variable it is read from) is kept unless another is chosen.
   */
  current?: { baseUrl: string; model?: string; key?: KeyChoice }
}

/** The form as it opens; without `servers` it looks for local servers first. */
export function openSetup(start: SetupStart = {}): SetupTransition {
  const state = initialSetup(start)
  return { state, effects: start.servers === undefined ? [{ type: 'probe' }] : [] }
}

function initialSetup(start: SetupStart): SetupState {
  const servers = start.servers ?? []
  const answered = servers.filter((s) => s.answered)
  const at = start.current ? answered.findIndex((s) => s.url === start.current?.baseUrl) : 0
  const typed = start.current && at === -1 ? start.current.baseUrl : ''
  const key = start.current?.key ?? { kind: 'none' }
  return {
    step: 'endpoint',
    servers,
    endpointRow: typed ? answered.length : Math.max(0, at),
    url: typed,
    // Choosing the same URL again keeps its key (toKeyStep).
    baseUrl: start.current && key.kind !== 'none' ? start.current.baseUrl : '',
    keyRow: key.kind === 'stored' ? 'typed' : key.kind === 'env' ? 'env' : 'none',
    typedKey: key.kind === 'stored' ? key.key : '',
    envName: key.kind === 'env' ? key.name : '',
    models: [],
    filter: '',
    modelRow: 0,
    model: start.current?.model ?? '',
    busy: start.servers === undefined ? 'Looking for local servers…' : null,
    error: null,
    note: null,
  }
}

/** The answered servers, the form's choices at the first step. */
export function choices(state: SetupState): readonly ProbedServer[] {
  return state.servers.filter((s) => s.answered)
}

/** The models whose id holds every word of the filter (case-insensitive), in the endpoint's order. */
export function shownModels(state: Pick<SetupState, 'models' | 'filter'>): string[] {
  const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean)
  return state.models.filter((m) => words.every((w) => m.toLowerCase().includes(w)))
}

export function keyChoiceOf(state: Pick<SetupState, 'keyRow' | 'typedKey' | 'envName'>): KeyChoice {
  if (state.keyRow === 'typed') return { kind: 'stored', key: state.typedKey }
  if (state.keyRow === 'env') return { kind: 'env', name: state.envName }
  return { kind: 'none' }
}

const same = (state: SetupState): SetupTransition => ({ state, effects: [] })

export function reduceSetup(state: SetupState, event: SetupEvent, env: SetupEnv): SetupTransition {
  if (event.type !== 'key') return reduceResult(state, event)
  const key = event.key
  if (key.ctrl && key.input === 'c') return { state, effects: [{ type: 'exit' }] }
  if (state.busy !== null) {
    // While a request runs, Esc stops it; every other key waits.
    if (!key.escape) return same(state)
    return { state: { ...state, busy: null, error: null }, effects: [{ type: 'cancel' }] }
  }
  if (state.step === 'endpoint') return endpointKey(state, key)
  if (state.step === 'key') return keyStepKey(state, key, env)
  if (state.step === 'model') return modelKey(state, key)
  return doneKey(state, key)
}

/** Printable text of a key: what typing adds to a field (control characters and newlines dropped). */
export function typedText(key: SetupKey): string {
  if (key.ctrl || key.meta || key.return || key.escape || key.tab) return ''
  return key.input.replace(/[\u0000-\u001f\u007f]/g, '')
}

/**
 * One chunk of typed input as the keys it holds: a URL typed or pasted and Enter arrive in one chunk
 * (`http://…/v1\r`), which is the text and then Enter, in that order.
 */
export function splitTyped(key: SetupKey): SetupKey[] {
  if (key.ctrl || key.meta || key.escape || key.input.length < 2 || !/[\r\n]/.test(key.input)) return [key]
  const parts: SetupKey[] = []
  for (const [i, text] of key.input.split(/\r\n|[\r\n]/).entries()) {
    if (i > 0) parts.push({ input: '', return: true })
    if (text !== '') parts.push({ input: text })
  }
  return parts
}

function moveRow(at: number, count: number, key: SetupKey): number | null {
  if (key.upArrow) return Math.max(0, at - 1)
  if (key.downArrow || key.tab) return Math.min(count - 1, at + 1)
  return null
}

function endpointKey(state: SetupState, key: SetupKey): SetupTransition {
  const servers = choices(state)
  const urlRow = servers.length
  if (key.escape) return { state, effects: [{ type: 'exit' }] }
  if (key.ctrl && key.input === 'r')
    return {
      state: { ...state, busy: 'Looking for local servers…', error: null },
      effects: [{ type: 'probe' }],
    }
  const moved = moveRow(state.endpointRow, urlRow + 1, key)
  if (moved !== null) return same({ ...state, endpointRow: moved, error: null })
  if (key.return) {
    const server = servers[state.endpointRow]
    if (server) return toKeyStep(state, server.url, 'none')
    const url = normalizeBaseUrl(state.url)
    if ('error' in url) return same({ ...state, error: url.error })
    return toKeyStep({ ...state, url: url.url }, url.url, isLoopbackUrl(url.url) ? 'none' : 'typed')
  }
  const edited = editField(state.url, key)
  // Typing anywhere types the URL.
  if (edited !== null) return same({ ...state, url: edited, endpointRow: urlRow, error: null })
  return same(state)
}

function toKeyStep(state: SetupState, baseUrl: string, row: KeyRow): SetupTransition {
  // A URL chosen again keeps the key choice made for it.
  const keep = state.baseUrl === baseUrl
  return same({
    ...state,
    step: 'key',
    baseUrl,
    keyRow: keep ? state.keyRow : row,
    error: null,
    note: null,
  })
}

function keyStepKey(state: SetupState, key: SetupKey, env: SetupEnv): SetupTransition {
  if (key.escape) return same({ ...state, step: 'endpoint', error: null })
  const at = KEY_ROWS.indexOf(state.keyRow)
  const moved = moveRow(at, KEY_ROWS.length, key)
  if (moved !== null) return same({ ...state, keyRow: KEY_ROWS[moved] ?? 'none', error: null })
  if (key.return) {
    const problem = keyProblem(state, env)
    if (problem) return same({ ...state, error: problem })
    return {
      state: { ...state, busy: `Listing the models at ${state.baseUrl}…`, error: null },
      effects: [{ type: 'list-models', baseUrl: state.baseUrl, key: keyChoiceOf(state) }],
    }
  }
  if (state.keyRow === 'env') {
    const edited = editField(state.envName, key, /[A-Za-z0-9_]/)
    return edited === null ? same(state) : same({ ...state, envName: edited, error: null })
  }
  const edited = editField(state.typedKey, key, /\S/)
  if (edited === null) return same(state)
  return same({ ...state, keyRow: 'typed', typedKey: edited, error: null })
}

function keyProblem(state: SetupState, env: SetupEnv): string | null {
  if (state.keyRow === 'typed' && state.typedKey === '') return 'Type or paste the key (or pick "No key")'
  if (state.keyRow !== 'env') return null
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(state.envName))
    return 'Type the name of the variable that holds the key, such as OPENROUTER_API_KEY'
  if (!env.envHas(state.envName))
    return `${state.envName} is not set here: start agent-tui with it set, or type the key`
  return null
}

function modelKey(state: SetupState, key: SetupKey): SetupTransition {
  if (key.escape) return same({ ...state, step: 'key', error: null, note: null })
  const list = shownModels(state)
  const at = Math.min(state.modelRow, Math.max(0, list.length - 1))
  const moved = moveRow(at, Math.max(1, list.length), key)
  if (moved !== null) return same({ ...state, modelRow: moved, error: null })
  if (key.return) {
    const model = list[at] ?? state.filter.trim()
    if (model === '') return same({ ...state, error: 'Type the model id' })
    return {
      state: { ...state, model, busy: `Testing ${model} with one request…`, error: null, note: null },
      effects: [{ type: 'test', baseUrl: state.baseUrl, key: keyChoiceOf(state), model }],
    }
  }
  const edited = editField(state.filter, key)
  return edited === null ? same(state) : same({ ...state, filter: edited, modelRow: 0, error: null })
}

function doneKey(state: SetupState, key: SetupKey): SetupTransition {
  // Only a failed save stops here: Enter goes on without it, Esc goes back to pick again.
  if (key.escape) return same({ ...state, step: 'model', error: null })
  if (key.return) return { state, effects: [done(state, false)] }
  return same(state)
}

/** The form's end: the choice, whether it was saved, and what the test request found. */
function done(state: SetupState, saved: boolean): SetupEffect {
  return { type: 'done', choice: resultOf(state), saved, ...(state.note ? { note: state.note } : {}) }
}

function resultOf(state: SetupState): SetupResult {
  return { baseUrl: state.baseUrl, model: state.model, key: keyChoiceOf(state) }
}

function reduceResult(state: SetupState, event: Exclude<SetupEvent, { type: 'key' }>): SetupTransition {
  // A result that arrives after Esc stopped its request is not the form's any more.
  if (state.busy === null) return same(state)
  switch (event.type) {
    case 'probed': {
      const answered = event.servers.filter((s) => s.answered).length
      return same({ ...state, servers: event.servers, busy: null, endpointRow: state.url ? answered : 0 })
    }
    case 'listed':
      return listed(state, event)
    case 'tested':
      if (!event.ok) return same({ ...state, busy: null, error: `${state.model}: ${event.error}` })
      return {
        state: { ...state, busy: 'Saving…', note: event.summary },
        effects: [{ type: 'save', choice: resultOf(state) }],
      }
    case 'saved':
      if (!event.ok) return same({ ...state, step: 'done', busy: null, error: `Not saved: ${event.error}` })
      return {
        state: { ...state, step: 'done', busy: null },
        effects: [done(state, true)],
      }
  }
}

function listed(state: SetupState, event: Extract<SetupEvent, { type: 'listed' }>): SetupTransition {
  if (event.ok) {
    const at = Math.max(0, event.models.indexOf(state.model))
    return same({
      ...state,
      step: 'model',
      busy: null,
      models: event.models,
      filter: '',
      modelRow: at,
      note: event.models.length === 0 ? 'The endpoint lists no models: type the model id' : null,
    })
  }
  if (event.status === 401 || event.status === 403)
    return same({ ...state, busy: null, error: `The key was refused (HTTP ${event.status}): check it` })
  if (event.unreachable)
    return same({ ...state, step: 'endpoint', busy: null, error: `${state.baseUrl}: ${event.error}` })
  // It answered, but not with a list: the model can still be typed (and the test will tell).
  const hint = event.status === 404 ? ' (check the base URL: it usually ends in /v1)' : ''
  return same({
    ...state,
    step: 'model',
    busy: null,
    models: [],
    filter: state.model,
    modelRow: 0,
    note: `Listing the models failed: ${event.error}${hint}. Type the model id`,
  })
}

/** A field edited by a key: Backspace deletes the last character, typing appends; null: not an edit. */
function editField(value: string, key: SetupKey, allowed?: RegExp): string | null {
  if (key.backspace || key.delete) return value.slice(0, -1)
  const text = typedText(key)
  if (text === '') return null
  const kept = allowed ? [...text].filter((c) => allowed.test(c)).join('') : text
  return kept === '' ? null : value + kept
}
