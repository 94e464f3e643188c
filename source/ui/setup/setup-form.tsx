import { Box, useWindowSize } from 'ink'
import { Text } from '../components/text.js'
import {
  choices,
  KEY_ROWS,
  type KeyRow,
  type SetupStart,
  type SetupState,
  shownModels,
} from './setup-model.js'
import { type SetupFormCallbacks, type SetupServices, useSetupForm } from './use-setup-form.js'
import { useTheme } from '../components/theme-context.js'

export interface SetupFormProps extends SetupFormCallbacks {
  start: SetupStart
  services: SetupServices
  /** Where a typed key is kept, as shown (`~/.config/agent-tui/credentials.json`). */
  credentialsFile: string
  /** Where the choice is saved, as shown. */
  settingsFile: string
  /** Leaving the form: "exit" at first start, "cancel" from /login (back to the session). */
  leaveLabel: string
}

/** Rows the form takes besides the model list (border, title, question, fields, hints). */
const FIXED_ROWS = 12

/**
 * The setup form (setup-model.ts draws nothing): the step being answered, what was found, and the keys.
 * Shown in the alternate screen before a session (no endpoint found) or instead of it (`/login`).
 */
export function SetupForm(props: SetupFormProps) {
  const { palette: p } = useTheme()
  const state = useSetupForm(props.start, props.services, props)
  const { columns, rows } = useWindowSize()
  const width = Math.max(40, Math.min(columns, 100))
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={p.accent} paddingX={1} width={width}>
      <Box justifyContent="space-between">
        <Text bold color={p.accent}>
          Set up the model endpoint
        </Text>
        <Steps step={state.step} />
      </Box>
      <Text> </Text>
      {state.step === 'endpoint' ? <EndpointStep state={state} /> : null}
      {state.step === 'key' ? <KeyStep state={state} credentialsFile={props.credentialsFile} /> : null}
      {state.step === 'model' || state.step === 'done' ? (
        <ModelStep state={state} rows={Math.max(3, rows - FIXED_ROWS)} />
      ) : null}
      <Text> </Text>
      <Status state={state} settingsFile={props.settingsFile} />
      <Text dimColor wrap="truncate">
        {hints(state, props.leaveLabel)}
      </Text>
    </Box>
  )
}

function Steps({ step }: { step: SetupState['step'] }) {
  const names: Array<[SetupState['step'], string]> = [
    ['endpoint', '1 Endpoint'],
    ['key', '2 Key'],
    ['model', '3 Model'],
  ]
  const at = names.findIndex(([s]) => s === step)
  return (
    <Text>
      {names.map(([s, label], i) => (
        <Text key={s} bold={s === step} dimColor={s !== step && at !== -1 && i > at}>
          {i > 0 ? ' · ' : ''}
          {label}
        </Text>
      ))}
    </Text>
  )
}

const cursor = (on: boolean) => (on ? '▌' : '')

function EndpointStep({ state }: { state: SetupState }) {
  const { palette: p } = useTheme()
  const servers = choices(state)
  const others = state.servers.filter((s) => !s.answered)
  const urlRow = state.endpointRow === servers.length
  return (
    <>
      <Text bold>Where is the model?</Text>
      {servers.map((s, i) => (
        <Text key={s.url} wrap="truncate" color={state.endpointRow === i ? p.accent : undefined}>
          {state.endpointRow === i ? '❯ ' : '  '}
          {s.name.padEnd(10)} {s.url.padEnd(28)} <Text dimColor>{s.result}</Text>
        </Text>
      ))}
      <Text wrap="truncate" color={urlRow ? p.accent : undefined}>
        {urlRow ? '❯ ' : '  '}
        {'Base URL'.padEnd(10)} {state.url || (urlRow ? '' : '…')}
        {cursor(urlRow)}
        {urlRow && !state.url ? (
          <Text dimColor> https://api.openai.com/v1 · http://127.0.0.1:8080/v1</Text>
        ) : null}
      </Text>
      {others.length > 0 ? (
        <>
          <Text> </Text>
          <Text dimColor>
            {servers.length > 0 ? 'Also probed on this machine:' : 'No local server answered:'}
          </Text>
          {others.map((s) => (
            <Text key={s.url} dimColor wrap="truncate">
              {'  '}
              {s.name.padEnd(10)} {s.url.padEnd(28)} {s.result}
            </Text>
          ))}
        </>
      ) : null}
    </>
  )
}

const KEY_LABELS: Record<KeyRow, string> = {
  none: 'No key',
  typed: 'Type a key',
  env: 'From a variable',
}

function KeyStep({ state, credentialsFile }: { state: SetupState; credentialsFile: string }) {
  const { palette: p } = useTheme()
  const field = (row: KeyRow): string => {
    const on = state.keyRow === row
    if (row === 'none') return 'local servers need none'
    if (row === 'typed') return state.typedKey === '' ? cursor(on) : `${mask(state.typedKey)}${cursor(on)}`
    return `${state.envName}${cursor(on)}`
  }
  return (
    <>
      <Text bold wrap="truncate">
        API key for {state.baseUrl}
      </Text>
      {KEY_ROWS.map((row) => (
        <Text key={row} wrap="truncate" color={state.keyRow === row ? p.accent : undefined}>
          {state.keyRow === row ? '❯ ' : '  '}
          {KEY_LABELS[row].padEnd(16)} <Text dimColor={row === 'none'}>{field(row)}</Text>
        </Text>
      ))}
      <Text> </Text>
      <Text dimColor wrap="wrap">
        {state.keyRow === 'env'
          ? 'The key is read from this variable at every start; only its name is saved.'
          : `A typed key is kept in ${credentialsFile} (mode 0600) and sent only to this URL.`}
      </Text>
    </>
  )
}

/** Bullets for the key, never its characters; long keys show their length instead of a wall of dots. */
export function mask(key: string): string {
  return key.length <= 24 ? '•'.repeat(key.length) : `${'•'.repeat(24)} (${key.length} characters)`
}

function ModelStep({ state, rows }: { state: SetupState; rows: number }) {
  const { palette: p } = useTheme()
  const list = shownModels(state)
  const at = Math.min(state.modelRow, Math.max(0, list.length - 1))
  const top = Math.min(Math.max(0, at - rows + 1), Math.max(0, list.length - rows))
  const visible = list.slice(top, top + rows)
  const count =
    state.models.length === 0
      ? ''
      : ` · ${list.length}${state.filter ? ` of ${state.models.length}` : ''} models`
  return (
    <>
      <Text bold wrap="truncate">
        Model at {state.baseUrl}
        <Text dimColor>{count}</Text>
      </Text>
      <Text wrap="truncate">
        <Text color={p.accent}>{state.models.length === 0 ? 'Model id: ' : 'Filter: '}</Text>
        {state.filter}
        {cursor(state.step === 'model')}
      </Text>
      {visible.map((model, i) => {
        const selected = top + i === at
        return (
          <Text key={model} wrap="truncate" color={selected ? p.accent : undefined} bold={selected}>
            {selected ? '❯ ' : '  '}
            {model}
          </Text>
        )
      })}
      {state.models.length > 0 && list.length === 0 ? (
        <Text dimColor>{`  (none matches: Enter uses "${state.filter.trim()}" as the id)`}</Text>
      ) : null}
    </>
  )
}

function Status({ state, settingsFile }: { state: SetupState; settingsFile: string }) {
  const { palette: p } = useTheme()
  if (state.busy) return <Text color={p.warn}>{state.busy}</Text>
  return (
    <>
      {state.note ? (
        <Text color={state.step === 'done' ? p.success : undefined} wrap="wrap">
          {state.step === 'done' ? '✓ ' : ''}
          {state.note}
        </Text>
      ) : null}
      {state.error ? (
        <Text color={p.error} wrap="wrap">
          ✗ {state.error}
        </Text>
      ) : null}
      {!state.note && !state.error ? (
        <Text dimColor wrap="truncate">
          Saved to {settingsFile} once it answers a test request.
        </Text>
      ) : null}
    </>
  )
}

function hints(state: SetupState, leave: string): string {
  if (state.busy) return 'Esc stops'
  switch (state.step) {
    case 'endpoint':
      return `↑/↓ choose · type a URL · Enter next · Ctrl+R look again · Esc ${leave}`
    case 'key':
      return '↑/↓ choose · type the key or the variable · Enter list the models · Esc back'
    case 'model':
      return '↑/↓ choose · type to filter · Enter test and save · Esc back'
    case 'done':
      return 'Enter continue without saving (this session only) · Esc back'
  }
}
