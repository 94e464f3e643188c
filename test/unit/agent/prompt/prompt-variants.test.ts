/**
 * The compact system prompt and tool descriptions of small-window models: chosen by the profile, smaller
 * by a measured margin, byte-stable, and never applied to an MCP tool that shares a built-in's name.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { COMPACT_DESCRIPTIONS } from '../../../../source/agent/prompt/compact-tools.js'
import { buildSystemPrompt, type PromptContext } from '../../../../source/agent/prompt/system-prompt.js'
import { buildToolDefinitions, cachedDefinitions } from '../../../../source/agent/prompt/tool-definitions.js'
import { createCatalog } from '../../../../source/tools/catalog.js'
import { createListMcpResourcesTool } from '../../../../source/tools/list-mcp-resources.js'
import { createReadMcpResourceTool } from '../../../../source/tools/read-mcp-resource.js'
import type { AnyTool } from '../../../../source/tools/types.js'
import { resolveProfile } from '../../../../source/provider/model-profiles.js'
import { testReader } from '../../../support/instruction-reader.ts'

const catalog = createCatalog({ isReadOnlyCommand: () => false })
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

let dir: string
let ctx: PromptContext
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-variants-')))
  ctx = {
    workspace: dir,
    platform: 'linux x64',
    shell: 'bash',
    model: 'm',
    date: '2026-12-02',
    mode: 'safe',
    sandbox: { network: false },
    read: testReader(dir),
  }
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('compact tool descriptions', () => {
  it('name only tools of the build, and cover every one whose description is not the session’s own list', () => {
    const mcpCore = [
      createListMcpResourcesTool(undefined as never),
      createReadMcpResourceTool(undefined as never),
    ]
    // With the tools a session may add: SaveMemory (a memory reader) and apply_patch (a profile's).
    const every = createCatalog({
      isReadOnlyCommand: () => false,
      memory: testReader(),
      applyPatch: 'beside',
    })
    const names = [...every, ...mcpCore].map((t) => t.name)
    for (const name of Object.keys(COMPACT_DESCRIPTIONS)) expect(names).toContain(name)
    // Config lists this session's settings: it keeps its full description.
    expect(names.filter((n) => !(n in COMPACT_DESCRIPTIONS))).toEqual(['Config'])
  })

  it('are what the compact definitions carry, with the same parameters, and a third of the bytes or less', () => {
    const full = buildToolDefinitions(catalog)
    const compact = buildToolDefinitions(catalog, 'compact')
    expect(compact.map((d) => d.function.parameters)).toEqual(full.map((d) => d.function.parameters))
    expect(compact.find((d) => d.function.name === 'Read')?.function.description).toBe(
      COMPACT_DESCRIPTIONS.Read,
    )
    const descriptions = (defs: typeof full) =>
      defs.reduce((n, d) => n + Buffer.byteLength(d.function.description), 0)
    // Measured: the definitions of the catalog are 20,509 bytes full, 12,195 compact; the rest is the
    // parameter schemas, whose field descriptions stay (small models get the arguments wrong without them).
    expect(descriptions(compact)).toBeLessThan(descriptions(full) / 3)
    expect(bytes(compact)).toBeLessThan(bytes(full) * 0.65)
  })

  it('are byte-stable: the cached builder gives the very same definitions every time', () => {
    const build = cachedDefinitions('compact')
    const first = build(catalog)
    expect(build(catalog)[0]).toBe(first[0])
    expect(JSON.stringify(buildToolDefinitions(catalog, 'compact'))).toBe(JSON.stringify(first))
  })

  it('leave an MCP tool’s description alone, whatever its name', () => {
    const mcp = {
      ...catalog.find((t) => t.name === 'Read'),
      description: 'the server’s own words',
      parameters: { type: 'object', properties: {} },
      schema: z.object({}),
    } as unknown as AnyTool
    expect(buildToolDefinitions([mcp], 'compact')[0]?.function.description).toBe('the server’s own words')
  })
})

describe('the compact system prompt', () => {
  it('keeps the environment and the rules, in about half the bytes', async () => {
    const full = await buildSystemPrompt(ctx)
    const compact = await buildSystemPrompt({ ...ctx, variant: 'compact' })
    expect(compact).toContain(`Working directory: ${dir}`)
    expect(compact).toContain('never repeat a failing call')
    expect(compact).toContain('no network')
    // Measured: 1,515 bytes full, 765 compact (the environment block, the same in both, included).
    expect(Buffer.byteLength(compact)).toBeLessThan(Buffer.byteLength(full) * 0.55)
    expect(await buildSystemPrompt({ ...ctx, variant: 'compact' })).toBe(compact)
  })

  it('is the one a small window gets; the full one elsewhere (bytes per profile)', async () => {
    const rows: Array<[string, 'full' | 'compact']> = [
      ['llama3:8b', 'compact'],
      ['gemma2:9b', 'compact'],
      ['deepseek-coder:6.7b', 'compact'],
      ['qwen2.5-coder:7b', 'full'],
      ['llama3.1:8b', 'full'],
      ['gpt-oss:20b', 'full'],
      ['gpt-4o', 'full'],
    ]
    const measured: Record<string, number> = {}
    for (const [model, variant] of rows) {
      const profile = resolveProfile(model)
      expect(profile.promptVariant, model).toBe(variant)
      const prompt = await buildSystemPrompt({ ...ctx, model, variant: profile.promptVariant })
      const tools = buildToolDefinitions(catalog, profile.promptVariant)
      measured[model] = Buffer.byteLength(prompt) + bytes(tools)
      // What the first request costs before any message (~3.7k tokens compact, ~6.3k full): under half
      // of an 8k window for the compact profiles, where the full prompt and tools would take 75 %.
      if (variant === 'compact')
        expect(measured[model] / profile.charToTokenRatio, model).toBeLessThan(profile.contextLimit / 2)
    }
    expect(measured['llama3:8b']).toBeLessThan((measured['llama3.1:8b'] as number) * 0.65)
  })
})
