import { Box, useInput, useWindowSize } from 'ink'
import { Text } from './components/text.js'

export interface ProbeResult {
  name: string
  url: string
  /** What happened, e.g. "connection refused", "no models listed", "timed out after 300 ms". */
  result: string
}

export interface SetupPanelProps {
  probed: readonly ProbeResult[]
  /** The user settings file as shown (`~/.config/agent-tui/settings.json`, or under `$XDG_CONFIG_HOME`). */
  settingsFile: string
  onExit(): void
}

/** Rows the spaced-out panel takes without its probe lines (border, padding, text, blank lines). */
const FULL_ROWS = 24

/**
 * Shown when no endpoint was configured and no local server answered: says exactly what to set and
 * what was tried. It has no other keys than exit, so it uses its own input hook (the app's
 * dispatcher is not mounted here).
 */
export function SetupPanel({ probed, settingsFile, onExit }: SetupPanelProps) {
  useInput((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onExit()
  })
  const { rows } = useWindowSize()
  // The panel is drawn in the normal screen: taller than the terminal, its top would scroll away. Its
  // full form needs about 25 rows (with three servers probed); below that the spacing goes.
  const compact = rows < FULL_ROWS + probed.length
  const gap = compact ? null : <Text> </Text>
  return (
    <Box
      flexDirection="column"
      paddingX={1}
      paddingY={compact ? 0 : 1}
      borderStyle="round"
      borderColor="yellow"
    >
      <Text bold color="yellow">
        agent-tui needs an OpenAI-compatible endpoint
      </Text>
      {gap}
      {/* Two sentences, two lines: wrapped at 80 columns, one sentence's tail began with a stray space. */}
      <Text>No endpoint is configured and no local server answered.</Text>
      <Text>Set one of these and start again:</Text>
      {gap}
      <Text bold>Environment</Text>
      <Text>
        {'  '}
        <Text color="cyan">OPENAI_BASE_URL</Text>=https://api.example.com/v1
      </Text>
      <Text>
        {'  '}
        <Text color="cyan">OPENAI_API_KEY</Text>=sk-…{'   '}
        <Text dimColor>(not needed for local servers)</Text>
      </Text>
      <Text>
        {'  '}
        <Text color="cyan">AGENT_TUI_MODEL</Text>=model-id{'   '}
        <Text dimColor>(default: the first model the endpoint lists)</Text>
      </Text>
      <Text bold>Flags</Text>
      <Text>
        {'  '}
        <Text color="cyan">agent-tui --base-url</Text> URL <Text color="cyan">--model</Text> NAME{' '}
        <Text color="cyan">--api-key</Text> KEY
      </Text>
      <Text bold>Settings</Text>
      {/* The file on its own line: under $XDG_CONFIG_HOME it can be long, and the example must stay whole. */}
      <Text>
        {'  '}
        <Text color="cyan">{settingsFile}</Text>
      </Text>
      <Text>{'    { "baseUrl": "…", "model": "…" }'}</Text>
      {gap}
      <Text bold>Local servers probed</Text>
      {probed.length === 0 ? <Text dimColor>{'  '}(none)</Text> : null}
      {probed.map((p) => (
        <Text key={`${p.name} ${p.url}`}>
          {'  '}
          {p.name.padEnd(10)} <Text dimColor>{p.url.padEnd(36)}</Text> <Text color="red">{p.result}</Text>
        </Text>
      ))}
      {gap}
      <Text dimColor>Press q or Esc to exit.</Text>
    </Box>
  )
}
