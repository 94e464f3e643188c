import { describe, expect, it } from 'vitest'
import { UsageError } from '../../../source/config/errors.js'
import { helpText } from '../../../source/config/help-text.js'
import { mcpServeHelp, parseMcpServeArgs } from '../../../source/config/mcp-serve-args.js'

describe('parseMcpServeArgs', () => {
  it('defaults: tasks up to ci', () => {
    const parsed = parseMcpServeArgs([])
    expect(parsed).toMatchObject({ maxMode: 'ci', help: false })
    expect(parsed.base.mode).toBeUndefined()
  })

  it.each([
    [['--max-mode', 'auto'], 'auto'],
    [['--max-mode=dangerous'], 'dangerous'],
    [['--max-mode', 'plan', '--model', 'm'], 'plan'],
  ])('%j sets the ceiling', (argv, mode) => {
    expect(parseMcpServeArgs(argv).maxMode).toBe(mode)
  })

  it('--expose-tools offers the built-in tools too; off by default', () => {
    expect(parseMcpServeArgs([]).exposeTools).toBe(false)
    expect(parseMcpServeArgs(['--expose-tools', '--max-mode', 'auto'])).toMatchObject({
      exposeTools: true,
      maxMode: 'auto',
    })
  })

  it('passes the session options through to every task', () => {
    const parsed = parseMcpServeArgs([
      '--base-url',
      'http://127.0.0.1:1/v1',
      '--model',
      'm',
      '--allowed-tools',
      'Bash(npm test *)',
      '--cwd',
      '/tmp',
    ])
    expect(parsed.base).toMatchObject({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      allowedTools: ['Bash(npm test *)'],
      cwd: '/tmp',
    })
  })

  it('--help is asked for, whatever else is given', () => {
    expect(parseMcpServeArgs(['--help']).help).toBe(true)
    expect(parseMcpServeArgs(['-h', '--model', 'm']).help).toBe(true)
  })

  it.each([
    [['--max-mode'], '--max-mode needs a value'],
    [['--max-mode', '--model', 'm'], '--max-mode needs a value'],
    [['--max-mode', 'loose'], '--max-mode must be one of safe, auto, plan, dangerous, ci (got "loose")'],
    [['do', 'something'], 'mcp serve takes no prompt (got "do something")'],
    [['--', '-p'], 'mcp serve takes no prompt'],
    [['--mode', 'auto'], '--mode does not apply to mcp serve'],
    [['--yolo'], '--mode does not apply to mcp serve'],
    [['--trust-project'], '--trust-project does not apply to mcp serve'],
    [['-p'], 'mcp serve does not take -p'],
    [['--continue'], 'mcp serve does not take --continue'],
    [['--resume', 'abc'], 'mcp serve does not take --resume'],
    [['--print-on-exit'], 'mcp serve does not take --print-on-exit'],
    [['--nope'], 'unknown option --nope'],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parseMcpServeArgs(argv)).toThrow(UsageError)
    expect(() => parseMcpServeArgs(argv)).toThrow(message)
  })

  it('--help of agent-tui and of mcp serve name the server options', () => {
    for (const text of [helpText(), mcpServeHelp()]) {
      expect(text).toMatch(/^ {2}(?: {4})?--max-mode MODE +the loosest mode/m)
      expect(text).toMatch(/^ {2}(?: {4})?--expose-tools +also offer agent-tui's built-in tools/m)
    }
    expect(helpText()).toContain('agent-tui mcp serve [options]')
  })
})
