import { describe, expect, it } from 'vitest'
import { createToolReplyCheck } from '../../../source/agent/turn/tool-reply-check.js'
import {
  detectTextToolCall,
  serverKindOf,
  toolCallFix,
  toolErrorFix,
} from '../../../source/provider/tool-support.js'

const TOOLS = ['Read', 'Bash', 'record_answer']

describe('detectTextToolCall', () => {
  it.each([
    ['hermes', '<tool_call>\n{"name": "Read", "arguments": {"path": "a"}}\n</tool_call>', 'Read'],
    ['qwen-xml', 'Let me look.\n<function=Bash>\n<parameter=command>ls</parameter>\n</function>', 'Bash'],
    ['llama', '<|python_tag|>{"name": "Read", "parameters": {"path": "a"}}', 'Read'],
    ['mistral', '[TOOL_CALLS][{"name": "Bash", "arguments": {"command": "ls"}}]', 'Bash'],
    [
      'deepseek',
      '<\uFF5Ctool\u2581calls\u2581begin\uFF5C><\uFF5Ctool\u2581call\u2581begin\uFF5C>function<\uFF5Ctool\u2581sep\uFF5C>Read\n```json\n{}\n```',
      'Read',
    ],
    [
      'harmony',
      '<|start|>assistant<|channel|>commentary to=functions.Bash <|message|>{"command":"ls"}',
      'Bash',
    ],
    [
      'xml-invoke',
      '<function_calls><invoke name="Read"><parameter name="path">a</parameter></invoke></function_calls>',
      'Read',
    ],
    ['json', '{"name": "Read", "arguments": {"path": "a"}}', 'Read'],
    ['json', '```json\n{"function": {"name": "Bash", "arguments": "{\\"command\\":\\"ls\\"}"}}\n```', 'Bash'],
  ])('recognises %s markup', (format, text, tool) => {
    expect(detectTextToolCall(text, TOOLS)).toEqual({ format, tool })
  })

  it.each([
    ['prose', 'I would read the file first, then run the tests.'],
    [
      'markup inside a fence (an explanation)',
      'The format is:\n```\n<tool_call>{"name": "Read"}</tool_call>\n```',
    ],
    ['JSON naming no tool of the request', '{"name": "Alice", "arguments": {}}'],
    ['JSON among prose', 'Here: {"name": "Read", "arguments": {"path": "a"}} and more'],
    ['a plain JSON answer', '{"answer": 42}'],
  ])('is not fooled by %s', (_, text) => {
    expect(detectTextToolCall(text, TOOLS)).toBeNull()
  })
})

describe('the hints', () => {
  it.each([
    ['http://127.0.0.1:8080/v1', undefined, 'llama.cpp'],
    ['http://gpu:9000/v1', 'llamacpp', 'llama.cpp'],
    ['http://127.0.0.1:11434/v1', undefined, 'ollama'],
    ['http://127.0.0.1:1234/v1', undefined, 'lm-studio'],
    ['http://127.0.0.1:8000/v1', 'vllm', 'vllm'],
    ['https://api.openai.com/v1', undefined, 'openai'],
    ['http://127.0.0.1:4321/v1', 'scripted', 'unknown'],
  ])('%s (owned_by %s) is %s', (url, owner, kind) => {
    expect(serverKindOf(url, owner)).toBe(kind)
  })

  it('names the specific fix', () => {
    expect(toolCallFix('llama.cpp', 'm')).toMatch(/--jinja/)
    expect(toolCallFix('ollama', 'qwen3')).toMatch(/ollama show qwen3/)
    expect(toolCallFix('lm-studio', 'm')).toMatch(/update LM Studio/)
    expect(toolCallFix('vllm', 'm')).toMatch(/--enable-auto-tool-choice/)
    expect(toolErrorFix('tools param requires --jinja flag', 'unknown', 'm')).toMatch(
      /llama-server with --jinja/,
    )
    expect(
      toolErrorFix('registry.ollama.ai/library/gemma:2b does not support tools', 'unknown', 'gemma'),
    ).toMatch(/ollama show gemma/)
    expect(toolErrorFix('rate limited', 'unknown', 'm')).toBeNull()
  })
})

describe('the first-turn check', () => {
  const reply = (text: string, toolCalls = 0, names: string[] = TOOLS) => ({
    text,
    toolCalls,
    toolNames: () => names,
    baseUrl: 'http://127.0.0.1:8080/v1',
    model: 'qwen',
  })

  it('says once what is wrong and how to fix it when a call comes back as text', () => {
    const check = createToolReplyCheck()
    const note = check.observe(reply('<tool_call>{"name": "Read", "arguments": {}}</tool_call>'))
    expect(note).toMatch(/^llama\.cpp at http:\/\/127\.0\.0\.1:8080\/v1: the model wrote a Read call as text/)
    expect(note).toMatch(/--jinja/)
    expect(note).toMatch(/agent-tui doctor/)
    expect(check.observe(reply('<tool_call>{"name": "Read", "arguments": {}}</tool_call>'))).toBeNull()
  })

  it('judges only the first tool-bearing reply: prose or a real call there settles it', () => {
    const written = '<tool_call>{"name": "Read", "arguments": {}}</tool_call>'
    const prose = createToolReplyCheck()
    // A request without tools says nothing about the server.
    expect(prose.observe(reply(written, 0, []))).toBeNull()
    expect(prose.observe(reply('All done.'))).toBeNull()
    // Later replies may quote markup the model read: not judged.
    expect(prose.observe(reply(written))).toBeNull()
    const real = createToolReplyCheck()
    expect(real.observe(reply('', 1))).toBeNull()
    expect(real.observe(reply(written))).toBeNull()
  })

  it('leaves a reply the text tool-call recovery reported on to its own notice', () => {
    const check = createToolReplyCheck()
    const recovered = {
      ...reply('<tool_call>{"name": "Nope", "arguments": {}}</tool_call>'),
      recoveryReported: true,
    }
    expect(check.observe(recovered)).toBeNull()
  })
})
