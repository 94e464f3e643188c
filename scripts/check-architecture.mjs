// Enforces the one-direction architecture (SPEC §3, EXEMPLARS §1) on the import graph of source/:
// - the folders form layers, and a folder imports only folders of lower layers (no upward arrow, no
//   arrow between siblings), and no files import each other in a circle;
// - only source/ui may use React/Ink, and Ink's Text only through ui/components/text.tsx (it cleans
//   what it shows); ui/ reaches the runtime only through the types of its commands (agent/commands.ts);
//   the store stays pure; tools never reach into the runtime or the UI;
// - a file stays under the line budget unless the list below says why it may not.
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// A folder to check instead of source/ (the script's own tests hand it a small tree).
const source = process.argv[2]
  ? resolve(process.argv[2])
  : join(dirname(fileURLToPath(import.meta.url)), '..', 'source')

/**
 * The layers, top first: a folder (or a file at the top of source/) may import from the layers below its
 * own, never from its own layer's other folders or from above. A new folder gets a place here.
 */
const LAYERS = [
  ['cli.ts'],
  ['wiring'],
  ['ui', 'headless'],
  ['agent'],
  ['checkpoints'],
  ['extensions', 'mcp'],
  ['config'],
  ['provenance'],
  ['tools'],
  ['engine', 'session'],
  ['tasks'],
  ['sandbox'],
  ['permissions', 'hooks'],
  ['store'],
  ['provider', 'util'],
]

/** Arrows against the layers that are known and on their way out: "from-folder -> to-folder": why. */
const KNOWN_UPWARD = {}

const LINE_BUDGET = 400

/** Files allowed past the budget, each with why it is not split. */
const LONG_FILES = {
  'permissions/shell-split.ts':
    'one single-pass tokenizer: quotes, substitutions and heredocs share one cursor and one word builder',
}

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (/\.tsx?$/.test(entry.name)) yield path
  }
}

// Static imports and re-exports (also spread over several lines), side-effect imports, import().
const importRe =
  /(?:^|\n)[ \t]*(import|export)\s+(type\s+)?(?:[^;'"`]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((name) => [name, i])))
const areaOf = (rel) => (rel.includes('/') ? rel.split('/')[0] : rel)
const problems = []
const files = new Map()
for await (const file of walk(source)) {
  const rel = relative(source, file).split('\\').join('/')
  files.set(rel, await readFile(file, 'utf8'))
}

/** `../agent/commands.js` from `ui/x.ts` → `agent/commands.ts` (the file that exists). */
function resolveImport(fromRel, spec) {
  const target = relative(source, resolve(join(source, dirname(fromRel)), spec))
    .split('\\')
    .join('/')
  const base = target.replace(/\.(js|jsx|ts|tsx)$/, '')
  return ['.ts', '.tsx', '/index.ts'].map((ext) => base + ext).find((c) => files.has(c)) ?? target
}

const graph = new Map()
const usedUpward = new Set()
for (const [rel, text] of files) {
  const area = areaOf(rel)
  const say = (spec, why) => problems.push(`${rel}: imports "${spec}" — ${why}`)
  if (!layerOf.has(area)) {
    problems.push(`${rel}: source/${area} has no place in LAYERS (scripts/check-architecture.mjs)`)
  }
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
  if (lines > LINE_BUDGET && !LONG_FILES[rel]) {
    problems.push(
      `${rel}: ${lines} lines — over the ${LINE_BUDGET}-line budget; split it (or say why not in LONG_FILES)`,
    )
  }
  // Every string a pane shows goes through cleanText: ui/ takes Ink's Text only through the wrapper that does.
  if (rel !== 'ui/components/text.tsx' && /import\s*\{[^}]*\bText\b[^}]*\}\s*from\s*['"]ink['"]/.test(text)) {
    problems.push(`${rel}: imports Text from "ink" — use ui/components/text.tsx, which cleans what it shows`)
  }
  const edges = new Set()
  for (const match of text.matchAll(importRe)) {
    const spec = match[3] ?? match[4]
    const typeOnly = Boolean(match[2])
    if (spec === 'react' || spec === 'ink' || spec.startsWith('ink-')) {
      if (area !== 'ui') say(spec, 'only source/ui may use React or Ink')
      continue
    }
    if (!spec.startsWith('.')) {
      if (area === 'store' && !typeOnly) say(spec, 'the store is pure: no I/O, no runtime modules')
      continue
    }
    const target = resolveImport(rel, spec)
    const targetArea = areaOf(target)
    edges.add(target)
    if (area === 'store' && targetArea !== 'store' && target !== 'provider/messages.ts') {
      say(
        spec,
        'the store is pure: it imports only its own files and the message shapes (provider/messages.ts)',
      )
    }
    if (area === 'ui' && targetArea === 'agent' && (target !== 'agent/commands.ts' || !typeOnly)) {
      say(
        spec,
        'ui/ reaches the runtime only through the types of its commands (`import type` from agent/commands.ts)',
      )
    }
    if (area === 'tools' && (targetArea === 'agent' || targetArea === 'ui')) {
      say(spec, 'tools never reach into the runtime or the UI')
    }
    if (targetArea === area || !layerOf.has(area) || !layerOf.has(targetArea)) continue
    if (layerOf.get(targetArea) <= layerOf.get(area)) {
      const pair = `${area} -> ${targetArea}`
      if (KNOWN_UPWARD[pair]) usedUpward.add(pair)
      else
        say(
          spec,
          layerOf.get(targetArea) === layerOf.get(area)
            ? `${area}/ and ${targetArea}/ are siblings in LAYERS and do not import each other`
            : `${targetArea}/ is above ${area}/ in LAYERS: an arrow may only point down`,
        )
    }
  }
  graph.set(rel, edges)
}

for (const pair of Object.keys(KNOWN_UPWARD)) {
  if (!usedUpward.has(pair)) problems.push(`KNOWN_UPWARD "${pair}" is no longer needed: remove it`)
}
for (const [rel, why] of Object.entries(LONG_FILES)) {
  const text = files.get(rel)
  const lines = text === undefined ? 0 : text.split('\n').length - 1
  if (lines <= LINE_BUDGET) problems.push(`LONG_FILES "${rel}" (${why}) is within the budget now: remove it`)
}
for (const circle of circles(graph)) {
  problems.push(`import circle: ${[...circle, circle[0]].join(' -> ')}`)
}

/** Files that import each other in a loop (strongly connected components larger than one file). */
function circles(edges) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  let next = 0
  const visit = (node) => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node), low.get(to)))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.reverse())
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return found
}

if (problems.length) {
  console.error(`architecture check failed:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exit(1)
}
console.log('architecture check: ok')
