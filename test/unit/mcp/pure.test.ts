// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the MCP settings syntax under test, not a template
import { describe, expect, it } from 'vitest'
import { announce, signature } from '../../../source/mcp/announce.js'
import {
  base64Size,
  convertContent,
  formatResource,
  resourceText,
  toolResultText,
} from '../../../source/mcp/content.js'
import { displayToolName } from '../../../source/mcp/display-name.js'
import { expandAll, expandString } from '../../../source/mcp/expand-vars.js'
import { summarizeArguments, toolDescription, toolParameters } from '../../../source/mcp/mcp-tool.js'
import { exposedToolName, sanitizeName, serverKeys } from '../../../source/mcp/names.js'
import { parseRule, ruleCoversTool } from '../../../source/permissions/rules.js'
import { ToolRoutes } from '../../../source/mcp/routes.js'
import { promptArguments, promptCommand, promptText, promptUsage } from '../../../source/mcp/prompts.js'

const env = { TOKEN: 'abc', EMPTY: '', HOME: '/home/u' }

describe('expandString', () => {
  it.each([
    ['plain', 'npx server', 'npx server', []],
    ['set', 'Bearer ${TOKEN}', 'Bearer abc', []],
    ['default unused', '${TOKEN:-zzz}', 'abc', []],
    ['default used', '${MISSING:-https://x}/mcp', 'https://x/mcp', []],
    ['empty counts as unset', '${EMPTY:-d}', 'd', []],
    ['missing', 'a ${MISSING} b ${ALSO}', 'a  b ', ['MISSING', 'ALSO']],
    ['not a reference', '$TOKEN and ${1X}', '$TOKEN and ${1X}', []],
  ])('%s', (_name, text, value, missing) => {
    expect(expandString(text, env)).toEqual({ value, missing })
  })

  it('expands lists and records, collecting what is missing', () => {
    expect(expandAll(['${HOME}/x', '${NOPE}'], env)).toEqual({ value: ['/home/u/x', ''], missing: ['NOPE'] })
    expect(expandAll({ A: '${TOKEN}' }, env)).toEqual({ value: { A: 'abc' }, missing: [] })
  })
})

describe('names', () => {
  it.each([
    ['github', 'github'],
    ['my server', 'my_server'],
    ['a.b/c', 'a_b_c'],
    ['', '_'],
  ])('sanitizeName(%j) = %j', (name, key) => {
    expect(sanitizeName(name)).toBe(key)
  })

  it('exposed names: mcp__server__tool, sanitized, unique, at most 64 characters', () => {
    expect(exposedToolName('github', 'create_issue', new Set())).toBe('mcp__github__create_issue')
    expect(exposedToolName('fs', 'read.file', new Set())).toBe('mcp__fs__read_file')
    expect(exposedToolName('fs', 'read.file', new Set(['mcp__fs__read_file']))).toBe('mcp__fs__read_file_2')
    const long = exposedToolName('server', 'x'.repeat(80), new Set())
    expect(long).toHaveLength(64)
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{6}$/)
    // Two long names that share a prefix stay apart.
    expect(exposedToolName('server', `${'x'.repeat(80)}y`, new Set())).not.toBe(long)
  })

  it('server keys are unique when names sanitize alike', () => {
    expect([...serverKeys(['a b', 'a_b', 'c']).values()]).toEqual(['a_b', 'a_b_2', 'c'])
  })

  it('a server key never holds `__` nor ends in `_`: `mcp__<server>__` names exactly one server', () => {
    expect([...serverKeys(['github__evil', 'a_', '__x', 'b___c']).values()]).toEqual([
      'github_evil',
      'a',
      'x',
      'b_c',
    ])
    // So `mcp__github__*` (all of the GitHub server's tools) does not reach a server named `github__evil`.
    const rule = parseRule('mcp__github__*')
    const key = serverKeys(['github__evil']).get('github__evil') ?? ''
    expect(ruleCoversTool(rule, exposedToolName(key, 'delete_repo', new Set()))).toBe(false)
    expect(ruleCoversTool(rule, exposedToolName('github', 'delete_repo', new Set()))).toBe(true)
    // The routing table the session uses names servers the same way.
    const routes = new ToolRoutes(() => [])
    expect(routes.keyOf('github__evil')).toBe('github_evil')
    expect(routes.keyOf('github')).toBe('github')
  })

  it.each([
    ['mcp__github__create_issue', 'github › create_issue'],
    ['mcp__a__b__c', 'a › b__c'],
    ['Bash', 'Bash'],
  ])('displayToolName(%j)', (name, shown) => {
    expect(displayToolName(name)).toBe(shown)
  })
})

describe('MCP tool definitions', () => {
  it('parameters: the server schema without $schema, always an object with properties', () => {
    expect(
      toolParameters({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        required: ['a'],
        properties: { a: { type: 'string' } },
      }),
    ).toEqual({ type: 'object', required: ['a'], properties: { a: { type: 'string' } } })
    expect(toolParameters({ type: 'object' })).toEqual({ type: 'object', properties: {} })
  })

  it('descriptions are capped and never empty', () => {
    const info = { name: 't', description: '', inputSchema: {}, readOnly: true }
    expect(toolDescription('srv', info)).toBe('Tool t of the MCP server srv.')
    expect(toolDescription('srv', { ...info, description: 'd'.repeat(5000) })).toHaveLength(2048)
  })

  it('argument summaries stay on one short line', () => {
    expect(summarizeArguments({ path: 'a.txt', tail: 5 })).toBe('path: "a.txt", tail: 5')
    expect(summarizeArguments({ text: 'x'.repeat(100) })).toMatch(/^text: "x+…$/)
  })
})

describe('announce', () => {
  const tool = (name: string, description = 'd') => ({
    name: `mcp__s__${name}`,
    server: 's',
    description,
    parameters: { type: 'object', properties: {} },
  })

  it('nothing new → null', () => {
    const offered = new Map([[tool('a').name, signature(tool('a'))]])
    expect(announce(offered, [tool('a')], [])).toBeNull()
  })

  it('new and changed tools are described with their schemas; removed ones withdrawn', () => {
    const offered = new Map([
      [tool('a').name, signature(tool('a'))],
      [tool('gone').name, signature(tool('gone'))],
    ])
    const news = announce(
      offered,
      [tool('a', 'changed'), tool('b')],
      ['mcp__s__gone', 'mcp__s__never_offered'],
    )
    expect(news?.text).toContain('- mcp__s__a (server s): changed')
    expect(news?.text).toContain('- mcp__s__b (server s): d\n  parameters: {"type":"object","properties":{}}')
    expect(news?.text).toContain('no longer available; do not call them: mcp__s__gone')
    expect(news?.text).not.toContain('never_offered')
    expect(news?.note).toBe('MCP: 2 tools of s announced to the model; MCP: 1 tool withdrawn (mcp__s__gone)')
    expect([...(news?.offered.keys() ?? [])].sort()).toEqual(['mcp__s__a', 'mcp__s__b'])
  })
})

describe('content', () => {
  const png = Buffer.from('png-bytes').toString('base64')

  it('text, images (vision or not), audio, links and embedded resources', () => {
    const blocks = [
      { type: 'text', text: 'hello' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: png, mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a', name: 'a', mimeType: 'text/plain' },
      { type: 'resource', resource: { uri: 'x://t', text: 'inner' } },
      { type: 'resource', resource: { uri: 'x://b', mimeType: 'application/zip', blob: png } },
    ]
    const seeing = convertContent(blocks, true)
    expect(seeing.images).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }])
    expect(seeing.text.split('\n')).toEqual([
      'hello',
      '[image 1: image/png, 9 bytes; it follows]',
      '[audio: audio/wav, 9 bytes; not available as text]',
      '[resource file:///a (a, text/plain); read it with ReadMcpResource]',
      '<resource uri="x://t">',
      'inner',
      '</resource>',
      '[binary resource x://b: application/zip, 9 bytes; not shown as text]',
    ])
    const blind = convertContent(blocks.slice(1, 2), false)
    expect(blind).toEqual({
      text: '[image: image/png, 9 bytes; the current model cannot see images]',
      images: [],
    })
  })

  it('structured content stands in when a result has no text', () => {
    expect(toolResultText({ content: [], structuredContent: { a: 1 } }, false).text).toBe('{\n  "a": 1\n}')
    expect(
      toolResultText({ content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } }, false).text,
    ).toBe('x')
  })

  it('resources: text as is, blobs as a note; several parts under their URIs', () => {
    expect(resourceText({ uri: 'u', text: 'hi' })).toBe('hi')
    expect(base64Size('YWJj')).toBe(3)
    expect(base64Size('YWI=')).toBe(2)
    expect(formatResource('u', { contents: [{ uri: 'u', text: 'one' }] })).toBe('one')
    expect(
      formatResource('u', {
        contents: [
          { uri: 'u/a', text: 'a' },
          { uri: 'u/b', mimeType: 'text/x', text: 'b' },
        ],
      }),
    ).toBe('--- u/a\na\n\n--- u/b (text/x)\nb')
    expect(formatResource('u', { contents: [] })).toBe('(empty resource)')
  })
})

describe('prompts as slash commands', () => {
  const prompt = {
    name: 'review.code',
    arguments: [
      { name: 'file', required: true },
      { name: 'focus', required: false },
    ],
  }
  const command = promptCommand('docs', prompt.name)

  it('command and usage', () => {
    expect(command).toBe('mcp__docs__review_code')
    expect(promptUsage(command, prompt)).toBe('/mcp__docs__review_code <file> [focus]')
  })

  it.each([
    [
      'positional, the last takes the rest',
      'a.ts the error handling',
      { file: 'a.ts', focus: 'the error handling' },
    ],
    ['quoted', '"my file.ts" x', { file: 'my file.ts', focus: 'x' }],
    ['named', 'focus=speed file=b.ts', { file: 'b.ts', focus: 'speed' }],
    ['optional left out', 'c.ts', { file: 'c.ts' }],
  ])('%s', (_name, text, args) => {
    expect(promptArguments(command, prompt, text)).toEqual(args)
  })

  it('a missing required argument names it and the usage', () => {
    expect(() => promptArguments(command, prompt, '')).toThrow(
      'file is required — usage: /mcp__docs__review_code <file> [focus]',
    )
  })

  it("the prompt's messages become one user message", () => {
    expect(promptText([{ role: 'user', content: { type: 'text', text: 'Do it.' } }], false)).toEqual({
      text: 'Do it.',
      images: [],
    })
    expect(
      promptText(
        [
          { role: 'user', content: { type: 'text', text: 'Q' } },
          { role: 'assistant', content: [{ type: 'text', text: 'A' }] },
        ],
        false,
      ).text,
    ).toBe('[user]\nQ\n\n[assistant]\nA')
  })
})
