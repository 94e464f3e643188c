import { describe, expect, it } from 'vitest'
import {
  openSetup,
  type ProbedServer,
  reduceSetup,
  type SetupEffect,
  type SetupEvent,
  type SetupKey,
  type SetupState,
  shownModels,
  splitTyped,
} from '../../../source/ui/setup/setup-model.js'
import { isLoopbackUrl, normalizeBaseUrl } from '../../../source/ui/setup/setup-url.js'

const OLLAMA: ProbedServer = {
  name: 'Ollama',
  url: 'http://127.0.0.1:11434/v1',
  result: '2 models',
  answered: true,
}
const LMS: ProbedServer = {
  name: 'LM Studio',
  url: 'http://127.0.0.1:1234/v1',
  result: 'connection refused',
  answered: false,
}
const LLAMA: ProbedServer = {
  name: 'llama.cpp',
  url: 'http://127.0.0.1:8080/v1',
  result: '1 model',
  answered: true,
}

const env = { envHas: (name: string) => name === 'MY_KEY' }

const k = (key: Partial<SetupKey> & { input?: string }): SetupEvent => ({
  type: 'key',
  key: { input: '', ...key },
})
const type = (text: string): SetupEvent[] => [...text].map((c) => k({ input: c }))
const ENTER = k({ return: true })
const ESC = k({ escape: true })
const DOWN = k({ downArrow: true })
const UP = k({ upArrow: true })
const BS = k({ backspace: true })

/** Runs events through the reducer; the state at the end and every effect asked for, in order. */
function run(state: SetupState, events: SetupEvent[]): { state: SetupState; effects: SetupEffect[] } {
  const effects: SetupEffect[] = []
  for (const event of events) {
    const next = reduceSetup(state, event, env)
    state = next.state
    effects.push(...next.effects)
  }
  return { state, effects }
}

const opened = (servers: ProbedServer[] = [OLLAMA, LMS, LLAMA]) => openSetup({ servers }).state

describe('the setup form model', () => {
  it('opens by looking for local servers unless it was given what the start-up probe found', () => {
    expect(openSetup().effects).toEqual([{ type: 'probe' }])
    expect(openSetup().state.busy).toMatch(/Looking/)
    expect(openSetup({ servers: [] }).effects).toEqual([])
    const probed = run(openSetup().state, [{ type: 'probed', servers: [OLLAMA, LMS] }]).state
    expect(probed.busy).toBeNull()
    expect(probed.servers).toEqual([OLLAMA, LMS])
  })

  it('offers the servers that answered, then the URL field; a server needs no key', () => {
    const { state, effects } = run(opened(), [DOWN, ENTER])
    expect(state.step).toBe('key')
    expect(state.baseUrl).toBe(LLAMA.url)
    expect(state.keyRow).toBe('none')
    expect(effects).toEqual([])
    // Enter on "No key" lists the models, with no key.
    const listed = run(state, [ENTER])
    expect(listed.effects).toEqual([{ type: 'list-models', baseUrl: LLAMA.url, key: { kind: 'none' } }])
    expect(listed.state.busy).toMatch(/Listing/)
  })

  it.each<[string, string, string, 'none' | 'typed']>([
    ['a hosted URL, scheme added, key asked', 'api.example.com/v1/', 'https://api.example.com/v1', 'typed'],
    ['a loopback URL, http, no key by default', '127.0.0.1:9999/v1', 'http://127.0.0.1:9999/v1', 'none'],
    ['an explicit http URL kept', 'http://gpu-box:8000/v1', 'http://gpu-box:8000/v1', 'typed'],
  ])('typing a URL: %s', (_, typed, url, keyRow) => {
    const { state } = run(opened(), [...type(typed), ENTER])
    expect(state.step).toBe('key')
    expect(state.baseUrl).toBe(url)
    expect(state.keyRow).toBe(keyRow)
  })

  it.each([
    ['nothing typed', '', /Type the base URL/],
    ['not http', 'ftp://x/v1', /not http or https/],
    ['a key in the URL', 'https://me:sk-1@api.x/v1', /not in the URL/],
    ['a query', 'https://api.x/v1?a=1', /no \?query/],
  ])('a bad URL stays at the first step and says why: %s', (_, typed, error) => {
    const { state, effects } = run(opened([]), [...type(typed), ENTER])
    expect(state.step).toBe('endpoint')
    expect(state.error).toMatch(error)
    expect(effects).toEqual([])
  })

  it('typed keys are kept as typed, control characters and spaces dropped, and never leave the model but as the choice', () => {
    const { state, effects } = run(opened([]), [
      ...type('api.x/v1'),
      ENTER,
      ...type('sk- 12\u0007x'),
      BS,
      ENTER,
    ])
    expect(state.typedKey).toBe('sk-12')
    expect(effects).toEqual([
      { type: 'list-models', baseUrl: 'https://api.x/v1', key: { kind: 'stored', key: 'sk-12' } },
    ])
  })

  it.each([
    ['an empty typed key', [DOWN], /Type or paste the key/],
    ['a variable that is not set', [DOWN, DOWN, ...type('OTHER_KEY')], /OTHER_KEY is not set here/],
    ['no variable name', [DOWN, DOWN], /name of the variable/],
  ])('the key step refuses %s', (_, events, error) => {
    const at = run(opened([]), [...type('api.x/v1'), ENTER]).state
    const { state, effects } = run({ ...at, keyRow: 'none' }, [...(events as SetupEvent[]), ENTER])
    expect(state.error).toMatch(error)
    expect(effects).toEqual([])
  })

  it('a key from a variable: only its name travels', () => {
    const at = run(opened([]), [...type('api.x/v1'), ENTER, DOWN, ...type('MY_KEY!'), ENTER])
    expect(at.effects).toEqual([
      { type: 'list-models', baseUrl: 'https://api.x/v1', key: { kind: 'env', name: 'MY_KEY' } },
    ])
  })

  const atModels = () => {
    const at = run(opened(), [ENTER, ENTER]).state
    return run(at, [{ type: 'listed', ok: true, models: ['qwen2.5-coder:7b', 'llama3.1:8b', 'qwen3:30b'] }])
      .state
  }

  it('lists the models, filters them by every word, and tests the one chosen', () => {
    const at = atModels()
    expect(at.step).toBe('model')
    expect(shownModels({ ...at, filter: 'qwen' })).toEqual(['qwen2.5-coder:7b', 'qwen3:30b'])
    expect(shownModels({ ...at, filter: 'QWEN 30' })).toEqual(['qwen3:30b'])
    const { state, effects } = run(at, [...type('qwen'), DOWN, ENTER])
    expect(state.model).toBe('qwen3:30b')
    expect(state.busy).toMatch(/Testing qwen3:30b/)
    expect(effects).toEqual([
      { type: 'test', baseUrl: OLLAMA.url, key: { kind: 'none' }, model: 'qwen3:30b' },
    ])
  })

  it('a filter that matches nothing is the model id', () => {
    const { effects } = run(atModels(), [...type('my-finetune'), ENTER])
    expect(effects).toEqual([
      { type: 'test', baseUrl: OLLAMA.url, key: { kind: 'none' }, model: 'my-finetune' },
    ])
  })

  it('a tested model is saved, then the form is done with the choice', () => {
    const testing = run(atModels(), [ENTER]).state
    const tested = run(testing, [
      { type: 'tested', ok: true, summary: 'qwen2.5-coder:7b answered in 80 ms: "OK"' },
    ])
    const choice = { baseUrl: OLLAMA.url, model: 'qwen2.5-coder:7b', key: { kind: 'none' } }
    expect(tested.effects).toEqual([{ type: 'save', choice }])
    const saved = run(tested.state, [{ type: 'saved', ok: true }])
    expect(saved.effects).toEqual([
      { type: 'done', choice, saved: true, note: 'qwen2.5-coder:7b answered in 80 ms: "OK"' },
    ])
  })

  it('a failed test stays at the model step with the reason; nothing is saved', () => {
    const testing = run(atModels(), [ENTER]).state
    const { state, effects } = run(testing, [
      { type: 'tested', ok: false, error: 'HTTP 404 — check the model id' },
    ])
    expect(state.step).toBe('model')
    expect(state.error).toBe('qwen2.5-coder:7b: HTTP 404 — check the model id')
    expect(effects).toEqual([])
  })

  it('a failed save says so, and Enter goes on with the endpoint for this session only', () => {
    const testing = run(atModels(), [ENTER]).state
    const tested = run(testing, [{ type: 'tested', ok: true, summary: 'ok' }]).state
    const failed = run(tested, [{ type: 'saved', ok: false, error: 'EACCES' }]).state
    expect(failed.step).toBe('done')
    expect(failed.error).toBe('Not saved: EACCES')
    expect(run(failed, [ENTER]).effects).toEqual([
      {
        type: 'done',
        choice: { baseUrl: OLLAMA.url, model: 'qwen2.5-coder:7b', key: { kind: 'none' } },
        saved: false,
        note: 'ok',
      },
    ])
  })

  it.each<[string, Extract<SetupEvent, { type: 'listed' }>, string, RegExp]>([
    [
      'a refused key stays at the key step',
      { type: 'listed', ok: false, error: 'HTTP 401', status: 401, unreachable: false },
      'key',
      /key was refused/,
    ],
    [
      'no answer goes back to the URL',
      { type: 'listed', ok: false, error: 'connection refused', unreachable: true },
      'endpoint',
      /connection refused/,
    ],
  ])('listing: %s', (_, event, step, error) => {
    const at = run(opened(), [ENTER, ENTER]).state
    const { state } = run(at, [event])
    expect(state.step).toBe(step)
    expect(state.error).toMatch(error)
    expect(state.busy).toBeNull()
  })

  it('a listing that fails with an answer lets the model id be typed, with the hint for a 404', () => {
    const at = run(opened(), [ENTER, ENTER]).state
    const { state } = run(at, [
      { type: 'listed', ok: false, error: 'HTTP 404', status: 404, unreachable: false },
    ])
    expect(state.step).toBe('model')
    expect(state.note).toMatch(/ends in \/v1/)
  })

  it('Esc stops a request in flight, and its late result is ignored', () => {
    const at = run(opened(), [ENTER, ENTER]).state
    const stopped = run(at, [ESC])
    expect(stopped.effects).toEqual([{ type: 'cancel' }])
    expect(stopped.state.busy).toBeNull()
    const late = run(stopped.state, [{ type: 'listed', ok: true, models: ['x'] }])
    expect(late.state.step).toBe('key')
    // Other keys wait while a request runs.
    expect(run(at, [...type('abc'), UP]).state).toEqual(at)
  })

  it('Esc steps back, and leaves from the first step; Ctrl+C leaves from anywhere', () => {
    const models = atModels()
    expect(run(models, [ESC]).state.step).toBe('key')
    expect(run(models, [ESC, ESC]).state.step).toBe('endpoint')
    expect(run(models, [ESC, ESC, ESC]).effects).toEqual([{ type: 'exit' }])
    expect(run(models, [k({ input: 'c', ctrl: true })]).effects).toEqual([{ type: 'exit' }])
  })

  it('reopened with /login: the endpoint in use is chosen, its model first in the list', () => {
    const typed = openSetup({ servers: [OLLAMA], current: { baseUrl: 'https://api.x/v1', model: 'b' } }).state
    expect(typed.url).toBe('https://api.x/v1')
    expect(typed.endpointRow).toBe(1)
    const local = openSetup({ servers: [LLAMA, OLLAMA], current: { baseUrl: OLLAMA.url, model: 'b' } }).state
    expect(local.endpointRow).toBe(1)
    const listed = run(run(local, [ENTER, ENTER]).state, [
      { type: 'listed', ok: true, models: ['a', 'b'] },
    ]).state
    expect(shownModels(listed)[listed.modelRow]).toBe('b')
  })
})

describe('reopened with the key in use', () => {
  it.each<[string, KeyChoiceCase, string, Partial<SetupState>]>([
    [
      'a stored key is kept for the same URL',
      { kind: 'stored', key: 'sk-kept' },
      'https://api.x/v1',
      { keyRow: 'typed', typedKey: 'sk-kept' },
    ],
    [
      'a variable is kept',
      { kind: 'env', name: 'MY_KEY' },
      'https://api.x/v1',
      { keyRow: 'env', envName: 'MY_KEY' },
    ],
    ['another URL asks again', { kind: 'env', name: 'MY_KEY' }, 'https://other.x/v1', { keyRow: 'typed' }],
  ])('%s', (_, key, url, expected) => {
    const open = openSetup({ servers: [], current: { baseUrl: 'https://api.x/v1', model: 'm', key } }).state
    const edited = url === open.url ? open : { ...open, url }
    const { state } = run(edited, [ENTER])
    expect(state.step).toBe('key')
    expect(state).toMatchObject(expected)
    if (url === 'https://api.x/v1')
      expect(run(state, [ENTER]).effects).toEqual([{ type: 'list-models', baseUrl: url, key }])
  })
})

type KeyChoiceCase = Extract<
  import('../../../source/ui/setup/setup-model.js').KeyChoice,
  { kind: 'stored' | 'env' }
>

describe('normalizeBaseUrl', () => {
  it.each([
    ['localhost:11434/v1', 'http://localhost:11434/v1'],
    ['https://api.openai.com/v1/', 'https://api.openai.com/v1'],
    ['  openrouter.ai/api/v1 ', 'https://openrouter.ai/api/v1'],
    ['[::1]:8080/v1', 'http://[::1]:8080/v1'],
  ])('%s → %s', (typed, url) => {
    expect(normalizeBaseUrl(typed)).toEqual({ url })
  })

  it('knows this machine', () => {
    expect(isLoopbackUrl('http://127.0.0.1:8080/v1')).toBe(true)
    expect(isLoopbackUrl('https://127.0.0.1.evil.example/v1')).toBe(false)
    expect(isLoopbackUrl('https://api.openai.com/v1')).toBe(false)
  })
})

describe('splitTyped', () => {
  it('reads a chunk holding text and Enter as the text, then Enter', () => {
    expect(splitTyped({ input: 'http://x/v1\r' })).toEqual([
      { input: 'http://x/v1' },
      { input: '', return: true },
    ])
    expect(splitTyped({ input: 'a\r\nb' })).toEqual([
      { input: 'a' },
      { input: '', return: true },
      { input: 'b' },
    ])
    expect(splitTyped({ input: 'abc' })).toEqual([{ input: 'abc' }])
    expect(splitTyped({ input: '\r', return: true })).toEqual([{ input: '\r', return: true }])
  })

  it('so a URL typed with its Enter moves to the key step', () => {
    const events = splitTyped({ input: 'api.x/v1\r' }).map((key) => ({ type: 'key', key }) as SetupEvent)
    expect(run(opened([]), events).state.step).toBe('key')
  })
})
