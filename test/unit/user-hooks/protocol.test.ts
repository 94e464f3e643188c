import { describe, expect, it } from 'vitest'
import { buildInput, interpret, parseAnswer, type RawRun } from '../../../source/user-hooks/protocol.js'
import type { ConfiguredHook, HookEvent } from '../../../source/user-hooks/types.js'
import { combine } from '../../../source/user-hooks/verdict.js'

const hook = (command = './h.sh'): ConfiguredHook => ({
  event: 'PreToolUse',
  matcher: '',
  command,
  timeoutSeconds: 60,
  scope: 'user',
  file: '~/.config/agent-tui/settings.json',
})

const run = (over: Partial<RawRun>): RawRun => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  durationMs: 5,
  timedOut: false,
  aborted: false,
  ...over,
})

const json = (value: unknown) => run({ stdout: JSON.stringify(value) })

describe('the event on stdin', () => {
  it('carries the common fields, the event name and the event fields', () => {
    const input = buildInput(
      'PostToolUse',
      { session_id: 's', transcript_path: '/t.jsonl', cwd: '/w', permission_mode: 'default' },
      { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { output: 'a' }, tool_use_id: 'c1' },
    )
    expect(input).toEqual({
      session_id: 's',
      transcript_path: '/t.jsonl',
      cwd: '/w',
      permission_mode: 'default',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { output: 'a' },
      tool_use_id: 'c1',
    })
  })
})

describe('reading a JSON answer', () => {
  it('keeps fields of the right type and names the rest', () => {
    const r = parseAnswer(
      JSON.stringify({
        continue: 'no',
        decision: 'deny',
        reason: 'r',
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', updatedInput: 'x' },
      }),
      'PreToolUse',
    )
    expect(r.answer).toEqual({ reason: 'r', permissionDecision: 'ask' })
    expect(r.problems).toEqual([
      '"continue" should be true or false; ignored',
      '"decision" should be "approve" or "block"; ignored',
      '"updatedInput" should be an object; ignored',
    ])
  })

  it('ignores hookSpecificOutput meant for another event', () => {
    const r = parseAnswer(
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'x' } }),
      'UserPromptSubmit',
    )
    expect(r.answer).toEqual({})
    expect(r.problems[0]).toMatch(/for PostToolUse, not UserPromptSubmit/)
  })

  it.each([
    ['plain text', 'hello\nworld', { text: 'hello\nworld', problems: 0 }],
    ['a JSON array is text', '[1,2]', { text: '[1,2]', problems: 0 }],
    ['broken JSON is text, with a problem', '{"decision": ', { text: '{"decision":', problems: 1 }],
    ['empty', '  \n', { text: null, problems: 0 }],
  ])('%s', (_name, stdout, expected) => {
    const r = parseAnswer(stdout, 'PostToolUse')
    expect(r.text).toBe(expected.text)
    expect(r.problems).toHaveLength(expected.problems)
  })
})

type Case = [string, HookEvent, RawRun, Partial<ReturnType<typeof combine>>]

describe('exit codes and answers → what the event does', () => {
  const cases: Case[] = [
    [
      'exit 0, nothing printed: no effect',
      'PreToolUse',
      run({}),
      { permission: null, block: null, cards: [] },
    ],
    [
      'exit 2 on PreToolUse denies with stderr as the reason',
      'PreToolUse',
      run({ exitCode: 2, stderr: 'no rm here\n' }),
      { permission: 'deny', block: 'no rm here', permissionReason: 'no rm here' },
    ],
    [
      'exit 2 without stderr still blocks, with a stated reason',
      'PreToolUse',
      run({ exitCode: 2 }),
      { permission: 'deny', block: 'the PreToolUse hook exited with code 2' },
    ],
    [
      'exit 2 ignores a JSON answer on stdout',
      'PreToolUse',
      run({ exitCode: 2, stdout: '{"hookSpecificOutput":{"permissionDecision":"allow"}}', stderr: 'x' }),
      { permission: 'deny' },
    ],
    [
      'exit 1 is a non-blocking error',
      'PreToolUse',
      run({ exitCode: 1, stderr: 'oops' }),
      { permission: null, block: null },
    ],
    [
      'permissionDecision deny blocks with permissionDecisionReason',
      'PreToolUse',
      json({
        hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'not on Fridays' },
      }),
      { permission: 'deny', block: 'not on Fridays' },
    ],
    [
      'deprecated decision block / approve on PreToolUse mean deny / allow',
      'PreToolUse',
      json({ decision: 'approve', reason: 'fine' }),
      { permission: 'allow', permissionReason: 'fine', block: null },
    ],
    [
      'ask with a reason',
      'PreToolUse',
      json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'touches prod' } }),
      { permission: 'ask', permissionReason: 'touches prod' },
    ],
    [
      'updatedInput is passed on',
      'PreToolUse',
      json({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'ls -a' } } }),
      { permission: 'allow', updatedInput: { command: 'ls -a' } },
    ],
    [
      'PostToolUse decision block feeds the reason (and the context) to the model',
      'PostToolUse',
      json({ decision: 'block', reason: 'lint failed', hookSpecificOutput: { additionalContext: 'see x' } }),
      { block: 'lint failed', context: ['see x'] },
    ],
    [
      'PostToolUse plain stdout is for the user, not the model',
      'PostToolUse',
      run({ stdout: 'formatted 1 file' }),
      { block: null, context: [] },
    ],
    [
      'UserPromptSubmit plain stdout is context',
      'UserPromptSubmit',
      run({ stdout: 'today is Tuesday\n' }),
      { block: null, context: ['today is Tuesday'] },
    ],
    [
      'UserPromptSubmit exit 2 blocks the prompt',
      'UserPromptSubmit',
      run({ exitCode: 2, stderr: 'no secrets in prompts' }),
      { block: 'no secrets in prompts' },
    ],
    [
      'SessionStart additionalContext is context',
      'SessionStart',
      json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'branch main' } }),
      { context: ['branch main'] },
    ],
    [
      'Stop decision block keeps the agent working',
      'Stop',
      json({ decision: 'block', reason: 'tests fail' }),
      { block: 'tests fail', stop: null },
    ],
    [
      'continue false stops, with stopReason',
      'Stop',
      json({ continue: false, stopReason: 'enough', decision: 'block', reason: 'more' }),
      { stop: 'enough' },
    ],
    [
      'exit 2 on SessionStart cannot block anything',
      'SessionStart',
      run({ exitCode: 2, stderr: 'meh' }),
      { block: null, context: [] },
    ],
    [
      'a timeout is a non-blocking error',
      'PreToolUse',
      run({ exitCode: null, timedOut: true }),
      { permission: null, block: null },
    ],
  ]
  it.each(cases)('%s', (_name, event, raw, expected) => {
    const verdict = combine(event, [interpret(event, { ...hook(), event }, raw)], 'Bash')
    expect(verdict).toMatchObject(expected)
  })
})

describe('several hooks of one event', () => {
  const outcome = (event: HookEvent, command: string, raw: RawRun) => interpret(event, hook(command), raw)

  it('deny beats ask beats allow, and only the winners give the reason', () => {
    const allow = outcome('PreToolUse', 'a', json({ hookSpecificOutput: { permissionDecision: 'allow' } }))
    const ask = outcome(
      'PreToolUse',
      'b',
      json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'check' } }),
    )
    const deny = outcome('PreToolUse', 'c', run({ exitCode: 2, stderr: 'no' }))
    expect(combine('PreToolUse', [allow, ask]).permission).toBe('ask')
    expect(combine('PreToolUse', [allow, ask]).permissionReason).toBe('check')
    expect(combine('PreToolUse', [allow, ask, deny])).toMatchObject({ permission: 'deny', block: 'no' })
  })

  it('joins the context of every hook in order; the first rewrite wins and a second is reported', () => {
    const a = outcome('UserPromptSubmit', 'a', run({ stdout: 'one' }))
    const b = outcome('UserPromptSubmit', 'b', json({ hookSpecificOutput: { additionalContext: 'two' } }))
    expect(combine('UserPromptSubmit', [a, b]).context).toEqual(['one', 'two'])
    const r1 = outcome('PreToolUse', 'r1', json({ hookSpecificOutput: { updatedInput: { command: '1' } } }))
    const r2 = outcome('PreToolUse', 'r2', json({ hookSpecificOutput: { updatedInput: { command: '2' } } }))
    const v = combine('PreToolUse', [r1, r2], 'Bash')
    expect(v.updatedInput).toEqual({ command: '1' })
    expect(v.cards.at(-1)?.text).toBe(
      "2 PreToolUse hooks rewrote the Bash arguments; the first one's were used",
    )
  })
})

describe('cards', () => {
  const cardsOf = (event: HookEvent, raw: RawRun) =>
    combine(event, [interpret(event, { ...hook(), event }, raw)], 'Bash').cards.map((c) => [c.level, c.text])

  it.each([
    [
      'PreToolUse',
      run({ exitCode: 2, stderr: 'no rm\nmore' }),
      [['warn', 'PreToolUse hook blocked Bash: no rm']],
    ],
    [
      'PostToolUse',
      json({ decision: 'block', reason: 'lint failed' }),
      [['warn', 'PostToolUse hook on Bash told the model: lint failed']],
    ],
    [
      'UserPromptSubmit',
      run({ exitCode: 2, stderr: 'nope' }),
      [['warn', 'UserPromptSubmit hook blocked the prompt: nope']],
    ],
    ['Stop', run({ exitCode: 2, stderr: 'go on' }), [['warn', 'Stop hook keeps the agent working: go on']]],
    ['PreToolUse', run({ exitCode: 1, stderr: 'bad' }), [['warn', 'PreToolUse hook failed (exit 1): bad']]],
    [
      'PreToolUse',
      run({ exitCode: null, timedOut: true }),
      [['error', 'PreToolUse hook timed out after 60 s and was stopped (its processes were killed)']],
    ],
    [
      'PreToolUse',
      run({ exitCode: null, spawnError: 'spawn bash ENOENT' }),
      [['error', 'PreToolUse hook could not start: spawn bash ENOENT']],
    ],
    ['PostToolUse', run({ stdout: 'formatted' }), [['info', 'PostToolUse hook: formatted']]],
    [
      'PostToolUse',
      json({ suppressOutput: true, systemMessage: 'heads up' }),
      [['warn', 'PostToolUse hook: heads up']],
    ],
    [
      'UserPromptSubmit',
      run({ stdout: 'ctx line\nmore' }),
      [['info', 'UserPromptSubmit hook added context for the model: ctx line']],
    ],
    ['PreToolUse', run({}), []],
    ['PreToolUse', run({ aborted: true, exitCode: null }), []],
  ] as const)('%s %j', (event, raw, expected) => {
    expect(cardsOf(event, raw)).toEqual(expected)
  })

  it('details name the command, its file, how it ended and what it printed (stdout hidden by suppressOutput)', () => {
    const [card] = combine('PostToolUse', [
      interpret('PostToolUse', hook('./fmt.sh'), run({ exitCode: 3, stdout: 'out', stderr: 'err' })),
    ]).cards
    expect(card?.detail).toBe(
      '$ ./fmt.sh\n~/.config/agent-tui/settings.json · exit 3 · 5 ms\nstdout:\nout\nstderr:\nerr',
    )
    const [quiet] = combine('PostToolUse', [
      interpret('PostToolUse', hook('./q.sh'), json({ suppressOutput: true, systemMessage: 'm' })),
    ]).cards
    expect(quiet?.detail).not.toContain('stdout')
  })
})
