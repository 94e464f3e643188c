import { describe, expect, it } from 'vitest'
import {
  createRuntimeSettings,
  type SettingAccessor,
  type ThemeName,
} from '../../../../source/agent/runtime/settings.js'
import { ToolError } from '../../../../source/tools/types.js'

/** An accessor over one field of a plain object. */
function field<T extends object, K extends keyof T>(obj: T, key: K): SettingAccessor<T[K]> {
  return {
    get: () => obj[key],
    set: (value) => {
      obj[key] = value
    },
  }
}

function full() {
  const v = {
    model: 'gpt-4o',
    theme: 'dark' as ThemeName,
    verbose: false,
    observationWindow: 8,
    compactAt: 0.8,
    showTodos: true,
  }
  const settings = createRuntimeSettings({
    model: field(v, 'model'),
    theme: field(v, 'theme'),
    verbose: field(v, 'verbose'),
    observationWindow: field(v, 'observationWindow'),
    compactAt: field(v, 'compactAt'),
    showTodos: field(v, 'showTodos'),
  })
  return { v, settings }
}

function errorOf(fn: () => unknown): ToolError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

describe('createRuntimeSettings', () => {
  it('lists the whitelist in order with values and descriptions', () => {
    const { settings } = full()
    const list = settings.list()
    expect(list.map((s) => [s.name, s.value])).toEqual([
      ['model', 'gpt-4o'],
      ['theme', 'dark'],
      ['verbose', false],
      ['observationWindow', 8],
      ['compactAt', 0.8],
      ['showTodos', true],
    ])
    for (const s of list) expect(s.description.length).toBeGreaterThan(10)
  })

  it('only offers settings that have accessors', () => {
    const settings = createRuntimeSettings({ verbose: { get: () => true, set: () => {} } })
    expect(settings.list().map((s) => s.name)).toEqual(['verbose'])
    expect(errorOf(() => settings.get('model')).message).toBe(
      'unknown setting "model"; available settings: verbose.',
    )
  })

  it('parses strings and applies values through the callbacks', () => {
    const { v, settings } = full()
    expect(settings.set('showTodos', 'FALSE')).toBe('showTodos changed from true to false.')
    expect(settings.set('compactAt', '0.5')).toBe('compactAt changed from 0.8 to 0.5.')
    expect(settings.set('theme', 'Light')).toBe('theme changed from "dark" to "light".')
    expect(settings.set('model', ' qwen3:8b ')).toBe('model changed from "gpt-4o" to "qwen3:8b".')
    expect(settings.set('verbose', false)).toBe('verbose is already false; nothing changed.')
    expect(v).toMatchObject({ showTodos: false, compactAt: 0.5, theme: 'light', model: 'qwen3:8b' })
  })

  it.each([
    ['theme', 'blue', 'expected dark or light'],
    ['verbose', 'yes please', 'expected true or false'],
    ['observationWindow', 2.5, 'expected an integer from 1 to 50'],
    ['observationWindow', '0', 'expected an integer from 1 to 50'],
    ['compactAt', 0.99, 'expected a number from 0.3 to 0.95'],
    ['compactAt', '', 'expected a number from 0.3 to 0.95'],
    ['model', 'two words', 'expected a model id without spaces'],
  ])('rejects %s = %j', (name, value, expected) => {
    const { v, settings } = full()
    const before = { ...v }
    const error = errorOf(() => settings.set(name, value))
    expect(error.category).toBe('validation')
    expect(error.message).toContain(expected)
    expect(v).toEqual(before)
  })

  it('turns a failing callback into an execution error', () => {
    const settings = createRuntimeSettings({
      model: {
        get: () => 'a',
        set: () => {
          throw new Error('no such model on this endpoint')
        },
      },
    })
    const error = errorOf(() => settings.set('model', 'b'))
    expect(error.category).toBe('execution')
    expect(error.message).toBe('could not set model to "b": no such model on this endpoint')
  })
})
