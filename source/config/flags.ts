import { MODES, type Mode } from '../store/domain.js'
import { parseRule, splitRuleList } from '../permissions/rules.js'
import { UsageError } from './errors.js'
import { type Header, headerOfFlag } from './headers.js'
import { toolNames } from './tool-list.js'

/**
 * Command-line parsing (docs/configuration.md#command-line-flags). Hand-rolled so every error names the option and what it needs.
 */

export type OutputFormat = 'text' | 'json' | 'stream-json'
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json']

export interface ParsedArgs {
  /** Positional words joined with spaces; undefined when none were given. */
  prompt: string | undefined
  print: boolean
  outputFormat: OutputFormat
  model: string | undefined
  /** `--embedding-model`: turns CodeSearch on with this model (over the settings' `embeddings.model`). */
  embeddingModel: string | undefined
  baseUrl: string | undefined
  apiKey: string | undefined
  /** `--header 'Name: value'` (repeatable), checked, in order. */
  headers: Header[]
  /** From `--mode`, `--dangerously-skip-permissions` or `--yolo`; undefined = default. */
  mode: Mode | undefined
  /** Rules from `--allowed-tools` (validated, in order). */
  allowedTools: string[]
  disallowedTools: string[]
  /** `--tools`: exactly the tools the model is offered ([] for none); undefined = every tool. */
  tools: string[] | undefined
  /** `--sandbox` → 'on', `--no-sandbox` → 'off'; undefined = the `sandbox` setting decides. */
  sandbox: 'on' | 'off' | undefined
  /** `--trust-project`: what the repository brings applies for this run, without asking. */
  trustProject: boolean
  /** `--no-claude-dirs`: Claude Code's own places (`.claude/`, `~/.claude/`, `~/.claude.json`…) are not read. */
  noClaudeDirs: boolean
  /** `--add-dir DIR` (repeatable), as given. */
  addDirs: string[]
  /** `--cwd DIR`: the folder to work in instead of the current directory, as given. */
  cwd: string | undefined
  maxSteps: number | undefined
  continue: boolean
  /** `--resume ID` → the id; bare `--resume` → true (picker). */
  resume: string | true | undefined
  agent: string | undefined
  /** `--rewind-to TURN`: a 1-based turn number, a turn id, `undo` or `list` (implies headless). */
  rewindTo: string | undefined
  rewindScope: 'code' | 'conversation' | 'both'
  dryRun: boolean
  force: boolean
  debug: boolean
  verbose: boolean
  printOnExit: boolean
  version: boolean
  help: boolean
}

type Kind = 'boolean' | 'value' | 'optional-value'

export interface OptionSpec {
  long: string
  short?: string
  kind: Kind
  /** Placeholder shown in help, e.g. NAME. */
  arg?: string
  help: string
}

export const OPTIONS: readonly OptionSpec[] = [
  { long: 'print', short: 'p', kind: 'boolean', help: 'headless: run the prompt, print the result, exit' },
  {
    long: 'output-format',
    kind: 'value',
    arg: 'FORMAT',
    help: 'with -p: text (default), json (one result object) or stream-json (events)',
  },
  { long: 'model', kind: 'value', arg: 'NAME', help: 'model id (env AGENT_TUI_MODEL; settings "model")' },
  {
    long: 'embedding-model',
    kind: 'value',
    arg: 'NAME',
    help: 'offer CodeSearch with this embedding model (settings "embeddings")',
  },
  { long: 'base-url', kind: 'value', arg: 'URL', help: 'OpenAI-compatible base URL (env OPENAI_BASE_URL)' },
  {
    long: 'api-key',
    kind: 'value',
    arg: 'KEY',
    help: 'API key (env OPENAI_API_KEY); local servers need none',
  },
  {
    long: 'header',
    kind: 'value',
    arg: "'NAME: VALUE'",
    help: 'extra request header for the endpoint (repeatable; env AGENT_TUI_CUSTOM_HEADERS)',
  },
  {
    long: 'mode',
    kind: 'value',
    arg: 'MODE',
    help: 'permission mode: safe (default), auto, plan, dangerous, ci (default with -p)',
  },
  { long: 'dangerously-skip-permissions', kind: 'boolean', help: 'same as --mode dangerous' },
  { long: 'yolo', kind: 'boolean', help: 'same as --mode dangerous' },
  {
    long: 'allowed-tools',
    kind: 'value',
    arg: 'RULES',
    help: 'extra allow rules, comma-separated: "Read,Grep,Bash(npm test *)"',
  },
  { long: 'disallowed-tools', kind: 'value', arg: 'RULES', help: 'extra deny rules, same form' },
  {
    long: 'tools',
    kind: 'value',
    arg: 'NAMES',
    help: 'offer the model only these tools: "Read,Grep,Glob" ("" for none, "default" for all)',
  },
  {
    long: 'sandbox',
    kind: 'boolean',
    help: 'run Bash in an OS sandbox: writes only in the workspace and /tmp, .git/ read-only, no network',
  },
  { long: 'no-sandbox', kind: 'boolean', help: 'run Bash without the sandbox, whatever the settings say' },
  {
    long: 'trust-project',
    kind: 'boolean',
    help: "trust this folder for this run: its repository's rules and settings apply",
  },
  { long: 'no-claude-dirs', kind: 'boolean', help: "don't read .claude/, ~/.claude/ or ~/.claude.json" },
  {
    long: 'cwd',
    kind: 'value',
    arg: 'DIR',
    help: 'work in DIR (the project) instead of the current directory',
  },
  {
    long: 'add-dir',
    kind: 'value',
    arg: 'DIR',
    help: 'also read and edit DIR as if it were in the workspace (repeatable)',
  },
  {
    long: 'max-steps',
    kind: 'value',
    arg: 'N',
    // The default is resolve-config.ts's DEFAULT_MAX_STEPS (a test holds them equal).
    help: 'step cap for one user turn (default 50)',
  },
  { long: 'continue', short: 'c', kind: 'boolean', help: 'resume the most recent session of this directory' },
  { long: 'resume', kind: 'optional-value', arg: '[ID]', help: 'resume a session by id (picker without id)' },
  {
    long: 'agent',
    kind: 'value',
    arg: 'NAME',
    help: 'run the main session as this agent: build (default), explore, plan, a custom agent',
  },
  {
    long: 'rewind-to',
    kind: 'value',
    arg: 'TURN',
    help: "with -c/--resume: files and conversation back to turn N's start (N, id, undo, list)",
  },
  {
    long: 'rewind-scope',
    kind: 'value',
    arg: 'SCOPE',
    help: 'with --rewind-to: both (default), code or conversation',
  },
  { long: 'dry-run', kind: 'boolean', help: 'with --rewind-to: print what would change, change nothing' },
  {
    long: 'force',
    kind: 'boolean',
    help: 'with --rewind-to: also restore files changed outside the agent',
  },
  { long: 'debug', kind: 'boolean', help: 'write a JSONL debug log (path printed on exit)' },
  { long: 'verbose', kind: 'boolean', help: 'with -p: progress on stderr' },
  { long: 'print-on-exit', kind: 'boolean', help: 'write the last turn to the normal scrollback on exit' },
  { long: 'version', short: 'v', kind: 'boolean', help: 'print the version' },
  { long: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
]

const BY_LONG = new Map(OPTIONS.map((o) => [o.long, o]))
const BY_SHORT = new Map(OPTIONS.filter((o) => o.short !== undefined).map((o) => [o.short!, o]))

/** Parse `argv` (without node and script). Throws UsageError with a specific message. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const values = new Map<string, string | true>()
  const lists = {
    'allowed-tools': [] as string[],
    'disallowed-tools': [] as string[],
    'add-dir': [] as string[],
    header: [] as Header[],
  }
  const positionals: string[] = []
  const set = (spec: OptionSpec, value: string | true, shownAs: string) => {
    if (spec.long === 'allowed-tools' || spec.long === 'disallowed-tools') {
      lists[spec.long].push(...splitRules(String(value), shownAs))
    } else if (spec.long === 'add-dir') {
      lists['add-dir'].push(String(value))
    } else if (spec.long === 'header') {
      lists.header.push(headerOfFlag(String(value), shownAs))
    } else {
      values.set(spec.long, value)
    }
  }

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      const spec = BY_LONG.get(name)
      if (!spec) throw new UsageError(`unknown option --${name} (see --help)`)
      const shownAs = `--${name}`
      if (eq !== -1) {
        if (spec.kind === 'boolean') throw new UsageError(`${shownAs} does not take a value`)
        const value = arg.slice(eq + 1)
        if (value === '' && spec.long === 'tools') {
          set(spec, '', shownAs)
          continue
        }
        if (value === '' && spec.kind === 'value') throw new UsageError(`${shownAs} needs a value`)
        set(spec, value === '' ? true : value, shownAs)
        continue
      }
      i = takeValue(spec, argv, i, shownAs, set)
      continue
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letters = arg.slice(1)
      const specs = [...letters].map((letter) => {
        const spec = BY_SHORT.get(letter)
        if (!spec) throw new UsageError(`unknown option -${letter} (see --help)`)
        return spec
      })
      // Only boolean short options exist, so clusters like -pc are simply several flags.
      for (const spec of specs) set(spec, true, `-${spec.short}`)
      continue
    }
    positionals.push(arg)
  }
  return build(values, lists, positionals)
}

type Setter = (spec: OptionSpec, value: string | true, shownAs: string) => void

/** Handles `--name value` / `--name` for one option; returns the index of the last consumed word. */
function takeValue(
  spec: OptionSpec,
  argv: readonly string[],
  i: number,
  shownAs: string,
  set: Setter,
): number {
  const next = argv[i + 1]
  // `-5` is a (bad) value, not an option, so --max-steps -5 reports the number.
  const looksLikeOption = next !== undefined && /^-[^\d]/.test(next)
  if (spec.kind === 'boolean') {
    set(spec, true, shownAs)
    return i
  }
  if (spec.kind === 'optional-value') {
    // A following word is the id only when it cannot be a prompt (ids have no spaces).
    if (next !== undefined && !looksLikeOption && !/\s/.test(next) && next !== '') {
      set(spec, next, shownAs)
      return i + 1
    }
    set(spec, true, shownAs)
    return i
  }
  if (next === undefined || looksLikeOption) throw new UsageError(`${shownAs} needs a value`)
  // `--tools ""` offers no tools at all.
  if (next === '' && spec.long !== 'tools') throw new UsageError(`${shownAs} needs a value`)
  set(spec, next, shownAs)
  return i + 1
}

function build(
  values: Map<string, string | true>,
  lists: { 'allowed-tools': string[]; 'disallowed-tools': string[]; 'add-dir': string[]; header: Header[] },
  positionals: string[],
): ParsedArgs {
  const str = (name: string): string | undefined => {
    const v = values.get(name)
    return typeof v === 'string' ? v : undefined
  }
  const flag = (name: string) => values.has(name)
  const rewindTo = str('rewind-to')
  // A rewind runs without the TUI: it prints what it did (and runs a prompt, if one is given).
  const print = flag('print') || rewindTo !== undefined

  const format = str('output-format')
  if (format !== undefined && !OUTPUT_FORMATS.includes(format as OutputFormat)) {
    throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(', ')} (got "${format}")`)
  }
  if (format !== undefined && !print) throw new UsageError('--output-format only applies with -p/--print')

  const modeText = str('mode')
  if (modeText !== undefined && !MODES.includes(modeText as Mode)) {
    throw new UsageError(`--mode must be one of ${MODES.join(', ')} (got "${modeText}")`)
  }
  const dangerFlag = flag('yolo')
    ? '--yolo'
    : flag('dangerously-skip-permissions')
      ? '--dangerously-skip-permissions'
      : undefined
  if (dangerFlag && modeText !== undefined && modeText !== 'dangerous') {
    throw new UsageError(`${dangerFlag} conflicts with --mode ${modeText}`)
  }
  const mode = dangerFlag ? 'dangerous' : (modeText as Mode | undefined)

  const stepsText = str('max-steps')
  let maxSteps: number | undefined
  if (stepsText !== undefined) {
    if (!/^\d+$/.test(stepsText) || Number(stepsText) < 1 || !Number.isSafeInteger(Number(stepsText))) {
      throw new UsageError(`--max-steps needs a positive whole number (got "${stepsText}")`)
    }
    maxSteps = Number(stepsText)
  }

  const resumeValue = values.get('resume')
  if (flag('continue') && resumeValue !== undefined)
    throw new UsageError('use either --continue or --resume, not both')

  const scope = str('rewind-scope')
  if (scope !== undefined && !['both', 'code', 'conversation'].includes(scope)) {
    throw new UsageError(`--rewind-scope must be one of both, code, conversation (got "${scope}")`)
  }
  for (const name of ['rewind-scope', 'dry-run', 'force']) {
    if (flag(name) && rewindTo === undefined) throw new UsageError(`--${name} only applies with --rewind-to`)
  }
  if (rewindTo !== undefined && !flag('continue') && typeof resumeValue !== 'string') {
    throw new UsageError('--rewind-to needs the session to rewind: add --continue or --resume ID')
  }

  if (flag('sandbox') && flag('no-sandbox'))
    throw new UsageError('use either --sandbox or --no-sandbox, not both')

  const prompt = positionals.length > 0 ? positionals.join(' ') : undefined
  return {
    prompt,
    print,
    outputFormat: (format as OutputFormat | undefined) ?? 'text',
    model: str('model'),
    embeddingModel: str('embedding-model'),
    baseUrl: str('base-url'),
    apiKey: str('api-key'),
    headers: lists.header,
    mode,
    allowedTools: lists['allowed-tools'],
    disallowedTools: lists['disallowed-tools'],
    tools: toolNames(values.get('tools')),
    sandbox: flag('sandbox') ? 'on' : flag('no-sandbox') ? 'off' : undefined,
    trustProject: flag('trust-project'),
    noClaudeDirs: flag('no-claude-dirs'),
    addDirs: lists['add-dir'],
    cwd: str('cwd'),
    maxSteps,
    continue: flag('continue'),
    resume: resumeValue,
    agent: str('agent'),
    rewindTo,
    rewindScope: (scope as ParsedArgs['rewindScope'] | undefined) ?? 'both',
    dryRun: flag('dry-run'),
    force: flag('force'),
    debug: flag('debug'),
    verbose: flag('verbose'),
    printOnExit: flag('print-on-exit'),
    version: flag('version'),
    help: flag('help'),
  }
}

/**
 * Split a comma-separated rule list; commas inside parentheses belong to the rule
 * (`Bash(git log --format=%h,%s)`). Each rule must parse.
 */
export function splitRules(text: string, optionName: string): string[] {
  return splitRuleList(text).map((rule) => {
    try {
      return parseRule(rule).text
    } catch (err) {
      throw new UsageError(`${optionName}: ${(err as Error).message}`)
    }
  })
}
