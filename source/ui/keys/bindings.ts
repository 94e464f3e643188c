import { formatKeySpec, isKeySpec, type KeySpec, parseKeySpec } from './key-spec.js'

/** Where a command applies; used for help grouping and to tell the user which handler owns a key. */
export type KeyContext =
  | 'global'
  | 'input'
  | 'transcript'
  | 'search'
  | 'tasks'
  | 'consent'
  | 'question'
  | 'plan'
  | 'trust'
  | 'rewind'
  | 'mcp'

interface BindingDef {
  context: KeyContext
  keys: readonly string[]
  description: string
  /** The command fires on the second consecutive press; the first press only arms it (and shows a hint). */
  double?: boolean
}

/**
 * Every shortcut of the app, as data. Handlers match command names, never raw keys, and the `?` help
 * overlay is generated from this table, so changing a key here changes both.
 */
const DEFAULTS = {
  'app.interrupt': { context: 'global', keys: ['escape'], description: 'Interrupt the running step' },
  'app.ctrlC': {
    context: 'global',
    keys: ['ctrl+c'],
    description: 'Interrupt, then clear the input, then (twice) exit',
  },
  'app.exit': { context: 'global', keys: ['ctrl+d'], description: 'Exit (press twice)', double: true },
  'app.redraw': { context: 'global', keys: ['ctrl+l'], description: 'Redraw the screen' },
  'mode.cycle': { context: 'global', keys: ['shift+tab'], description: 'Cycle mode SAFE → AUTO → PLAN' },
  'bash.background': {
    context: 'global',
    keys: ['ctrl+b'],
    description: 'Move the running command to the background (tmux: press twice)',
  },
  'todos.toggle': {
    context: 'global',
    keys: ['ctrl+t'],
    description: 'Todo pane: show/hide (below 100 columns: one line → whole list → hidden)',
  },
  'transcript.expand': {
    context: 'global',
    keys: ['ctrl+o'],
    description: 'Expand or collapse the last tool card',
  },
  'transcript.pin': {
    context: 'global',
    keys: ['ctrl+p'],
    description: 'Pin or unpin the last message or tool card on screen (kept verbatim in context)',
  },
  'help.show': { context: 'global', keys: ['?'], description: 'Show all keys (on empty input)' },
  'focus.next': { context: 'global', keys: ['tab'], description: 'Move focus between input and tasks' },
  'transcript.pageUp': { context: 'transcript', keys: ['pageup'], description: 'Scroll the transcript up' },
  'transcript.pageDown': {
    context: 'transcript',
    keys: ['pagedown'],
    description: 'Scroll the transcript down',
  },
  'transcript.home': {
    context: 'transcript',
    keys: ['home'],
    description: 'Transcript top (on empty input)',
  },
  'transcript.end': {
    context: 'transcript',
    keys: ['end'],
    description: 'Transcript bottom, follow output (on empty input)',
  },
  'search.open': {
    context: 'transcript',
    keys: ['ctrl+f'],
    description: 'Search the transcript (from the prompt too)',
  },
  'search.next': { context: 'search', keys: ['enter', 'down'], description: 'Next match (in the field)' },
  'search.previous': {
    context: 'search',
    keys: ['shift+enter', 'up'],
    description: 'Previous match (in the field)',
  },
  'search.focus': {
    context: 'search',
    keys: ['tab'],
    description: 'Keys to the transcript (n/N), or back to the field',
  },
  'search.nextMatch': { context: 'search', keys: ['n'], description: 'Next match (transcript focused)' },
  'search.previousMatch': {
    context: 'search',
    keys: ['N'],
    description: 'Previous match (transcript focused)',
  },
  'search.edit': { context: 'search', keys: ['/'], description: 'Edit the query (transcript focused)' },
  'search.close': {
    context: 'search',
    keys: ['escape'],
    description: 'Close the search; the prompt has the keys again, as it was',
  },
  'input.submit': { context: 'input', keys: ['enter'], description: 'Send (queued while the agent works)' },
  'input.newline': {
    context: 'input',
    keys: ['ctrl+j', 'shift+enter', 'meta+enter'],
    description: 'New line (also \\ then Enter)',
  },
  'input.clear': {
    context: 'input',
    keys: ['escape'],
    description: 'Clear the input; on an empty prompt open /rewind (press twice)',
    double: true,
  },
  'input.history.prev': {
    context: 'input',
    keys: ['up'],
    description: 'Previous prompt (on the first line)',
  },
  'input.history.next': { context: 'input', keys: ['down'], description: 'Next prompt (on the last line)' },
  'input.history.search': { context: 'input', keys: ['ctrl+r'], description: 'Search prompt history' },
  'input.editor': { context: 'input', keys: ['ctrl+g'], description: 'Edit the prompt in $EDITOR' },
  'input.pasteImage': {
    context: 'input',
    keys: ['ctrl+v'],
    description: 'Paste an image from the clipboard as an [Image #N] chip',
  },
  'input.complete': { context: 'input', keys: ['tab'], description: 'Accept the completion' },
  'input.left': { context: 'input', keys: ['left'], description: 'Cursor left' },
  'input.right': { context: 'input', keys: ['right'], description: 'Cursor right' },
  'input.wordLeft': {
    context: 'input',
    keys: ['ctrl+left', 'meta+left', 'meta+b'],
    description: 'Word left',
  },
  'input.wordRight': {
    context: 'input',
    keys: ['ctrl+right', 'meta+right', 'meta+f'],
    description: 'Word right',
  },
  'input.lineStart': { context: 'input', keys: ['home', 'ctrl+a'], description: 'Start of line' },
  'input.lineEnd': { context: 'input', keys: ['end', 'ctrl+e'], description: 'End of line' },
  'input.backspace': { context: 'input', keys: ['backspace'], description: 'Delete left' },
  'input.delete': { context: 'input', keys: ['delete'], description: 'Delete right' },
  'input.deleteWord': {
    context: 'input',
    keys: ['ctrl+w', 'meta+backspace'],
    description: 'Delete word left',
  },
  'input.killLineLeft': { context: 'input', keys: ['ctrl+u'], description: 'Delete to start of line' },
  'input.killLineRight': { context: 'input', keys: ['ctrl+k'], description: 'Delete to end of line' },
  'tasks.up': { context: 'tasks', keys: ['up'], description: 'Select previous task' },
  'tasks.down': { context: 'tasks', keys: ['down'], description: 'Select next task' },
  'tasks.open': { context: 'tasks', keys: ['enter'], description: 'Open the live output' },
  'tasks.stop': { context: 'tasks', keys: ['k'], description: 'Stop the selected task' },
  'tasks.browse': {
    context: 'tasks',
    keys: ['o'],
    description: 'Open the URL of the port the selected job listens on in the browser',
  },
  'tasks.confirm': { context: 'tasks', keys: ['y'], description: 'Confirm stopping' },
  'tasks.back': { context: 'tasks', keys: ['escape'], description: 'Back / leave the tasks pane' },
  'consent.once': { context: 'consent', keys: ['1', 'y'], description: 'Allow once' },
  'consent.session': { context: 'consent', keys: ['2', 'a'], description: 'Allow for this session' },
  'consent.always': { context: 'consent', keys: ['3', 'A'], description: 'Always allow (saves the rule)' },
  'consent.edits': {
    context: 'consent',
    keys: ['4', 'e'],
    description: 'Allow all edits in the workspace this session (edit prompts)',
  },
  'consent.alwaysFolder': {
    context: 'consent',
    keys: ['d', 'D'],
    description: "Always allow the edited file's folder (edit prompts)",
  },
  'consent.deny': { context: 'consent', keys: ['escape', 'n'], description: 'Deny' },
  'consent.note': { context: 'consent', keys: ['tab'], description: 'Add a note to the answer' },
  'consent.select': { context: 'consent', keys: ['enter'], description: 'Pick the highlighted option' },
  'consent.prev': { context: 'consent', keys: ['left', 'up'], description: 'Previous option' },
  'consent.next': { context: 'consent', keys: ['right', 'down'], description: 'Next option' },
  'consent.expand': {
    context: 'consent',
    keys: ['ctrl+o'],
    description: 'Show the whole preview (diff, command) or go back',
  },
  'consent.scrollUp': { context: 'consent', keys: ['pageup'], description: 'Scroll the whole preview up' },
  'consent.scrollDown': {
    context: 'consent',
    keys: ['pagedown'],
    description: 'Scroll the whole preview down',
  },
  'question.up': { context: 'question', keys: ['up'], description: 'Previous option' },
  'question.down': { context: 'question', keys: ['down'], description: 'Next option' },
  'question.toggle': {
    context: 'question',
    keys: ['space'],
    description: 'Toggle the option (multi-select)',
  },
  'question.choose': { context: 'question', keys: ['enter'], description: 'Choose / next question' },
  'question.cancel': { context: 'question', keys: ['escape'], description: 'Cancel the question' },
  'plan.up': { context: 'plan', keys: ['up'], description: 'Previous option' },
  'plan.down': { context: 'plan', keys: ['down'], description: 'Next option' },
  'plan.choose': { context: 'plan', keys: ['enter'], description: 'Choose' },
  'plan.scrollUp': { context: 'plan', keys: ['pageup'], description: 'Scroll the plan up' },
  'plan.scrollDown': { context: 'plan', keys: ['pagedown'], description: 'Scroll the plan down' },
  'trust.up': { context: 'trust', keys: ['up'], description: 'Previous choice' },
  'trust.down': { context: 'trust', keys: ['down'], description: 'Next choice' },
  'trust.choose': { context: 'trust', keys: ['enter'], description: 'Pick the highlighted choice (or 1–4)' },
  'trust.later': {
    context: 'trust',
    keys: ['escape'],
    description: 'Decide later (the folder stays untrusted)',
  },
  'rewind.up': { context: 'rewind', keys: ['up'], description: 'Previous turn or option' },
  'rewind.down': { context: 'rewind', keys: ['down'], description: 'Next turn or option' },
  'rewind.choose': { context: 'rewind', keys: ['enter'], description: 'Choose' },
  'rewind.back': { context: 'rewind', keys: ['escape'], description: 'Back / close' },
  'mcp.up': { context: 'mcp', keys: ['up', 'k'], description: 'Previous server or tool' },
  'mcp.down': { context: 'mcp', keys: ['down', 'j'], description: 'Next server or tool' },
  'mcp.toggle': {
    context: 'mcp',
    keys: ['space'],
    description: 'Turn the server (its process stops) or the tool off or on for this session',
  },
  'mcp.tools': { context: 'mcp', keys: ['enter', 'right'], description: "List the server's tools" },
  'mcp.restart': { context: 'mcp', keys: ['r'], description: 'Restart the server' },
  'mcp.signIn': { context: 'mcp', keys: ['a'], description: 'Sign in to the server (OAuth)' },
  'mcp.remove': {
    context: 'mcp',
    keys: ['x'],
    description: 'Remove the server from this session (press twice)',
  },
  'mcp.back': { context: 'mcp', keys: ['escape', 'left', 'q'], description: 'Back to the servers / close' },
} as const satisfies Record<string, BindingDef>

export type CommandName = keyof typeof DEFAULTS

export interface Binding {
  command: CommandName
  context: KeyContext
  description: string
  double: boolean
  /** The spec strings as written (for messages) and parsed. */
  keys: readonly string[]
  specs: readonly KeySpec[]
}

export type Bindings = readonly Binding[]

export const COMMAND_NAMES = Object.keys(DEFAULTS) as CommandName[]

function parseAll(command: string, keys: readonly string[]): KeySpec[] | string {
  const specs: KeySpec[] = []
  for (const key of keys) {
    const parsed = parseKeySpec(key)
    if (!isKeySpec(parsed)) return `${command}: ${parsed.error}`
    specs.push(parsed)
  }
  return specs
}

function build(): Binding[] {
  return COMMAND_NAMES.map((command) => {
    const def: BindingDef = DEFAULTS[command]
    const specs = parseAll(command, def.keys)
    // The defaults are authored here; a bad one is a programming error caught by the unit tests.
    if (typeof specs === 'string') throw new Error(`bad default binding ${specs}`)
    return {
      command,
      context: def.context,
      description: def.description,
      double: def.double ?? false,
      keys: def.keys,
      specs,
    }
  })
}

export const DEFAULT_BINDINGS: Bindings = build()

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(DEFAULTS, name)
}

export type OverrideResult = { ok: true; bindings: Bindings } | { ok: false; error: string }

/**
 * Applies settings `keybindings` ({"todos.toggle": "ctrl+y"} or an array of keys; an empty array
 * unbinds). Unknown command names or unparsable keys are reported together, never half-applied.
 */
export function applyKeybindingOverrides(
  defaults: Bindings,
  overrides: Readonly<Record<string, string | readonly string[]>> | undefined,
): OverrideResult {
  if (!overrides) return { ok: true, bindings: defaults }
  const unknown: string[] = []
  const bad: string[] = []
  const replaced = new Map<string, { keys: readonly string[]; specs: KeySpec[] }>()
  for (const [command, value] of Object.entries(overrides)) {
    if (!isCommandName(command)) {
      unknown.push(command)
      continue
    }
    const keys = typeof value === 'string' ? [value] : value
    const specs = parseAll(command, keys)
    if (typeof specs === 'string') bad.push(specs)
    else replaced.set(command, { keys, specs })
  }
  const errors: string[] = []
  if (unknown.length) {
    errors.push(`unknown command${unknown.length > 1 ? 's' : ''} in keybindings: ${unknown.join(', ')}`)
  }
  errors.push(...bad.map((b) => `bad key in keybindings: ${b}`))
  if (errors.length) return { ok: false, error: errors.join('; ') }
  return {
    ok: true,
    bindings: defaults.map((b) => {
      const r = replaced.get(b.command)
      return r ? { ...b, keys: r.keys, specs: r.specs } : b
    }),
  }
}

export function bindingFor(bindings: Bindings, command: CommandName): Binding | undefined {
  return bindings.find((b) => b.command === command)
}

/** Display label for a command's keys, e.g. "Ctrl+T" or "1 / y". */
export function keyLabel(bindings: Bindings, command: CommandName): string {
  const binding = bindingFor(bindings, command)
  if (!binding || binding.specs.length === 0) return 'unbound'
  const label = binding.specs.map(formatKeySpec).join(' / ')
  return binding.double ? `${label} ×2` : label
}

const CONTEXT_TITLES: Record<KeyContext, string> = {
  global: 'Anywhere',
  transcript: 'Transcript',
  search: 'Transcript search (Ctrl+F)',
  input: 'Input',
  tasks: 'Tasks pane',
  consent: 'Permission prompt',
  question: 'Question dialog',
  plan: 'Plan approval',
  trust: 'Trust prompt',
  rewind: 'Rewind dialog',
  mcp: 'MCP panel (/mcp)',
}

export interface HelpSection {
  title: string
  rows: Array<{ keys: string; description: string }>
}

/** The `?` overlay content, generated from the bindings so it can never drift from the real keys. */
export function helpSections(bindings: Bindings): HelpSection[] {
  const order: KeyContext[] = [
    'global',
    'transcript',
    'search',
    'input',
    'tasks',
    'consent',
    'question',
    'plan',
    'trust',
    'rewind',
    'mcp',
  ]
  return order.map((context) => ({
    title: CONTEXT_TITLES[context],
    rows: bindings
      .filter((b) => b.context === context)
      .map((b) => ({ keys: keyLabel(bindings, b.command), description: b.description })),
  }))
}
