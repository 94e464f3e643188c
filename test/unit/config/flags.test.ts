import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../source/config/errors.js'
import { type ParsedArgs, parseArgs } from '../../../source/config/flags.js'
import { helpText } from '../../../source/config/help-text.js'
import { DEFAULT_MAX_STEPS } from '../../../source/config/resolve-config.js'

const DEFAULTS: ParsedArgs = {
  prompt: undefined,
  print: false,
  outputFormat: 'text',
  model: undefined,
  embeddingModel: undefined,
  baseUrl: undefined,
  apiKey: undefined,
  headers: [],
  mode: undefined,
  allowedTools: [],
  disallowedTools: [],
  tools: undefined,
  sandbox: undefined,
  trustProject: false,
  noClaudeDirs: false,
  addDirs: [],
  cwd: undefined,
  maxSteps: undefined,
  continue: false,
  resume: undefined,
  agent: undefined,
  rewindTo: undefined,
  rewindScope: 'both',
  dryRun: false,
  force: false,
  debug: false,
  verbose: false,
  printOnExit: false,
  version: false,
  help: false,
}

describe('parseArgs: accepted forms', () => {
  it.each<[string, string[], Partial<ParsedArgs>]>([
    ['nothing', [], {}],
    ['a prompt', ['fix', 'the', 'bug'], { prompt: 'fix the bug' }],
    ['-p with a prompt', ['-p', 'hello'], { print: true, prompt: 'hello' }],
    ['--trust-project', ['-p', 'x', '--trust-project'], { print: true, prompt: 'x', trustProject: true }],
    ['--no-claude-dirs', ['--no-claude-dirs'], { noClaudeDirs: true }],
    ['--sandbox', ['--sandbox', 'fix it'], { sandbox: 'on', prompt: 'fix it' }],
    ['--no-sandbox', ['--no-sandbox'], { sandbox: 'off' }],
    ['--print', ['--print', 'hi'], { print: true, prompt: 'hi' }],
    [
      '--output-format json',
      ['-p', 'x', '--output-format', 'json'],
      { print: true, prompt: 'x', outputFormat: 'json' },
    ],
    [
      '--output-format=stream-json',
      ['-p', '--output-format=stream-json', 'x'],
      { print: true, prompt: 'x', outputFormat: 'stream-json' },
    ],
    ['--model', ['--model', 'qwen'], { model: 'qwen' }],
    ['--embedding-model', ['--embedding-model', 'nomic-embed-text'], { embeddingModel: 'nomic-embed-text' }],
    ['--cwd', ['--cwd', '../app', 'hi'], { cwd: '../app', prompt: 'hi' }],
    ['--cwd=', ['--cwd=/srv/app'], { cwd: '/srv/app' }],
    ['--model=', ['--model=qwen:7b'], { model: 'qwen:7b' }],
    ['--base-url', ['--base-url', 'http://h/v1'], { baseUrl: 'http://h/v1' }],
    ['--api-key=', ['--api-key=sk-1'], { apiKey: 'sk-1' }],
    [
      '--header, repeated',
      ['--header', 'x-portkey-provider: openai', '--header=X-Trace:  a: b '],
      {
        headers: [
          { name: 'x-portkey-provider', value: 'openai' },
          { name: 'X-Trace', value: 'a: b' },
        ],
      },
    ],
    ['--mode', ['--mode', 'plan'], { mode: 'plan' }],
    ['--mode=ci', ['--mode=ci'], { mode: 'ci' }],
    ['--yolo', ['--yolo'], { mode: 'dangerous' }],
    ['--dangerously-skip-permissions', ['--dangerously-skip-permissions'], { mode: 'dangerous' }],
    ['--yolo with --mode dangerous', ['--yolo', '--mode', 'dangerous'], { mode: 'dangerous' }],
    [
      '--allowed-tools splits on top-level commas only',
      ['--allowed-tools', 'Read, Grep,Bash(git log --format=%h,%s)'],
      { allowedTools: ['Read', 'Grep', 'Bash(git log --format=%h,%s)'] },
    ],
    [
      'repeated --allowed-tools accumulate',
      ['--allowed-tools=Read', '--allowed-tools', 'Bash(npm test *)'],
      { allowedTools: ['Read', 'Bash(npm test *)'] },
    ],
    [
      '--disallowed-tools',
      ['--disallowed-tools', 'Bash(rm *),WebFetch'],
      { disallowedTools: ['Bash(rm *)', 'WebFetch'] },
    ],
    ['--tools', ['--tools', 'Read, Grep,Glob'], { tools: ['Read', 'Grep', 'Glob'] }],
    ['--tools with a wildcard', ['--tools=Read,mcp__github__*'], { tools: ['Read', 'mcp__github__*'] }],
    ['--tools "" offers none', ['--tools', '', 'hi'], { tools: [], prompt: 'hi' }],
    ['--tools= offers none', ['--tools='], { tools: [] }],
    ['--tools default offers all', ['--tools', 'default'], { tools: undefined }],
    [
      'repeated --add-dir accumulate, in order',
      ['--add-dir', '../lib', '--add-dir=/srv/shared', 'go'],
      { addDirs: ['../lib', '/srv/shared'], prompt: 'go' },
    ],
    ['--max-steps', ['--max-steps', '12'], { maxSteps: 12 }],
    ['--max-steps=', ['--max-steps=3'], { maxSteps: 3 }],
    ['--continue', ['--continue'], { continue: true }],
    ['-c', ['-c'], { continue: true }],
    ['bare --resume', ['--resume'], { resume: true }],
    ['--resume ID', ['--resume', 'abc123'], { resume: 'abc123' }],
    ['--resume=ID', ['--resume=abc123'], { resume: 'abc123' }],
    ['--resume before a flag', ['--resume', '--debug'], { resume: true, debug: true }],
    [
      '--resume before a prompt with spaces',
      ['--resume', 'fix the bug'],
      { resume: true, prompt: 'fix the bug' },
    ],
    ['--agent', ['--agent', 'explore'], { agent: 'explore' }],
    [
      '--rewind-to implies headless',
      ['--continue', '--rewind-to', '2'],
      { continue: true, print: true, rewindTo: '2' },
    ],
    [
      '--rewind-to with scope, dry run, force and a session id',
      ['--resume', 'abc', '--rewind-to=undo', '--rewind-scope', 'code', '--dry-run', '--force'],
      { resume: 'abc', print: true, rewindTo: 'undo', rewindScope: 'code', dryRun: true, force: true },
    ],
    [
      '--debug --verbose --print-on-exit',
      ['--debug', '--verbose', '--print-on-exit'],
      { debug: true, verbose: true, printOnExit: true },
    ],
    ['--version', ['--version'], { version: true }],
    ['-v', ['-v'], { version: true }],
    ['--help', ['--help'], { help: true }],
    ['-h', ['-h'], { help: true }],
    ['short cluster', ['-pc', 'go'], { print: true, continue: true, prompt: 'go' }],
    ['-- ends options', ['-p', '--', '--not-a-flag', '-x'], { print: true, prompt: '--not-a-flag -x' }],
    ['a lone dash is a positional', ['-'], { prompt: '-' }],
    ['flags after the prompt', ['hello', '--model', 'm'], { prompt: 'hello', model: 'm' }],
  ])('%s', (_name, argv, expected) => {
    expect(parseArgs(argv)).toEqual({ ...DEFAULTS, ...expected })
  })
})

describe('parseArgs: errors', () => {
  it.each<[string[], string]>([
    [['--foo'], 'unknown option --foo (see --help)'],
    [['--foo=1'], 'unknown option --foo (see --help)'],
    [['-x'], 'unknown option -x (see --help)'],
    [['-px'], 'unknown option -x (see --help)'],
    [['--model'], '--model needs a value'],
    [['--model', '--debug'], '--model needs a value'],
    [['--model='], '--model needs a value'],
    [['--base-url'], '--base-url needs a value'],
    [['--api-key'], '--api-key needs a value'],
    [['--agent'], '--agent needs a value'],
    [['--allowed-tools'], '--allowed-tools needs a value'],
    [['--tools'], '--tools needs a value'],
    [
      ['--tools', 'Bash(ls)'],
      '--tools takes tool names such as Read,Grep,Glob or mcp__github__* (got "Bash(ls)")',
    ],
    [['--add-dir'], '--add-dir needs a value'],
    [['--header'], '--header needs a value'],
    // The value is redacted: a malformed line may hold a secret (`Authorization Bearer sk-…`).
    [['--header', 'no colon'], '--header: expected "Name: value" (got ••• (8 characters))'],
    [['--header', 'two words: v'], '--header: "two words" is not a header name'],
    [['--header', 'Host: evil'], '--header: "Host" is set by the HTTP client and cannot be configured'],
    [['--header=Content-Length: 1'], '--header: "Content-Length" is set by the HTTP client'],
    [['--header', 'x-a: b\r\nx-b: c'], '--header: a header value cannot hold a line break or NUL'],
    [['--mode'], '--mode needs a value'],
    [['--mode', 'yolo'], '--mode must be one of safe, auto, plan, dangerous, ci (got "yolo")'],
    [['-p', '--output-format', 'xml'], '--output-format must be one of text, json, stream-json (got "xml")'],
    [['--output-format', 'json'], '--output-format only applies with -p/--print'],
    [['--max-steps', '0'], '--max-steps needs a positive whole number (got "0")'],
    [['--max-steps', '-5'], '--max-steps needs a positive whole number (got "-5")'],
    [['--max-steps', '2.5'], '--max-steps needs a positive whole number (got "2.5")'],
    [['--max-steps', 'ten'], '--max-steps needs a positive whole number (got "ten")'],
    [['--debug=yes'], '--debug does not take a value'],
    [['--yolo', '--mode', 'plan'], '--yolo conflicts with --mode plan'],
    [
      ['--dangerously-skip-permissions', '--mode=safe'],
      '--dangerously-skip-permissions conflicts with --mode safe',
    ],
    [['--continue', '--resume', 'x'], 'use either --continue or --resume, not both'],
    [['--sandbox', '--no-sandbox'], 'use either --sandbox or --no-sandbox, not both'],
    [['--sandbox=off'], '--sandbox does not take a value'],
    [['--rewind-to', '2'], '--rewind-to needs the session to rewind: add --continue or --resume ID'],
    [['--resume', '--rewind-to', '2'], '--rewind-to needs the session to rewind'],
    [['-c', '--rewind-to', '2', '--rewind-scope', 'files'], '--rewind-scope must be one of both, code'],
    [['-c', '--dry-run'], '--dry-run only applies with --rewind-to'],
    [['-p', 'x', '--force'], '--force only applies with --rewind-to'],
    [['--allowed-tools', 'Bash(npm'], '--allowed-tools: rule "Bash(npm" must end with ")"'],
    [
      ['--disallowed-tools', 'Read,WebFetch(example.com)'],
      '--disallowed-tools: rule "WebFetch(example.com)": WebFetch rules take',
    ],
  ])('%j → %s', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError)
    expect(() => parseArgs(argv)).toThrow(message)
  })
})

describe('helpText', () => {
  const text = helpText()

  it('names the step cap a turn gets without --max-steps', () => {
    expect(text).toMatch(
      new RegExp(`--max-steps N +step cap for one user turn \\(default ${DEFAULT_MAX_STEPS}\\)`),
    )
  })

  it.each([
    '-p, --print',
    '--output-format FORMAT',
    '--model NAME',
    '--base-url URL',
    '--api-key KEY',
    '--mode MODE',
    '--dangerously-skip-permissions',
    '--yolo',
    '--allowed-tools RULES',
    '--disallowed-tools RULES',
    '--trust-project',
    '--sandbox',
    '--no-sandbox',
    '--max-steps N',
    '-c, --continue',
    '--resume [ID]',
    '--agent NAME',
    '--debug',
    '--verbose',
    '--print-on-exit',
    '-v, --version',
    '-h, --help',
  ])('documents %s', (option) => {
    expect(text).toContain(option)
  })

  it('aligns the descriptions in one column', () => {
    const optionLines = text.split('\n').filter((line) => /^ {2}(-\w, | {4})--/.test(line))
    expect(optionLines).toHaveLength(34) // agent-tui's 32 (with --embedding-model) and mcp serve's --max-mode, --expose-tools
    const columns = optionLines.map((line) => /^ {2}(?: {4})?\S.*? {2,}(?=\S)/.exec(line)?.[0].length)
    expect(new Set(columns).size).toBe(1)
    expect(columns[0]).toBeGreaterThan(20)
  })
})
