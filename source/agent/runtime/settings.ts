import type { Store } from '../../store/create-store.js'
import type { ContextManager } from '../context/context-manager.js'
import { type RuntimeSettingsApi, ToolError } from '../../tools/types.js'

/**
 * The whitelist of runtime settings the Config tool may read or change. Nothing here concerns
 * permissions: those stay with the user. `createRuntimeSettings` takes its effects as callbacks, so it is
 * testable on its own; `sessionSettings` makes those of a session from its store.
 */

export const THEMES = ['dark', 'light'] as const
export type ThemeName = (typeof THEMES)[number]

/** Reads and writes one setting's live value. */
export interface SettingAccessor<T> {
  get(): T
  set(value: T): void
}

/** The value type of each whitelisted setting. */
export interface RuntimeSettingValues {
  model: string
  theme: ThemeName
  verbose: boolean
  observationWindow: number
  compactAt: number
  showTodos: boolean
}

export type RuntimeSettingName = keyof RuntimeSettingValues

/**
 * The settings the runtime offers today: it wires an accessor for each (see Runtime), and the Config
 * tool's description lists exactly these (`describeSettings`). theme and verbose wait for a UI that
 * reads them. observationWindow and compactAt are context economy settings of this session (#22).
 */
export const OFFERED_SETTINGS = [
  'model',
  'observationWindow',
  'compactAt',
  'showTodos',
] as const satisfies readonly RuntimeSettingName[]

/** Accessors for exactly the offered settings: adding one to OFFERED_SETTINGS requires wiring it. */
export type OfferedSettings = {
  [K in (typeof OFFERED_SETTINGS)[number]]: SettingAccessor<RuntimeSettingValues[K]>
}

/** One accessor per whitelisted setting; a setting without an accessor is not offered. */
export type RuntimeSettingsOptions = {
  [K in RuntimeSettingName]?: SettingAccessor<RuntimeSettingValues[K]>
}

interface Spec<T> {
  description: string
  /** Turns a raw value (the model may send strings for anything) into a valid one, or throws ToolError. */
  parse(raw: unknown, name: string): T
}

/** A setting with its type erased behind closures, so the table needs no casts. */
interface Entry {
  name: string
  description: string
  get(): unknown
  set(raw: unknown): string
}

const invalid = (name: string, raw: unknown, expected: string): ToolError =>
  new ToolError('validation', `invalid value ${JSON.stringify(raw)} for ${name}: expected ${expected}.`)

function parseBoolean(raw: unknown, name: string): boolean {
  if (typeof raw === 'boolean') return raw
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase()
    if (text === 'true') return true
    if (text === 'false') return false
  }
  throw invalid(name, raw, 'true or false')
}

function parseNumber(raw: unknown, name: string, min: number, max: number, integer: boolean): number {
  const kind = integer ? 'an integer' : 'a number'
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw invalid(name, raw, `${kind} from ${min} to ${max}`)
  }
  return value
}

const SPECS: { [K in RuntimeSettingName]: Spec<RuntimeSettingValues[K]> } = {
  model: {
    description: 'Model id used for the following requests (takes effect from the next step)',
    parse(raw, name) {
      const text = typeof raw === 'string' ? raw.trim() : ''
      if (text === '' || /\s/.test(text)) throw invalid(name, raw, 'a model id without spaces, e.g. "gpt-4o"')
      return text
    },
  },
  theme: {
    description: `Colour theme of the terminal UI: ${THEMES.join(' or ')}`,
    parse(raw, name) {
      const text = typeof raw === 'string' ? raw.trim().toLowerCase() : ''
      const theme = THEMES.find((t) => t === text)
      if (!theme) throw invalid(name, raw, THEMES.join(' or '))
      return theme
    },
  },
  verbose: {
    description: 'Show full tool output and reasoning in the transcript (true/false)',
    parse: parseBoolean,
  },
  observationWindow: {
    description:
      'How many of the most recent tool results stay in full in the context, older ones masked (1–50)',
    parse: (raw, name) => parseNumber(raw, name, 1, 50, true),
  },
  compactAt: {
    description: 'Fraction of the context window at which the conversation is compacted (0.3–0.95)',
    parse: (raw, name) => parseNumber(raw, name, 0.3, 0.95, false),
  },
  showTodos: {
    description: 'Whether the todo pane is visible (true/false)',
    parse: parseBoolean,
  },
}

function entry<T>(name: string, spec: Spec<T>, accessor: SettingAccessor<T>): Entry {
  return {
    name,
    description: spec.description,
    get: () => accessor.get(),
    set(raw) {
      const value = spec.parse(raw, name)
      const previous = accessor.get()
      if (Object.is(previous, value)) return `${name} is already ${JSON.stringify(value)}; nothing changed.`
      try {
        accessor.set(value)
      } catch (error) {
        if (error instanceof ToolError) throw error
        const message = error instanceof Error ? error.message : String(error)
        throw new ToolError('execution', `could not set ${name} to ${JSON.stringify(value)}: ${message}`)
      }
      return `${name} changed from ${JSON.stringify(previous)} to ${JSON.stringify(value)}.`
    },
  }
}

/** Name and description of settings from the table, for the Config tool's description. */
export function describeSettings(
  names: readonly RuntimeSettingName[] = OFFERED_SETTINGS,
): Array<{ name: string; description: string }> {
  return names.map((name) => ({ name, description: SPECS[name].description }))
}

/** Builds the settings API over the given accessors, in a fixed order (the whitelist's). */
export function createRuntimeSettings(opts: RuntimeSettingsOptions): RuntimeSettingsApi {
  const entries = new Map<string, Entry>()
  const add = <T>(name: string, spec: Spec<T>, accessor: SettingAccessor<T> | undefined) => {
    if (accessor) entries.set(name, entry(name, spec, accessor))
  }
  add('model', SPECS.model, opts.model)
  add('theme', SPECS.theme, opts.theme)
  add('verbose', SPECS.verbose, opts.verbose)
  add('observationWindow', SPECS.observationWindow, opts.observationWindow)
  add('compactAt', SPECS.compactAt, opts.compactAt)
  add('showTodos', SPECS.showTodos, opts.showTodos)

  const lookup = (name: string): Entry => {
    const found = entries.get(name)
    if (found) return found
    const names = [...entries.keys()]
    throw new ToolError(
      'not_found',
      names.length === 0
        ? `unknown setting "${name}"; no settings can be changed in this session.`
        : `unknown setting "${name}"; available settings: ${names.join(', ')}.`,
    )
  }

  return {
    list: () =>
      [...entries.values()].map((e) => ({ name: e.name, value: e.get(), description: e.description })),
    get: (name) => lookup(name).get(),
    set: (name, value) => lookup(name).set(value),
  }
}

/** The settings a session offers the Config tool: its model, the context window's use, the todo pane. */
export function sessionSettings(opts: {
  store: Store
  context: Pick<ContextManager, 'window' | 'compactAt'>
  setModel(model: string): void
}): OfferedSettings {
  const { store, context } = opts
  return {
    model: { get: () => store.getState().session.model, set: (model) => opts.setModel(model) },
    observationWindow: {
      get: () => context.window(),
      set: (value) => store.dispatch({ type: 'context/configured', observationWindow: value }),
    },
    compactAt: {
      get: () => context.compactAt(),
      set: (value) => store.dispatch({ type: 'context/configured', compactAt: value }),
    },
    showTodos: {
      get: () => store.getState().ui.showTodos,
      set: (show) => {
        if (store.getState().ui.showTodos !== show) store.dispatch({ type: 'ui/todos-toggled' })
      },
    },
  }
}
