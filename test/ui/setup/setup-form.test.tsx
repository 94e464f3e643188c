/** The setup form drawn (setup-form.tsx) over scripted services: it fits 80×24 and 120×40, keys are masked. */
import { describe, expect, it } from 'vitest'
import { mask, SetupForm } from '../../../source/ui/setup/setup-form.js'
import type { SetupServices } from '../../../source/ui/setup/use-setup-form.js'
import { KEYS, renderSized, waitFor } from '../shell/helpers.js'

const MODELS = Array.from({ length: 40 }, (_, i) => `model-${String(i).padStart(2, '0')}`)

function services(log: string[]): SetupServices {
  return {
    probe: async () => [
      { name: 'Ollama', url: 'http://127.0.0.1:11434/v1', result: '40 models', answered: true },
      { name: 'LM Studio', url: 'http://127.0.0.1:1234/v1', result: 'connection refused', answered: false },
    ],
    listModels: async (url, key) => {
      log.push(`list ${url} ${key.kind}`)
      return { ok: true, models: MODELS }
    },
    test: async (_url, key, model) => {
      log.push(`test ${model} ${key.kind === 'stored' ? key.key : key.kind}`)
      return { ok: true, summary: `${model} answered` }
    },
    save: async () => ({ ok: true }),
    envHas: () => false,
  }
}

const props = (log: string[], done: unknown[]) => ({
  start: {},
  services: services(log),
  credentialsFile: '~/.config/agent-tui/credentials.json',
  settingsFile: '~/.config/agent-tui/settings.json',
  leaveLabel: 'exit',
  onDone: (...args: unknown[]) => done.push(args),
  onExit: () => done.push('exit'),
})

describe('SetupForm', () => {
  it.each([
    [80, 24],
    [120, 40],
  ])('at %i×%i: every step fits, the key is masked, a long list scrolls', async (columns, rows) => {
    const log: string[] = []
    const done: unknown[] = []
    const r = renderSized(<SetupForm {...props(log, done)} />, columns, rows)
    const fits = () => r.frame().replace(/\n+$/, '').split('\n').length <= rows
    await waitFor(() => r.frame().includes('Ollama') && r.frame().includes('connection refused'))
    expect(fits()).toBe(true)
    r.stdin.write('\r')
    await waitFor(() => r.frame().includes('API key for http://127.0.0.1:11434/v1'))
    r.stdin.write(KEYS.down)
    r.stdin.write('sk-very-secret')
    await waitFor(() => r.frame().includes(mask('sk-very-secret')))
    expect(r.frame()).not.toContain('sk-very')
    r.stdin.write('\r')
    await waitFor(() => r.frame().includes('40 models'))
    expect(fits()).toBe(true)
    for (let i = 0; i < 30; i++) r.stdin.write(KEYS.down)
    await waitFor(() => r.frame().includes('❯ model-30'))
    expect(fits()).toBe(true)
    expect(r.frame()).not.toContain('model-00')
    r.stdin.write('\r')
    await waitFor(() => done.length === 1)
    expect(log).toEqual(['list http://127.0.0.1:11434/v1 stored', 'test model-30 sk-very-secret'])
    expect(done[0]).toEqual([
      {
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'model-30',
        key: { kind: 'stored', key: 'sk-very-secret' },
      },
      true,
      'model-30 answered',
    ])
    r.instance.unmount()
  })

  it('Esc at the first step leaves', async () => {
    const done: unknown[] = []
    const r = renderSized(<SetupForm {...props([], done)} />, 80, 24)
    await waitFor(() => r.frame().includes('Ollama'))
    r.stdin.write(KEYS.esc)
    await waitFor(() => done.length === 1)
    expect(done).toEqual(['exit'])
    r.instance.unmount()
  })

  it('masks long keys by their length', () => {
    expect(mask('abc')).toBe('•••')
    expect(mask('x'.repeat(60))).toBe(`${'•'.repeat(24)} (60 characters)`)
  })
})
